//! Depth-first postorder of a graph given by successor slices, for the graphs that are not
//! the IR's CFG ([`super::Cfg`] keeps its own order): machine blocks, placement problems,
//! generated CFGs.
//!
//! Algorithm: iterative depth-first search with an explicit stack of (node, next successor)
//! pairs, so deep graphs cannot overflow the call stack; a node is emitted when its last
//! successor is done. Reversed, the postorder is a reverse postorder (every node but a root
//! after one of its predecessors).
//!
//! Invariants: each node appears at most once; only nodes reachable from `roots` appear, in
//! the order the roots are taken. Successor indices must be below `n`.
//!
//! Complexity: O(n + edges) time, O(n) space.

/// A graph node named by a dense index below the node count (a block index, a machine
/// block handle).
pub trait Node: Copy {
    /// The dense index.
    fn dense_index(self) -> usize;
}

impl Node for u32 {
    fn dense_index(self) -> usize {
        self as usize
    }
}

/// The depth-first postorder of the nodes reachable from `roots` (taken in order, each
/// skipped if an earlier walk reached it) in a graph of `n` nodes whose successors are
/// `succs(node)`. Panics if a successor is `n` or above.
pub fn postorder<'a, N: Node + 'a>(
    n: usize,
    roots: impl IntoIterator<Item = N>,
    succs: impl Fn(N) -> &'a [N],
) -> Vec<N> {
    let mut out = Vec::with_capacity(n);
    postorder_into(n, roots, succs, &mut PostorderScratch::default(), &mut out);
    out
}

/// Working storage of [`postorder_into`] (visited marks and the walk's stack), reused by
/// callers that order many graphs.
#[derive(Clone, Debug)]
pub struct PostorderScratch<N> {
    seen: Vec<bool>,
    stack: Vec<(N, usize)>,
}

impl<N> Default for PostorderScratch<N> {
    fn default() -> Self {
        PostorderScratch {
            seen: Vec::new(),
            stack: Vec::new(),
        }
    }
}

/// [`postorder`] into `out` (cleared first) with reused working storage: allocates nothing
/// once `out` and `scratch` have held a graph as large.
pub fn postorder_into<'a, N: Node + 'a>(
    n: usize,
    roots: impl IntoIterator<Item = N>,
    succs: impl Fn(N) -> &'a [N],
    scratch: &mut PostorderScratch<N>,
    out: &mut Vec<N>,
) {
    out.clear();
    let seen = &mut scratch.seen;
    seen.clear();
    seen.resize(n, false);
    let stack = &mut scratch.stack;
    stack.clear();
    for root in roots {
        if std::mem::replace(&mut seen[root.dense_index()], true) {
            continue;
        }
        stack.push((root, 0));
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&s) = succs(b).get(*k) {
                *k += 1;
                if !std::mem::replace(&mut seen[s.dense_index()], true) {
                    stack.push((s, 0));
                }
            } else {
                out.push(b);
                stack.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::postorder;

    #[test]
    fn diamond_with_a_loop_and_an_unreachable_node() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 1 (loop); 4 unreachable from 0.
        let succs: Vec<Vec<u32>> = vec![vec![1, 2], vec![3], vec![3], vec![1], vec![0]];
        let from_entry = postorder(5, [0], |b| &succs[b as usize]);
        assert_eq!(from_entry, vec![3, 1, 2, 0]);
        let all = postorder(5, [0].into_iter().chain(0..5), |b| &succs[b as usize]);
        assert_eq!(all, vec![3, 1, 2, 0, 4]);
    }
}
