//! From an IR function and a target model to a placement [`Problem`]: statement
//! eligibility, size estimation, block splitting, block costs and per-edge matrices
//! (spec 001).
//!
//! What: [`build_problem`] reads a function through [`IrRead`] (blocks, instructions,
//! terminators, constants) and produces one problem block per *piece*: a maximal run of a
//! block's instructions with the same supported target set (the terminator belongs to the
//! last piece, or forms its own when its support differs). Pieces of one IR block are joined
//! by zero-cost jump edges that still carry the normal transition cost; the IR itself is not
//! rewritten, so splitting cannot change what the interpreter computes ([`fuse`] reports
//! which pieces and which argument-free jump chains run as one unit).
//!
//! - Eligibility (forward must-analysis, greatest fixpoint): value `v` is eligible on `t`
//!   iff its defining instruction's kind is supported on `t` and every operand is eligible
//!   on `t` (a phi: every incoming value, i.e. on every path). Parameters are eligible
//!   everywhere. A statement's support is its kind's support intersected with its operands'
//!   eligibility; a target with `only_own_paths` supports a memory access only to a path it
//!   is the origin of. The IR's values are scalars, so the per-field rule of 001 applies
//!   trivially (one field per value).
//! - Targets banned in loops are removed from blocks that lie on a cycle.
//! - A block with an `asm goto` is one piece whose support is the intersection over its
//!   statements and terminator (001's "intersection" strategy, for that block only), and
//!   [`fuse`] never joins it: its label edges leave from the asm instruction, not from the
//!   terminator, so after a cut behind the asm a label target and a terminator successor
//!   could be the same block reached from two different blocks, which one phi entry per
//!   predecessor cannot express. [`super::split`] leaves such blocks alone accordingly.
//! - Sizes ([`super::sizes`]): information units with a cardinality axis, both ranges,
//!   static from types and globals' byte sizes, then propagated forward through
//!   assignments, affine in the parameters (callees' summaries from
//!   [`BuildScratch::summaries`], which the caller fills; empty: static sizes for calls). A
//!   range becomes one number by the model's [`super::sizes::SizeEstimate`] (default: the
//!   midpoint).
//! - Costs: a piece costs the sum of its statements' kind costs, plus its terminator's,
//!   plus for every path (a global it loads from or stores to, with an origin in the model)
//!   whose origin differs from the target a premium of `path_unit` × the estimate of the
//!   path's size (the global's total units). An edge's matrix entry `s -> d` (`s ≠ d`) is the
//!   pair's overhead plus per-unit cost times the summed estimates of the values live
//!   across the edge; same-target transitions are free; disallowed pairs are forbidden;
//!   parallel edges are separate edges.
//!
//! Complexity: O((instructions + blocks) · K) plus liveness O(blocks · globals / 64 · d),
//! globals being the values live across blocks and d the rounds of the fixpoint.

use super::problem::{Cost, Edge, Problem, TargetSet, FORBIDDEN};
use super::sizes::{Size, SizeForm, SizeScratch, SizeSummaries};
use super::targets::TargetModel;
use crate::analysis::{Cfg, DomTree, Sccs};
use crate::ir::{Callee, InstKind, IrRead, Operand, SymbolTable, Terminator};

/// A piece: instructions `start..end` of an IR block's list (`end == len` plus the
/// terminator when `terminator` is set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Piece {
    /// The IR block.
    pub block: u32,
    /// First instruction position.
    pub start: u32,
    /// One past the last instruction position.
    pub end: u32,
    /// The piece ends with the block's terminator.
    pub terminator: bool,
}

/// A problem built from a function.
#[derive(Clone, Debug, Default)]
pub struct IrProblem {
    /// The dense problem (one block per piece; piece 0 starts the entry block).
    pub problem: Problem,
    /// The pieces, parallel to `problem.blocks`.
    pub pieces: Vec<Piece>,
    /// Path ids each piece accesses.
    pub paths: Vec<Vec<u32>>,
    /// Path names (global symbol names).
    pub path_names: Vec<String>,
    /// Origin target of each path.
    pub path_origin: Vec<u8>,
    /// Size of each path (the global's, see [`super::sizes::global_size`]).
    pub path_sizes: Vec<Size>,
}

