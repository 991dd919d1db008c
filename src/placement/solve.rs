//! Phase 3: the placement solver driver: AC-3, condensation, the forward pass with dynamic
//! MRV and backtracking, the backward pass with the exact delta, and the fixpoint.
//!
//! What: [`Solver::solve`] turns a [`Problem`] into an assignment of every reachable block,
//! or a [`PlacementError`] naming the blocks involved (000, DESIGN.md 4).
//!
//! Algorithm:
//! 1. [`super::ac3::prune`]; an empty domain on a reachable block is an error.
//! 2. [`super::condense::condense`] into regions.
//! 3. Forward pass: repeatedly pick the unplaced region by MRV across regions (smallest
//!    remaining domain of a member after narrowing by placed neighbours; ties: most placed
//!    neighbours, then topological order), kept in a lazily updated binary heap. A trivial
//!    region builds its TargetHeap: every target of its narrowed domain that leaves each
//!    unplaced neighbour a partner (forward checking), ordered by an estimate (exact costs
//!    to placed neighbours plus a one-step lookahead to unplaced ones, 000's double-counting
//!    value order). A non-trivial region asks the CSP ([`super::csp`]) with its placed
//!    neighbours as boundary context (cached by the boundary tuple). Each choice is pushed
//!    on the assignment stack. When a region has no candidate, chronological backtracking
//!    pops the stack: a trivial region takes the next entry of its TargetHeap; a
//!    non-trivial region re-solves its CSP with its current interface assignment as a
//!    nogood, which yields the least-cost alternative that changes its boundary behaviour
//!    (the exact form of 000's least-delta perturbation); an exhausted region is unplaced
//!    and the pop continues. Every region's alternatives under a fixed context are finite and
//!    consumed monotonically, so the search terminates; for trivial regions it is complete.
//! 4. Backward pass (sinks first) and, with the fixpoint, alternating forward/backward
//!    sweeps: a trivial region moves to the target with the most negative exact delta over
//!    its block and all incident edges; a non-trivial region is re-solved by the CSP with
//!    its full boundary and replaced when its exact local cost strictly drops. An optional
//!    window sweep re-solves each block with its neighbourhood (up to
//!    [`SolveOptions::window`] blocks) exactly, the same accept rule. Every accepted move
//!    strictly lowers the exact objective, so the loop terminates.
//!
//! 0. When the constraint graph is narrow enough ([`SolveOptions::exact_budget`]), exact
//!    variable elimination ([`super::eliminate`], [`Solver::eliminate_exactly`]) answers
//!    directly; it needs no condensation, so the pipeline runs it before condensing and
//!    condenses only what it declined ([`Solver::solve`] condenses first for the region
//!    statistics). The search ([`Solver::search_regions`]) runs only when it declines (too
//!    wide) or proves the problem infeasible (the search then names the blocks). Set the
//!    budget to 0 for the spec's pipeline alone.
//!
//! Invariants: the returned cost equals [`super::cost::objective`] of the assignment;
//! unreachable blocks are [`UNPLACED`].
//!
//! Complexity: AC-3 O(E·K²); forward pass O((R + E) log R) without backtracking; each sweep
//! O(E·K) for trivial regions plus the CSP calls.

