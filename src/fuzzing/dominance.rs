//! Oracle check of the CFG and dominance analyses against brute force (DESIGN.md 5).
//!
//! What: [`check`] draws a CFG shape from fuzz bytes, builds it both directly
//! ([`Cfg::compute_from_succs`]) and as a function through the builder (terminators plus
//! `asm goto` labels, read through [`IrRead`](crate::ir::IrRead)), computes [`Cfg`],
//! [`DomTree`], [`DominanceFrontiers`] and [`Sccs`], and [`verify`] compares them with
//! definitions computed naively:
//! (a) `a` dominates `b` iff `b` is unreachable from the entry once `a` is removed;
//! (b) `idom(b)` is the strict dominator of `b` dominated by all other strict dominators;
//! (c) `j ∈ DF(b)` iff `b` dominates a predecessor of `j` and does not strictly dominate `j`;
//! (d) the iterated dominance frontier equals the least fixpoint computed naively;
//! (e) `a`, `b` share a component iff each reaches the other; components come in reverse
//!     topological order;
//! (f) every edge from a higher to a lower-or-equal RPO number targets a block that reaches
//!     its source (a DFS back edge), and `rpo()[rpo_number(b)] == b`;
//! (g) predecessor lists count edges: per (source, target) pair the multiplicities agree.
//!
//! Complexity: O(n * (n + e)) per input for the brute force (reachability from every block).

// The brute force works on n x n matrices indexed by block number; index loops read best.
#![allow(clippy::needless_range_loop)]

use super::generate::cfg_shape;
use crate::analysis::{
    compute_cfg, compute_frontiers, compute_idoms, compute_sccs, Cfg, DomTree, DominanceFrontiers,
    IdfScratch, Sccs,
};
use crate::engine::harness::Harness;
use crate::ir::{
    Block, FunctionBuilder, InlineAsm, InstKind, Operand, Signature, Terminator, Type,
};
use arbitrary::Unstructured;
use bevy_ecs::prelude::IntoScheduleConfigs;

/// The four analyses, reusable across checks (to exercise `clear`).
#[derive(Default)]
pub struct Analyses {
    /// The CFG.
    pub cfg: Cfg,
    /// The dominator tree.
    pub dom: DomTree,
    /// The dominance frontiers.
    pub df: DominanceFrontiers,
    /// The SCCs.
    pub sccs: Sccs,
}

impl Analyses {
    /// Computes the tree, frontiers and SCCs from `self.cfg`.
    pub fn compute_from_cfg(&mut self) {
        self.dom.compute(&self.cfg);
        self.df.compute(&self.cfg, &self.dom);
        self.sccs.compute(&self.cfg);
    }
}

/// Fuzz entry point: never panics unless an analysis disagrees with the oracle.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(shape) = cfg_shape(&mut u, 24) else {
        return;
    };
    check_shape(&shape, &mut Analyses::default());
}

/// Checks every analysis on `shape` (`shape[b]` = successors of block `b`), computed both
/// directly and from a function built with the same shape, reusing `a`.
pub fn check_shape(shape: &[Vec<usize>], a: &mut Analyses) {
    a.cfg.compute_from_succs(shape);
    a.compute_from_cfg();
    verify(shape, a);
    if shape.iter().flatten().all(|&s| s < shape.len()) {
        // The same shape as a function in a World: the pipeline's analysis systems run
        // alone on its columns and must agree with the direct computation (and so with
        // the brute force).
        let f = shape_function(shape);
        let symbols = std::sync::Arc::new(crate::ir::SymbolTable::default());
        let mut h = Harness::new(f, &symbols, Default::default());
        h.run((compute_cfg, compute_idoms, compute_frontiers, compute_sccs).chain());
        // The immediate dominator column (row = block) agrees with the tree.
        let mut column = h
            .world_mut()
            .query::<(&crate::ir::ImmediateDominator, &crate::ir::SlotOf)>();
        let idoms: Vec<Option<Block>> = column
            .contiguous_iter(h.world())
            .expect("block table is dense")
            .flat_map(|(rows, _)| rows.iter().map(|d| d.get()))
            .collect();
        for (b, &d) in idoms.iter().enumerate().take(shape.len()) {
            assert_eq!(d, a.dom.idom(Block::new(b)), "idom column of block{b}");
        }
        let world = h.world();
        let cfg = &world.resource::<crate::ir::PerSlot<Cfg>>()[0];
        for b in 0..shape.len() {
            let b = Block::new(b);
            assert_eq!(cfg.succs(b), a.cfg.succs(b));
            assert_eq!(cfg.preds(b), a.cfg.preds(b));
            assert_eq!(
                world.resource::<crate::ir::PerSlot<DomTree>>()[0].idom(b),
                a.dom.idom(b)
            );
            assert_eq!(
                world.resource::<crate::ir::PerSlot<DominanceFrontiers>>()[0].frontier(b),
                a.df.frontier(b)
            );
        }
        assert_eq!(cfg.rpo(), a.cfg.rpo());
        assert_eq!(cfg.critical_edges(), a.cfg.critical_edges());
        let sccs = &world.resource::<crate::ir::PerSlot<Sccs>>()[0];
        assert_eq!(sccs.num_components(), a.sccs.num_components());
        for c in 0..sccs.num_components() {
            assert_eq!(sccs.members(c), a.sccs.members(c));
        }
    }
}

