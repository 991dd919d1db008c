//! Byte-addressed memory of the interpreter: regions in three arenas, bounds and lifetime
//! checks, and the memory digest.
//!
//! Layout. Every allocation (a global, an `alloca`, a heap block) is a region with a base
//! address and a size. Regions are carved from three arenas by a bump pointer that never
//! moves back: globals from [`GLOBAL_BASE`], heap from [`HEAP_BASE`], stack from
//! [`STACK_BASE`]. Each base is aligned to the requested alignment (a power of two, at most
//! 4096) and followed by a guard gap of [`GUARD`] bytes, so small overruns land outside
//! every region. Addresses below [`NULL_PAGE`] are the null page. Function symbols and block
//! addresses live in reserved ranges far above every arena (see `exec`), so they are never
//! inside a region.
//!
//! Index. A `BTreeMap` from base to region finds the region of an address in O(log n) (the
//! greatest base `<=` the address). Freed regions stay in the index without their bytes,
//! marked dead, and are merged with freed neighbours of the same arena, so the index holds
//! at most about twice the number of live regions; an access to a freed region is
//! [`Fault::UseAfterFree`], not an out-of-bounds access.
//!
//! Invariants: a live region's `bytes.len() == size`; live bytes total at most the limit;
//! an access of `n > 0` bytes at `addr` succeeds iff `[addr, addr + n)` lies inside one live
//! region (and, for writes, the region is not a constant global). Uninitialised memory reads
//! as zero. Accesses of zero bytes are always allowed.

use std::collections::BTreeMap;

use crate::ir::{Inst, Symbol};

/// Addresses below this are the null page (every access is [`Fault::NullDeref`]).
pub const NULL_PAGE: u64 = 4096;
/// First address of the globals arena.
pub const GLOBAL_BASE: u64 = 0x1000_0000;
/// First address of the heap arena.
pub const HEAP_BASE: u64 = 0x5000_0000_0000;
/// First address of the stack arena.
pub const STACK_BASE: u64 = 0x7000_0000_0000;
/// Bytes left unallocated after every region.
pub const GUARD: u64 = 256;
/// Every arena spans this many bytes of address space.
const ARENA_SPAN: u64 = 0x1000_0000_0000;

/// A memory error before it is given a location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Access to the null page.
    NullDeref {
        /// The address.
        addr: u64,
    },
    /// Access not inside one live region.
    OutOfBounds {
        /// The address.
        addr: u64,
        /// Access size in bytes.
        size: u64,
    },
    /// Access to a freed region.
    UseAfterFree {
        /// The address.
        addr: u64,
    },
    /// Write to a constant global.
    WriteToConstant {
        /// The address.
        addr: u64,
    },
    /// Read of a region whose initial contents are unknown (a global whose initialiser the
    /// importer could not evaluate: see [`Memory::mark_unknown`]).
    UnknownContents {
        /// The address.
        addr: u64,
    },
    /// `free`/`realloc` of an address that is not the base of a live heap region.
    InvalidFree {
        /// The address.
        addr: u64,
    },
    /// Live bytes would exceed the limit, or an arena's address space is exhausted.
    MemoryLimit {
        /// Bytes requested.
        requested: u64,
    },
}

/// Which arena a region belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Arena {
    /// Globals.
    Global = 0,
    /// Heap (`malloc` and friends).
    Heap = 1,
    /// Stack (`alloca`).
    Stack = 2,
}

/// What a region was allocated for (names pointers in the external-call trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// A global variable.
    Global(Symbol),
    /// The `n`th heap allocation of the run.
    Heap(u64),
    /// An `alloca` instruction of module function `func`.
    Stack {
        /// Index of the function in `Module::functions`.
        func: u32,
        /// The alloca.
        inst: Inst,
    },
}

#[derive(Clone, Debug)]
struct Region {
    size: u64,
    bytes: Vec<u8>,
    live: bool,
    readonly: bool,
    /// Its initial contents are unknown: reads fault ([`Fault::UnknownContents`]).
    unknown: bool,
    arena: Arena,
    label: Label,
}

/// The whole memory of one run (see the module doc).
#[derive(Clone, Debug)]
pub struct Memory {
    regions: BTreeMap<u64, Region>,
    bump: [u64; 3],
    live_bytes: u64,
    limit: u64,
    heap_count: u64,
}

