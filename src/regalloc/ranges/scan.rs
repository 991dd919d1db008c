//! The reverse scan of live-range construction ([`scan`], called by
//! [`super::build_live_ranges`]; the algorithm is the parent module's), split along its
//! phases: per block, backwards, the live-outs ([`open_live_outs`]), the branch arguments
//! ([`branch_arguments`]), each instruction backwards (when the caller allows it,
//! [`commute_inputs`]; clobbers, [`decouple_early_fixed`], [`scan_operands`]), the block
//! parameters ([`block_parameters`]); then the lists built backwards that hold two or more
//! entries (recorded by the [`RangeWriter`] as they reach two) are reversed, and the
//! reservations sorted ([`finish_scan`]).
//!
//! Invariants: those of the parent module ([`super::check_ranges`]); the live set and the
//! row writer ([`LiveMarks`], [`RangeWriter`]) are the scan's only state besides the side
//! tables. Complexity: O(instructions + operands + sum |liveout|) plus the sorts.

use super::*;
use crate::machine::MInst;

/// The reverse scan (see the module doc); returns the number of ranges. The driver: resets
/// the side tables, then per block, backwards: [`open_live_outs`], [`branch_arguments`],
/// each instruction backwards ([`record_clobbers`], [`decouple_early_fixed`],
/// [`scan_operands`]), [`block_parameters`]; then [`finish_scan`].
pub(super) fn scan<F: MachineRead + ?Sized>(
    f: &F,
    rows: RangeRows<'_>,
    side: &mut RangeSide,
) -> usize {
    let nv = f.num_vregs();
    reset_side(f, side);
    let mut scratch = std::mem::take(&mut side.scan);
    let ScanScratch {
        classes,
        cur,
        mark,
        at,
        multi_use_rows,
    } = &mut scratch;
    class_table(f, classes);
    cur.clear();
    cur.resize(nv, LiveRangeIndex::NONE);
    mark.clear();
    mark.resize(nv, 0);
    multi_use_rows.clear();
    let RangeSide {
        preg_ranges,
        blockparam_ins,
        blockparam_outs,
        multi_fixed,
        loop_depth,
        liveness,
        loops,
        commute,
        commuted,
        ..
    } = &mut *side;
    let mut live = LiveMarks {
        mark: &mut mark[..],
        gen: 0,
        len: 0,
    };
    let mut w = RangeWriter {
        rows,
        count: 0,
        multi_use_rows,
    };
    at.clear();
    let mut ops_local: SmallVec<[Operand; 8]> = SmallVec::new();
    for b in f.blocks().rev() {
        let insts = f.block_insts(b);
        let block = CodeRange::new(ProgPoint::before(insts.start), ProgPoint::before(insts.end));
        let depth = loop_depth[b.index()];
        live.start_block();
        open_live_outs(liveness, b, block, classes, &mut w, &mut live, cur);
        let last_inst = insts.end - 1;
        if f.is_branch(last_inst) {
            let back = |succ: MBlock| {
                // An edge to a depth-first ancestor (or to itself): a back edge.
                loops.pre[succ.index()] <= loops.pre[b.index()]
                    && loops.pre[b.index()] <= loops.last[succ.index()]
            };
            let to = ProgPoint::after(last_inst);
            branch_arguments(
                f,
                b,
                block.from,
                to,
                depth,
                back,
                blockparam_outs,
                &mut w,
                &mut live,
                cur,
            );
        }
        for i in insts.rev() {
            ops_local.clear();
            ops_local.extend_from_slice(f.inst_operands(i));
            if *commute && commute_inputs(f, i, &mut ops_local, &live) {
                commuted.push(i);
            }
            // Clobbers (at the after point) first: a register's reservations then come
            // out descending more often, which [`sort_scan_order`] makes cheap.
            record_clobbers(f, i, preg_ranges);
            decouple_early_fixed(f, i, &mut ops_local, &live, multi_fixed, preg_ranges);
            let ops = Operands {
                i,
                ops: &ops_local,
                block_from: block.from,
                depth,
            };
            scan_operands(ops, at, &mut w, &mut live, cur, multi_fixed, preg_ranges);
        }
        block_parameters(f, b, block.from, &mut w, &mut live, cur, blockparam_ins);
        debug_assert!(
            live.len == liveness.livein(b.index()).len()
                && liveness
                    .livein(b.index())
                    .iter()
                    .all(|&v| live.contains(v as usize)),
            "block {b}: scan and liveness disagree on live-ins"
        );
    }
    let count = w.count;
    // Only use lists of two or more were pushed out of order: the rows the writer
    // recorded, not a pass over every row's list header.
    for &k in w.multi_use_rows.iter() {
        w.rows.uses[k as usize].reverse();
    }
    side.vreg_ranges
        .rebuild(&w.rows.spans[..count], &w.rows.vregs[..count], nv);
    finish_scan(side);
    side.scan = scratch;
    count
}

