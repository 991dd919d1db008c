//! Generators of random CFG shapes, functions and modules that are valid by construction.
//!
//! What: [`cfg_shape`] draws a successor list per block (duplicates, back edges, edges into
//! the entry, irreducible regions, unreachable blocks). [`function`] turns a shape into a
//! memory-form [`Function`] through the [`FunctionBuilder`]: `i32`/`i64` parameters, allocas
//! in the entry (promotable locals, locals whose address goes through a `gep`, volatile
//! locals, locals accessed through address slots, alone or chained; some hold a `{ i32, i64 }` aggregate, built with `insertvalue` and read back with
//! `extractvalue`) and sometimes in other blocks, loads and stores, UB-free integer arithmetic,
//! `icmp`, `select`, casts, direct calls (in [`module`]) and `jump`/`br`/`switch`/`ret`
//! terminators that follow the shape. [`seeded`] makes the same from a `u64` seed.
//!
//! Termination: every block first decrements a step counter held in an entry alloca
//! (`done = counter <= 0`). Each block knows its distance to a returning block over edges
//! that do not enter the entry block (the shape is patched with edges to an extra exit block
//! where no such path exists), and once `done` holds, every branch takes a successor that is
//! strictly closer, so each call runs at most `step_budget + blocks` blocks.
//!
//! Entry as loop header: re-running the entry would re-run its allocas and reset the
//! counter, so an edge into the entry block is kept in the CFG but guarded by a condition
//! that is never true at run time (`counter == 0x8000_0123`, which the counter never reaches
//! and constant propagation cannot prove). Analyses and mem2reg see a true loop header;
//! execution stays finite.
//!
//! Validity (memory form): an operand is a parameter, a constant, or a value defined earlier
//! in the same block; entry allocas dominate every reachable block. Division is `udiv`/`urem`
//! by `x | 1`; shift amounts are masked to `width - 1`. No recursion: [`module`] lets a
//! function call only functions generated before it.
//!
//! Complexity: O(blocks * max_insts_per_block) per function.

use crate::ir::{
    BinaryOp, Block, CastOp, ConstData, ConstKind, FunctionBuilder, InstKind, IntPredicate,
    ModuleBuilder, Operand, Signature, Symbol, Type, Value,
};
use crate::ir::{Function, Module};
use arbitrary::{Result, Unstructured};

/// Limits for [`function`] and [`module`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// Maximum number of shape blocks (one extra exit block may be added). At least 1.
    pub max_blocks: usize,
    /// Maximum number of body operations per block (besides the step counter and terminator).
    pub max_insts_per_block: usize,
    /// Allow edges into the entry block (statically present, never taken at run time).
    pub allow_entry_loop: bool,
    /// Maximum number of parameters.
    pub max_params: usize,
    /// Maximum number of entry-block locals.
    pub max_locals: usize,
    /// Steps (blocks entered) before every branch heads for a return.
    pub step_budget: u32,
    /// Maximum number of functions in [`module`].
    pub max_functions: usize,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            max_blocks: 12,
            max_insts_per_block: 8,
            allow_entry_loop: true,
            max_params: 3,
            max_locals: 4,
            step_budget: 64,
            max_functions: 3,
        }
    }
}

/// Counter value never reached: guards edges into the entry block.
const NEVER: i128 = 0x8000_0123u32 as i128;
/// Switch value matching no case (selects the default successor).
const NO_CASE: u128 = 0x7fff_0000;
/// Case values of switch successors that must never be taken start here.
const DEAD_CASE_BASE: u128 = 0x4000_0000;

/// A random successor list per block: `result[b]` lists the successors of block `b` (0 to 3,
/// duplicates allowed), with back edges, self loops, edges into block 0 and unreachable
/// blocks. Between 1 and `max_blocks` blocks.
pub fn cfg_shape(u: &mut Unstructured, max_blocks: usize) -> Result<Vec<Vec<usize>>> {
    let n = u.int_in_range(1..=max_blocks.max(1))?;
    let mut shape = Vec::with_capacity(n);
    for b in 0..n {
        let k = match u.int_in_range(0u8..=19)? {
            0..=1 => 0,
            2..=8 => 1,
            9..=17 => 2,
            _ => 3,
        };
        let mut succs = Vec::with_capacity(k);
        for _ in 0..k {
            let s = match u.int_in_range(0u8..=7)? {
                0..=3 if b + 1 < n => b + 1,
                0..=5 => u.int_in_range(0..=n - 1)?,
                _ => u.int_in_range(0..=b)?,
            };
            succs.push(s);
        }
        shape.push(succs);
    }
    Ok(shape)
}