use super::ac3::{prune, Ac3Scratch};
use super::condense::{condense_into, Condensation, CondenseScratch};
use super::cost::UNPLACED;
use super::csp::{solve_csp, CspLimits, CspScratch, CspSolution};
use super::eliminate::{eliminate_into, EliminateScratch};
use super::problem::{add, Constraints, Cost, Problem, TargetSet, FORBIDDEN};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Which phases run (the benchmark's ablation switches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Run the backward pass after the forward pass.
    pub backward: bool,
    /// Alternate forward/backward sweeps until nothing changes.
    pub fixpoint: bool,
    /// Window size of the exact neighbourhood sweep (0 or 1: off).
    pub window: usize,
    /// CSP exactness limits.
    pub limits: CspLimits,
    /// Cache CSP answers by boundary assignment (keyed by the region and the targets of its
    /// boundary neighbours; exact, since equal keys mean equal narrowing and costs).
    pub cache: bool,
    /// Forward-pass steps (placements plus backtracks) before giving up.
    pub step_budget: u64,
    /// Table entries the exact variable elimination ([`super::eliminate`]) may build before
    /// it leaves the problem to the search (0: never try it).
    pub exact_budget: u64,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            backward: true,
            fixpoint: true,
            window: 6,
            limits: CspLimits::default(),
            // Measured (examples/placement_optimality.rs, `+window6,no-cache`): the cache
            // changes neither results nor time on generated problems, so it is off by
            // default (DESIGN.md 4: implemented, enabled only if it pays off).
            cache: false,
            step_budget: 1_000_000,
            exact_budget: 200_000,
        }
    }
}

/// What the solver did, for statistics and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SolveStats {
    /// Regions of the condensation.
    pub regions: usize,
    /// Non-trivial regions.
    pub cyclic_regions: usize,
    /// Backtracking steps of the forward pass.
    pub backtracks: u64,
    /// CSP calls (cache misses).
    pub csp_calls: u64,
    /// CSP cache hits.
    pub cache_hits: u64,
    /// Refinement sweeps run (backward and fixpoint).
    pub sweeps: u32,
    /// Moves accepted by the refinement sweeps.
    pub improvements: u64,
    /// Every CSP ran branch and bound to completion.
    pub csp_exact: bool,
    /// The exact variable elimination solved the problem (the search did not run).
    pub eliminated: bool,
}

/// A placement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// Target per block ([`UNPLACED`] for unreachable blocks).
    pub assignment: Vec<u8>,
    /// The exact objective.
    pub cost: Cost,
    /// Domains after AC-3.
    pub domains: Vec<TargetSet>,
    /// Region per block (`u32::MAX` for unreachable blocks).
    pub region_of: Vec<u32>,
    /// Statistics.
    pub stats: SolveStats,
}

/// Why a problem could not be placed. Block lists name blocks by their problem names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// The problem's shape is invalid.
    #[error("invalid placement problem: {0}")]
    Invalid(#[from] super::problem::ProblemError),
    /// Arc consistency left a reachable block without targets.
    #[error("no target can run block(s) {}: every target is unsupported there or has no allowed transition to a neighbour", .0.join(", "))]
    EmptyDomain(Vec<String>),
    /// Backtracking exhausted every alternative.
    #[error("placement is unsatisfiable: the transition rules cannot be met jointly around block(s) {}", .0.join(", "))]
    Unsatisfiable(Vec<String>),
    /// The step budget ran out before a feasible placement was found.
    #[error("placement gave up after {steps} search steps around block(s) {}", .blocks.join(", "))]
    GaveUp {
        /// Steps taken.
        steps: u64,
        /// Blocks where the search kept failing.
        blocks: Vec<String>,
    },
}

/// A trivial region's remaining candidates, or a non-trivial region's nogoods.
#[derive(Debug)]
enum Frame {
    Trivial {
        region: u32,
        heap: Vec<(Cost, u8)>,
        next: usize,
    },
    Cyclic {
        region: u32,
        nogoods: Vec<Vec<u8>>,
    },
}

/// The solver with its reusable scratch.
#[derive(Default, Debug)]
pub struct Solver {
    ac3: Ac3Scratch,
    csp: CspScratch,
    condense: CondenseScratch,
    cache: HashMap<(u32, Vec<u8>), Option<CspSolution>>,
    mark: Vec<u32>,
    stamp: u32,
    solved_at: Vec<u64>,
    eliminate: EliminateScratch,
    /// The data of [`Solver::solve`] (the pipeline keeps its own per function slot).
    data: SolveData,
}

