//! Phase 2a: condensation of the constraint graph into placement regions.
//!
//! What: every reachable block belongs to exactly one region, a strongly connected
//! component of the CFG (000, "Phase 2"). A region of one block is trivial (self-loops were
//! folded into the block's costs by [`super::problem::Constraints`], so a single-block
//! self-loop is trivial too); larger regions are solved by the CSP. Each region lists its
//! members and, once [`Condensation::fill_boundaries`] ran (the search needs them, exact
//! elimination does not), its boundary edges (constraint, member, direction), static for
//! the whole solve. Every table is flat and reused between problems.
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

/// The condensation: regions in topological order and each block's region, in flat tables
/// (one allocation each, reused by [`condense_into`]): region `r`'s members are
/// `members[member_start[r]..member_start[r + 1]]`, its boundary edges likewise.
#[derive(Clone, Debug, Default)]
pub struct Condensation {
    /// `region_of[b]`, `u32::MAX` for unreachable blocks.
    pub region_of: Vec<u32>,
    member_start: Vec<u32>,
    members: Vec<u32>,
    boundary_start: Vec<u32>,
    boundary: Vec<BoundaryEdge>,
    /// The boundary tables describe the current regions ([`Condensation::fill_boundaries`]).
    bounded: bool,
    /// Fill cursors of [`Condensation::fill_boundaries`] (reused).
    cursor: Vec<u32>,
}

impl Condensation {
    /// Number of regions.
    pub fn len(&self) -> usize {
        self.member_start.len().saturating_sub(1)
    }

    /// True when there is no region (no reachable block).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Member blocks of region `r`; for a non-trivial region the header hint comes first.
    pub fn members(&self, r: u32) -> &[u32] {
        let r = r as usize;
        &self.members[self.member_start[r] as usize..self.member_start[r + 1] as usize]
    }

    /// Constraints with exactly one endpoint in region `r`, in constraint order (after
    /// [`Condensation::fill_boundaries`]).
    pub fn boundary(&self, r: u32) -> &[BoundaryEdge] {
        debug_assert!(self.bounded, "boundaries are filled before they are read");
        let r = r as usize;
        &self.boundary[self.boundary_start[r] as usize..self.boundary_start[r + 1] as usize]
    }

    /// True for a region of a single block.
    pub fn is_trivial(&self, r: u32) -> bool {
        self.member_start[r as usize + 1] - self.member_start[r as usize] == 1
    }

    /// Fills the boundary tables of the regions from `c` (the constraints they were
    /// condensed from): a counting sort over the regions, in constraint order. O(regions +
    /// constraints).
    pub fn fill_boundaries(&mut self, c: &Constraints) {
        let out = self;
        // Boundary edges by counting sort over the regions, in constraint order.
        let nr = out.len();
        out.boundary_start.clear();
        out.boundary_start.resize(nr + 1, 0);
        for con in &c.constraints {
            if let Some((rf, rt)) = crossing(&out.region_of, con) {
                out.boundary_start[rf as usize + 1] += 1;
                out.boundary_start[rt as usize + 1] += 1;
            }
        }
        for r in 0..nr {
            out.boundary_start[r + 1] += out.boundary_start[r];
        }
        out.cursor.clear();
        out.cursor.extend_from_slice(&out.boundary_start[..nr]);
        out.boundary.clear();
        out.boundary.resize(
            out.boundary_start[nr] as usize,
            BoundaryEdge {
                constraint: 0,
                member: 0,
                outgoing: false,
            },
        );
        for (ci, con) in c.constraints.iter().enumerate() {
            let Some((rf, rt)) = crossing(&out.region_of, con) else {
                continue;
            };
            for (r, member, outgoing) in [(rf, con.from, true), (rt, con.to, false)] {
                let at = &mut out.cursor[r as usize];
                out.boundary[*at as usize] = BoundaryEdge {
                    constraint: ci as u32,
                    member,
                    outgoing,
                };
                *at += 1;
            }
        }
        out.bounded = true;
    }

    /// Number of non-trivial regions.
    pub fn cyclic(&self) -> usize {
        (0..self.len() as u32)
            .filter(|&r| !self.is_trivial(r))
            .count()
    }
}

const NONE: u32 = u32::MAX;

/// Reusable scratch of [`condense_into`]: the shared Tarjan ([`Sccs`]) and the successor
/// lists it walks (CSR).
#[derive(Clone, Debug, Default)]
pub struct CondenseScratch {
    sccs: Sccs,
    succ_start: Vec<u32>,
    succs: Vec<Block>,
}

/// Condenses the reachable part of `c` (fresh scratch; see [`condense_into`]).
pub fn condense(c: &Constraints) -> Condensation {
    let mut out = Condensation::default();
    condense_into(c, &mut CondenseScratch::default(), &mut out);
    out.fill_boundaries(c);
    out
}

/// Condenses the reachable part of `c` into `out` (its tables reused) with
/// [`Sccs::compute_graph`] (the analysis crate's iterative Tarjan) over the constraint graph
/// restricted to reachable blocks. The boundary tables are left for
/// [`Condensation::fill_boundaries`]: only the search reads them, and exact elimination
/// usually answers first.
pub fn condense_into(c: &Constraints, s: &mut CondenseScratch, out: &mut Condensation) {
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
    // components, which are left out. Regions are the reachable components reversed.
    out.region_of.clear();
    out.region_of.resize(n, NONE);
    out.member_start.clear();
    out.members.clear();
    out.member_start.push(0);
    for k in (0..s.sccs.len()).rev() {
        let comp = s.sccs.members(k);
        if !c.reachable[comp[0].index()] {
            continue;
        }
        let r = out.member_start.len() as u32 - 1;
        let at = out.members.len();
        out.members.extend(comp.iter().map(|b| b.0));
        out.members[at..].sort_unstable();
        for &b in &out.members[at..] {
            out.region_of[b as usize] = r;
        }
        out.member_start.push(out.members.len() as u32);
    }
    out.bounded = false;
    header_hints(c, out);
}

/// The region pair of a constraint between two different reachable regions.
fn crossing(region_of: &[u32], con: &super::problem::Constraint) -> Option<(u32, u32)> {
    let (rf, rt) = (region_of[con.from as usize], region_of[con.to as usize]);
    (rf != NONE && rt != NONE && rf != rt).then_some((rf, rt))
}

/// Moves each non-trivial region's header hint first: the entry, else the member the first
/// entering constraint (in constraint order) reaches, else the first member.
fn header_hints(c: &Constraints, out: &mut Condensation) {
    if out.cyclic() == 0 {
        return;
    }
    // The first entering constraint's member per region (reusing the cursor table).
    let nr = out.len();
    let mut entered = std::mem::take(&mut out.cursor);
    entered.clear();
    entered.resize(nr, NONE);
    for con in &c.constraints {
        if let Some((_, rt)) = crossing(&out.region_of, con) {
            if entered[rt as usize] == NONE {
                entered[rt as usize] = con.to;
            }
        }
    }
    // The header hint of a non-trivial region: the entry, else the first member entered by
    // a boundary edge, else the first member.
    for r in 0..nr as u32 {
        if out.is_trivial(r) {
            continue;
        }
        let members = out.members(r);
        let header = members
            .iter()
            .position(|&m| m == 0)
            .or_else(|| members.iter().position(|&m| m == entered[r as usize]))
            .unwrap_or(0);
        let at = out.member_start[r as usize] as usize;
        out.members.swap(at, at + header);
    }
    out.cursor = entered;
}
