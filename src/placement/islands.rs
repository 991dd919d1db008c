//! Execution islands and the island dependency graph (spec 001, "Fusion and islands").
//!
//! What: [`build_islands`] groups the placed blocks into islands, the maximal connected
//! (ignoring edge direction) sets of same-target blocks, and connects them in an
//! [`IslandGraph`]:
//! - control-flow edges for every CFG edge that crosses targets;
//! - inheritance edges from a same-target island whose entry dominates another's, so the
//!   later one reuses the paths the earlier one fetched;
//! - data-flow edges that resolve every required path against a provider: an island on the
//!   path's origin target whose entry dominates the consumer's, else a synthetic data island
//!   that fetches the path from its origin.
//!
//! A block's paths are the data it accesses whose origin is a given target; an island
//! requires each path one of its blocks accesses off its origin, unless it inherits it; its
//! provides set is filled on demand when it is chosen as a provider.
//!
//! The schedule ([`IslandGraph::levels`]) condenses the graph's strongly connected
//! components (a loop spanning two islands becomes one step; never an assertion) and puts
//! each component one level after the latest of its predecessors.
//!
//! Dominators: Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001), on
//! the problem's edges; for a problem built from pieces ([`build_piece_islands`]) on the
//! block graph only ([`piece_dominators`]: a later piece is immediately dominated by the
//! piece before it, so the iteration runs over IR blocks, not pieces), or read off the
//! function's dominator tree where the pipeline's is still valid
//! ([`tree_piece_dominators`]: on sqlite -O2 that saves 7.9M of the islands' 31.8M
//! instructions, callgrind). They are computed
//! only when a dominance question needs them (an island whose first member is not block
//! 0, inheritance between two islands, a required path), so a function placed as one
//! island skips them.
//!
//! Complexity: O(blocks + edges) for islands and control-flow edges; dominators O(E·d) for
//! loop nesting depth d (over IR blocks for [`build_piece_islands`]); path resolution
//! O(islands² · paths) in the worst case.

use super::build::Piece;
use super::cost::UNPLACED;
use super::problem::Problem;
use crate::analysis::{DomTree, Sccs};
use crate::ir::Block;
use serde::Serialize;

/// An execution island.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Island {
    /// Target index.
    pub target: u8,
    /// Member blocks, ascending (empty for a synthetic data island).
    pub blocks: Vec<u32>,
    /// The member reached first in reverse postorder (its entry; `u32::MAX` if synthetic).
    pub entry: u32,
    /// Paths fetched from other targets (path ids, ascending).
    pub requires: Vec<u32>,
    /// Paths it provides to other islands (ascending).
    pub provides: Vec<u32>,
    /// True for a synthetic data island.
    pub synthetic: bool,
}

/// The kind of an island dependency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub enum DependencyKind {
    /// A CFG edge between islands on different targets.
    ControlFlow,
    /// Same-target islands, the first dominating the second.
    Inheritance,
    /// A required path resolved against its provider.
    DataFlow,
}

/// One dependency edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub struct Dependency {
    /// Source island.
    pub from: u32,
    /// Destination island.
    pub to: u32,
    /// Kind.
    pub kind: DependencyKind,
    /// The path for a data-flow edge (`u32::MAX` otherwise).
    pub path: u32,
}

/// Islands, their dependencies and the level schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IslandGraph {
    /// The islands (real ones first, in order of their entry block, then synthetic ones).
    pub islands: Vec<Island>,
    /// `island_of[b]` (`u32::MAX` for unplaced blocks).
    pub island_of: Vec<u32>,
    /// Dependencies, sorted and deduplicated.
    pub edges: Vec<Dependency>,
    /// `levels[i]`: the islands that may start at step `i` (a strongly connected group of
    /// islands shares a level).
    pub levels: Vec<Vec<u32>>,
}

/// Immediate dominators of the reachable blocks over `p`'s edges (`u32::MAX` if
/// unreachable; the entry is its own).
pub fn dominators(p: &Problem) -> Vec<u32> {
    dominators_of(p.num_blocks(), p.edges.iter().map(|e| (e.from, e.to)))
}