/// One problem's solver data, reused between problems: the constraints, the AC-3 domains,
/// the condensation and the answer. The pipeline's placement systems each fill one part
/// (see [`super::system`]).
#[derive(Default, Debug)]
pub struct SolveData {
    /// The solver's view of the problem ([`Constraints::rebuild`]).
    pub constraints: Constraints,
    /// Per block: its domain after AC-3 ([`Solver::enforce_arc_consistency`]).
    pub domains: Vec<TargetSet>,
    /// The regions ([`Solver::condense_regions`]).
    pub condensation: Condensation,
    /// The answer ([`Solver::solve_regions`]).
    pub placement: Placement,
}

/// The names of (up to eight of) `blocks`, for an error; an unnamed block (a problem built
/// without names, see [`super::build::IrProblem::name_pieces`]) by its index, which
/// [`PlacementError::name_blocks`] replaces once the names exist.
pub(super) fn names(p: &Problem, blocks: &[u32]) -> Vec<String> {
    blocks
        .iter()
        .take(8)
        .map(|&b| match p.blocks[b as usize].as_str() {
            "" => b.to_string(),
            name => name.to_string(),
        })
        .collect()
}

impl PlacementError {
    /// Replaces the indices standing for unnamed blocks (see `names`) by `p`'s block names;
    /// the pipeline names its pieces only when a function fails.
    pub fn name_blocks(&mut self, p: &Problem) {
        let list = match self {
            PlacementError::EmptyDomain(list) | PlacementError::Unsatisfiable(list) => list,
            PlacementError::GaveUp { blocks, .. } => blocks,
            PlacementError::Invalid(_) => return,
        };
        for name in list {
            let named = name.parse::<usize>().ok().and_then(|b| p.blocks.get(b));
            if let Some(n) = named.filter(|n| !n.is_empty()) {
                *name = n.clone();
            }
        }
    }
}

struct State<'a> {
    c: &'a Constraints,
    cond: &'a Condensation,
    dom: &'a [TargetSet],
    assign: Vec<u8>,
    fdom: Vec<TargetSet>,
    done: Vec<bool>,
    key_stamp: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u32, u32, u32)>>,
    stats: SolveStats,
    failed: Vec<u32>,
    /// Logical time of each block's last change in the refinement sweeps.
    changed_at: Vec<u64>,
    clock: u64,
}

impl Solver {
    /// A solver with empty scratch.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Places `p` (see the module doc): the four phases below in order, on the solver's own
    /// [`SolveData`].
    ///
    /// # Errors
    /// [`PlacementError`] if the problem is malformed, some reachable block has no target
    /// left after AC-3, the transition rules are jointly unsatisfiable, or the step budget
    /// ran out.
    pub fn solve(&mut self, p: &Problem, opts: &SolveOptions) -> Result<Placement, PlacementError> {
        p.validate()?;
        let mut data = std::mem::take(&mut self.data);
        data.constraints.rebuild(p);
        let result = self
            .enforce_arc_consistency(p, &data.constraints, &mut data.domains)
            .and_then(|()| {
                self.condense_regions(&data.constraints, &mut data.condensation);
                let mut out = Placement::default();
                self.solve_regions(
                    p,
                    &data.constraints,
                    &data.domains,
                    &mut data.condensation,
                    opts,
                    &mut out,
                )?;
                Ok(out)
            });
        self.data = data;
        result
    }

    /// Phase 1: the initial domains of `c`'s blocks in `domains` (reused), pruned by AC-3
    /// ([`super::ac3::prune`]).
    ///
    /// # Errors
    /// [`PlacementError::EmptyDomain`] naming the reachable blocks left without a target
    /// (before or after the pruning).
    pub fn enforce_arc_consistency(
        &mut self,
        p: &Problem,
        c: &Constraints,
        domains: &mut Vec<TargetSet>,
    ) -> Result<(), PlacementError> {
        c.domains_into(domains);
        let empty = |b: usize| c.reachable[b] && domains[b].is_empty();
        if (0..c.n).any(empty) {
            let initially_empty: Vec<u32> =
                (0..c.n as u32).filter(|&b| empty(b as usize)).collect();
            return Err(PlacementError::EmptyDomain(names(p, &initially_empty)));
        }
        let emptied = prune(c, domains, &mut self.ac3);
        if !emptied.is_empty() {
            return Err(PlacementError::EmptyDomain(names(p, &emptied)));
        }
        Ok(())
    }