/// A random signature: 0 to `max_params` `i32`/`i64` parameters, `i32` or `i64` result.
fn signature(u: &mut Unstructured, opts: &GenOptions) -> Result<Signature> {
    let np = u.int_in_range(0..=opts.max_params)?;
    let mut params = Vec::with_capacity(np);
    for _ in 0..np {
        params.push(int_type(u)?);
    }
    Ok(Signature {
        params,
        ret: int_type(u)?,
        varargs: false,
    })
}

/// The aggregate type of generated aggregate locals.
fn pair_type() -> Type {
    Type::struct_of(&[Type::I32, Type::I64]).unwrap_or(Type::I64)
}

fn int_type(u: &mut Unstructured) -> Result<Type> {
    Ok(if u.arbitrary::<bool>()? {
        Type::I64
    } else {
        Type::I32
    })
}

/// A valid memory-form function (see the module doc) named `f` with a random signature.
pub fn function(u: &mut Unstructured, opts: &GenOptions) -> Result<Function> {
    let sig = signature(u, opts)?;
    body(u, opts, "f", sig, &[])
}

/// A module of 1 to `max_functions` generated functions `f0`, `f1`, ...; each may call the
/// functions before it (no recursion).
pub fn module(u: &mut Unstructured, opts: &GenOptions) -> Result<Module> {
    let mut mb = ModuleBuilder::new();
    let nf = u.int_in_range(1..=opts.max_functions.max(1))?;
    let mut callees: Vec<(Symbol, Signature)> = Vec::new();
    for k in 0..nf {
        let name = format!("f{k}");
        let sig = signature(u, opts)?;
        let sym = mb
            .declare_function(&name, sig.clone())
            .expect("generated names are unique");
        let f = body(u, opts, &name, sig.clone(), &callees)?;
        mb.define_function(f);
        callees.push((sym, sig));
    }
    Ok(mb.finish())
}

/// A deterministic function from `seed` (xorshift64* bytes fed to [`function`]); for
/// benchmarks and soak tests.
pub fn seeded(seed: u64, opts: &GenOptions) -> Function {
    let bytes = seed_bytes(
        seed,
        64 + 96 * opts.max_blocks * (opts.max_insts_per_block + 4),
    );
    let mut u = Unstructured::new(&bytes);
    function(&mut u, opts).expect("the generator accepts any byte string")
}

/// `len` pseudo-random bytes from `seed` (xorshift64*).
pub fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
    if x == 0 {
        x = 1;
    }
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        out.extend_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Patches `shape` so that generated code terminates; returns per-block distances to a
/// return over edges not entering block 0. `exit` is the index of the extra exit block.
pub(crate) fn patch_shape(
    shape: &mut [Vec<usize>],
    exit: usize,
    allow_entry_loop: bool,
) -> Vec<u32> {
    if !allow_entry_loop {
        for succs in shape.iter_mut() {
            for s in succs.iter_mut() {
                if *s == 0 {
                    *s = exit;
                }
            }
        }
    }
    let mut dist = distances(shape, exit);
    let mut patched = false;
    for (b, succs) in shape.iter_mut().enumerate() {
        if dist[b] == u32::MAX {
            let last = succs.len() - 1; // a block without successors has distance 0
            succs[last] = exit;
            patched = true;
        }
    }
    if patched {
        dist = distances(shape, exit);
    }
    // A switch's default must be live at run time: move a non-entry target there.
    for succs in shape.iter_mut() {
        if succs.len() >= 3 && succs[0] == 0 {
            if let Some(i) = succs.iter().position(|&s| s != 0) {
                succs.swap(0, i);
            }
        }
    }
    dist
}