impl IrProblem {
    /// Names every problem block after its piece: `blockN` for the first piece of IR block
    /// N, `blockN.I` for a later one starting at instruction I. Building leaves the names
    /// empty (the pipeline needs them only for an error, [`super::solve::PlacementError::name_blocks`]);
    /// [`build_problem_with_summaries`] names them.
    pub fn name_pieces(&mut self) {
        let names = &mut self.problem.blocks;
        names.clear();
        for (pi, pc) in self.pieces.iter().enumerate() {
            let first = pi == 0 || self.pieces[pi - 1].block != pc.block;
            names.push(if first {
                format!("block{}", pc.block)
            } else {
                format!("block{}.{}", pc.block, pc.start)
            });
        }
    }
}

/// The kind index of an instruction in [`super::targets::KINDS`] (a `match`, not a name lookup: this runs
/// for every instruction; `kind_indices_match_names` checks it against [`super::targets::KINDS`]).
pub(super) fn kind_of(k: &InstKind) -> usize {
    match k {
        InstKind::Binary { .. } => 0,
        InstKind::Unary { .. } => 1,
        InstKind::Icmp { .. } => 2,
        InstKind::Fcmp { .. } => 3,
        InstKind::Cast { .. } => 4,
        InstKind::Select { .. } => 5,
        InstKind::Alloca { .. } | InstKind::DynAlloca { .. } => 6,
        InstKind::Load { .. } => 7,
        InstKind::Store { .. } => 8,
        InstKind::Gep { .. } => 9,
        InstKind::Call {
            callee: Callee::Direct(_),
            ..
        } => 10,
        InstKind::Call { .. } => 11,
        InstKind::InlineAsm(_) => 12,
        InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => 13,
        InstKind::Fence { .. } => 14,
        InstKind::Phi { .. } => 15,
        // Member moves cost what a copy costs.
        InstKind::Copy { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. }
        | InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::ShuffleVector { .. } => 16,
        InstKind::Opaque(_) => 17,
    }
}

/// [`super::targets::KINDS`] index of `fn_ptr`.
pub(super) const FN_PTR_KIND: usize = 18;
/// [`super::targets::KINDS`] index of `phi` ([`kind_of`] of a phi).
pub(super) const PHI_KIND: u8 = 15;
/// [`super::targets::KINDS`] index of `inline_asm` ([`kind_of`] of any inline asm).
pub(super) const ASM_KIND: u8 = 12;

/// The kind index of a terminator in [`super::targets::KINDS`].
pub(super) fn terminator_kind(t: &Terminator) -> usize {
    match t {
        Terminator::Jump(_) => 19,
        Terminator::Br { .. } => 20,
        Terminator::Switch { .. } => 21,
        Terminator::IndirectBr { .. } => 22,
        Terminator::Ret(_) => 23,
        Terminator::Unreachable => 24,
    }
}

/// True for an `asm goto` (an instruction with label edges).
pub(crate) fn has_goto_labels(k: &InstKind) -> bool {
    matches!(k, InstKind::InlineAsm(asm) if !asm.goto_labels.is_empty())
}

/// No path (per value, per instruction, per symbol).
pub(super) const NO_PATH: u32 = u32::MAX;
/// A symbol whose path was not looked up yet.
pub(super) const UNKNOWN_PATH: u32 = u32::MAX - 1;

