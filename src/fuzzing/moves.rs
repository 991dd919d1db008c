//! Oracle check of the parallel-move resolver ([`crate::regalloc::moves`]) by abstract
//! interpretation (Ion design, appendix "Fuzzing", "Moves").
//!
//! What: [`check`] draws a parallel-move problem from fuzz bytes with [`problem`]: moves of
//! all three classes between registers (indices 0..8 of each class) and spill slots (slot
//! `k` holds class `k % 3`), with planted cycles, fan-out from one source, self-moves and
//! stack-to-stack moves, each destination written once; per class a scratch environment
//! (a dedicated scratch register, free registers some of which moves mention, a borrowable
//! register, or nothing). [`check_problem`] resolves it with a reused [`MoveResolver`] and
//! [`judge`]s the sequence by executing it on symbolic contents (each location starts
//! holding its own name):
//! (a) every destination ends holding its source's initial value (the parallel semantics);
//! (b) every other location written keeps its initial value unless it is the dedicated
//!     scratch register, a free register that no move mentions, or a slot the resolver
//!     obtained from the allocator;
//! (c) no move is stack to stack, none mentions `none`, every register is of its move's class;
//! (d) the length is exactly moves + cycles + stack-to-stack moves + 2 per saved register.
//! The resolver may refuse only with `NoRegister` for a class with no register at all; a
//! planted duplicate destination must be refused naming both moves.
//!
//! Complexity: O(n log n) per input for n moves (hash-map interpretation).

use crate::regalloc::{
    Allocation, Move, MoveError, MoveResolver, PReg, RegClass, ResolveStats, ScratchEnv, SpillSlot,
};
use arbitrary::Unstructured;
use std::collections::{HashMap, HashSet};

/// Registers of each class that moves may mention: indices `0..MOVE_REGS`.
pub const MOVE_REGS: u8 = 8;
/// Spill slots that moves may mention: `0..MOVE_SLOTS` (slot `k` is of class `k % 3`).
pub const MOVE_SLOTS: u32 = 12;
/// The first slot number the check's slot allocator hands out.
pub const FRESH_SLOTS: u32 = 1000;

/// A generated problem: the parallel moves and the scratch environment.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    /// The parallel moves (destinations distinct unless `duplicate` is set).
    pub moves: Vec<Move>,
    /// Per class: the dedicated scratch register (index `MOVE_REGS`), if any.
    pub scratch: [Option<PReg>; 3],
    /// Free registers (some possibly mentioned by moves, which the resolver must skip).
    pub free: Vec<PReg>,
    /// Per class: the borrowable register, if any.
    pub borrow: [Option<PReg>; 3],
    /// Whether the last move duplicates an earlier destination (must be refused).
    pub duplicate: bool,
}

fn reg(class: RegClass, index: u8) -> PReg {
    PReg::new(class, index).expect("index below 64")
}

/// A location of `class` mentioned by moves: a register or a slot of that class.
fn location(u: &mut Unstructured<'_>, class: RegClass) -> arbitrary::Result<Allocation> {
    Ok(if u.ratio(3, 5)? {
        Allocation::Reg(reg(class, u.int_in_range(0..=MOVE_REGS - 1)?))
    } else {
        let k = u.int_in_range(0..=MOVE_SLOTS / 3 - 1)?;
        Allocation::Stack(SpillSlot(class.index() as u32 + 3 * k))
    })
}

