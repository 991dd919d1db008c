//! Oracle check of live-range construction and bundle merging
//! ([`crate::regalloc::ranges`], [`crate::regalloc::bundles`]).
//!
//! What: [`check`] draws a machine function, builds its live ranges and bundles in a World
//! (pooled: the same World and [`RangeStore`] serve every input of a test), and judges:
//! (a) the invariants ([`check_bundles`]: sorted, disjoint ranges per vreg and bundle, uses
//!     inside ranges, every range in its bundle, a spill set per bundle);
//! (b) coverage against liveness: every vreg live into a block has a range holding the
//!     block's first point, every vreg live out of a block one holding its last point;
//! (c) every operand that names a value is a use of exactly one range of its vreg, unless it
//!     is a decoupled multi-fixed use (then a fixup names it; an early fixed use beside a
//!     clobber of its register keeps its use and has a fixup too);
//! (d) every merged bundle has one class and a requirement that is not `Conflict` unless a
//!     single vreg's uses already conflict;
//! (e) the same function built again in the same World gives the same tables (pooling).
//!
//! Complexity: O(ranges x uses) per input.

use super::machine_gen::{self, MachineGenOptions};
use crate::machine::function::MachineFunction;
use crate::machine::MBlock;
use crate::machine::{MachineRead, OperandKind};
use crate::regalloc::bundles::merge_bundles;
use crate::regalloc::bundles::{bundle_rows, check_bundles, BundleColumnsMut};
use crate::regalloc::point::ProgPoint;
use crate::regalloc::ranges::{
    build_ranges, range_rows, RangeColumnsMut, RangeCounts, RangeSide, RangeStore,
};
use crate::regalloc::requirement::Requirement;
use arbitrary::Unstructured;
use bevy_ecs::prelude::*;

/// A World and range store kept across inputs (pooled rows).
pub struct Harness {
    /// The World.
    pub world: World,
    /// Its range store.
    pub store: RangeStore,
}

impl Default for Harness {
    fn default() -> Self {
        let mut world = World::new();
        let store = RangeStore::new(&mut world);
        Harness { world, store }
    }
}

/// A snapshot of the tables (for the pooling comparison).
fn snapshot(h: &mut Harness) -> String {
    let counts = *h.world.resource::<RangeCounts>();
    let mut q = h.world.query::<RangeColumnsMut>();
    let mut out = String::new();
    {
        let mut it = q.contiguous_iter_mut(&mut h.world).expect("dense");
        if let Some((a, b, c, d, _)) = it.next() {
            for r in 0..counts.ranges {
                out += &format!(
                    "{:?} {:?} {:?} {:?}\n",
                    a[r].0,
                    b[r].0,
                    c[r].0,
                    d[r].0.len()
                );
            }
        }
    }
    out
}

/// Builds and judges one function; panics naming the violated property.
pub fn check_function(h: &mut Harness, f: &MachineFunction) {
    build_ranges(f, &mut h.world, &mut h.store);
    merge_bundles(f, &mut h.world, &mut h.store);
    check_bundles(&mut h.world, &mut h.store).unwrap_or_else(|e| panic!("invariant: {e}"));
    let first = snapshot(h);
    let counts = *h.world.resource::<RangeCounts>();
    let mut state: bevy_ecs::system::SystemState<(
        Query<RangeColumnsMut>,
        Query<BundleColumnsMut>,
        Res<RangeSide>,
    )> = bevy_ecs::system::SystemState::new(&mut h.world);
    let (mut rq, mut bq, side) = state.get_mut(&mut h.world).expect("resources present");
    let rr = range_rows(&mut rq);
    let br = bundle_rows(&mut bq);
    let covered = |v: usize, p: ProgPoint| side.vreg_ranges[v].iter().any(|e| e.range.contains(p));
    // (b)
    for b in 0..f.num_blocks() {
        let insts = f.block_insts(MBlock::new(b));
        for &v in side.liveness.livein(b) {
            let v = v as usize;
            assert!(
                covered(v, ProgPoint::before(insts.start)),
                "v{v} live into block {b} but not covered"
            );
        }
        for &v in side.liveness.liveout(b) {
            let v = v as usize;
            assert!(
                covered(v, ProgPoint::after(insts.end - 1)),
                "v{v} live out of block {b} but not covered"
            );
        }
    }
    // (c)
    for i in f.insts() {
        for (k, op) in f.inst_operands(i).iter().enumerate() {
            if !op.vreg.is_value() {
                continue;
            }
            let v = op.vreg.index();
            let n = side.vreg_ranges[v]
                .iter()
                .flat_map(|e| rr.uses[e.index.index()].iter())
                .filter(|u| u.point.inst() == i && u.slot() == k as u8)
                .count();
            // A decoupled use has no range of its own; a fixup whose two slots are one (an
            // early fixed use next to a clobber of its register) keeps its use, as `Any`.
            let decoupled = side
                .multi_fixed
                .iter()
                .any(|x| x.point.inst() == i && x.to_slot == k as u8 && x.from_slot != x.to_slot);
            assert_eq!(
                n + decoupled as usize,
                1,
                "inst {i} operand {k} ({op}) has {n} uses"
            );
            if op.kind == OperandKind::Def {
                assert!(n == 1, "def must be a use of its range");
            }
        }
    }
    // (d)
    for b in 0..counts.bundles {
        let list = &br.ranges[b];
        if list.is_empty() {
            continue;
        }
        let c = rr.vregs[list[0].index.index()].class();
        assert!(
            list.iter().all(|e| rr.vregs[e.index.index()].class() == c),
            "bundle {b} mixes classes"
        );
        let mut vs: Vec<usize> = list
            .iter()
            .map(|e| rr.vregs[e.index.index()].index())
            .collect();
        vs.sort_unstable();
        vs.dedup();
        if br.reqs[b] == Requirement::Conflict {
            assert_eq!(vs.len(), 1, "bundle {b} was merged into a conflict");
        }
    }
    // (e)
    build_ranges(f, &mut h.world, &mut h.store);
    merge_bundles(f, &mut h.world, &mut h.store);
    assert_eq!(snapshot(h), first, "rebuilding in a pooled World differs");
}