/// Dense scratch of [`build_problem_in`], kept between functions (the pass holds one in its
/// scratch resource) so that building a problem allocates only when a function is larger
/// than every earlier one. Every table is indexed by a dense IR index (value, instruction,
/// block, symbol) and cleared, never dropped.
#[derive(Clone, Debug, Default)]
pub struct BuildScratch {
    pub(super) kind_masks: Vec<u64>,
    /// Per symbol: its path id, [`NO_PATH`], or [`UNKNOWN_PATH`].
    pub(super) sym_path: Vec<u32>,
    /// The symbols whose `sym_path` entry the last function filled (reset at the next).
    pub(super) sym_seen: Vec<u32>,
    /// Per value: the position in `live_blocks` of the first block whose instructions read
    /// it (eligibility's restart point when it shrinks), `u32::MAX` if none does.
    pub(super) first_reader: Vec<u32>,
    /// Per value: the position in `live_blocks` of the last block whose instructions read
    /// it (with `first_reader`, the range a later eligibility round revisits when it
    /// shrinks), 0 if none does.
    pub(super) last_reader: Vec<u32>,
    /// The derivations (gep, copy, cast) of the function as (result, base), in block order.
    pub(super) derived: Vec<(crate::ir::Value, Operand)>,
    /// Per value: the path a pointer value is derived from.
    pub(super) value_path: Vec<u32>,
    /// Per value: targets it is eligible on.
    pub(super) elig: Vec<u64>,
    /// Per instruction: operand-independent support (kind, `fn_ptr`, own paths).
    pub(super) base_sup: Vec<u64>,
    /// Per instruction: full support after the eligibility fixpoint.
    pub(super) inst_sup: Vec<u64>,
    /// Per instruction of a live block: its [`kind_of`] index (eligibility records it, the
    /// piece walk and block costs read it instead of matching the instruction again).
    pub(super) inst_kind: Vec<u8>,
    /// Per instruction: the path a load or store accesses.
    pub(super) access_path: Vec<u32>,
    /// Size estimation's forms per value.
    pub(super) sizes: SizeScratch,
    /// Per value: the estimate of its total size (the number costs use), computed on
    /// demand (`liveness::NOT_ESTIMATED` until then; see `liveness::estimate`).
    pub(super) est: Vec<u64>,
    /// The model's size estimate (`est` reads it).
    pub(super) size_estimate: super::sizes::SizeEstimate,
    /// Return-size summaries of callees (the inter-procedural phase; filled by the caller,
    /// for example from [`super::sizes::summarize_module`]; empty: static sizes for calls).
    pub summaries: SizeSummaries,
    /// The summary of the last function built (its return size, affine in its
    /// parameters), for a caller that collects summaries; `None` also when only some of
    /// its edges were completed ([`complete_edges_in`] may then size only a prefix of
    /// its blocks).
    pub summary: Option<SizeForm>,
    /// Per value: its defining block (`u32::MAX`: none; parameters: the entry block, 0),
    /// recorded by eligibility's first round.
    pub(super) def_block: Vec<u32>,
    /// Every value operand of an instruction other than a phi, or of a terminator, of a
    /// live block, as (block, value), in block order (eligibility's first round records
    /// them; liveness reads them instead of walking the instructions again).
    pub(super) uses: Vec<(u32, u32)>,
    /// Every value a phi of a live block reads, as (predecessor block, value).
    pub(super) phi_uses: Vec<(u32, u32)>,
    /// Per instruction of a live block: the range of its value operands (in operand order)
    /// in `phi_uses` for a phi, in `uses` for any other instruction (eligibility's first
    /// round records them; later eligibility rounds and seam sizes read them instead of
    /// matching the instruction's kind again). Other instructions' entries are `(0, 0)`.
    pub(super) op_span: Vec<(u32, u32)>,
    /// Per value: its global index (live across blocks), or `u32::MAX`.
    pub(super) gidx: Vec<u32>,
    /// Per global index: the value.
    pub(super) gval: Vec<u32>,
    /// Per block × global index: live on entry (bit set rows of the global count's width).
    pub(super) live_in: Vec<u64>,
    /// Per block × global index: live on exit (phi operands included on their edge's source).
    pub(super) live_out: Vec<u64>,
    /// Per block × global index: upward-exposed uses.
    pub(super) gen: Vec<u64>,
    /// Per block × global index: definitions.
    pub(super) kill: Vec<u64>,
    /// Per block × global index: values the successors' phis read on its edges.
    pub(super) phi_out: Vec<u64>,
    pub(super) live: Vec<u64>,
    /// Per edge of the problem (in its order): the edge is one whose size
    /// [`complete_edges_in`] computes (its `relevant` accepted it); the others get the
    /// matrix of size 0.
    pub(super) accepted: Vec<bool>,
    /// Per block: its liveness sets must be recomputed (liveness's worklist of blocks).
    pub(super) reread: Vec<bool>,
    /// Per block: it dominates (or is) a block an accepted edge of [`complete_edges_in`]
    /// starts or ends in (filled only when it is given the dominator tree).
    pub(super) in_dom: Vec<bool>,
    /// The blocks liveness computes sizes over when it tracks only the dominators' values:
    /// those `in_dom` marks closed under operands (`liveness::size_closure`), in reverse
    /// postorder.
    pub(super) dom_blocks: Vec<crate::ir::Block>,
    /// Per block: in the set `dom_blocks` lists (liveness's sizes).
    pub(super) size_block: Vec<bool>,
    /// Per value: its size form is computed (`liveness::size_values`: the values whose
    /// estimates are read, closed under size transfer's operands).
    pub(super) size_value: Vec<bool>,
    /// `liveness::size_values`'s work list of values.
    pub(super) size_work: Vec<u32>,
    pub(super) in_loop: Vec<bool>,
    /// `kind_cost[kind * K + t]`: the model's cost of a kind on a target, 0 if unsupported.
    pub(super) kind_cost: Vec<Cost>,
    /// `kind_rows[kind][t]`: the same costs as one fixed-width row per kind, for a model of
    /// at most `costs::ROW` targets (empty for a wider one).
    pub(super) kind_rows: Vec<[Cost; costs::ROW]>,
    /// Per block: the total estimated size of its live-in set (edge matrices).
    pub(super) in_size: Vec<u128>,
    /// Global indices an edge's phi operands added to a live-in row (edge matrices).
    pub(super) marked: Vec<u32>,
    pub(super) live_blocks: Vec<u32>,
    pub(super) supports: Vec<u64>,
    pub(super) seam_size: Vec<u64>,
    /// Per position of the block `pieces::seam_sizes` walks: a seam is there.
    pub(super) cut: Vec<bool>,
    pub(super) first_piece: Vec<u32>,
    pub(super) last_piece: Vec<u32>,
    pub(super) seams: Vec<(u32, u64)>,
    /// Per target pair `from * K + to`: `None` if disallowed, `Some(None)` for the free
    /// same-target pair, else `Some((overhead, per_unit))` (edge matrices).
    pub(super) transitions: Vec<Option<Option<(u64, u64)>>>,
    /// Every target of the model (bit set).
    pub(super) all: u64,
    /// The transfer costs' lower bound, per target pair `from * K + to`: 0 on the diagonal,
    /// the pair's overhead where allowed, [`FORBIDDEN`] where disallowed (the matrix of an
    /// edge with nothing live across it; every edge's matrix is at least this).
    pub overhead: Vec<Cost>,
    /// No edge's size can push an allowed transition to [`FORBIDDEN`] (the overhead plus
    /// the per-unit cost times the largest size any edge of the function can have stays
    /// below it), so every matrix forbids exactly the pairs `overhead` forbids, whatever
    /// the sizes: AC-3 and [`super::settle`] need no sizes.
    pub sizes_cannot_forbid: bool,
    /// The targets allowed in loops.
    pub(super) loop_mask: u64,
}

