//! Oracle check of liveness ([`crate::regalloc::liveness`]).
//!
//! What: [`check`] draws a machine function with [`super::machine_gen::function`], computes
//! liveness with both set representations (and as the size-chosen lists) and compares each block's live-in and live-out
//! with [`liveness::brute_force`] (a path search per vreg, written independently of the
//! dataflow); the two representations must agree exactly. Under feature `regalloc2-fuzzing`
//! `check_regalloc2` does the same on regalloc2's own generator, imported.
//!
//! Complexity: O(vregs x (blocks + instructions)) per input for the oracle.

use super::machine_gen::{self, MachineGenOptions};
use crate::machine::MachineRead;
use crate::regalloc::liveness::{self, ChunkedSet, DenseSet, LiveSet};
use arbitrary::Unstructured;

/// Checks liveness of `f` against the oracle; panics naming the block on a mismatch.
pub fn check_function<F: MachineRead + ?Sized>(f: &F) {
    let dense = liveness::compute::<DenseSet, F>(f);
    let chunked = liveness::compute::<ChunkedSet, F>(f);
    let lists = liveness::compute_lists(f);
    let (livein, liveout) = liveness::brute_force(f);
    for b in 0..f.num_blocks() {
        assert_eq!(dense.livein[b].to_vec(), livein[b], "livein of block {b}");
        assert_eq!(
            dense.liveout[b].to_vec(),
            liveout[b],
            "liveout of block {b}"
        );
        assert_eq!(chunked.livein[b].to_vec(), livein[b], "chunked livein {b}");
        assert_eq!(
            chunked.liveout[b].to_vec(),
            liveout[b],
            "chunked liveout {b}"
        );
        let want = |l: &[usize]| l.iter().map(|&v| v as u32).collect::<Vec<_>>();
        assert_eq!(lists.livein(b), want(&livein[b]), "listed livein {b}");
        assert_eq!(lists.liveout(b), want(&liveout[b]), "listed liveout {b}");
    }
}

/// The fuzz check: one generated function from `data`.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(f) = machine_gen::function(&mut u, &MachineGenOptions::default()) else {
        return;
    };
    check_function(&f);
}

/// The fuzz check on regalloc2's generator (its `ion` target's constraint mix), imported.
#[cfg(feature = "regalloc2-fuzzing")]
pub fn check_regalloc2(data: &[u8]) {
    if let Some(im) = super::regalloc2_input(data) {
        check_function(&im.func);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;

    #[test]
    fn random_inputs() {
        let mut live_across = 0;
        for seed in 0..400u64 {
            let bytes = seed_bytes(seed, 4096);
            check(&bytes);
            let f = machine_gen::function(
                &mut Unstructured::new(&bytes),
                &MachineGenOptions::default(),
            )
            .unwrap();
            let l = liveness::compute::<DenseSet, _>(&f);
            live_across += l.livein.iter().map(|s| s.len()).sum::<usize>();
        }
        assert!(
            live_across > 1000,
            "too little cross-block liveness: {live_across}"
        );
    }

    #[cfg(feature = "regalloc2-fuzzing")]
    #[test]
    fn regalloc2_generator_inputs() {
        // Most draws are refused by regalloc2's generator; count the functions judged.
        let mut judged = 0;
        for seed in 0..2000u64 {
            if judged == 200 {
                break;
            }
            if let Some(im) = crate::fuzzing::regalloc2_input(&seed_bytes(seed, 8192)) {
                check_function(&im.func);
                judged += 1;
            }
        }
        assert_eq!(
            judged, 200,
            "only {judged} functions drawn from 2,000 seeds"
        );
    }

    #[test]
    fn sets_agree_on_operations() {
        let mut d = DenseSet::with_capacity(10);
        let mut c = ChunkedSet::default();
        for i in [3usize, 64, 700, 3, 129] {
            d.insert(i);
            c.insert(i);
        }
        d.remove(64);
        c.remove(64);
        assert_eq!(d.to_vec(), vec![3, 129, 700]);
        assert_eq!(c.to_vec(), d.to_vec());
        let mut e = DenseSet::default();
        e.insert(5);
        assert!(e.union_with(&d) && !e.union_with(&d));
        assert!(e.contains(700) && !e.contains(64) && e.len() == 4);
    }

    /// `union_minus` (live-in |= live-out minus kill) against plain set arithmetic, with the
    /// kill set shorter and longer than live-out and the target shorter and longer than
    /// both (the dense set's words differ in length then).
    #[test]
    fn union_minus_agrees_with_set_arithmetic() {
        use std::collections::BTreeSet;
        let members = |seed: u64, n: usize| -> Vec<usize> {
            (0..n)
                .filter(|i| (seed.wrapping_mul(*i as u64 + 1) >> 7).is_multiple_of(3))
                .collect()
        };
        for (target_n, out_n, kill_n) in
            [(10, 300, 70), (300, 130, 500), (0, 200, 0), (700, 64, 65)]
        {
            for seed in [0x9e37_79b9_7f4a_7c15u64, 0xc2b2_ae3d_27d4_eb4f] {
                let (t, o, k) = (
                    members(seed, target_n),
                    members(seed ^ 1, out_n),
                    members(seed ^ 2, kill_n),
                );
                let build_dense = |v: &[usize]| {
                    let mut d = DenseSet::default();
                    v.iter().for_each(|&i| d.insert(i));
                    d
                };
                let build_chunked = |v: &[usize]| {
                    let mut c = ChunkedSet::default();
                    v.iter().for_each(|&i| c.insert(i));
                    c
                };
                let kill: BTreeSet<usize> = k.iter().copied().collect();
                let mut want: BTreeSet<usize> = t.iter().copied().collect();
                let before = want.len();
                want.extend(o.iter().filter(|i| !kill.contains(i)));
                let grew = want.len() > before;
                let want: Vec<usize> = want.into_iter().collect();
                let mut d = build_dense(&t);
                assert_eq!(d.union_minus(&build_dense(&o), &build_dense(&k)), grew);
                assert_eq!(d.to_vec(), want, "dense, sizes {target_n} {out_n} {kill_n}");
                let mut c = build_chunked(&t);
                assert_eq!(c.union_minus(&build_chunked(&o), &build_chunked(&k)), grew);
                assert_eq!(
                    c.to_vec(),
                    want,
                    "chunked, sizes {target_n} {out_n} {kill_n}"
                );
            }
        }
    }
}