/// Clears the side tables the scan fills (keeping their storage) and computes loop depths.
fn reset_side<F: MachineRead + ?Sized>(f: &F, side: &mut RangeSide) {
    loop_depths_into(f, &mut side.loops, &mut side.loop_depth);
    side.preg_ranges.iter_mut().for_each(Vec::clear);
    side.preg_ranges.resize_with(192, Vec::new);
    side.blockparam_ins.clear();
    side.blockparam_outs.clear();
    side.multi_fixed.clear();
    side.commuted.clear();
}

/// The blockparam vectors and the register reservations are sorted (the range and use
/// lists, built backwards, were reversed by [`scan`]).
fn finish_scan(side: &mut RangeSide) {
    side.blockparam_ins.sort_unstable();
    side.blockparam_outs.sort_unstable();
    for p in side.preg_ranges.iter_mut() {
        sort_scan_order(p);
    }
}

/// The scan's live set: `v` is live iff `mark[v] == gen`; a new block takes a new
/// generation, so clearing costs nothing (a dense set cleared per block is
/// O(blocks x vregs), quadratic on wide fan-ins). `len` counts members.
struct LiveMarks<'a> {
    mark: &'a mut [u32],
    gen: u32,
    len: usize,
}

impl LiveMarks<'_> {
    /// Empties the set (a new generation).
    #[inline(always)]
    fn start_block(&mut self) {
        self.gen += 1;
        self.len = 0;
    }

    /// Whether vreg index `v` is live.
    #[inline(always)]
    fn contains(&self, v: usize) -> bool {
        self.mark[v] == self.gen
    }

    /// Makes `v` live.
    #[inline(always)]
    fn insert(&mut self, v: usize) {
        if self.mark[v] != self.gen {
            self.mark[v] = self.gen;
            self.len += 1;
        }
    }

    /// Makes `v` dead.
    #[inline(always)]
    fn remove(&mut self, v: usize) {
        if self.mark[v] == self.gen {
            self.mark[v] = 0;
            self.len -= 1;
        }
    }
}

/// The live-range rows the scan writes (the per-vreg range lists are built from them
/// after the scan, [`VregRanges::rebuild`]).
struct RangeWriter<'a> {
    rows: RangeRows<'a>,
    /// Rows written so far.
    count: usize,
    /// Rows whose use list reached two entries (pushed backwards: reversed at the end).
    multi_use_rows: &'a mut Vec<u32>,
}