const ARENA_BASE: [u64; 3] = [GLOBAL_BASE, HEAP_BASE, STACK_BASE];

impl Memory {
    /// Empty memory with a limit on live bytes (capped at 1 TiB).
    pub fn new(limit: u64) -> Self {
        Memory {
            regions: BTreeMap::new(),
            bump: ARENA_BASE,
            live_bytes: 0,
            limit: limit.min(1 << 40),
            heap_count: 0,
        }
    }

    /// Allocates `size` zeroed bytes aligned to `align` in `arena`; returns the base.
    /// Heap labels are assigned here, in allocation order (pass any `Label::Heap`).
    pub fn allocate(
        &mut self,
        arena: Arena,
        size: u64,
        align: u64,
        label: Label,
        readonly: bool,
    ) -> Result<u64, Fault> {
        let oom = Fault::MemoryLimit { requested: size };
        if size > self.limit - self.live_bytes {
            return Err(oom);
        }
        let align = align.clamp(1, 4096).next_power_of_two();
        let a = arena as usize;
        let base = self.bump[a].div_ceil(align) * align;
        let end = base + size + GUARD;
        if end > ARENA_BASE[a] + ARENA_SPAN {
            return Err(oom);
        }
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(size as usize).map_err(|_| oom)?;
        bytes.resize(size as usize, 0);
        let label = match label {
            Label::Heap(_) => {
                self.heap_count += 1;
                Label::Heap(self.heap_count - 1)
            }
            l => l,
        };
        self.bump[a] = end;
        self.live_bytes += size;
        self.regions.insert(
            base,
            Region {
                size,
                bytes,
                live: true,
                readonly,
                unknown: false,
                arena,
                label,
            },
        );
        Ok(base)
    }

    /// Frees the live region whose base is `base`; with `heap_only`, only heap regions may be
    /// freed (`free`). Errors with [`Fault::InvalidFree`] otherwise.
    pub fn free(&mut self, base: u64, heap_only: bool) -> Result<(), Fault> {
        let ok = matches!(self.regions.get(&base),
            Some(r) if r.live && (!heap_only || r.arena == Arena::Heap));
        if !ok {
            return Err(Fault::InvalidFree { addr: base });
        }
        let Some(mut r) = self.regions.remove(&base) else {
            return Err(Fault::InvalidFree { addr: base });
        };
        self.live_bytes -= r.size;
        r.live = false;
        r.bytes = Vec::new();
        let (mut base, mut end) = (base, base + r.size.max(1));
        // Merge with a freed predecessor and successor of the same arena.
        if let Some((&pb, p)) = self.regions.range(..base).next_back() {
            if !p.live && p.arena == r.arena {
                base = pb;
                r.label = p.label;
            }
        }
        if let Some((&nb, n)) = self.regions.range(end..).next() {
            if !n.live && n.arena == r.arena && nb - end <= GUARD + 4096 {
                end = nb + n.size;
                self.regions.remove(&nb);
            }
        }
        r.size = end - base;
        self.regions.insert(base, r);
        Ok(())
    }

    fn find(&self, addr: u64, size: u64) -> Result<(u64, &Region), Fault> {
        if addr < NULL_PAGE {
            return Err(Fault::NullDeref { addr });
        }
        let oob = Fault::OutOfBounds { addr, size };
        let (&base, r) = self.regions.range(..=addr).next_back().ok_or(oob.clone())?;
        let off = addr - base;
        if off >= r.size.max(1) {
            return Err(oob);
        }
        if !r.live {
            return Err(Fault::UseAfterFree { addr });
        }
        if size > r.size - off.min(r.size) {
            return Err(oob);
        }
        Ok((base, r))
    }

    /// Checks that `[addr, addr + size)` is readable.
    pub fn check(&self, addr: u64, size: u64) -> Result<(), Fault> {
        if size == 0 {
            return Ok(());
        }
        self.find(addr, size).map(|_| ())
    }