/// The fuzz check: one generated function from `data`, in a fresh World.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(f) = machine_gen::function(&mut u, &MachineGenOptions::default()) else {
        return;
    };
    check_function(&mut Harness::default(), &f);
}

/// A function where `n` predecessors each define a vreg and pass it to one join block's
/// parameter: `n` blockparam flows into one bundle (the shape of regalloc2's issue 203).
pub fn fan_in(n: usize) -> MachineFunction {
    use crate::machine::function::{MachineOp, Opcode};
    use crate::machine::{Operand, OperandConstraint, PRegSet, VReg};
    use crate::regalloc::RegClass;
    use smallvec::{smallvec, SmallVec};
    let v = |i: usize| VReg::new(i as u32, RegClass::Int).expect("in range");
    let (op, branch) = (MachineOp::new(Opcode::Op), MachineOp::new(Opcode::Branch));
    let none = PRegSet::empty();
    let mut f = MachineFunction {
        num_vregs: n + 1,
        ..MachineFunction::default()
    };
    let join = n as u32 + 1;
    // Entry: a branch to every predecessor.
    f.push_inst(branch, &[], none);
    f.close_block();
    f.succs.push((1..=n as u32).map(MBlock).collect());
    f.params.push(SmallVec::new());
    f.branch_args
        .push(std::iter::repeat_n(&[][..], n).collect());
    for k in 0..n {
        f.push_inst(op, &[Operand::def(v(k + 1), OperandConstraint::Reg)], none);
        f.push_inst(branch, &[], none);
        f.close_block();
        f.succs.push(smallvec![MBlock(join)]);
        f.params.push(SmallVec::new());
        f.branch_args
            .push(std::iter::once(&[v(k + 1)][..]).collect());
    }
    f.push_inst(
        MachineOp::new(Opcode::Ret),
        &[Operand::use_(v(0), OperandConstraint::Reg)],
        none,
    );
    f.close_block();
    f.succs.push(SmallVec::new());
    f.params.push(smallvec![v(0)]);
    f.branch_args.push(Default::default());
    f.compute_preds();
    debug_assert_eq!(crate::machine::verify::verify(&f), Vec::new());
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regalloc::bundles::merge_stats;

    /// Ranges and bundles of regalloc2's own generator's functions (its `ion` fuzz target's
    /// constraint mix: reuse, fixed, clobbers, call-site-like), imported, in one World.
    #[cfg(feature = "regalloc2-fuzzing")]
    #[test]
    fn regalloc2_generator_inputs() {
        let mut h = Harness::default();
        let mut judged = 0;
        for seed in 0..2000u64 {
            if judged == 200 {
                break;
            }
            if let Some(im) =
                crate::fuzzing::regalloc2_input(&crate::fuzzing::generate::seed_bytes(seed, 8192))
            {
                check_function(&mut h, &im.func);
                judged += 1;
            }
        }
        assert_eq!(
            judged, 200,
            "only {judged} functions drawn from 2,000 seeds"
        );
    }

    #[test]
    fn random_inputs_in_one_pooled_world() {
        let mut h = Harness::default();
        let mut merged = 0;
        let mut refused = 0;
        for seed in 0..300u64 {
            let f = machine_gen::seeded(seed);
            check_function(&mut h, &f);
            let s = merge_stats(&h.world);
            merged += s.merged;
            refused += s.overlap + s.conflict;
        }
        assert!(
            merged > 300 && refused > 30,
            "merged {merged}, refused {refused}"
        );
        // Rows stay bounded by the largest function.
        let (ranges, bundles) = h.store.rows();
        assert!(
            ranges < 5000 && bundles < 2000,
            "rows grew to {ranges}/{bundles}"
        );
    }

    #[test]
    fn fan_in_joins_one_bundle() {
        let mut h = Harness::default();
        let f = fan_in(500);
        check_function(&mut h, &f);
        let s = merge_stats(&h.world);
        assert_eq!(s.merged, 500);
        assert_eq!(
            h.world
                .resource::<crate::regalloc::bundles::BundleSide>()
                .queue
                .len(),
            1
        );
    }
}