impl RangeWriter<'_> {
    /// A new range of `v` over `r` (no uses, no flags). The caller records it as `v`'s
    /// newest range (`cur[v]`).
    #[inline(always)]
    fn new_range(&mut self, v: VReg, r: CodeRange) -> LiveRangeIndex {
        let k = self.count;
        self.count += 1;
        self.rows.spans[k] = r;
        self.rows.vregs[k] = v;
        self.rows.bundles[k] = BundleIndex::NONE;
        self.rows.uses[k].clear();
        self.rows.flags[k] = 0;
        LiveRangeIndex::new(k)
    }

    /// Appends `u` to the uses of range `r` (backwards: the list is reversed at the end).
    #[inline(always)]
    fn push_use(&mut self, r: LiveRangeIndex, u: Use) {
        let uses = &mut self.rows.uses[r.index()];
        uses.push(u);
        if uses.len() == 2 {
            self.multi_use_rows.push(r.index() as u32);
        }
    }
}

/// Opens a range over `block` for every vreg live out of block `b`, coalesced with the
/// range of the next block when that starts where this block ends (`cur[v]`, `v`'s newest
/// range, or none).
#[inline(always)]
fn open_live_outs(
    liveness: &LiveLists,
    b: MBlock,
    block: CodeRange,
    classes: &[Option<VReg>],
    w: &mut RangeWriter<'_>,
    live: &mut LiveMarks<'_>,
    cur: &mut [LiveRangeIndex],
) {
    for k in liveness.out_start[b.index()]..liveness.out_start[b.index() + 1] {
        let v = liveness.outs[k as usize] as usize;
        live.insert(v);
        let last = cur[v];
        match last {
            e if e != LiveRangeIndex::NONE && w.rows.spans[e.index()].from == block.to => {
                w.rows.spans[e.index()].from = block.from;
            }
            _ => {
                let vreg = classes[v]
                    .unwrap_or_else(|| VReg::new(v as u32, RegClass::Int).expect("in range"));
                cur[v] = w.new_range(vreg, block);
            }
        }
    }
}

/// Block `b`'s blockparam outs, and its branch arguments live to the terminator's after
/// point `to`. On a back edge (`back(successor)`) each is also a use there (a ghost use: no
/// slot), whose weight asks to keep a loop-carried value in a register to the end of the
/// loop. On a forward edge an argument gets no use (as in regalloc2 0.15): the parameter's
/// own bundle, merged with the argument, carries the preference, and a use there would
/// keep use-free pieces out of the spill bundle (in bzip2's BZ2_decompress, 42 switch cases
/// each reloaded 40 values into registers only to pass them on to a parameter in the same
/// slot).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn branch_arguments<F: MachineRead + ?Sized>(
    f: &F,
    b: MBlock,
    block_from: ProgPoint,
    to: ProgPoint,
    depth: u32,
    back: impl Fn(MBlock) -> bool,
    blockparam_outs: &mut Vec<(VReg, MBlock, MBlock, VReg)>,
    w: &mut RangeWriter<'_>,
    live: &mut LiveMarks<'_>,
    cur: &mut [LiveRangeIndex],
) {
    for (s, &succ) in f.block_succs(b).iter().enumerate() {
        for (&a, &p) in f.branch_args(b, s).iter().zip(f.block_params(succ)) {
            blockparam_outs.push((a, b, succ, p));
        }
    }
    for (s, &succ) in f.block_succs(b).iter().enumerate() {
        let back = back(succ);
        for &a in f.branch_args(b, s) {
            let v = a.index();
            if !live.contains(v) {
                // Live only through this argument (it is in liveout only if live further
                // on), so the range ends at the branch.
                live.insert(v);
                cur[v] = w.new_range(a, CodeRange::new(block_from, to.next()));
            }
            if !back {
                continue;
            }
            let op = Operand::use_(a, OperandConstraint::Any);
            w.push_use(
                cur[v],
                Use::new(op, to, Use::NO_SLOT, use_weight(&op, depth)),
            );
        }
    }
}