/// Draws a problem of at most `max_moves` moves from `u`.
pub fn problem(u: &mut Unstructured<'_>, max_moves: usize) -> arbitrary::Result<Problem> {
    let mut p = Problem::default();
    for class in RegClass::ALL {
        match u.int_in_range(0..=4u8)? {
            0 | 1 => p.scratch[class.index()] = Some(reg(class, MOVE_REGS)),
            2 => {
                p.free.push(reg(class, MOVE_REGS + 1));
                if u.arbitrary()? {
                    p.free
                        .insert(0, reg(class, u.int_in_range(0..=MOVE_REGS - 1)?));
                }
            }
            3 => {
                // Only free registers that moves may mention; maybe a borrowable one.
                p.free.push(reg(class, u.int_in_range(0..=MOVE_REGS - 1)?));
                p.borrow[class.index()] = Some(reg(class, u.int_in_range(0..=MOVE_REGS - 1)?));
            }
            _ => {
                if u.ratio(3, 4)? {
                    p.borrow[class.index()] = Some(reg(class, u.int_in_range(0..=MOVE_REGS - 1)?));
                }
            }
        }
    }
    let mut written = HashSet::new();
    let mut tries = 0;
    while p.moves.len() < max_moves && tries < 4 * max_moves && !u.is_empty() {
        tries += 1;
        let class = RegClass::ALL[u.int_in_range(0..=2usize)?];
        match u.int_in_range(0..=3u8)? {
            0 => {
                // A planted cycle over distinct unwritten locations.
                let k = u.int_in_range(2..=5usize)?;
                let mut locs = Vec::new();
                for _ in 0..3 * k {
                    let l = location(u, class)?;
                    if !written.contains(&l) && !locs.contains(&l) {
                        locs.push(l);
                    }
                    if locs.len() == k {
                        break;
                    }
                }
                for i in 0..locs.len() {
                    let dst = locs[(i + 1) % locs.len()];
                    written.insert(dst);
                    p.moves.push(Move {
                        src: locs[i],
                        dst,
                        class,
                    });
                }
            }
            1 => {
                // Fan-out of one source.
                let src = location(u, class)?;
                for _ in 0..u.int_in_range(1..=4u8)? {
                    let dst = location(u, class)?;
                    if written.insert(dst) {
                        p.moves.push(Move { src, dst, class });
                    }
                }
            }
            _ => {
                let (src, dst) = (location(u, class)?, location(u, class)?);
                if written.insert(dst) {
                    p.moves.push(Move { src, dst, class });
                }
            }
        }
    }
    if !p.moves.is_empty() && u.ratio(1, 16)? {
        let i = u.choose_index(p.moves.len())?;
        let mut m = p.moves[i];
        m.src = location(u, m.class)?;
        p.moves.push(m);
        p.duplicate = true;
    }
    Ok(p)
}

/// Fuzz entry point: never panics unless the resolver disagrees with the oracle.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(p) = problem(&mut u, 32) else {
        return;
    };
    check_problem(&p, &mut MoveResolver::new());
}

/// Resolves `p` with `resolver` (reused state) and judges the result; panics on any
/// disagreement with the oracle, naming the problem.
pub fn check_problem(p: &Problem, resolver: &mut MoveResolver) {
    let env = ScratchEnv {
        scratch: p.scratch,
        free: &p.free,
        borrow: p.borrow,
    };
    let mut fresh = Vec::new();
    let mut out = vec![Move {
        src: Allocation::None,
        dst: Allocation::None,
        class: RegClass::Int,
    }];
    let result = resolver.resolve(
        &p.moves,
        &env,
        |_| {
            let s = SpillSlot(FRESH_SLOTS + fresh.len() as u32);
            fresh.push(s);
            s
        },
        &mut out,
    );
    // The resolver appends: the sentinel stays first.
    assert_eq!(
        out[0].src,
        Allocation::None,
        "resolver touched earlier output"
    );
    let mentioned: HashSet<PReg> = p
        .moves
        .iter()
        .flat_map(|m| [m.src.as_reg(), m.dst.as_reg()])
        .flatten()
        .collect();
    if p.duplicate {
        let last = p.moves.len() - 1;
        let first = p.moves.iter().position(|m| m.dst == p.moves[last].dst);
        match result {
            Err(MoveError::DuplicateDestination {
                first: f,
                second,
                dst,
            }) => {
                assert_eq!((Some(f), second, dst), (first, last, p.moves[last].dst));
            }
            other => panic!("duplicate destination accepted: {other:?} for {p:?}"),
        }
        assert_eq!(out.len(), 1, "output appended on error");
        return;
    }
    let stats = match result {
        Ok(stats) => stats,
        Err(MoveError::NoRegister { class }) => {
            let c = class.index();
            let has_free = p
                .free
                .iter()
                .any(|r| r.class() == class && !mentioned.contains(r));
            assert!(
                p.scratch[c].is_none() && !has_free && p.borrow[c].is_none(),
                "NoRegister for {class} although the environment has one: {p:?}"
            );
            assert_eq!(out.len(), 1, "output appended on error");
            return;
        }
        Err(e) => panic!("resolver refused a valid problem: {e} for {p:?}"),
    };
    let mut clobberable: HashSet<Allocation> = fresh.iter().map(|&s| s.into()).collect();
    clobberable.extend(p.scratch.iter().flatten().map(|&r| Allocation::Reg(r)));
    clobberable.extend(
        p.free
            .iter()
            .filter(|r| !mentioned.contains(r))
            .map(|&r| Allocation::Reg(r)),
    );
    judge(&p.moves, &out[1..], &clobberable, &stats, p);
}

