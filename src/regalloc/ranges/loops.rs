//! Loop depths of a machine function's blocks, for use weights ([`super::use_weight`]):
//! the number of loops containing each block, one loop per header of back edges (edges to a
//! block on the depth-first stack), from a loop nesting forest in the manner of Havlak's
//! (ACM TOPLAS 19(4), 1997); see [`loop_depths`] for the exact definition on irreducible
//! control flow.
//!
//! Invariants: unreachable blocks have depth 0; working storage ([`LoopScratch`]) is reused
//! between functions.
//! Complexity: O((blocks + edges) x α).

use super::*;

/// Working storage of [`loop_depths_into`] (depth-first facts, the loop nesting forest's
/// union-find and marks, and the exits of collapsed loops as linked lists in flat vectors),
/// reused between functions.
#[derive(Default, Debug, Clone)]
pub struct LoopScratch {
    /// `pre[b]`: preorder number (`u32::MAX` when unreachable).
    pub(super) pre: Vec<u32>,
    /// `last[b]`: the largest preorder number in `b`'s depth-first subtree.
    pub(super) last: Vec<u32>,
    /// (header, tail) of every back edge (an edge to a block on the depth-first stack).
    back: Vec<(MBlock, MBlock)>,
    on_stack: Vec<bool>,
    stack: Vec<(MBlock, usize)>,
    rep: Vec<MBlock>,
    inner: Vec<MBlock>,
    parent: Vec<MBlock>,
    mark: Vec<MBlock>,
    work: Vec<MBlock>,
    body: Vec<MBlock>,
    headers: Vec<MBlock>,
    /// `exit_head[h]`: first node of collapsed header `h`'s exit list (`u32::MAX`: none);
    /// node `k` is block `exit_block[k]`, followed by node `exit_next[k]`.
    exit_head: Vec<u32>,
    exit_block: Vec<MBlock>,
    exit_next: Vec<u32>,
    loop_depth: Vec<u32>,
}

/// Fills the depth-first facts of `f` into `d` (`pre`, `last`, `back`).
fn depth_first<F: MachineRead + ?Sized>(f: &F, d: &mut LoopScratch) {
    let n = f.num_blocks();
    d.pre.clear();
    d.pre.resize(n, u32::MAX);
    d.last.clear();
    d.last.resize(n, 0);
    d.back.clear();
    d.on_stack.clear();
    d.on_stack.resize(n, false);
    let mut next = 0u32;
    let entry = f.entry_block();
    d.stack.clear();
    d.stack.push((entry, 0));
    d.pre[entry.index()] = next;
    next += 1;
    d.on_stack[entry.index()] = true;
    while let Some(&mut (b, ref mut k)) = d.stack.last_mut() {
        if let Some(&s) = f.block_succs(b).get(*k) {
            *k += 1;
            if d.pre[s.index()] == u32::MAX {
                d.pre[s.index()] = next;
                next += 1;
                d.on_stack[s.index()] = true;
                d.stack.push((s, 0));
            } else if d.on_stack[s.index()] {
                d.back.push((s, b));
            }
        } else {
            d.on_stack[b.index()] = false;
            d.last[b.index()] = next - 1;
            d.stack.pop();
        }
    }
}

/// Loop depth per block: the number of loops containing it. A back edge `t -> h` is an edge
/// to a block on the depth-first stack; the back edges sharing a header `h` make one loop:
/// `h` plus the blocks of `h`'s depth-first subtree that reach one of the tails without
/// passing `h` (for reducible control flow, exactly the natural loop; an irreducible entry
/// from outside the subtree is not followed).
///
/// Algorithm: a loop nesting forest in the manner of Havlak's (ACM TOPLAS 19(4), 1997):
/// headers are taken innermost first (decreasing preorder); each loop's body is found by a
/// backward walk from its tails over union-find representatives, so an inner loop already
/// found is crossed as its one header, then collapsed into the new header. A block's depth
/// is the depth of its innermost loop in the forest. O((blocks + edges) x α).
pub fn loop_depths<F: MachineRead + ?Sized>(f: &F) -> Vec<u32> {
    let mut depth = Vec::new();
    loop_depths_into(f, &mut LoopScratch::default(), &mut depth);
    depth
}