    /// Marks the live region whose base is `base` as holding unknown contents: every later
    /// read of it faults with [`Fault::UnknownContents`] (writes still succeed). Returns
    /// whether such a region exists.
    pub fn mark_unknown(&mut self, base: u64) -> bool {
        match self.regions.get_mut(&base) {
            Some(r) if r.live => {
                r.unknown = true;
                true
            }
            _ => false,
        }
    }

    /// The `size` bytes at `addr`.
    pub fn read(&self, addr: u64, size: u64) -> Result<&[u8], Fault> {
        if size == 0 {
            return Ok(&[]);
        }
        let (base, r) = self.find(addr, size)?;
        if r.unknown {
            return Err(Fault::UnknownContents { addr });
        }
        let off = (addr - base) as usize;
        Ok(&r.bytes[off..off + size as usize])
    }

    /// Mutable access to the `size` bytes at `addr` (fails on constant globals).
    pub fn write(&mut self, addr: u64, size: u64) -> Result<&mut [u8], Fault> {
        if size == 0 {
            return Ok(&mut []);
        }
        let (base, r) = self.find(addr, size)?;
        if r.readonly {
            return Err(Fault::WriteToConstant { addr });
        }
        let off = (addr - base) as usize;
        match self.regions.get_mut(&base) {
            Some(r) => Ok(&mut r.bytes[off..off + size as usize]),
            None => Err(Fault::OutOfBounds { addr, size }),
        }
    }

    /// Writes ignoring the read-only flag (initialisation of constant globals).
    pub fn init_write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let (base, _) = self.find(addr, data.len() as u64)?;
        let off = (addr - base) as usize;
        if let Some(r) = self.regions.get_mut(&base) {
            r.bytes[off..off + data.len()].copy_from_slice(data);
        }
        Ok(())
    }

    /// Copies `n` bytes from `src` to `dst`; overlapping ranges behave like `memmove`.
    pub fn copy(&mut self, dst: u64, src: u64, n: u64) -> Result<(), Fault> {
        let data = self.read(src, n)?.to_vec();
        self.write(dst, n)?.copy_from_slice(&data);
        Ok(())
    }

    /// The NUL-terminated string at `addr` (without the NUL); it must end inside its region.
    pub fn c_string(&self, addr: u64) -> Result<&[u8], Fault> {
        let (base, r) = self.find(addr, 1)?;
        if r.unknown {
            return Err(Fault::UnknownContents { addr });
        }
        let rest = &r.bytes[(addr - base) as usize..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => Ok(&rest[..n]),
            None => Err(Fault::OutOfBounds {
                addr,
                size: rest.len() as u64 + 1,
            }),
        }
    }

    /// Size of the live heap region starting exactly at `addr`.
    pub fn heap_size(&self, addr: u64) -> Option<u64> {
        self.regions
            .get(&addr)
            .filter(|r| r.live && r.arena == Arena::Heap)
            .map(|r| r.size)
    }

    /// The region containing `addr` (live or freed): its label, offset and liveness.
    pub fn describe(&self, addr: u64) -> Option<(Label, u64, bool)> {
        let (&base, r) = self.regions.range(..=addr).next_back()?;
        let off = addr - base;
        // One past the end still names the region (C allows forming that pointer).
        (off <= r.size).then_some((r.label, off, r.live))
    }

    /// FNV-1a 64 over the bytes of the regions at `global_bases` (in the given order) and
    /// then every live heap region's size and bytes in allocation order.
    pub fn digest(&self, global_bases: &[u64]) -> u64 {
        let mut h = Fnv::new();
        for b in global_bases {
            if let Some(r) = self.regions.get(b) {
                h.write(&r.bytes);
            }
        }
        for r in self
            .regions
            .range(HEAP_BASE..HEAP_BASE + ARENA_SPAN)
            .map(|(_, r)| r)
        {
            if r.live {
                h.write(&r.size.to_le_bytes());
                h.write(&r.bytes);
            }
        }
        h.0
    }

    /// Live bytes in all arenas.
    pub fn live_bytes(&self) -> u64 {
        self.live_bytes
    }
}