/// Executes `seq` on symbolic contents and checks properties (a) to (d) against the
/// parallel moves `parallel` (distinct destinations).
pub fn judge(
    parallel: &[Move],
    seq: &[Move],
    clobberable: &HashSet<Allocation>,
    stats: &ResolveStats,
    context: &impl std::fmt::Debug,
) {
    let mut contents: HashMap<Allocation, Allocation> = HashMap::new();
    let mut written = HashSet::new();
    for (i, m) in seq.iter().enumerate() {
        assert!(
            !(m.src.is_stack() && m.dst.is_stack()),
            "sequential move {i} ({m}) is stack to stack: {seq:?} for {context:?}"
        );
        for loc in [m.src, m.dst] {
            match loc {
                Allocation::None => panic!("sequential move {i} ({m}) mentions none"),
                Allocation::Reg(r) => assert_eq!(r.class(), m.class, "move {i} ({m}) class"),
                Allocation::Stack(_) => {}
            }
        }
        let value = *contents.get(&m.src).unwrap_or(&m.src);
        contents.insert(m.dst, value);
        written.insert(m.dst);
    }
    let value = |loc: Allocation| *contents.get(&loc).unwrap_or(&loc);
    let mut dsts = HashSet::new();
    for m in parallel {
        dsts.insert(m.dst);
        assert_eq!(
            value(m.dst),
            m.src,
            "{} does not hold {}'s value after {seq:?} for {context:?}",
            m.dst,
            m.src
        );
    }
    for &loc in &written {
        if !dsts.contains(&loc) && !clobberable.contains(&loc) {
            assert_eq!(
                value(loc),
                loc,
                "{loc} is not a destination but was changed by {seq:?} for {context:?}"
            );
        }
    }
    let kept = parallel.iter().filter(|m| m.src != m.dst).count();
    assert_eq!(stats.moves, kept, "moves counted");
    assert_eq!(
        seq.len(),
        kept + stats.cycles + stats.stack_to_stack + 2 * stats.saved,
        "sequence length for {context:?}"
    );
    assert_eq!(stats.emitted, seq.len());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;

    #[test]
    fn random_inputs() {
        let mut resolver = MoveResolver::new();
        let mut totals = ResolveStats::default();
        let mut refused = 0;
        for seed in 0..6000u64 {
            let bytes = seed_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            let p = problem(&mut u, 32).unwrap();
            check_problem(&p, &mut resolver);
            // Coverage: the interesting paths must actually be reached.
            let env = ScratchEnv {
                scratch: p.scratch,
                free: &p.free,
                borrow: p.borrow,
            };
            let mut next = FRESH_SLOTS;
            match resolver.resolve(
                &p.moves,
                &env,
                |_| {
                    next += 1;
                    SpillSlot(next)
                },
                &mut Vec::new(),
            ) {
                Ok(s) => {
                    totals.cycles += s.cycles;
                    totals.stack_to_stack += s.stack_to_stack;
                    totals.saved += s.saved;
                }
                Err(_) => refused += 1,
            }
        }
        assert!(totals.cycles > 1000, "few cycles generated: {totals:?}");
        assert!(totals.stack_to_stack > 1000, "few stack moves: {totals:?}");
        assert!(totals.saved > 100, "few saved registers: {totals:?}");
        assert!(refused > 0 && refused < 3000, "refusals: {refused}");
        check(&[]);
        check(&[255; 7]);
    }
}
