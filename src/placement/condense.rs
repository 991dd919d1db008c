//! Phase 2a: condensation of the constraint graph into placement regions.
//!
//! What: every reachable block belongs to exactly one [`Region`], a strongly connected
//! component of the CFG (000, "Phase 2"). A region of one block is trivial (self-loops were
//! folded into the block's costs by [`super::problem::Constraints`], so a single-block
//! self-loop is trivial too); larger regions are solved by the CSP. Each region lists its
//! internal constraints and its boundary edges (constraint, member, direction), static for
//! the whole solve.
//!
//! Algorithm: Tarjan (1972) as [`Sccs::compute_graph`] implements it (iterative, shared with
//! the CFG's SCCs and the island graph) over the constraints' successor lists. Tarjan
//! completes components sinks first; the regions are stored reversed, so region 0 contains
//! the entry and every constraint between regions goes from a lower to a higher region
//! index.
//!
//! Invariants: `region_of[b]` is `u32::MAX` exactly for unreachable blocks; regions are in
//! topological order; members sorted ascending; a member of a non-trivial region that is the
//! target of a boundary edge (or the entry) is listed first as the loop header hint.
//!
//! Complexity: O(blocks + constraints).

use super::problem::Constraints;
use crate::analysis::Sccs;
use crate::ir::Block;

/// A boundary edge of a region: a constraint with exactly one endpoint inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundaryEdge {
    /// The constraint.
    pub constraint: u32,
    /// The endpoint inside the region.
    pub member: u32,
    /// True if the member is the constraint's source (an outgoing edge).
    pub outgoing: bool,
}

/// A placement region (a strongly connected component); see the module doc.
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// Member blocks; for a non-trivial region the header hint comes first.
    pub members: Vec<u32>,
    /// Constraints with both endpoints inside.
    pub internal: Vec<u32>,
    /// Constraints with one endpoint inside.
    pub boundary: Vec<BoundaryEdge>,
}

impl Region {
    /// True for a single block.
    pub fn is_trivial(&self) -> bool {
        self.members.len() == 1
    }
}

/// The condensation: regions in topological order and each block's region.
#[derive(Clone, Debug, Default)]
pub struct Condensation {
    /// Regions, entry region first.
    pub regions: Vec<Region>,
    /// `region_of[b]`, `u32::MAX` for unreachable blocks.
    pub region_of: Vec<u32>,
}

const NONE: u32 = u32::MAX;

/// Reusable scratch of [`condense_with`]: the shared Tarjan ([`Sccs`]) and the successor
/// lists it walks (CSR).
#[derive(Clone, Debug, Default)]
pub struct CondenseScratch {
    sccs: Sccs,
    succ_start: Vec<u32>,
    succs: Vec<Block>,
}

/// Condenses the reachable part of `c` (fresh scratch; see [`condense_with`]).
pub fn condense(c: &Constraints) -> Condensation {
    condense_with(c, &mut CondenseScratch::default())
}

/// Condenses the reachable part of `c` with [`Sccs::compute_graph`] (the analysis crate's
/// iterative Tarjan) over the constraint graph restricted to reachable blocks.
pub fn condense_with(c: &Constraints, s: &mut CondenseScratch) -> Condensation {
    let n = c.n;
    s.succ_start.clear();
    s.succs.clear();
    s.succ_start.push(0);
    for b in 0..n {
        if c.reachable[b] {
            for &(ci, src) in c.incident(b) {
                if src {
                    s.succs.push(Block(c.constraints[ci as usize].to));
                }
            }
        }
        s.succ_start.push(s.succs.len() as u32);
    }
    let (start, succs) = (&s.succ_start, &s.succs);
    s.sccs.compute_graph(n, |b| {
        &succs[start[b.index()] as usize..start[b.index() + 1] as usize]
    });
    // Components come sinks first; unreachable blocks (no successors here) form their own
    // components, which are left out.
    let mut comps: Vec<Vec<u32>> = (0..s.sccs.len())
        .filter(|&k| c.reachable[s.sccs.members(k)[0].index()])
        .map(|k| s.sccs.members(k).iter().map(|b| b.0).collect())
        .collect();
    comps.reverse();
    let mut region_of = vec![NONE; n];
    for (r, comp) in comps.iter().enumerate() {
        for &b in comp {
            region_of[b as usize] = r as u32;
        }
    }
    let mut regions: Vec<Region> = comps
        .into_iter()
        .map(|mut members| {
            members.sort_unstable();
            Region {
                members,
                ..Region::default()
            }
        })
        .collect();
    for (ci, con) in c.constraints.iter().enumerate() {
        let (rf, rt) = (region_of[con.from as usize], region_of[con.to as usize]);
        if rf == NONE || rt == NONE {
            continue;
        }
        if rf == rt {
            regions[rf as usize].internal.push(ci as u32);
        } else {
            regions[rf as usize].boundary.push(BoundaryEdge {
                constraint: ci as u32,
                member: con.from,
                outgoing: true,
            });
            regions[rt as usize].boundary.push(BoundaryEdge {
                constraint: ci as u32,
                member: con.to,
                outgoing: false,
            });
        }
    }
    for r in &mut regions {
        if r.members.len() > 1 {
            let header = r
                .members
                .iter()
                .position(|&m| m == 0)
                .or_else(|| {
                    r.boundary
                        .iter()
                        .find(|e| !e.outgoing)
                        .and_then(|e| r.members.iter().position(|&m| m == e.member))
                })
                .unwrap_or(0);
            r.members.swap(0, header);
        }
    }
    Condensation { regions, region_of }
}