/// An early use fixed to a register that instruction `i` also clobbers or defines late, of
/// a vreg live below it (or held to the late point), cannot keep that register across the
/// instruction: it reads the vreg from anywhere (its constraint in `ops` becomes `Any`) and
/// a fixup copies it into the register, reserved at the early point (Ion's multi-fixed
/// mechanism; regalloc2 issue 53). A use of another vreg than a reused input is held to the
/// late point ([`scan_operands`]), so such a fixed use collides with a clobber of its
/// register even when its vreg dies here: it takes the same fixup.
#[inline(always)]
fn decouple_early_fixed<F: MachineRead + ?Sized>(
    f: &F,
    i: MInst,
    ops: &mut [Operand],
    live: &LiveMarks<'_>,
    multi_fixed: &mut Vec<MultiFixedFixup>,
    preg_ranges: &mut [Vec<CodeRange>],
) {
    let ops_in = f.inst_operands(i);
    let reused_vreg: Option<VReg> = ops_in.iter().find_map(|o| match o.constraint {
        OperandConstraint::Reuse(k) => ops_in.get(k as usize).map(|u| u.vreg),
        _ => None,
    });
    for (k, slot) in ops.iter_mut().enumerate() {
        let op = *slot;
        if let (OperandKind::Use, OperandPos::Early, OperandConstraint::FixedReg(reg)) =
            (op.kind, op.pos, op.constraint)
        {
            let late_def = ops_in.iter().any(|o| {
                o.kind == OperandKind::Def
                    && o.pos == OperandPos::Late
                    && o.constraint == OperandConstraint::FixedReg(reg)
            });
            let held_late = reused_vreg.is_some_and(|r| r != op.vreg);
            if op.vreg.is_value()
                && (live.contains(op.vreg.index()) || held_late)
                && (late_def || f.inst_clobbers(i).contains(reg))
            {
                let p = ProgPoint::before(i);
                multi_fixed.push(MultiFixedFixup {
                    point: p,
                    from_slot: k as u8,
                    to_slot: k as u8,
                    to_reg: reg,
                    vreg: op.vreg,
                });
                preg_ranges[reg.dense_index()].push(CodeRange::new(p, p.next()));
                slot.constraint = OperandConstraint::Any;
            }
        }
    }
}

/// On a commutative two-address instruction `def d reuse(1), use a, use b` whose reused
/// input `a` stays live below it while `b` dies there, exchanges the two inputs' vregs in
/// `ops` (each slot keeps its constraint): `d` then reuses `b`, whose range ends where
/// `d`'s begins, so the two can share a register, where reusing `a` costs a copy of `a`
/// into `d`'s register (regalloc2 issue 265). Returns whether it exchanged them; the caller
/// must make the same exchange in the function. `live` is the set live below `i`.
#[inline(always)]
fn commute_inputs<F: MachineRead + ?Sized>(
    f: &F,
    i: MInst,
    ops: &mut [Operand],
    live: &LiveMarks<'_>,
) -> bool {
    let [d, a, b] = ops else {
        return false;
    };
    let shape = d.kind == OperandKind::Def
        && d.constraint == OperandConstraint::Reuse(1)
        && a.kind == OperandKind::Use
        && b.kind == OperandKind::Use
        && a.pos == OperandPos::Early
        && b.pos == OperandPos::Early
        && a.constraint == OperandConstraint::Reg
        && matches!(
            b.constraint,
            OperandConstraint::Reg | OperandConstraint::Any
        )
        && a.vreg.is_value()
        && b.vreg.is_value()
        && a.vreg != b.vreg
        && a.vreg.class() == b.vreg.class();
    if !shape
        || !live.contains(a.vreg.index())
        || live.contains(b.vreg.index())
        || !f.is_commutative(i)
    {
        return false;
    }
    std::mem::swap(&mut a.vreg, &mut b.vreg);
    true
}

/// Instruction `i`'s clobbers: single-point reservations at its after point.
#[inline(always)]
fn record_clobbers<F: MachineRead + ?Sized>(f: &F, i: MInst, preg_ranges: &mut [Vec<CodeRange>]) {
    for r in f.inst_clobbers(i).iter() {
        preg_ranges[r.dense_index()].push(CodeRange::new(
            ProgPoint::after(i),
            ProgPoint::before(i + 1),
        ));
    }
}