    /// Phase 2: the regions of `c` into `out` (reused; [`super::condense::condense_into`]).
    pub fn condense_regions(&mut self, c: &Constraints, out: &mut Condensation) {
        condense_into(c, &mut self.condense, out);
    }

    /// Phase 3: the placement of the problem `p` with constraints `c`, AC-3 domains `dom`
    /// and condensation `cond` (its boundaries filled when the search runs) into `out`, whose
    /// tables are reused: exact variable elimination when the width allows
    /// ([`SolveOptions::exact_budget`], [`Solver::eliminate_exactly`]), else the forward
    /// pass, the backward pass and the fixpoint ([`Solver::search_regions`]; see the module
    /// doc).
    ///
    /// # Errors
    /// [`PlacementError::Unsatisfiable`] or [`PlacementError::GaveUp`].
    pub fn solve_regions(
        &mut self,
        p: &Problem,
        c: &Constraints,
        dom: &[TargetSet],
        cond: &mut Condensation,
        opts: &SolveOptions,
        out: &mut Placement,
    ) -> Result<(), PlacementError> {
        if self.eliminate_exactly(p, c, dom, opts, out) {
            out.region_of.clone_from(&cond.region_of);
            out.stats.regions = cond.len();
            out.stats.cyclic_regions = cond.cyclic();
            return Ok(());
        }
        self.search_regions(p, c, dom, cond, opts, out)
    }

    /// Phase 3a, needing no condensation: the exact optimum of `p` (constraints `c`, AC-3
    /// domains `dom`) by variable elimination into `out` when the width allows
    /// ([`SolveOptions::exact_budget`]); false (and `out`'s assignment unspecified) when it
    /// declines (too wide) or the problem is infeasible: [`Solver::search_regions`] then
    /// answers or names the blocks. `out.region_of` is left empty and the region counts of
    /// its statistics zero (the caller that condensed fills them).
    pub fn eliminate_exactly(
        &mut self,
        p: &Problem,
        c: &Constraints,
        dom: &[TargetSet],
        opts: &SolveOptions,
        out: &mut Placement,
    ) -> bool {
        out.domains.clear();
        out.domains.extend_from_slice(dom);
        out.region_of.clear();
        if opts.exact_budget == 0
            || eliminate_into(
                c,
                dom,
                opts.exact_budget,
                &mut self.eliminate,
                &mut out.assignment,
            ) != Ok(true)
        {
            return false;
        }
        out.cost = super::cost::objective_with(p, &c.reachable, &out.assignment)
            .expect("an eliminated optimum satisfies every constraint");
        out.stats = SolveStats {
            csp_exact: true,
            eliminated: true,
            ..SolveStats::default()
        };
        true
    }