/// [`loop_depths`] into `depth` with reused working storage.
pub fn loop_depths_into<F: MachineRead + ?Sized>(f: &F, d: &mut LoopScratch, depth: &mut Vec<u32>) {
    let n = f.num_blocks();
    depth_first(f, d);
    depth.clear();
    depth.resize(n, 0);
    if d.back.is_empty() {
        return;
    }
    // Headers innermost (largest preorder) first; tails grouped per header.
    let pre = &d.pre;
    d.back
        .sort_unstable_by_key(|&(h, t)| (std::cmp::Reverse(pre[h.index()]), t));
    d.rep.clear();
    d.rep.extend(crate::machine::block_range(n));
    fn find(rep: &mut [MBlock], mut b: MBlock) -> MBlock {
        while rep[b.index()] != b {
            let up = rep[rep[b.index()].index()];
            rep[b.index()] = up;
            b = up;
        }
        b
    }
    const NONE: MBlock = MBlock(u32::MAX);
    const NO_NODE: u32 = u32::MAX;
    let LoopScratch {
        pre,
        last,
        back,
        rep,
        inner,
        parent,
        mark,
        work,
        body,
        headers,
        exit_head,
        exit_block,
        exit_next,
        loop_depth,
        ..
    } = d;
    // Innermost header of each block, and the enclosing header of each header.
    for v in [&mut *inner, &mut *parent, &mut *mark] {
        v.clear();
        v.resize(n, NONE);
    }
    work.clear();
    body.clear();
    headers.clear();
    // Per collapsed header: predecessors of its loop's blocks outside its subtree.
    exit_head.clear();
    exit_head.resize(n, NO_NODE);
    exit_block.clear();
    exit_next.clear();
    for group in back.chunk_by(|a, b| a.0 == b.0) {
        let h = group[0].0;
        let (lo, hi) = (pre[h.index()], last[h.index()]);
        headers.push(h);
        inner[h.index()] = h;
        mark[h.index()] = h;
        work.clear();
        body.clear();
        for &(_, t) in group {
            let t = find(rep, t);
            work.push(t);
        }
        let mut out = NO_NODE;
        while let Some(x) = work.pop() {
            if mark[x.index()] == h {
                continue;
            }
            mark[x.index()] = h;
            body.push(x);
            // A collapsed inner loop is entered through its header's predecessors and
            // through its members' predecessors from outside its subtree (irreducible).
            let mut node = std::mem::replace(&mut exit_head[x.index()], NO_NODE);
            let preds = f.block_preds(x);
            let mut k = 0;
            loop {
                let p = if k < preds.len() {
                    k += 1;
                    preds[k - 1]
                } else if node != NO_NODE {
                    let p = exit_block[node as usize];
                    node = exit_next[node as usize];
                    p
                } else {
                    break;
                };
                let pp = pre[p.index()];
                if pp >= lo && pp <= hi {
                    let r = find(rep, p);
                    if mark[r.index()] != h {
                        work.push(r);
                    }
                } else if pp != u32::MAX {
                    exit_block.push(p);
                    exit_next.push(out);
                    out = (exit_block.len() - 1) as u32;
                }
            }
        }
        exit_head[h.index()] = out;
        for &x in body.iter() {
            rep[x.index()] = h;
            if inner[x.index()] == x {
                parent[x.index()] = h; // an inner loop's header
            } else {
                inner[x.index()] = h;
            }
        }
    }
    // Loop depth of each header, outermost first (parents have smaller preorder).
    loop_depth.clear();
    loop_depth.resize(n, 0);
    for &h in headers.iter().rev() {
        let p = parent[h.index()];
        loop_depth[h.index()] = 1 + if p == NONE { 0 } else { loop_depth[p.index()] };
    }
    for b in 0..n {
        let h = inner[b];
        if h != NONE {
            depth[b] = loop_depth[h.index()];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::machine_gen;

    /// The definition, walked once per header (quadratic): `h` plus the blocks of `h`'s
    /// depth-first subtree reaching a tail of `h` without passing `h`.
    fn loop_depths_by_walk<F: MachineRead + ?Sized>(f: &F) -> Vec<u32> {
        let mut d = LoopScratch::default();
        depth_first(f, &mut d);
        let mut depth = vec![0u32; f.num_blocks()];
        let mut headers: Vec<MBlock> = d.back.iter().map(|&(h, _)| h).collect();
        headers.sort_unstable();
        headers.dedup();
        for h in headers {
            let (lo, hi) = (d.pre[h.index()], d.last[h.index()]);
            let mut seen = vec![false; f.num_blocks()];
            seen[h.index()] = true;
            depth[h.index()] += 1;
            let mut work: Vec<MBlock> = d
                .back
                .iter()
                .filter(|&&(hh, _)| hh == h)
                .map(|&(_, t)| t)
                .collect();
            while let Some(b) = work.pop() {
                if seen[b.index()] {
                    continue;
                }
                seen[b.index()] = true;
                depth[b.index()] += 1;
                for &p in f.block_preds(b) {
                    let pp = d.pre[p.index()];
                    if pp >= lo && pp <= hi {
                        work.push(p);
                    }
                }
            }
        }
        depth
    }

    #[test]
    fn loop_depths_match_the_per_header_walk() {
        let mut nested = 0;
        for seed in 0..300u64 {
            let f = machine_gen::seeded(seed);
            let want = loop_depths_by_walk(&f);
            assert_eq!(loop_depths(&f), want, "seed {seed}");
            nested += want.iter().filter(|&&d| d >= 2).count();
        }
        assert!(nested > 50, "too few nested loops to judge: {nested}");
    }
}