/// One instruction's operands for [`scan_operands`]: instruction `i`'s operands (early
/// fixed uses already decoupled), its block's first point and loop depth.
#[derive(Clone, Copy)]
struct Operands<'a> {
    i: MInst,
    ops: &'a [Operand],
    block_from: ProgPoint,
    depth: u32,
}

/// Visits the operands of one instruction at their effective points, the after point
/// first, then the before point, defs before uses at each: a def trims its vreg's range to
/// start there (a dead def's range reaches the next instruction), a use opens a range from
/// the block start when the vreg is not live below it; a use fixed to a register another
/// slot's use of the same vreg is fixed elsewhere at the same point becomes a multi-fixed
/// fixup. On an instruction with a reused input every use of another vreg moves to the
/// after point. Operands of no vreg fixed to a register reserve it at their point.
#[inline(always)]
fn scan_operands(
    Operands {
        i,
        ops,
        block_from,
        depth,
    }: Operands<'_>,
    at: &mut Vec<(usize, ProgPoint)>,
    w: &mut RangeWriter<'_>,
    live: &mut LiveMarks<'_>,
    cur: &mut [LiveRangeIndex],
    multi_fixed: &mut Vec<MultiFixedFixup>,
    preg_ranges: &mut [Vec<CodeRange>],
) {
    // The reused input's vreg: its other uses in this instruction stay early too.
    let reused: Option<VReg> = ops.iter().find_map(|o| match o.constraint {
        OperandConstraint::Reuse(k) => ops.get(k as usize).map(|u| u.vreg),
        _ => None,
    });
    at.clear();
    for (k, op) in ops.iter().enumerate() {
        let mut p = match op.pos {
            OperandPos::Early => ProgPoint::before(i),
            OperandPos::Late => ProgPoint::after(i),
        };
        if op.kind == OperandKind::Use && reused.is_some_and(|r| r != op.vreg) {
            p = ProgPoint::after(i);
        }
        at.push((k, p));
    }
    // After point first, then before; defs before uses at each point.
    at.sort_by_key(|&(k, p)| (std::cmp::Reverse(p), ops[k].kind == OperandKind::Use));
    for idx in 0..at.len() {
        let (k, p) = at[idx];
        let op = ops[k];
        if !op.vreg.is_value() {
            if let OperandConstraint::FixedReg(r) = op.constraint {
                preg_ranges[r.dense_index()].push(CodeRange::new(p, p.next()));
            }
            continue;
        }
        let v = op.vreg.index();
        let weight = use_weight(&op, depth);
        match op.kind {
            OperandKind::Def => {
                let r = if live.contains(v) {
                    let r = cur[v];
                    w.rows.spans[r.index()].from = p;
                    r
                } else {
                    // A dead def holds its location to the next instruction, so an early
                    // def (a temporary) is kept apart from the late defs. `cur[v]` stays
                    // the newest range (only read while `v` is live, which every path
                    // making it live sets anew).
                    let r = w.new_range(op.vreg, CodeRange::new(p, ProgPoint::before(i + 1)));
                    cur[v] = r;
                    r
                };
                w.push_use(r, Use::new(op, p, k as u8, weight));
                w.rows.flags[r.index()] |= RangeFlags::STARTS_AT_DEF;
                live.remove(v);
            }
            OperandKind::Use => {
                // Multi-fixed: an earlier-slot use of v fixed elsewhere at p wins.
                if let OperandConstraint::FixedReg(reg) = op.constraint {
                    let first = ops.iter().enumerate().find(|&(j, o)| {
                        j < k
                            && o.vreg == op.vreg
                            && o.kind == OperandKind::Use
                            && at.iter().any(|&(jj, pp)| jj == j && pp == p)
                            && matches!(o.constraint, OperandConstraint::FixedReg(r2) if r2 != reg)
                    });
                    if let Some((j, _)) = first {
                        multi_fixed.push(MultiFixedFixup {
                            point: p,
                            from_slot: j as u8,
                            to_slot: k as u8,
                            to_reg: reg,
                            vreg: op.vreg,
                        });
                        // The fixup's copy runs before the instruction, so the register is
                        // reserved from there to the use's point (a use moved to the late
                        // point holds it all through).
                        preg_ranges[reg.dense_index()]
                            .push(CodeRange::new(ProgPoint::before(i), p.next()));
                        continue;
                    }
                }
                if !live.contains(v) {
                    live.insert(v);
                    cur[v] = w.new_range(op.vreg, CodeRange::new(block_from, p.next()));
                }
                w.push_use(cur[v], Use::new(op, p, k as u8, weight));
            }
        }
    }
}