/// A function whose CFG is `shape`: no successors `ret`, one `jump`, two `br`, three a `br`
/// plus an `asm goto` label (odd blocks) or a `switch`, more a `switch`. Every target must be
/// in range.
pub fn shape_function(shape: &[Vec<usize>]) -> crate::ir::Function {
    let mut b = FunctionBuilder::new(
        "shape",
        Signature {
            params: vec![Type::I32],
            ret: Type::Void,
            varargs: false,
        },
    );
    let x = Operand::Value(b.param(0));
    for _ in 1..shape.len() {
        b.create_block();
    }
    for (i, succs) in shape.iter().enumerate() {
        b.switch_to(Block::new(i));
        let blk = |k: usize| Block::new(succs[k]);
        match succs.len() {
            0 => b.ret(None),
            1 => b.jump(blk(0)),
            2 => {
                let c = b.cast(crate::ir::CastOp::Trunc, Type::I32, Type::I1, x);
                b.br(c.into(), blk(0), blk(1));
            }
            3 if i % 2 == 1 => {
                b.push(InstKind::InlineAsm(Box::new(InlineAsm {
                    template: String::new(),
                    clobbers: Vec::new(),
                    side_effects: true,
                    outputs: Vec::new(),
                    inputs: Vec::new(),
                    goto_labels: vec![blk(2)],
                })));
                let c = b.cast(crate::ir::CastOp::Trunc, Type::I32, Type::I1, x);
                b.br(c.into(), blk(0), blk(1));
            }
            _ => {
                let cases: Vec<(u128, Block)> =
                    (1..succs.len()).map(|k| (k as u128 - 1, blk(k))).collect();
                b.switch(Type::I32, x, blk(0), &cases);
            }
        }
    }
    let f = b.finish();
    debug_assert!(f
        .blocks
        .iter()
        .all(|d| d.terminator != Terminator::Unreachable));
    f
}