/// Builds the placement problem of `f` under `model`; `symbols` (when known) names globals
/// for path origins and tells function symbols apart for `fn_ptr`. Computes the CFG and its
/// SCCs itself and allocates fresh scratch: the pipeline pass uses [`build_problem_in`].
pub fn build_problem<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
) -> IrProblem {
    build_problem_with_summaries(f, symbols, model, &SizeSummaries::default())
}

/// [`build_problem`] with callees' return-size summaries (the inter-procedural phase of
/// [`super::sizes`], for example from [`super::sizes::summarize_module`]): a direct call's
/// result gets its callee's summary applied to the arguments instead of its type's static
/// size.
pub fn build_problem_with_summaries<F: IrRead>(
    f: &F,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    summaries: &SizeSummaries,
) -> IrProblem {
    let mut cfg = Cfg::new();
    cfg.compute(f);
    let mut sccs = Sccs::new();
    sccs.compute(&cfg);
    let mut out = IrProblem::default();
    build_problem_in(
        f,
        &cfg,
        &sccs,
        symbols,
        model,
        &mut BuildScratch {
            summaries: summaries.clone(),
            ..BuildScratch::default()
        },
        &mut out,
    );
    out.name_pieces();
    out
}

/// Sets bit `v` of a bitset.
#[inline]
pub(super) fn set_bit(bits: &mut [u64], v: usize) {
    bits[v / 64] |= 1 << (v % 64);
}