/// Block `b`'s parameters: defs at the block start (a parameter not live gets a range of
/// its first point); every (parameter, predecessor) gives a blockparam "in".
#[inline(always)]
fn block_parameters<F: MachineRead + ?Sized>(
    f: &F,
    b: MBlock,
    block_from: ProgPoint,
    w: &mut RangeWriter<'_>,
    live: &mut LiveMarks<'_>,
    cur: &mut [LiveRangeIndex],
    blockparam_ins: &mut Vec<(VReg, MBlock, MBlock)>,
) {
    for &p in f.block_params(b) {
        let v = p.index();
        let r = if live.contains(v) {
            cur[v]
        } else {
            let r = w.new_range(p, CodeRange::new(block_from, block_from.next()));
            cur[v] = r;
            r
        };
        w.rows.flags[r.index()] |= RangeFlags::STARTS_AT_DEF;
        live.remove(v);
        for &pred in f.block_preds(b) {
            blockparam_ins.push((p, b, pred));
        }
    }
}

/// Sorts `list` as pushed by the reverse scan: instruction by instruction backwards, so
/// descending but for the entries of one instruction among themselves. Reversed and then
/// sorted by insertion, each entry moves past at most the others of its instruction: O(n)
/// where a general sort is O(n log n) (the general sort took 12M of the 33M instructions
/// of live-range construction on the `alternating_args` shape, whose argument registers
/// get a fixup reservation before each clobber). More moves than a few per entry (many
/// fixed mentions of one register at one instruction) fall back to the general sort. The
/// entries are plain values, so the result is the same either way.
fn sort_scan_order(list: &mut [CodeRange]) {
    list.reverse();
    let mut budget = 4 * list.len() + 64;
    for i in 1..list.len() {
        let x = list[i];
        let mut j = i;
        while j > 0 && list[j - 1] > x {
            if budget == 0 {
                // `list[j]` is the hole: filled, the list is a permutation again.
                list[j] = x;
                list.sort_unstable();
                return;
            }
            budget -= 1;
            list[j] = list[j - 1];
            j -= 1;
        }
        list[j] = x;
    }
}