/// Backward BFS from returning blocks over edges that do not enter block 0.
fn distances(shape: &[Vec<usize>], exit: usize) -> Vec<u32> {
    let n = shape.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); exit + 1];
    for (b, succs) in shape.iter().enumerate() {
        for &s in succs {
            if s != 0 {
                preds[s].push(b);
            }
        }
    }
    let mut dist = vec![u32::MAX; exit + 1];
    let mut queue = std::collections::VecDeque::new();
    dist[exit] = 0;
    queue.push_back(exit);
    for (b, succs) in shape.iter().enumerate().take(n) {
        if succs.is_empty() {
            dist[b] = 0;
            queue.push_back(b);
        }
    }
    while let Some(s) = queue.pop_front() {
        for &p in &preds[s] {
            if dist[p] == u32::MAX {
                dist[p] = dist[s] + 1;
                queue.push_back(p);
            }
        }
    }
    dist
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Plain loads and stores of the alloca: promotable.
    Plain,
    /// Accessed through a `gep` of the alloca: the address escapes.
    ViaGep(Value),
    /// Volatile loads and stores.
    Volatile,
    /// Through an address slot (a `ptr` alloca holding the local's address, stored once in
    /// the entry), as clang -O0 leaves an inlined `always_inline` helper's pointer
    /// parameter: each access first loads the address from the slot. mem2reg forwards the
    /// slot and then promotes the local (LLVM's second promotion round).
    ViaSlot(Value),
}

#[derive(Clone, Copy)]
struct Local {
    ptr: Value,
    ty: Type,
    access: Access,
}

struct Gen<'u, 'a, 'c> {
    u: &'u mut Unstructured<'a>,
    b: FunctionBuilder,
    locals: Vec<Local>,
    callees: &'c [(Symbol, Signature)],
    params: Vec<(Operand, Type)>,
    i32s: Vec<Operand>,
    i64s: Vec<Operand>,
    i1s: Vec<Operand>,
}