/// Immediate dominators of the problem blocks of a function's pieces ([`Piece`]s in block
/// order, `p` built from them: seam edges join the pieces of a block, CFG edges leave a
/// block's last piece and enter a block's first), equal to [`dominators`] but computed on
/// the block graph alone: a later piece's only predecessor is the piece before it in its
/// block, which is therefore its immediate dominator, and a block's first piece is
/// immediately dominated by the last piece of its block's immediate dominator. The
/// iteration runs over the first pieces only (a function has two to three pieces per
/// block).
pub fn piece_dominators(p: &Problem, pieces: &[Piece]) -> Vec<u32> {
    let n = pieces.len();
    debug_assert_eq!(n, p.num_blocks());
    let is_first = |i: usize| i == 0 || pieces[i - 1].block != pieces[i].block;
    // Dense block numbers in piece order; per block its last piece.
    let mut block_of = Vec::with_capacity(n);
    let mut last: Vec<u32> = Vec::new();
    for i in 0..n {
        if is_first(i) {
            last.push(i as u32);
        }
        *last.last_mut().expect("piece 0 starts a block") = i as u32;
        block_of.push(last.len() as u32 - 1);
    }
    // The block graph: an edge into a first piece leaves the block of its source.
    let block_edges = p
        .edges
        .iter()
        .filter(|e| is_first(e.to as usize))
        .map(|e| (block_of[e.from as usize], block_of[e.to as usize]));
    let block_idom = dominators_of(last.len(), block_edges);
    (0..n)
        .map(|i| {
            let up = block_idom[block_of[i] as usize];
            if up == u32::MAX {
                u32::MAX
            } else if i == 0 {
                0
            } else if !is_first(i) {
                i as u32 - 1
            } else {
                last[up as usize]
            }
        })
        .collect()
}

/// [`piece_dominators`] read off `tree`, the dominator tree of the CFG the pieces were
/// built on (whose edges between live blocks are the problem's edges into first pieces),
/// instead of iterating over the block graph again: a later piece is immediately
/// dominated by the piece before it, a block's first piece by the last piece of its
/// block's immediate dominator, piece 0 by itself, and the pieces of a block the tree
/// leaves out (unreachable) by none (`u32::MAX`). O(pieces + blocks).
pub fn tree_piece_dominators(pieces: &[Piece], tree: &DomTree) -> Vec<u32> {
    // Per IR block its last piece (pieces come in block order).
    let blocks = pieces.last().map_or(0, |p| p.block as usize + 1);
    let mut last = vec![u32::MAX; blocks];
    for (i, piece) in pieces.iter().enumerate() {
        last[piece.block as usize] = i as u32;
    }
    let entry = pieces.first().map_or(0, |p| p.block);
    let mut block_idom = u32::MAX;
    (0..pieces.len())
        .map(|i| {
            let block = pieces[i].block;
            let first = i == 0 || pieces[i - 1].block != block;
            if first {
                // The dominating piece of the block, or none when it is unreachable.
                block_idom = if block == entry {
                    0
                } else {
                    tree.idom(Block::new(block as usize))
                        .and_then(|up| last.get(up.index()).copied())
                        .unwrap_or(u32::MAX)
                };
            }
            if block_idom == u32::MAX {
                u32::MAX
            } else if i == 0 {
                0
            } else if !first {
                i as u32 - 1
            } else {
                block_idom
            }
        })
        .collect()
}