    /// Phase 3b: the search (forward pass, backward pass, fixpoint; see the module doc) for
    /// a problem [`Solver::eliminate_exactly`] declined, on the condensation `cond` (whose
    /// boundaries it fills), into `out`.
    ///
    /// # Errors
    /// [`PlacementError::Unsatisfiable`] or [`PlacementError::GaveUp`].
    pub fn search_regions(
        &mut self,
        p: &Problem,
        c: &Constraints,
        dom: &[TargetSet],
        cond: &mut Condensation,
        opts: &SolveOptions,
        out: &mut Placement,
    ) -> Result<(), PlacementError> {
        let stats = SolveStats {
            regions: cond.len(),
            cyclic_regions: cond.cyclic(),
            csp_exact: true,
            ..SolveStats::default()
        };
        out.domains.clear();
        out.domains.extend_from_slice(dom);
        out.region_of.clone_from(&cond.region_of);
        // Infeasible (the search names the blocks) or too wide: search, which reads the
        // regions' boundaries.
        cond.fill_boundaries(c);
        let cond = &*cond;
        self.cache.clear();
        self.solved_at.clear();
        let mut st = State {
            c,
            cond,
            dom,
            assign: std::mem::take(&mut out.assignment),
            fdom: dom.to_vec(),
            done: vec![false; cond.len()],
            key_stamp: vec![0; cond.len()],
            heap: BinaryHeap::new(),
            stats,
            failed: Vec::new(),
            changed_at: vec![0; c.n],
            clock: 0,
        };
        st.assign.clear();
        st.assign.resize(c.n, UNPLACED);
        for r in 0..cond.len() as u32 {
            st.push_key(r);
        }
        self.forward(&mut st, opts).map_err(|steps| {
            let mut blocks: Vec<u32> = st
                .failed
                .iter()
                .flat_map(|&r| cond.members(r).iter().copied())
                .collect();
            blocks.sort_unstable();
            blocks.dedup();
            match steps {
                None => PlacementError::Unsatisfiable(names(p, &blocks)),
                Some(steps) => PlacementError::GaveUp {
                    steps,
                    blocks: names(p, &blocks),
                },
            }
        })?;
        if opts.backward {
            st.stats.sweeps += 1;
            self.sweep(&mut st, opts, true);
        }
        if opts.fixpoint {
            loop {
                st.stats.sweeps += 1;
                let mut changed = self.sweep(&mut st, opts, false);
                changed |= self.sweep(&mut st, opts, true);
                if opts.window > 1 {
                    changed |= self.window_sweep(&mut st, opts);
                }
                if !changed {
                    break;
                }
            }
        }
        out.cost = super::cost::objective_with(p, &c.reachable, &st.assign)
            .expect("a completed placement satisfies every constraint");
        out.assignment = st.assign;
        out.stats = st.stats;
        Ok(())
    }