/// The 64-bit FNV-1a hash.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, data: &[u8]) {
        for &b in data {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heap() -> Label {
        Label::Heap(0)
    }

    #[test]
    fn bounds_and_lifetime() {
        let mut m = Memory::new(1 << 20);
        let a = m.allocate(Arena::Heap, 8, 8, heap(), false).unwrap();
        assert!(a >= HEAP_BASE && a.is_multiple_of(8));
        m.write(a, 8).unwrap().copy_from_slice(&[1; 8]);
        assert_eq!(m.read(a + 4, 4).unwrap(), &[1; 4]);
        assert_eq!(
            m.read(a + 5, 4),
            Err(Fault::OutOfBounds {
                addr: a + 5,
                size: 4
            })
        );
        assert_eq!(
            m.read(a + 8, 1),
            Err(Fault::OutOfBounds {
                addr: a + 8,
                size: 1
            })
        );
        assert_eq!(
            m.read(a - 1, 1),
            Err(Fault::OutOfBounds {
                addr: a - 1,
                size: 1
            })
        );
        assert_eq!(m.read(8, 1), Err(Fault::NullDeref { addr: 8 }));
        assert_eq!(
            m.read(u64::MAX, 8),
            Err(Fault::OutOfBounds {
                addr: u64::MAX,
                size: 8
            })
        );
        let b = m.allocate(Arena::Heap, 16, 16, heap(), false).unwrap();
        assert!(b >= a + 8 + GUARD);
        m.free(a, true).unwrap();
        assert_eq!(m.read(a, 1), Err(Fault::UseAfterFree { addr: a }));
        assert_eq!(m.free(a, true), Err(Fault::InvalidFree { addr: a }));
        m.free(b, true).unwrap();
        assert_eq!(m.read(b + 3, 1), Err(Fault::UseAfterFree { addr: b + 3 }));
        assert_eq!(m.read(a + 3, 1), Err(Fault::UseAfterFree { addr: a + 3 }));
        assert_eq!(m.live_bytes(), 0);
        assert_eq!(m.regions.len(), 1, "adjacent freed regions merge");
    }

    #[test]
    fn limit_and_readonly() {
        let mut m = Memory::new(100);
        assert!(m.allocate(Arena::Heap, 101, 1, heap(), false).is_err());
        let g = m
            .allocate(Arena::Global, 4, 4, Label::Global(Symbol(0)), true)
            .unwrap();
        m.init_write(g, &[b'h', b'i', 0]).unwrap();
        assert_eq!(m.c_string(g).unwrap(), b"hi");
        assert_eq!(
            m.write(g, 1).err(),
            Some(Fault::WriteToConstant { addr: g })
        );
        assert!(m.free(g, true).is_err());
    }

    #[test]
    fn reads_of_unknown_contents_fault_and_writes_do_not() {
        let mut m = Memory::new(1 << 20);
        let g = m
            .allocate(Arena::Global, 8, 8, Label::Global(Symbol(0)), false)
            .unwrap();
        let other = m
            .allocate(Arena::Global, 8, 8, Label::Global(Symbol(1)), false)
            .unwrap();
        assert!(m.mark_unknown(g));
        assert!(!m.mark_unknown(g + 1), "only a region's base names it");
        let unknown = Fault::UnknownContents { addr: g + 2 };
        assert_eq!(m.read(g + 2, 4), Err(unknown.clone()));
        assert_eq!(m.c_string(g + 2), Err(unknown));
        assert!(m.write(g, 8).is_ok());
        assert!(m.copy(other, g, 4).is_err(), "copying out of it reads it");
        assert!(m.copy(g, other, 4).is_ok(), "copying into it writes it");
        assert_eq!(m.read(other, 8).unwrap(), &[0; 8]);
    }

    #[test]
    fn digest_sees_heap_contents() {
        let mut m = Memory::new(1 << 20);
        let a = m.allocate(Arena::Heap, 4, 4, heap(), false).unwrap();
        let d0 = m.digest(&[]);
        m.write(a, 1).unwrap()[0] = 7;
        assert_ne!(d0, m.digest(&[]));
        let s = m.allocate(
            Arena::Stack,
            4,
            4,
            Label::Stack {
                func: 0,
                inst: Inst(0),
            },
            false,
        );
        m.write(s.unwrap(), 1).unwrap()[0] = 9;
        let d1 = m.digest(&[]);
        m.write(a, 1).unwrap()[0] = 0;
        assert_eq!(d0, m.digest(&[]));
        assert_ne!(d0, d1);
    }
}