/// Builds the placement problem of `f` into `out` (overwritten; its vectors and strings are
/// reused), reading successors from `cfg` and loops from `sccs` (both of `f`), with `scratch`
/// as working memory: [`build_pieces_in`], then [`complete_problem_in`]. See the module doc
/// for what is computed.
pub fn build_problem_in<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    sccs: &Sccs,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) {
    build_pieces_in(f, cfg, sccs, symbols, model, s, out);
    complete_problem_in(f, cfg, symbols, model, s, out, None);
}

/// The part of the problem that needs no sizes: eligibility (`eligibility::compute`),
/// the pieces with their block costs (`pieces::split`, which computes each piece's costs
/// with `costs::piece_costs` as it cuts the piece) and the edges (`matrices::edges`), with
/// an empty matrix table; also the scratch's [`BuildScratch::overhead`] and
/// [`BuildScratch::sizes_cannot_forbid`]. [`complete_problem_in`] adds the matrices (the
/// private phases are each documented in their module).
pub fn build_pieces_in<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    sccs: &Sccs,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
) {
    eligibility::compute(f, sccs, symbols, model, s, out);
    costs::kind_costs(model, s);
    pieces::split(f, model, s, out);
    matrices::edges(cfg, s, out);
    transfer_bounds(f, model, s);
}

/// The transfer costs of the problem [`build_pieces_in`] built: sizes and liveness
/// (`liveness::compute`), the size live at each seam (`pieces::seam_sizes`) and the edge
/// matrices (`matrices::edge_matrices`).
///
/// With `domains` (the pieces' AC-3 domains), an edge whose cost no placement within them
/// can make depend on its size, one joining two pieces fixed to the same target (its
/// cost is that target's free same-target transition, 0), gets the matrix of size 0
/// without its size being computed; the placement's cost and every choice the solver
/// can make are then those of the exact matrices.
pub fn complete_problem_in<F: IrRead>(
    f: &F,
    cfg: &Cfg,
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
    domains: Option<&[TargetSet]>,
) {
    let relevant = |e: &Edge| match domains {
        None => true,
        Some(d) => {
            let (a, b) = (d[e.from as usize], d[e.to as usize]);
            a.len() > 1 || b.len() > 1 || a != b
        }
    };
    complete_edges_in(f, (cfg, None), symbols, model, s, out, relevant);
}

/// [`complete_problem_in`] for the edges `relevant` accepts (a function of the edge's
/// ends, the same for a seam and a CFG edge); every other edge gets the matrix of size 0.
/// The caller answers for those edges' costs not mattering (see
/// [`super::settle::exact_edge`]).
///
/// Liveness tracks only the values that can be live across an accepted edge: in a
/// verified (strict SSA) function a value live at a point of block `b` is defined in a
/// block dominating `b`, which comes no later than `b` in reverse postorder, so the
/// values defined in reachable blocks after the latest accepted edge's blocks (its
/// *horizon*) are left out of the bit sets. A value's liveness does not depend on any
/// other's, so the tracked values' sets, and so every accepted edge's size, are those of
/// the full computation; the bit sets are as wide as the tracked values only.
///
/// With the function's dominator tree (`dom`, of `cfg`), only the values defined in a
/// block that dominates (or is) a block an accepted edge starts or ends in are tracked
/// (see `horizon`; unless an accepted edge touches an unreachable block): a value
/// live into a block is defined in one of its strict dominators, one live out of it (or
/// at a seam inside it, or read by a phi on an edge leaving it) in one of its dominators
/// or itself, so every value an accepted edge's size counts is still tracked. (On
/// sqlite -O2 the functions [`super::settle::settle_exact`] completes track 15.5k values
/// instead of 28.6k, their liveness rows 57k words instead of 158k.)
pub fn complete_edges_in<F: IrRead>(
    f: &F,
    (cfg, dom): (&Cfg, Option<&DomTree>),
    symbols: Option<&SymbolTable>,
    model: &TargetModel,
    s: &mut BuildScratch,
    out: &mut IrProblem,
    relevant: impl Fn(&Edge) -> bool,
) {
    // Each edge is asked once (the three phases below read the answers).
    s.accepted.clear();
    s.accepted.extend(out.problem.edges.iter().map(&relevant));
    let (horizon, dominated) = horizon(f.num_blocks(), (cfg, dom), out, s);
    liveness::compute(f, cfg, symbols, model, s, (horizon, dominated));
    pieces::seam_sizes(f, s, out);
    matrices::edge_matrices(f, model, s, out);
}