impl Gen<'_, '_, '_> {
    fn reset_pools(&mut self) {
        self.i32s.clear();
        self.i64s.clear();
        self.i1s.clear();
        for &(op, ty) in &self.params {
            if ty == Type::I32 {
                self.i32s.push(op);
            } else {
                self.i64s.push(op);
            }
        }
    }

    fn pool(&mut self, ty: Type) -> &mut Vec<Operand> {
        match ty {
            Type::I32 => &mut self.i32s,
            Type::I1 => &mut self.i1s,
            _ => &mut self.i64s,
        }
    }

    fn add(&mut self, ty: Type, v: Value) {
        self.pool(ty).push(Operand::Value(v));
    }

    /// A value of `ty`: from the pool or a small constant.
    fn value(&mut self, ty: Type) -> Result<Operand> {
        let len = self.pool(ty).len();
        if len > 0 && self.u.ratio(3u8, 4)? {
            let i = self.u.choose_index(len)?;
            return Ok(self.pool(ty)[i]);
        }
        let c: i8 = self.u.arbitrary()?;
        Ok(self.b.iconst(ty, c as i128))
    }

    /// A `{ i32, i64 }` built from pool values by two `insertvalue`s (into `undef`, whose
    /// members are then both defined, or into a constant pair).
    fn pair_value(&mut self) -> Result<Operand> {
        let ty = pair_type();
        let a = self.value(Type::I32)?;
        let b = self.value(Type::I64)?;
        let start = if self.u.arbitrary::<bool>()? {
            self.b.constant(ConstData {
                ty,
                kind: ConstKind::Undef,
            })
        } else {
            let f = self.b.function_mut();
            let x = f.consts.intern(ConstData::int(Type::I32, 3));
            let y = f.consts.intern(ConstData::int(Type::I64, 4));
            Operand::Const(f.consts.aggregate(ty, &[x, y]))
        };
        let v0 = self.b.push(InstKind::InsertValue {
            ty,
            agg: start,
            value: a,
            index: 0,
        })[0];
        let v1 = self.b.push(InstKind::InsertValue {
            ty,
            agg: v0.into(),
            value: b,
            index: 1,
        })[0];
        Ok(v1.into())
    }

    /// Both members of the pair `v`, added to the pools.
    fn take_apart(&mut self, v: Value) {
        let ty = pair_type();
        for (index, m) in [(0, Type::I32), (1, Type::I64)] {
            let r = self.b.push(InstKind::ExtractValue {
                ty,
                agg: v.into(),
                index,
            })[0];
            self.add(m, r);
        }
    }

    fn cond(&mut self) -> Result<Operand> {
        if !self.i1s.is_empty() && self.u.arbitrary::<bool>()? {
            let i = self.u.choose_index(self.i1s.len())?;
            return Ok(self.i1s[i]);
        }
        let ty = int_type(self.u)?;
        let (l, r) = (self.value(ty)?, self.value(ty)?);
        let pred = self.pred()?;
        Ok(self.b.icmp(pred, ty, l, r).into())
    }

    fn pred(&mut self) -> Result<IntPredicate> {
        const P: [IntPredicate; 10] = [
            IntPredicate::Eq,
            IntPredicate::Ne,
            IntPredicate::Slt,
            IntPredicate::Sle,
            IntPredicate::Sgt,
            IntPredicate::Sge,
            IntPredicate::Ult,
            IntPredicate::Ule,
            IntPredicate::Ugt,
            IntPredicate::Uge,
        ];
        Ok(*self.u.choose(&P)?)
    }

    /// The address and volatility of an access to `l` (for [`Access::ViaSlot`], loaded from
    /// the slot here).
    fn address(&mut self, l: Local) -> (Value, bool) {
        match l.access {
            Access::Plain => (l.ptr, false),
            Access::ViaGep(g) => (g, false),
            Access::Volatile => (l.ptr, true),
            Access::ViaSlot(slot) => (self.b.load(Type::Ptr, slot.into()), false),
        }
    }

    fn load(&mut self, l: Local) -> Value {
        let (ptr, volatile) = self.address(l);
        self.b.push(InstKind::Load {
            ty: l.ty,
            ptr: ptr.into(),
            volatile,
        })[0]
    }

    fn store(&mut self, l: Local, v: Operand) {
        let (ptr, volatile) = self.address(l);
        self.b.push(InstKind::Store {
            ty: l.ty,
            value: v,
            ptr: ptr.into(),
            volatile,
        });
    }

    fn op(&mut self, max_calls: &mut u32) -> Result<()> {
        match self.u.int_in_range(0u8..=10)? {
            0 | 1 if !self.locals.is_empty() => {
                let l = self.locals[self.u.choose_index(self.locals.len())?];
                let v = self.load(l);
                if l.ty.is_aggregate() {
                    self.take_apart(v);
                } else {
                    self.add(l.ty, v);
                }
            }
            2 if !self.locals.is_empty() => {
                let l = self.locals[self.u.choose_index(self.locals.len())?];
                let v = if l.ty.is_aggregate() {
                    self.pair_value()?
                } else {
                    self.value(l.ty)?
                };
                self.store(l, v);
            }
            3 => {
                const OPS: [BinaryOp; 6] = [
                    BinaryOp::Add,
                    BinaryOp::Sub,
                    BinaryOp::Mul,
                    BinaryOp::And,
                    BinaryOp::Or,
                    BinaryOp::Xor,
                ];
                let op = *self.u.choose(&OPS)?;
                let ty = int_type(self.u)?;
                let (l, r) = (self.value(ty)?, self.value(ty)?);
                let v = self.b.binary(op, ty, l, r);
                self.add(ty, v);
            }
            4 => {
                let op = *self
                    .u
                    .choose(&[BinaryOp::Shl, BinaryOp::LShr, BinaryOp::AShr])?;
                let ty = int_type(self.u)?;
                let (l, r) = (self.value(ty)?, self.value(ty)?);
                let mask = self.b.iconst(ty, ty.bits() as i128 - 1);
                let amount = self.b.binary(BinaryOp::And, ty, r, mask);
                let v = self.b.binary(op, ty, l, amount.into());
                self.add(ty, v);
            }
            5 => {
                let op = *self.u.choose(&[BinaryOp::UDiv, BinaryOp::URem])?;
                let ty = int_type(self.u)?;
                let (l, r) = (self.value(ty)?, self.value(ty)?);
                let one = self.b.iconst(ty, 1);
                let nonzero = self.b.binary(BinaryOp::Or, ty, r, one);
                let v = self.b.binary(op, ty, l, nonzero.into());
                self.add(ty, v);
            }
            6 => {
                let c = self.cond()?;
                self.i1s.push(c);
            }
            7 => {
                let ty = int_type(self.u)?;
                let c = self.cond()?;
                let (a, b) = (self.value(ty)?, self.value(ty)?);
                let v = self.b.select(ty, c, a, b);
                self.add(ty, v);
            }
            8 => {
                if self.u.arbitrary::<bool>()? {
                    let x = self.value(Type::I64)?;
                    let v = self.b.cast(CastOp::Trunc, Type::I64, Type::I32, x);
                    self.add(Type::I32, v);
                } else {
                    let op = *self.u.choose(&[CastOp::SExt, CastOp::ZExt])?;
                    let x = self.value(Type::I32)?;
                    let v = self.b.cast(op, Type::I32, Type::I64, x);
                    self.add(Type::I64, v);
                }
            }
            9 => {
                // A block-local alloca: defined, stored and loaded in this block.
                let ty = int_type(self.u)?;
                let p = self.b.alloca(ty, ty.bytes(), ty.bytes());
                let v = self.value(ty)?;
                self.b.store(ty, v, p.into());
                let r = self.b.load(ty, p.into());
                self.add(ty, r);
            }
            _ if !self.callees.is_empty() && *max_calls > 0 => {
                *max_calls -= 1;
                let (sym, sig) = &self.callees[self.u.choose_index(self.callees.len())?];
                let (sym, sig) = (*sym, sig.clone());
                let mut args = Vec::with_capacity(sig.params.len());
                for &t in &sig.params {
                    args.push(self.value(t)?);
                }
                if let Some(v) = self.b.call(sig.ret, sym, &args) {
                    self.add(sig.ret, v);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Creates up to `max_locals` locals in the entry block: integers or pairs, each
    /// accessed plainly, volatile, through a `gep`, or through one or two pointer slots,
    /// each stored a defined first value.
    fn add_locals(&mut self, max_locals: usize) -> Result<()> {
        let nl = self.u.int_in_range(0..=max_locals)?;
        for _ in 0..nl {
            let ty = if self.u.ratio(1u8, 5)? {
                pair_type()
            } else {
                int_type(self.u)?
            };
            let ptr = self.b.alloca(ty, ty.bytes(), ty.bytes().min(8));
            let access = match self.u.int_in_range(0u8..=7)? {
                0 => Access::ViaGep(self.b.gep(ptr.into(), 0, &[])),
                1 => Access::Volatile,
                6 => {
                    let slot = self.b.alloca(Type::Ptr, 8, 8);
                    self.b.store(Type::Ptr, ptr.into(), slot.into());
                    Access::ViaSlot(slot)
                }
                7 => {
                    // A chain: a second slot holds the address loaded from the first.
                    let first = self.b.alloca(Type::Ptr, 8, 8);
                    self.b.store(Type::Ptr, ptr.into(), first.into());
                    let slot = self.b.alloca(Type::Ptr, 8, 8);
                    let loaded = self.b.load(Type::Ptr, first.into());
                    self.b.store(Type::Ptr, loaded.into(), slot.into());
                    Access::ViaSlot(slot)
                }
                _ => Access::Plain,
            };
            let l = Local { ptr, ty, access };
            // Every local starts from a defined value (the interpreter compares results).
            let init = if ty.is_aggregate() {
                self.pair_value()?
            } else {
                self.value(ty)?
            };
            self.store(l, init);
            self.locals.push(l);
        }
        Ok(())
    }

    /// Ends the current block towards `succs` (see `patch_shape`): `ret` of a value of
    /// type `ret` for none, `br` for one, a conditional branch for two and a `switch` for
    /// more; once the step counter `c1` is spent (`done`), the choice prefers the
    /// successor nearest the exit by `dist`; edges back to the entry are never taken.
    fn terminate(
        &mut self,
        succs: &[usize],
        dist: &[u32],
        c1: Value,
        done: Value,
        ret: Type,
    ) -> Result<()> {
        let never = self.b.iconst(Type::I32, NEVER);
        match succs.len() {
            0 => {
                let v = self.value(ret)?;
                self.b.ret(Some(v));
            }
            1 => self.b.jump(Block::new(succs[0])),
            2 => {
                let (s0, s1) = (succs[0], succs[1]);
                let cond: Operand = if s0 == 0 {
                    self.b
                        .icmp(IntPredicate::Eq, Type::I32, c1.into(), never)
                        .into()
                } else if s1 == 0 {
                    self.b
                        .icmp(IntPredicate::Ne, Type::I32, c1.into(), never)
                        .into()
                } else {
                    let pref = self.b.iconst(Type::I1, (dist[s0] <= dist[s1]) as i128);
                    let r = self.cond()?;
                    self.b.select(Type::I1, done.into(), pref, r).into()
                };
                self.b.br(cond, Block::new(s0), Block::new(s1));
            }
            k => {
                let mut cases = Vec::with_capacity(k - 1);
                for (i, &s) in succs.iter().enumerate().skip(1) {
                    let v = if s == 0 {
                        DEAD_CASE_BASE + i as u128
                    } else {
                        (i - 1) as u128
                    };
                    cases.push((v, Block::new(s)));
                }
                let best = (0..k)
                    .filter(|&i| succs[i] != 0)
                    .min_by_key(|&i| dist[succs[i]])
                    .unwrap_or(0);
                let pref_val = if best == 0 {
                    NO_CASE
                } else {
                    (best - 1) as u128
                };
                let r = self.value(Type::I32)?;
                let mask = self.b.iconst(Type::I32, k.next_power_of_two() as i128 - 1);
                let rsel = self.b.binary(BinaryOp::And, Type::I32, r, mask);
                // Cases naming the entry block have values outside `0..=mask`, so the
                // random selector never takes them.
                let sel: Operand = rsel.into();
                let pref = self.b.iconst(Type::I32, pref_val as i128);
                let sel = self.b.select(Type::I32, done.into(), pref, sel);
                let default = Block::new(succs[0]);
                self.b.switch(Type::I32, sel.into(), default, &cases);
            }
        }
        Ok(())
    }
}

/// Generates the body of a function with signature `sig`; see the module doc.
fn body(
    u: &mut Unstructured,
    opts: &GenOptions,
    name: &str,
    sig: Signature,
    callees: &[(Symbol, Signature)],
) -> Result<Function> {
    let mut shape = cfg_shape(u, opts.max_blocks)?;
    let n = shape.len();
    let exit = n;
    let dist = patch_shape(&mut shape, exit, opts.allow_entry_loop);
    let ret = sig.ret;
    let b = FunctionBuilder::new(name, sig.clone());
    let params = sig
        .params
        .iter()
        .enumerate()
        .map(|(i, &t)| (Operand::Value(b.param(i)), t))
        .collect();
    let mut g = Gen {
        u,
        b,
        locals: Vec::new(),
        callees,
        params,
        i32s: Vec::new(),
        i64s: Vec::new(),
        i1s: Vec::new(),
    };
    for _ in 1..=n {
        g.b.create_block(); // blocks 1..n-1 and the exit block n
    }
    // Entry setup: the step counter and the locals.
    g.reset_pools();
    let counter = g.b.alloca(Type::I32, 4, 4);
    let budget = g.b.iconst(Type::I32, opts.step_budget as i128);
    g.b.store(Type::I32, budget, counter.into());
    g.add_locals(opts.max_locals)?;
    let mut max_calls = 2u32;
    for (bi, succs) in shape.iter().enumerate() {
        g.b.switch_to(Block::new(bi));
        if bi != 0 {
            g.reset_pools();
        }
        let c = g.b.load(Type::I32, counter.into());
        let one = g.b.iconst(Type::I32, 1);
        let c1 = g.b.binary(BinaryOp::Sub, Type::I32, c.into(), one);
        g.b.store(Type::I32, c1.into(), counter.into());
        let zero = g.b.iconst(Type::I32, 0);
        let done = g.b.icmp(IntPredicate::Sle, Type::I32, c1.into(), zero);
        let k = g.u.int_in_range(0..=opts.max_insts_per_block)?;
        for _ in 0..k {
            g.op(&mut max_calls)?;
        }
        g.terminate(succs, &dist, c1, done, ret)?;
    }
    // The exit block returns a local (or a constant).
    g.b.switch_to(Block::new(exit));
    g.reset_pools();
    let v = match g.locals.iter().copied().find(|l| l.ty == ret) {
        Some(l) => g.load(l).into(),
        None => g.value(ret)?,
    };
    g.b.ret(Some(v));
    Ok(g.b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mem2reg oracle sees aggregate locals, promotable (plain) and not.
    #[test]
    fn some_locals_hold_aggregates() {
        let opts = GenOptions::default();
        let mut aggregate_allocas = 0;
        for seed in 0..200 {
            let f = seeded(seed, &opts);
            aggregate_allocas += f
                .insts
                .iter()
                .filter(|d| matches!(d.kind, InstKind::Alloca { ty, .. } if ty.is_aggregate()))
                .count();
        }
        assert!(aggregate_allocas > 0);
    }

    #[test]
    fn seeded_is_deterministic() {
        let opts = GenOptions::default();
        assert_eq!(seeded(7, &opts), seeded(7, &opts));
        let f = seeded(7, &opts);
        assert!(f.live_block_count() >= 2);
    }

    #[test]
    fn shapes_terminate_structurally() {
        for seed in 0..200 {
            let bytes = seed_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            let mut shape = cfg_shape(&mut u, 10).unwrap();
            let exit = shape.len();
            let dist = patch_shape(&mut shape, exit, true);
            for (b, succs) in shape.iter().enumerate() {
                assert!(dist[b] != u32::MAX);
                assert!(succs.is_empty() || succs.iter().any(|&s| s != 0));
            }
        }
    }

    /// Memory-form validity: every operand is a parameter, a constant, an entry-block
    /// `alloca`/`gep` (the entry dominates every reachable block), or defined earlier in the
    /// same block.
    #[test]
    fn values_defined_before_use() {
        use crate::ir::{ConstKind, IrRead};
        let opts = GenOptions::default();
        for seed in 0..500 {
            let f = seeded(seed, &opts);
            let mut entry_defs = std::collections::HashSet::new();
            for &i in &f.blocks[0].insts {
                if matches!(
                    f.insts[i.index()].kind,
                    InstKind::Alloca { .. } | InstKind::Gep { .. }
                ) {
                    entry_defs.extend(f.insts[i.index()].results.iter().copied());
                }
            }
            for (bi, block) in f.blocks.iter().enumerate() {
                let mut defined: std::collections::HashSet<Value> = f
                    .param_values
                    .iter()
                    .copied()
                    .chain(entry_defs.iter().copied())
                    .collect();
                let check = |op: Operand, defined: &std::collections::HashSet<Value>| match op {
                    Operand::Value(v) => {
                        assert!(defined.contains(&v), "seed {seed} block{bi}: {v}")
                    }
                    Operand::Const(c) => {
                        let d = f.consts().get(c);
                        assert!(
                            matches!(d.kind, ConstKind::Int(_))
                                || (d.ty.is_aggregate()
                                    && matches!(
                                        d.kind,
                                        ConstKind::Undef | ConstKind::Aggregate(_)
                                    ))
                        )
                    }
                };
                for &i in &block.insts {
                    f.insts[i.index()]
                        .kind
                        .for_each_operand(|op| check(op, &defined));
                    defined.extend(f.insts[i.index()].results.iter().copied());
                }
                block.terminator.for_each_operand(|op| check(op, &defined));
                assert!(!matches!(
                    block.terminator,
                    crate::ir::Terminator::Unreachable
                ));
            }
        }
    }
}