/// Classes of every vreg, from defs, uses, parameters and arguments.
fn class_table<F: MachineRead + ?Sized>(f: &F, t: &mut Vec<Option<VReg>>) {
    t.clear();
    t.resize(f.num_vregs(), None);
    for b in f.blocks() {
        for &p in f.block_params(b) {
            t[p.index()] = Some(p);
        }
        for i in f.block_insts(b) {
            for o in f.inst_operands(i) {
                if o.vreg.is_value() {
                    t[o.vreg.index()] = Some(o.vreg);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows `compute_liveness` reserves (`range_bound`) cover the ranges the scan makes
    /// on generated functions (a row short would be an out-of-bounds write), and are fewer
    /// than the live-in count it replaced (defs + parameters + sum |livein|) wherever a
    /// value is live through two consecutive blocks.
    #[test]
    fn the_row_bound_covers_the_scan_and_is_tighter_than_the_live_ins() {
        let mut world = World::new();
        let mut store = RangeStore::new(&mut world);
        let (mut tighter, mut fns) = (0, 0);
        for seed in 0..60u64 {
            let f = match seed % 3 {
                0 => crate::fuzzing::machine_gen::seeded(seed),
                _ => crate::fuzzing::machine_gen::sized(seed, 200 + 100 * seed as usize),
            };
            build_ranges(&f, &mut world, &mut store);
            let made = world.resource::<RangeCounts>().ranges;
            let side = world.resource::<RangeSide>();
            let bound = super::super::range_bound(&f, &side.liveness);
            let defs: usize = f
                .blocks()
                .map(|b| {
                    f.block_params(b).len()
                        + f.block_insts(b)
                            .into_iter()
                            .map(|i| {
                                f.inst_operands(i)
                                    .iter()
                                    .filter(|o| o.kind == OperandKind::Def)
                                    .count()
                            })
                            .sum::<usize>()
                })
                .sum();
            let old = defs + side.liveness.ins.len();
            assert!(made <= bound, "seed {seed}: {made} ranges, bound {bound}");
            assert!(bound <= old, "seed {seed}: bound {bound} above {old}");
            tighter += (bound < old) as usize;
            fns += 1;
        }
        assert!(
            tighter * 2 > fns,
            "tighter on only {tighter} of {fns} functions"
        );
    }

    /// The flat per-vreg lists after a scan equal the lists of each vreg's rows sorted by
    /// start, with empty lists for vregs without a range (generated functions, whose
    /// vregs are not all used; the same context serves functions of decreasing size, so
    /// stale entries of a larger function would show).
    #[test]
    fn vreg_lists_are_each_vregs_rows_sorted() {
        let mut world = World::new();
        let mut store = RangeStore::new(&mut world);
        for seed in (0..30u64).rev() {
            let f = crate::fuzzing::machine_gen::sized(seed, 100 + 40 * seed as usize);
            build_ranges(&f, &mut world, &mut store);
            let n = world.resource::<RangeCounts>().ranges;
            let mut state: SystemState<(Query<RangeColumnsMut>, Res<RangeSide>)> =
                SystemState::new(&mut world);
            let (mut q, side) = state.get_mut(&mut world).expect("tables");
            let rows = range_rows(&mut q);
            assert_eq!(side.vreg_ranges.len(), f.num_vregs(), "seed {seed}");
            let mut listed = 0;
            for (v, list) in side.vreg_ranges.iter().enumerate() {
                let mut want: Vec<RangeEntry> = (0..n)
                    .filter(|&k| rows.vregs[k].index() == v)
                    .map(|k| RangeEntry {
                        range: rows.spans[k],
                        index: LiveRangeIndex::new(k),
                    })
                    .collect();
                want.sort_unstable();
                assert_eq!(list, &want[..], "seed {seed}: vreg {v}");
                listed += list.len();
            }
            assert_eq!(listed, n, "seed {seed}");
        }
    }

    /// Lists pushed as the scan pushes them (instructions backwards, a few entries of one
    /// instruction in any order), and lists in no order at all (the fallback): the result
    /// is the general sort's.
    #[test]
    fn scan_order_sort_equals_the_general_sort() {
        let mut rng = crate::fuzzing::llvm_import::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u32| rng.below(n as usize) as u32;
        for round in 0..400 {
            let mut list = Vec::new();
            let insts = next(200);
            for i in (0..insts).rev() {
                for _ in 0..next(4) {
                    let from = 2 * i + next(2);
                    let to = from + 1 + next(2);
                    list.push(CodeRange::new(ProgPoint(from), ProgPoint(to)));
                }
            }
            if round % 4 == 0 {
                for k in (1..list.len()).rev() {
                    list.swap(k, next(k as u32 + 1) as usize);
                }
            }
            let mut want = list.clone();
            want.sort_unstable();
            sort_scan_order(&mut list);
            assert_eq!(list, want);
        }
    }
}