fn reach_from(start: usize, succs: &[Vec<usize>], removed: Option<usize>, seen: &mut [bool]) {
    seen.iter_mut().for_each(|s| *s = false);
    if Some(start) == removed {
        return;
    }
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(b) = stack.pop() {
        for &s in &succs[b] {
            if !seen[s] && Some(s) != removed {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
}

/// Compares `a` (computed from `shape`) with brute force; panics with a message naming the
/// failing property and blocks on any mismatch.
pub fn verify(shape: &[Vec<usize>], a: &Analyses) {
    let n = shape.len();
    let succs: Vec<Vec<usize>> = shape
        .iter()
        .map(|l| l.iter().copied().filter(|&s| s < n).collect())
        .collect();
    assert_eq!(a.cfg.num_blocks(), n);
    check_edges(shape, &succs, &a.cfg);
    // Reachability.
    let mut reach = vec![false; n];
    if n > 0 {
        reach_from(0, &succs, None, &mut reach);
    }
    let mut from = vec![vec![false; n]; n];
    for (x, row) in from.iter_mut().enumerate() {
        if reach[x] {
            reach_from(x, &succs, None, row);
        }
    }
    check_order(&succs, &reach, &from, &a.cfg);
    check_critical_edges(&succs, &a.cfg);
    let dom = dominance_by_removal(&succs, &reach);
    check_dominator_tree(&dom, &reach, a);
    let df_sets = check_frontiers(&dom, &reach, a);
    check_iterated_frontiers(&df_sets, a);
    check_sccs(&succs, &reach, &from, a);
}

/// (g) Successors in order, and predecessors counting edges.
fn check_edges(shape: &[Vec<usize>], succs: &[Vec<usize>], cfg: &Cfg) {
    let n = succs.len();
    let blk = Block::new;
    // Successors and (g) predecessors counting edges.
    let mut edges = 0;
    let mut count = std::collections::HashMap::new();
    for (b, l) in succs.iter().enumerate() {
        let got: Vec<usize> = cfg.succs(blk(b)).iter().map(|s| s.index()).collect();
        assert_eq!(&got, l, "succs of block{b}");
        edges += l.len();
        for &s in l {
            *count.entry((b, s)).or_insert(0i64) += 1;
        }
    }
    assert_eq!(cfg.invalid_edges(), shape.iter().flatten().count() - edges);
    let mut pred_total = 0;
    for s in 0..n {
        pred_total += cfg.preds(blk(s)).len();
        for &p in cfg.preds(blk(s)) {
            *count.entry((p.index(), s)).or_insert(0) -= 1;
        }
    }
    assert_eq!(pred_total, edges, "predecessor entries != edges");
    assert!(
        count.values().all(|&c| c == 0),
        "pred/succ multiplicities differ"
    );
}

/// (f) The reverse postorder: exactly the reachable blocks, the entry first, and an edge
/// that goes backward in it is a back edge (its target reaches its source).
fn check_order(succs: &[Vec<usize>], reach: &[bool], from: &[Vec<bool>], cfg: &Cfg) {
    let n = succs.len();
    let blk = Block::new;
    // (f) RPO.
    let rpo = cfg.rpo();
    assert_eq!(rpo.len(), reach.iter().filter(|&&r| r).count());
    if n > 0 {
        assert_eq!(rpo.first(), Some(&blk(0)));
    }
    for b in 0..n {
        assert_eq!(
            cfg.is_reachable(blk(b)),
            reach[b],
            "reachability of block{b}"
        );
        if let Some(k) = cfg.rpo_number(blk(b)) {
            assert_eq!(rpo[k as usize], blk(b));
        }
    }
    for (x, l) in succs.iter().enumerate() {
        if !reach[x] {
            continue;
        }
        for &y in l {
            let (rx, ry) = (cfg.rpo_number(blk(x)), cfg.rpo_number(blk(y)));
            if rx >= ry {
                assert!(
                    from[y][x],
                    "edge block{x}->block{y} goes backward in RPO but is not a back edge"
                );
            }
        }
    }
}

/// Critical edges: from a block with several successors to one with several predecessors.
fn check_critical_edges(succs: &[Vec<usize>], cfg: &Cfg) {
    let blk = Block::new;
    // Critical edges.
    let mut crit = Vec::new();
    for (x, l) in succs.iter().enumerate() {
        if l.len() > 1 {
            for (i, &y) in l.iter().enumerate() {
                if cfg.preds(blk(y)).len() > 1 {
                    crit.push((blk(x), i as u32));
                }
            }
        }
    }
    assert_eq!(cfg.critical_edges(), crit.as_slice());
}

/// (a) `dom[x][y]`: `x` dominates `y` if removing `x` makes `y` unreachable.
fn dominance_by_removal(succs: &[Vec<usize>], reach: &[bool]) -> Vec<Vec<bool>> {
    let n = succs.len();
    // (a) dominance by removal.
    let mut dom = vec![vec![false; n]; n];
    let mut seen = vec![false; n];
    for x in 0..n {
        if !reach[x] {
            continue;
        }
        reach_from(0, succs, Some(x), &mut seen);
        for y in 0..n {
            dom[x][y] = reach[y] && (x == y || !seen[y]);
        }
    }
    dom
}

/// (a) `dominates` against `dom`, and (b) immediate dominators and the tree.
fn check_dominator_tree(dom: &[Vec<bool>], reach: &[bool], a: &Analyses) {
    let n = dom.len();
    let blk = Block::new;
    let dt = &a.dom;
    for x in 0..n {
        for y in 0..n {
            assert_eq!(
                dt.dominates(blk(x), blk(y)),
                dom[x][y],
                "dominates(block{x}, block{y})"
            );
        }
    }
    // (b) immediate dominators and the tree. Dominators form a chain, so the immediate
    // dominator is the strict dominator with the most dominators; small inputs also check
    // that it is dominated by every other strict dominator.
    let depth: Vec<usize> = (0..n)
        .map(|d| (0..n).filter(|&x| dom[x][d]).count())
        .collect();
    for y in 0..n {
        let expect = if !reach[y] || y == 0 {
            None
        } else {
            let strict = (0..n).filter(|&x| x != y && dom[x][y]);
            let d = strict
                .clone()
                .max_by_key(|&d| depth[d])
                .expect("a reachable non-entry block has an immediate dominator");
            if n <= 300 {
                assert!(
                    strict.clone().all(|x| dom[x][d]),
                    "idom(block{y}) is not unique"
                );
            }
            Some(blk(d))
        };
        assert_eq!(dt.idom(blk(y)), expect, "idom(block{y})");
        let ch = dt.children(blk(y));
        assert!(ch.windows(2).all(|w| w[0] < w[1]));
        assert!(ch.iter().all(|&c| dt.idom(c) == Some(blk(y))));
    }
    let reachable = reach.iter().filter(|&&r| r).count();
    assert_eq!(dt.preorder().len(), reachable);
}

/// (c) Dominance frontiers by definition; returns them per block.
fn check_frontiers(dom: &[Vec<bool>], reach: &[bool], a: &Analyses) -> Vec<Vec<Block>> {
    let n = dom.len();
    let blk = Block::new;
    let cfg = &a.cfg;
    // (c) dominance frontiers by definition.
    let preds_of = |j: usize| cfg.preds(blk(j)).iter().map(|p| p.index());
    let mut df_sets = vec![Vec::new(); n];
    for (x, set) in df_sets.iter_mut().enumerate() {
        if !reach[x] {
            continue;
        }
        for j in 0..n {
            if !reach[j] {
                continue;
            }
            let strict = x != j && dom[x][j];
            if !strict && preds_of(j).any(|p| reach[p] && dom[x][p]) {
                set.push(blk(j));
            }
        }
        assert_eq!(a.df.frontier(blk(x)), set.as_slice(), "DF(block{x})");
    }
    for x in 0..n {
        if !reach[x] {
            assert!(a.df.frontier(blk(x)).is_empty());
        }
    }
    df_sets
}

/// (d) Iterated dominance frontiers for singletons and a few sets, against the fixpoint
/// of the frontiers.
fn check_iterated_frontiers(df_sets: &[Vec<Block>], a: &Analyses) {
    let n = df_sets.len();
    let blk = Block::new;
    // (d) iterated dominance frontiers for singletons and a few sets.
    let mut scratch = IdfScratch::default();
    let mut out = Vec::new();
    let mut sets: Vec<Vec<Block>> = (0..n.min(40)).map(|b| vec![blk(b)]).collect();
    for k in 2..5 {
        sets.push((0..n).filter(|b| b % k == 1).map(blk).collect());
    }
    for defs in &sets {
        let mut x = vec![false; n];
        loop {
            let mut y = vec![false; n];
            for d in 0..n {
                if x[d] || defs.contains(&blk(d)) {
                    for j in &df_sets[d] {
                        y[j.index()] = true;
                    }
                }
            }
            if y == x {
                break;
            }
            x = y;
        }
        let expect: Vec<Block> = (0..n).filter(|&b| x[b]).map(blk).collect();
        a.df.iterated(defs, &mut out, &mut scratch);
        assert_eq!(out, expect, "IDF({defs:?})");
    }
}

/// (e) Strongly connected components: same component exactly when mutually reachable,
/// components in a topological order of the condensation, trivial ones marked.
fn check_sccs(succs: &[Vec<usize>], reach: &[bool], from: &[Vec<bool>], a: &Analyses) {
    let n = succs.len();
    let blk = Block::new;
    // (e) strongly connected components.
    let s = &a.sccs;
    for x in 0..n {
        assert_eq!(s.component(blk(x)).is_some(), reach[x]);
        for y in 0..n {
            if reach[x] && reach[y] {
                let same = from[x][y] && from[y][x];
                assert_eq!(
                    s.component(blk(x)) == s.component(blk(y)),
                    same,
                    "scc block{x} block{y}"
                );
            }
        }
        if reach[x] {
            for &y in &succs[x] {
                assert!(
                    s.component(blk(x)) >= s.component(blk(y)),
                    "SCC order on block{x}->block{y}"
                );
            }
        }
    }
    let mut members = 0;
    for c in 0..s.num_components() {
        let m = s.members(c);
        members += m.len();
        assert!(m.windows(2).all(|w| w[0] < w[1]));
        let trivial = m.len() == 1 && !succs[m[0].index()].contains(&m[0].index());
        assert_eq!(s.is_trivial(c), trivial);
    }
    assert_eq!(members, reach.iter().filter(|&&r| r).count());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::generate::seed_bytes;

    #[test]
    fn random_inputs() {
        let mut a = Analyses::default();
        for seed in 0..3000u64 {
            let bytes = seed_bytes(seed, 128);
            let mut u = Unstructured::new(&bytes);
            let shape = cfg_shape(&mut u, 24).unwrap();
            check_shape(&shape, &mut a);
        }
        check(&[]);
        check(&[255; 7]);
    }

    #[test]
    fn hand_built() {
        let mut a = Analyses::default();
        let cases: Vec<Vec<Vec<usize>>> = vec![
            vec![vec![]],
            // irreducible: two entries into the loop {1, 2}
            vec![vec![1, 2], vec![2], vec![1, 3], vec![]],
            // duplicate edges
            vec![vec![1, 1], vec![2, 2], vec![]],
            // entry block as loop header
            vec![vec![1], vec![0, 2], vec![]],
            vec![vec![1], vec![2], vec![0, 3], vec![1]],
            // self loops, entry self loop
            vec![vec![0, 1], vec![1, 2], vec![]],
            // unreachable blocks, including one jumping into the live part
            vec![vec![1], vec![], vec![1, 3], vec![3]],
            // out-of-range target (skipped and counted)
            vec![vec![7, 1], vec![]],
        ];
        for c in &cases {
            check_shape(c, &mut a);
        }
        let entry_loop = &cases[3];
        a.cfg.compute_from_succs(entry_loop);
        a.compute_from_cfg();
        assert_eq!(a.df.frontier(Block(0)), &[Block(0)]);
        assert_eq!(a.df.frontier(Block(1)), &[Block(0)]);
    }

    #[test]
    fn deep_chain_and_wide_switch() {
        let mut a = Analyses::default();
        // 2000-block chain with a back edge to the entry: deep DFS and dominator tree.
        let mut chain: Vec<Vec<usize>> = (0..2000).map(|b| vec![b + 1]).collect();
        chain[1999] = vec![0];
        chain.push(vec![]);
        chain[1000].push(2000);
        check_shape(&chain, &mut a);
        assert_eq!(a.dom.idom(Block(1999)), Some(Block(1998)));
        assert_eq!(a.sccs.num_components(), 2);
        // 500-way switch joining in one block.
        let mut sw: Vec<Vec<usize>> = vec![(1..=500).collect()];
        sw.extend((1..=500).map(|_| vec![501]));
        sw.push(vec![]);
        check_shape(&sw, &mut a);
        assert_eq!(a.dom.idom(Block(501)), Some(Block(0)));
        assert_eq!(a.df.frontier(Block(7)), &[Block(501)]);
    }

    #[test]
    fn hundred_thousand_blocks_without_recursion() {
        // A chain of 100k blocks, each also branching back to the entry: deep DFS, deep
        // dominator tree, the entry in every frontier.
        let n = 100_000;
        let shape: Vec<Vec<usize>> = (0..n)
            .map(|b| if b + 1 < n { vec![b + 1, 0] } else { vec![] })
            .collect();
        let mut a = Analyses::default();
        a.cfg.compute_from_succs(&shape);
        a.compute_from_cfg();
        assert_eq!(a.cfg.rpo().len(), n);
        assert_eq!(a.dom.idom(Block::new(n - 1)), Some(Block::new(n - 2)));
        assert!(a.dom.dominates(Block(0), Block::new(n - 1)));
        assert_eq!(a.df.frontier(Block::new(n / 2)), &[Block(0)]);
        assert_eq!(a.sccs.num_components(), 2);
        let mut out = Vec::new();
        a.df.iterated(&[Block::new(7)], &mut out, &mut IdfScratch::default());
        assert_eq!(out, vec![Block(0)]);
    }
}
