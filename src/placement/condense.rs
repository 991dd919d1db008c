//! Phase 2a: condensation of the constraint graph into placement regions.
//!
//! What: every reachable block belongs to exactly one [`Region`], a strongly connected
//! component of the CFG (000, "Phase 2"). A region of one block is trivial (self-loops were
//! folded into the block's costs by [`super::problem::Constraints`], so a single-block
//! self-loop is trivial too); larger regions are solved by the CSP. Each region lists its
//! internal constraints and its boundary edges (constraint, member, direction), static for
//! the whole solve.
//!
//! Algorithm: Tarjan (1972), iterative with an explicit frame stack. Tarjan completes
//! components sinks first; the regions are stored reversed, so region 0 contains the entry
//! and every constraint between regions goes from a lower to a higher region index.
//!
//! Invariants: `region_of[b]` is `u32::MAX` exactly for unreachable blocks; regions are in
//! topological order; members sorted ascending; a member of a non-trivial region that is the
//! target of a boundary edge (or the entry) is listed first as the loop header hint.
//!
//! Complexity: O(blocks + constraints).

use super::problem::Constraints;

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

/// Condenses the reachable part of `c`.
pub fn condense(c: &Constraints) -> Condensation {
    let n = c.n;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut frames: Vec<(u32, u32)> = Vec::new();
    let mut comps: Vec<Vec<u32>> = Vec::new();
    let mut next = 0u32;
    for root in 0..n {
        if !c.reachable[root] || index[root] != NONE {
            continue;
        }
        frames.push((root as u32, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&(b, pos0)) = frames.last() {
            let inc = &c.incident[b as usize];
            let mut pos = pos0 as usize;
            let mut child = None;
            while pos < inc.len() {
                let (ci, src) = inc[pos];
                pos += 1;
                if !src {
                    continue;
                }
                let s = c.constraints[ci as usize].to as usize;
                if index[s] == NONE {
                    child = Some(s);
                    break;
                } else if on_stack[s] {
                    low[b as usize] = low[b as usize].min(index[s]);
                }
            }
            if let Some(top) = frames.last_mut() {
                top.1 = pos as u32;
            }
            if let Some(s) = child {
                index[s] = next;
                low[s] = next;
                next += 1;
                stack.push(s as u32);
                on_stack[s] = true;
                frames.push((s as u32, 0));
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent as usize] = low[parent as usize].min(low[b as usize]);
            }
            if low[b as usize] == index[b as usize] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("Tarjan stack holds the component");
                    on_stack[w as usize] = false;
                    comp.push(w);
                    if w == b {
                        break;
                    }
                }
                comps.push(comp);
            }
        }
    }
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