/// The latest reverse-postorder number of an IR block that an edge `accepted` marks
/// starts or ends in (`u32::MAX` when one of them is unreachable: every value is then
/// tracked; `None` when no edge is accepted), and the dominator tree when `in_dom` marks
/// every block that dominates (or is) such a block (`None` otherwise: without a tree
/// covering the function's `nb` blocks, or when an end is unreachable). With `dom`, each
/// end's chain of immediate dominators is walked up to the first block already marked,
/// in the same pass over the edges (O(marked blocks + edges)); no block is relied on when
/// an end is unreachable.
fn horizon<'d>(
    nb: usize,
    (cfg, dom): (&Cfg, Option<&'d DomTree>),
    out: &IrProblem,
    s: &mut BuildScratch,
) -> (Option<u32>, Option<&'d DomTree>) {
    let dom = dom.filter(|d| d.num_blocks() == nb);
    if dom.is_some() {
        s.in_dom.clear();
        s.in_dom.resize(nb, false);
    }
    let mut latest = None;
    let edges = out.problem.edges.iter().zip(&s.accepted);
    for (e, _) in edges.filter(|&(_, &accepted)| accepted) {
        for piece in [e.from, e.to] {
            let block = out.pieces[piece as usize].block as usize;
            let number = cfg
                .rpo_number(crate::ir::Block::new(block))
                .unwrap_or(u32::MAX);
            latest = latest.max(Some(number));
            let Some(dom) = dom else { continue };
            let mut b = block;
            while !s.in_dom[b] {
                s.in_dom[b] = true;
                match dom.idom(crate::ir::Block::new(b)) {
                    Some(d) if d.index() != b => b = d.index(),
                    _ => break,
                }
            }
        }
    }
    let dominated = dom.filter(|_| latest.is_some_and(|h| h != u32::MAX));
    (latest, dominated)
}

/// Fills [`BuildScratch::overhead`] and [`BuildScratch::sizes_cannot_forbid`]: an edge's
/// size is a sum of per-value estimates, each at most [`super::sizes::MAX_UNITS`] (the
/// sizes' saturation bound), over at most every value of the function.
fn transfer_bounds<F: IrRead>(f: &F, model: &TargetModel, s: &mut BuildScratch) {
    let k = model.len();
    let largest =
        (f.values().len() as u128 * u128::from(super::sizes::MAX_UNITS)).min(u128::from(u64::MAX));
    s.sizes_cannot_forbid = true;
    s.overhead.clear();
    for from in 0..k {
        for to in 0..k {
            s.overhead.push(match model.transition(from, to) {
                None => FORBIDDEN,
                Some(_) if from == to => 0,
                Some((o, u)) => {
                    let worst = u128::from(o) + u128::from(u) * largest;
                    s.sizes_cannot_forbid &= worst < u128::from(FORBIDDEN);
                    o
                }
            });
        }
    }
}

/// The global index (live across blocks) of a value operand, if it has one (`gidx`: per
/// value, `u32::MAX` for none).
pub(super) fn global_index(gidx: &[u32], op: Operand) -> Option<usize> {
    match op {
        Operand::Value(v) => gidx
            .get(v.index())
            .filter(|&&g| g != u32::MAX)
            .map(|&g| g as usize),
        _ => None,
    }
}

mod costs;
mod eligibility;
mod liveness;
mod matrices;
mod pieces;

pub use super::fusion::fuse;