    /// The forward pass. `Err(None)`: unsatisfiable; `Err(Some(steps))`: out of budget.
    fn forward(&mut self, st: &mut State, opts: &SolveOptions) -> Result<(), Option<u64>> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut steps = 0u64;
        while let Some(r) = st.pick() {
            steps += 1;
            if steps > opts.step_budget {
                return Err(Some(steps));
            }
            let placed = if st.cond.is_trivial(r) {
                let b = st.cond.members(r)[0] as usize;
                let heap = st.target_heap(b);
                if let Some(&(_, t)) = heap.first() {
                    st.place(r, &[t]);
                    stack.push(Frame::Trivial {
                        region: r,
                        heap,
                        next: 1,
                    });
                    true
                } else {
                    false
                }
            } else {
                match self.region_csp(st, r, &[], opts) {
                    Some(sol) => {
                        st.place(r, &sol.targets);
                        let tuple = st.interface_tuple(r);
                        stack.push(Frame::Cyclic {
                            region: r,
                            nogoods: vec![tuple],
                        });
                        true
                    }
                    None => false,
                }
            };
            if !placed {
                if !st.failed.contains(&r) && st.failed.len() < 8 {
                    st.failed.push(r);
                }
                st.push_key(r);
                if !self.backtrack(st, &mut stack, opts) {
                    return Err(None);
                }
            }
        }
        Ok(())
    }

    /// Pops the assignment stack to the most recent region with an alternative.
    fn backtrack(&mut self, st: &mut State, stack: &mut Vec<Frame>, opts: &SolveOptions) -> bool {
        while let Some(frame) = stack.pop() {
            st.stats.backtracks += 1;
            match frame {
                Frame::Trivial { region, heap, next } => {
                    st.unplace(region);
                    if let Some(&(_, t)) = heap.get(next) {
                        st.place(region, &[t]);
                        stack.push(Frame::Trivial {
                            region,
                            heap,
                            next: next + 1,
                        });
                        return true;
                    }
                }
                Frame::Cyclic {
                    region,
                    mut nogoods,
                } => {
                    st.unplace(region);
                    if let Some(sol) = self.region_csp(st, region, &nogoods, opts) {
                        st.place(region, &sol.targets);
                        nogoods.push(st.interface_tuple(region));
                        stack.push(Frame::Cyclic { region, nogoods });
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The CSP of region `r` under the current placement (members must be unplaced).
    fn region_csp(
        &mut self,
        st: &mut State,
        r: u32,
        nogoods: &[Vec<u8>],
        opts: &SolveOptions,
    ) -> Option<CspSolution> {
        let key = if opts.cache && nogoods.is_empty() {
            let tuple: Vec<u8> = st
                .cond
                .boundary(r)
                .iter()
                .map(|e| {
                    let o = st.c.other(e.constraint, e.outgoing);
                    st.assign[o]
                })
                .collect();
            let key = (r, tuple);
            if let Some(hit) = self.cache.get(&key) {
                st.stats.cache_hits += 1;
                return hit.clone();
            }
            Some(key)
        } else {
            None
        };
        st.stats.csp_calls += 1;
        let sol = solve_csp(
            st.c,
            st.cond.members(r),
            st.dom,
            &st.assign,
            nogoods,
            FORBIDDEN,
            opts.limits,
            &mut self.csp,
        );
        if let Some(s) = &sol {
            st.stats.csp_exact &= s.exact;
        }
        if let Some(key) = key {
            self.cache.insert(key, sol.clone());
        }
        sol
    }

    /// One refinement sweep over the regions (backward: sinks first). Returns true if some
    /// move was accepted.
    fn sweep(&mut self, st: &mut State, opts: &SolveOptions, backward: bool) -> bool {
        let n = st.cond.len();
        let mut changed = false;
        for i in 0..n {
            let r = if backward { n - 1 - i } else { i } as u32;
            if st.cond.is_trivial(r) {
                changed |= st.improve_block(st.cond.members(r)[0] as usize);
            } else {
                let members = st.cond.members(r).to_vec();
                changed |= self.resolve(st, &members, Some(r), opts);
            }
        }
        changed
    }

    /// Re-solves the neighbourhood (up to `opts.window` blocks, breadth first) of every
    /// block exactly, skipping a window when nothing in it or next to it changed since it was
    /// last solved (the answer would be the same).
    fn window_sweep(&mut self, st: &mut State, opts: &SolveOptions) -> bool {
        let mut changed = false;
        let mut window: Vec<u32> = Vec::new();
        self.solved_at.resize(st.c.n, 0);
        for b in 0..st.c.n {
            if !st.c.reachable[b] {
                continue;
            }
            window.clear();
            window.push(b as u32);
            let mut i = 0;
            while i < window.len() && window.len() < opts.window {
                let x = window[i] as usize;
                for &(ci, src) in st.c.incident(x) {
                    let o = st.c.other(ci, src) as u32;
                    if window.len() < opts.window && !window.contains(&o) {
                        window.push(o);
                    }
                }
                i += 1;
            }
            if window.len() < 2 {
                continue;
            }
            let last = window
                .iter()
                .flat_map(|&x| {
                    std::iter::once(x as usize).chain(
                        st.c.incident(x as usize)
                            .iter()
                            .map(|&(ci, src)| st.c.other(ci, src)),
                    )
                })
                .map(|x| st.changed_at[x])
                .max()
                .unwrap_or(0);
            if self.solved_at[b] > last {
                continue;
            }
            st.clock += 1;
            self.solved_at[b] = st.clock;
            let w = window.clone();
            changed |= self.resolve(st, &w, None, opts);
        }
        changed
    }

    /// Re-solves `members` with everything else fixed; applies the answer if the exact
    /// local cost strictly drops.
    fn resolve(
        &mut self,
        st: &mut State,
        members: &[u32],
        region: Option<u32>,
        opts: &SolveOptions,
    ) -> bool {
        let old = self.local_cost(st, members);
        let saved: Vec<u8> = members.iter().map(|&b| st.assign[b as usize]).collect();
        for &b in members {
            st.assign[b as usize] = UNPLACED;
        }
        let sol = match region {
            Some(r) => self.region_csp(st, r, &[], opts),
            None => {
                st.stats.csp_calls += 1;
                solve_csp(
                    st.c,
                    members,
                    st.dom,
                    &st.assign,
                    &[],
                    old,
                    opts.limits,
                    &mut self.csp,
                )
            }
        };
        match sol {
            Some(s) if s.cost < old => {
                st.clock += 1;
                for (&b, &t) in members.iter().zip(&s.targets) {
                    if st.assign[b as usize] != t {
                        st.changed_at[b as usize] = st.clock;
                    }
                    st.assign[b as usize] = t;
                }
                st.stats.improvements += 1;
                true
            }
            _ => {
                for (&b, &t) in members.iter().zip(&saved) {
                    st.assign[b as usize] = t;
                }
                false
            }
        }
    }

    /// Exact cost of the terms touching `members`: their unary costs and every constraint
    /// with an endpoint among them, once each.
    fn local_cost(&mut self, st: &State, members: &[u32]) -> Cost {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        if self.mark.len() < st.c.n {
            self.mark.resize(st.c.n, 0);
        }
        for &b in members {
            self.mark[b as usize] = self.stamp;
        }
        let mut total: Cost = 0;
        for &b in members {
            let t = st.assign[b as usize] as usize;
            total = add(total, st.c.unary(b as usize, t));
            for &(ci, src) in st.c.incident(b as usize) {
                let o = st.c.other(ci, src);
                // An edge inside the set is counted from its source only.
                if self.mark[o] == self.stamp && !src {
                    continue;
                }
                total = add(total, st.c.edge_cost(ci, src, t, st.assign[o] as usize));
            }
        }
        total
    }
}

impl State<'_> {
    /// MRV key of region `r`: (smallest narrowed member domain, fewest placed neighbours
    /// inverted, topological index).
    fn push_key(&mut self, r: u32) {
        if self.done[r as usize] {
            return;
        }
        let mut size = u32::MAX;
        let mut degree = 0u32;
        for &b in self.cond.members(r) {
            size = size.min(self.fdom[b as usize].len());
        }
        for e in self.cond.boundary(r) {
            if self.assign[self.c.other(e.constraint, e.outgoing)] != UNPLACED {
                degree += 1;
            }
        }
        self.key_stamp[r as usize] += 1;
        let stamp = self.key_stamp[r as usize];
        self.heap.push(Reverse((size, u32::MAX - degree, r, stamp)));
    }

    /// The next region by MRV, or `None` when every region is placed.
    fn pick(&mut self) -> Option<u32> {
        while let Some(Reverse((_, _, r, stamp))) = self.heap.pop() {
            if !self.done[r as usize] && self.key_stamp[r as usize] == stamp {
                return Some(r);
            }
        }
        None
    }

    /// Places region `r`'s members on `targets` and narrows the neighbours.
    fn place(&mut self, r: u32, targets: &[u8]) {
        self.done[r as usize] = true;
        for (&b, &t) in self.cond.members(r).iter().zip(targets) {
            self.assign[b as usize] = t;
        }
        let mut touched: smallvec::SmallVec<[u32; 8]> = smallvec::SmallVec::new();
        for e in self.cond.boundary(r) {
            let o = self.c.other(e.constraint, e.outgoing);
            let t = self.assign[e.member as usize] as usize;
            self.fdom[o] = self.fdom[o] & self.c.support(e.constraint, e.outgoing, t);
            let ro = self.cond.region_of[o];
            if !touched.contains(&ro) {
                touched.push(ro);
            }
        }
        for ro in touched {
            self.push_key(ro);
        }
    }

    /// Unplaces region `r` and recomputes the narrowed domains around it.
    fn unplace(&mut self, r: u32) {
        self.done[r as usize] = false;
        for &b in self.cond.members(r) {
            self.assign[b as usize] = UNPLACED;
        }
        let mut touched: smallvec::SmallVec<[u32; 8]> = smallvec::SmallVec::new();
        for &b in self.cond.members(r) {
            self.refresh(b as usize);
        }
        for e in self.cond.boundary(r) {
            let o = self.c.other(e.constraint, e.outgoing);
            self.refresh(o);
            let ro = self.cond.region_of[o];
            if !touched.contains(&ro) {
                touched.push(ro);
            }
        }
        touched.push(r);
        for ro in touched {
            self.push_key(ro);
        }
    }

    /// Recomputes `fdom[b]` from its AC-3 domain and its placed neighbours.
    fn refresh(&mut self, b: usize) {
        let mut d = self.dom[b];
        for &(ci, src) in self.c.incident(b) {
            let o = self.c.other(ci, src);
            let t = self.assign[o];
            if t != UNPLACED {
                d = d & self.c.support(ci, !src, t as usize);
            }
        }
        self.fdom[b] = d;
    }

    /// The TargetHeap of trivial block `b`: forward-checked candidates, cheapest estimate
    /// first.
    fn target_heap(&self, b: usize) -> Vec<(Cost, u8)> {
        let c = self.c;
        let mut heap = Vec::new();
        'targets: for t in self.fdom[b].iter() {
            let mut est = c.unary(b, t);
            for &(ci, src) in c.incident(b) {
                let o = c.other(ci, src);
                let to = self.assign[o];
                if to != UNPLACED {
                    est = add(est, c.edge_cost(ci, src, t, to as usize));
                    continue;
                }
                let partners = self.fdom[o] & c.support(ci, src, t);
                if partners.is_empty() {
                    continue 'targets;
                }
                let floor = self.fdom[o]
                    .iter()
                    .map(|x| c.unary(o, x))
                    .min()
                    .unwrap_or(0);
                let look = partners
                    .iter()
                    .map(|x| add(c.edge_cost(ci, src, t, x), c.unary(o, x)))
                    .min()
                    .unwrap_or(FORBIDDEN);
                est = add(est, look.saturating_sub(floor));
            }
            if est != FORBIDDEN {
                heap.push((est, t as u8));
            }
        }
        heap.sort_unstable();
        heap
    }

    /// The targets of region `r`'s interface members (those with a boundary edge), in
    /// member order, as the CSP's nogoods expect.
    fn interface_tuple(&self, r: u32) -> Vec<u8> {
        self.cond
            .members(r)
            .iter()
            .filter(|&&b| self.cond.boundary(r).iter().any(|e| e.member == b))
            .map(|&b| self.assign[b as usize])
            .collect()
    }

    /// Moves trivial block `b` to the target with the most negative exact delta, if any.
    fn improve_block(&mut self, b: usize) -> bool {
        let c = self.c;
        let cur = self.assign[b] as usize;
        let local = |t: usize| -> Cost {
            let mut v = c.unary(b, t);
            for &(ci, src) in c.incident(b) {
                let o = c.other(ci, src);
                v = add(v, c.edge_cost(ci, src, t, self.assign[o] as usize));
            }
            v
        };
        let now = local(cur);
        let mut best = (now, cur);
        for t in self.dom[b].iter() {
            if t != cur {
                let v = local(t);
                if v < best.0 {
                    best = (v, t);
                }
            }
        }
        if best.1 != cur {
            self.assign[b] = best.1 as u8;
            self.clock += 1;
            self.changed_at[b] = self.clock;
            self.stats.improvements += 1;
            true
        } else {
            false
        }
    }
}