/// Cooper, Harvey and Kennedy's iteration over the graph of `n` nodes with `edges` (node 0
/// the entry).
fn dominators_of(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Vec<u32> {
    // Successor and predecessor lists in compressed rows (one allocation each).
    let mut succ_start = vec![0u32; n + 1];
    let mut pred_start = vec![0u32; n + 1];
    let mut m = 0;
    for (from, to) in edges.clone() {
        succ_start[from as usize + 1] += 1;
        pred_start[to as usize + 1] += 1;
        m += 1;
    }
    for b in 0..n {
        succ_start[b + 1] += succ_start[b];
        pred_start[b + 1] += pred_start[b];
    }
    let mut succ_list = vec![0u32; m];
    let mut pred_list = vec![0u32; m];
    {
        let mut sc = succ_start[..n].to_vec();
        let mut pc = pred_start[..n].to_vec();
        for (from, to) in edges {
            succ_list[sc[from as usize] as usize] = to;
            sc[from as usize] += 1;
            pred_list[pc[to as usize] as usize] = from;
            pc[to as usize] += 1;
        }
    }
    let succs = |b: usize| &succ_list[succ_start[b] as usize..succ_start[b + 1] as usize];
    let preds = |b: usize| &pred_list[pred_start[b] as usize..pred_start[b + 1] as usize];
    // Reverse postorder.
    let roots = if n > 0 { Some(0) } else { None };
    let mut order = crate::analysis::order::postorder(n, roots, |b| succs(b as usize));
    order.reverse();
    let mut rpo = vec![u32::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        rpo[b as usize] = i as u32;
    }
    let mut idom = vec![u32::MAX; n];
    if n == 0 {
        return idom;
    }
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new = u32::MAX;
            for &q in preds(b as usize) {
                if idom[q as usize] == u32::MAX {
                    continue;
                }
                new = if new == u32::MAX {
                    q
                } else {
                    let (mut x, mut y) = (new, q);
                    while x != y {
                        while rpo[x as usize] > rpo[y as usize] {
                            x = idom[x as usize];
                        }
                        while rpo[y as usize] > rpo[x as usize] {
                            y = idom[y as usize];
                        }
                    }
                    x
                };
            }
            if new != idom[b as usize] {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    idom
}

fn dominates(idom: &[u32], a: u32, mut b: u32) -> bool {
    loop {
        if a == b {
            return true;
        }
        let up = idom[b as usize];
        if up == b || up == u32::MAX {
            return false;
        }
        b = up;
    }
}

/// The dominance relation of [`islands_under`], with the immediate dominators computed on
/// the first question that needs them: `a` dominates itself, and nothing but block 0
/// dominates block 0 (the entry is its own immediate dominator), so a function whose
/// placed blocks form one island (most: an all-interpreter answer, no path to fetch) never
/// computes them.
struct Dominance<F> {
    idom: Option<Vec<u32>>,
    compute: F,
}

impl<F: FnMut() -> Vec<u32>> Dominance<F> {
    fn dominates(&mut self, a: u32, b: u32) -> bool {
        if a == b {
            return true;
        }
        if b == 0 {
            return false;
        }
        let idom = self.idom.get_or_insert_with(&mut self.compute);
        dominates(idom, a, b)
    }
}

/// Builds the islands and their graph for `assignment`; `paths[b]` lists the path ids block
/// `b` accesses and `origin[q]` is path `q`'s origin target (both may be empty).
pub fn build_islands(
    p: &Problem,
    assignment: &[u8],
    paths: &[Vec<u32>],
    origin: &[u8],
) -> IslandGraph {
    let mut dom = Dominance {
        idom: None,
        compute: || dominators(p),
    };
    islands_under(p, &mut dom, assignment, paths, origin)
}

/// [`build_islands`] for a problem built from `pieces` (the same result, with the
/// dominators of [`piece_dominators`], or of [`tree_piece_dominators`] when `tree`, the
/// dominator tree of the CFG the pieces were built on, is given).
pub fn build_piece_islands(
    p: &Problem,
    pieces: &[Piece],
    (assignment, paths, origin): (&[u8], &[Vec<u32>], &[u8]),
    tree: Option<&DomTree>,
) -> IslandGraph {
    let mut dom = Dominance {
        idom: None,
        compute: || match tree {
            Some(tree) => tree_piece_dominators(pieces, tree),
            None => piece_dominators(p, pieces),
        },
    };
    islands_under(p, &mut dom, assignment, paths, origin)
}

/// [`build_islands`] with the dominance relation `dom`: group the blocks, add the control
/// flow and inheritance edges, resolve each island's required paths, then schedule.
fn islands_under(
    p: &Problem,
    dom: &mut Dominance<impl FnMut() -> Vec<u32>>,
    assignment: &[u8],
    paths: &[Vec<u32>],
    origin: &[u8],
) -> IslandGraph {
    let mut g = group_islands(p, dom, assignment);
    add_structural_edges(p, dom, &mut g);
    resolve_paths(dom, &mut g, paths, origin);
    g.edges.sort_unstable();
    g.edges.dedup();
    g.levels = schedule(g.islands.len(), &g.edges);
    g
}

/// Whether island `a`'s entry dominates island `b`'s.
fn island_dominates(
    dom: &mut Dominance<impl FnMut() -> Vec<u32>>,
    g: &IslandGraph,
    a: usize,
    b: usize,
) -> bool {
    dom.dominates(g.islands[a].entry, g.islands[b].entry)
}

/// The islands of `assignment`: the placed blocks grouped by same-target edges
/// (union-find), numbered in order of their first block, each entered at a member that
/// dominates the others when one exists (else its first block). No edges yet.
fn group_islands(
    p: &Problem,
    dom: &mut Dominance<impl FnMut() -> Vec<u32>>,
    assignment: &[u8],
) -> IslandGraph {
    let n = p.num_blocks();
    // Union-find over same-target edges.
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for e in &p.edges {
        let (a, b) = (e.from as usize, e.to as usize);
        if assignment[a] != UNPLACED && assignment[a] == assignment[b] {
            let (ra, rb) = (find(&mut parent, a as u32), find(&mut parent, b as u32));
            if ra != rb {
                parent[ra.max(rb) as usize] = ra.min(rb);
            }
        }
    }
    let mut g = IslandGraph {
        island_of: vec![u32::MAX; n],
        ..IslandGraph::default()
    };
    let mut root_island = vec![u32::MAX; n];
    for (b, &target) in assignment.iter().enumerate().take(n) {
        if target == UNPLACED {
            continue;
        }
        let r = find(&mut parent, b as u32) as usize;
        if root_island[r] == u32::MAX {
            root_island[r] = g.islands.len() as u32;
            g.islands.push(Island {
                target,
                blocks: Vec::new(),
                entry: b as u32,
                requires: Vec::new(),
                provides: Vec::new(),
                synthetic: false,
            });
        }
        let i = root_island[r];
        g.island_of[b] = i;
        let island = &mut g.islands[i as usize];
        island.blocks.push(b as u32);
        // The entry: a member that dominates the others when one exists, else the first.
        if dom.dominates(b as u32, island.entry) {
            island.entry = b as u32;
        }
    }
    g
}

/// Adds a control-flow dependency per CFG edge between two islands, and an inheritance
/// dependency from each island to every same-target island its entry dominates.
fn add_structural_edges(
    p: &Problem,
    dom: &mut Dominance<impl FnMut() -> Vec<u32>>,
    g: &mut IslandGraph,
) {
    for e in &p.edges {
        let (a, b) = (g.island_of[e.from as usize], g.island_of[e.to as usize]);
        if a != u32::MAX && b != u32::MAX && a != b {
            g.edges.push(Dependency {
                from: a,
                to: b,
                kind: DependencyKind::ControlFlow,
                path: u32::MAX,
            });
        }
    }
    let real = g.islands.len();
    // Inheritance between same-target islands.
    for a in 0..real {
        for b in 0..real {
            if a != b
                && g.islands[a].target == g.islands[b].target
                && island_dominates(dom, g, a, b)
            {
                g.edges.push(Dependency {
                    from: a as u32,
                    to: b as u32,
                    kind: DependencyKind::Inheritance,
                    path: u32::MAX,
                });
            }
        }
    }
}

/// Fills each island's requires set (the paths its blocks access whose
/// origin is another target), then resolves each: inherited from a dominating same-target
/// island that requires it too, else provided by a dominating island of the origin target,
/// else fetched by a synthetic data island (one per path), with a data-flow dependency.
fn resolve_paths(
    dom: &mut Dominance<impl FnMut() -> Vec<u32>>,
    g: &mut IslandGraph,
    paths: &[Vec<u32>],
    origin: &[u8],
) {
    // The islands of blocks (synthetic data islands are pushed behind them below).
    let real = g.islands.len();
    // Requires sets (before inheritance).
    for i in 0..real {
        let t = g.islands[i].target;
        let mut req: Vec<u32> = g.islands[i]
            .blocks
            .iter()
            .flat_map(|&b| paths.get(b as usize).into_iter().flatten().copied())
            .filter(|&q| origin.get(q as usize).is_some_and(|&o| o != t))
            .collect();
        req.sort_unstable();
        req.dedup();
        g.islands[i].requires = req;
    }
    // Resolve each required path: inherited, provided by a dominating origin island, or
    // fetched by a synthetic data island (one per path).
    let mut synthetic_of: Vec<(u32, u32)> = Vec::new();
    for i in 0..real {
        let reqs = g.islands[i].requires.clone();
        let mut kept = Vec::new();
        for q in reqs {
            let inherited = (0..real).any(|a| {
                a != i
                    && g.islands[a].target == g.islands[i].target
                    && island_dominates(dom, g, a, i)
                    && g.islands[a].requires.contains(&q)
            });
            if inherited {
                continue;
            }
            kept.push(q);
            let o = origin[q as usize];
            let provider = (0..real)
                .find(|&a| a != i && g.islands[a].target == o && island_dominates(dom, g, a, i));
            let from = match provider {
                Some(a) => a as u32,
                None => match synthetic_of.iter().find(|s| s.0 == q) {
                    Some(&(_, s)) => s,
                    None => {
                        let s = g.islands.len() as u32;
                        g.islands.push(Island {
                            target: o,
                            blocks: Vec::new(),
                            entry: u32::MAX,
                            requires: Vec::new(),
                            provides: Vec::new(),
                            synthetic: true,
                        });
                        synthetic_of.push((q, s));
                        s
                    }
                },
            };
            let prov = &mut g.islands[from as usize].provides;
            if !prov.contains(&q) {
                prov.push(q);
                prov.sort_unstable();
            }
            g.edges.push(Dependency {
                from,
                to: i as u32,
                kind: DependencyKind::DataFlow,
                path: q,
            });
        }
        g.islands[i].requires = kept;
    }
}

/// Levels of the condensation of the dependency graph (see the module doc). The components
/// come from [`crate::analysis::Sccs`] (Tarjan, sinks first).
fn schedule(n: usize, edges: &[Dependency]) -> Vec<Vec<u32>> {
    // No dependency (one island, the usual answer): every island is its own component
    // at level 0, without building the graph.
    if edges.is_empty() {
        return if n == 0 {
            Vec::new()
        } else {
            vec![(0..n as u32).collect()]
        };
    }
    let mut succ: Vec<Vec<Block>> = vec![Vec::new(); n];
    for e in edges {
        if e.from != e.to {
            succ[e.from as usize].push(Block(e.to));
        }
    }
    let mut sccs = Sccs::new();
    sccs.compute_graph(n, |v| &succ[v.index()]);
    let comp = |v: usize| sccs.component(Block::new(v)).expect("every node is a root");
    // Components come sinks first: process in reverse for longest-path levels.
    let ncomp = sccs.num_components();
    let mut level = vec![0u32; ncomp];
    for c in (0..ncomp).rev() {
        for &v in sccs.members(c) {
            for &w in &succ[v.index()] {
                let cw = comp(w.index());
                if cw != c {
                    level[cw] = level[cw].max(level[c] + 1);
                }
            }
        }
    }
    let depth = level.iter().max().map_or(0, |&m| m as usize + 1);
    let mut levels = vec![Vec::new(); depth];
    for v in 0..n {
        levels[level[comp(v)] as usize].push(v as u32);
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::generate::{problem, Shape};

    /// The lazy relation answers every question as the dominator tree does (its two
    /// shortcuts included: a block dominates itself, only block 0 dominates block 0), and
    /// the shortcuts alone never compute the tree.
    #[test]
    fn lazy_dominance_agrees_with_the_tree() {
        for seed in 0..140u64 {
            let p = problem(
                seed,
                Shape::ALL[(seed % 7) as usize],
                2 + seed as usize % 30,
                3,
            );
            let idom = dominators(&p);
            let n = p.num_blocks() as u32;
            let mut lazy = Dominance {
                idom: None,
                compute: || dominators(&p),
            };
            for a in 0..n {
                assert_eq!(lazy.dominates(a, a), dominates(&idom, a, a));
                assert_eq!(lazy.dominates(a, 0), dominates(&idom, a, 0), "seed {seed}");
            }
            assert!(lazy.idom.is_none(), "the shortcuts computed the tree");
            for a in 0..n {
                for b in 0..n {
                    let want = dominates(&idom, a, b);
                    assert_eq!(lazy.dominates(a, b), want, "seed {seed}: {a} dom {b}");
                }
            }
        }
    }
}
