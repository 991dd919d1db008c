//! A generator of machine functions ([`MachineFunction`]) that are valid by construction.
//!
//! What: [`function`] draws, from fuzz bytes, a machine function in the shape regalloc2 and
//! our allocator phases accept: a spine of blocks (block `i` falls through to `i + 1`, the
//! last returns) with extra conditional edges to random targets (forward, backward,
//! irreducible), never into the entry; critical edges split by appended edge blocks; SSA
//! vregs of the int and float classes (vector rarely); block parameters on non-entry blocks
//! with branch arguments from every predecessor; operands with every constraint (any, reg,
//! stack, fixed register, reuse-input, limit), late uses and early defs, the same vreg
//! fixed to two registers on one instruction (the multi-fixed-register case), and clobbers.
//! [`env()`] gives the matching register environment (few registers, so values spill).
//! [`sized`] makes a deterministic function of about `n` instructions for benchmarks;
//! [`alternating_args`] and [`reuse_chain`] are fixed pathological shapes (wasmtime issue
//! 4291, regalloc2 issue 265) on x86-64's registers.
//!
//! Validity: a use names a vreg defined in a strictly dominating block or earlier in its own
//! block (dominators computed iteratively on the generated CFG); per instruction, a register
//! is fixed for at most one vreg among the uses, at most once among the defs, and never both
//! for a late use and a def; a clobbered register is never a fixed def's register; at most
//! 5 register-constrained operands per class and instruction, below the 6 allocatable
//! registers of a class. Functions pass the machine verifier ([`crate::machine::verify`]);
//! their instructions are [`Opcode::Op`] and [`Opcode::Branch`] (known by their operands).
//!
//! Complexity: O(blocks^2) for dominators in the worst case (iterative), O(instructions x
//! operands) otherwise.

use crate::analysis::order::postorder;
use crate::machine::function::{MachineFunction, MachineOp, Opcode};
use crate::machine::MBlock;
use crate::machine::{
    MachineEnv, Operand, OperandConstraint, OperandKind, OperandPos, PRegSet, VReg,
};
use crate::regalloc::{PReg, RegClass};
use arbitrary::{Result, Unstructured};
use smallvec::SmallVec;

/// Allocatable registers per class in [`env()`]: indices `0..REGS` (the last two
/// non-preferred); fixed constraints and clobbers use these too.
pub const REGS: u8 = 8;

/// Size limits for [`function`].
#[derive(Clone, Debug)]
pub struct MachineGenOptions {
    /// Maximum number of spine blocks (edge blocks come on top).
    pub max_blocks: usize,
    /// Maximum ordinary instructions per block.
    pub max_insts_per_block: usize,
    /// Whether to draw fixed-register constraints and clobbers.
    pub fixed: bool,
    /// Whether to draw reuse-input constraints.
    pub reuse: bool,
}

impl Default for MachineGenOptions {
    fn default() -> Self {
        MachineGenOptions {
            max_blocks: 12,
            max_insts_per_block: 8,
            fixed: true,
            reuse: true,
        }
    }
}

fn reg(class: RegClass, i: u8) -> PReg {
    PReg::new(class, i).expect("index below 64")
}

/// The environment generated functions are allocated in: per class, registers `0..6`
/// preferred and `6..8` non-preferred; a scratch register (index 8) when `scratch`.
pub fn env(scratch: bool) -> MachineEnv {
    let list = |c: RegClass, r: std::ops::Range<u8>| r.map(|i| reg(c, i)).collect::<Vec<_>>();
    MachineEnv {
        preferred: RegClass::ALL.map(|c| list(c, 0..REGS - 2)),
        non_preferred: RegClass::ALL.map(|c| list(c, REGS - 2..REGS)),
        scratch: RegClass::ALL.map(|c| scratch.then(|| reg(c, REGS))),
    }
}

/// Immediate dominators of blocks given by successor lists (entry 0; unreachable blocks
/// have none). Iterative over reverse postorder (Cooper, Harvey, Kennedy).
fn idoms(succs: &[Vec<u32>]) -> Vec<Option<u32>> {
    let n = succs.len();
    let mut order = postorder(n, [0], |b| &succs[b as usize]);
    order.reverse();
    let mut rpo = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        rpo[b as usize] = i;
    }
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s as usize].push(b as u32);
        }
    }
    let mut idom: Vec<Option<u32>> = vec![None; n];
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<u32> = None;
            for &p in &preds[b as usize] {
                if idom[p as usize].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut a) => {
                        let mut c = p;
                        while a != c {
                            while rpo[a as usize] > rpo[c as usize] {
                                a = idom[a as usize].expect("processed");
                            }
                            while rpo[c as usize] > rpo[a as usize] {
                                c = idom[c as usize].expect("processed");
                            }
                        }
                        a
                    }
                });
            }
            if new != idom[b as usize] {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    idom[0] = None;
    idom
}

/// Renumbers blocks in reverse postorder, so every block but the entry follows one of its
/// predecessors in layout (real code is laid out so; regalloc2's checker depends on it: a
/// block visited before all its predecessors starts from an empty state and keeps it, so
/// it rejects correct allocations). Every block is reachable through the spine.
fn reverse_postorder_layout(succs: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    let n = succs.len();
    let post = postorder(n, [0], |b| &succs[b as usize]);
    let mut new_index = vec![u32::MAX; n];
    for (i, &b) in post.iter().rev().enumerate() {
        new_index[b as usize] = i as u32;
    }
    let mut out = vec![Vec::new(); post.len()];
    for (b, ss) in succs.into_iter().enumerate() {
        if new_index[b] != u32::MAX {
            out[new_index[b] as usize] = ss.into_iter().map(|s| new_index[s as usize]).collect();
        }
    }
    out
}

struct Gen {
    f: MachineFunction,
    /// `defs[b]`: vregs defined in block `b` (parameters and instruction defs).
    defs: Vec<Vec<VReg>>,
    idom: Vec<Option<u32>>,
}

impl Gen {
    fn new_vreg(&mut self, class: RegClass) -> VReg {
        let v = VReg::new(self.f.num_vregs as u32, class).expect("vreg index in range");
        self.f.num_vregs += 1;
        v
    }

    /// A vreg available in block `b` (defined earlier in `b` or in a dominator).
    fn available(&self, u: &mut Unstructured<'_>, b: usize) -> Result<Option<VReg>> {
        let mut at = b;
        let mut steps = u.int_in_range(0..=3u8)?;
        loop {
            if steps == 0 || self.idom[at].is_none() {
                if let Some(v) = pick(u, &self.defs[at])? {
                    return Ok(Some(v));
                }
            }
            match self.idom[at] {
                Some(d) => at = d as usize,
                None => return Ok(None),
            }
            steps = steps.saturating_sub(1);
        }
    }
}

fn pick<T: Copy>(u: &mut Unstructured<'_>, v: &[T]) -> Result<Option<T>> {
    if v.is_empty() {
        return Ok(None);
    }
    Ok(Some(v[u.choose_index(v.len())?]))
}

fn class(u: &mut Unstructured<'_>) -> Result<RegClass> {
    Ok(match u.int_in_range(0..=9u8)? {
        0..=5 => RegClass::Int,
        6..=8 => RegClass::Float,
        _ => RegClass::Vector,
    })
}

/// The function [`function`] draws with default options from
/// [`seed_bytes`](crate::fuzzing::generate::seed_bytes)`(seed, 4096)`: the generated input
/// that tests and benches share, reproducible from its seed alone.
pub fn seeded(seed: u64) -> MachineFunction {
    let bytes = crate::fuzzing::generate::seed_bytes(seed, 4096);
    function(
        &mut Unstructured::new(&bytes),
        &MachineGenOptions::default(),
    )
    .expect("the generator falls back to zeros when its bytes run out")
}

/// Draws a machine function (see the module doc).
pub fn function(u: &mut Unstructured<'_>, opts: &MachineGenOptions) -> Result<MachineFunction> {
    let spine = u.int_in_range(1..=opts.max_blocks.max(1))?;
    // CFG over spine blocks: fall through, plus maybe a second target.
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); spine];
    for (b, s) in succs.iter_mut().enumerate().take(spine.saturating_sub(1)) {
        s.push(b as u32 + 1);
        if u.ratio(2, 5)? {
            let t = u.int_in_range(1..=spine as u32 - 1)?;
            if t != b as u32 + 1 {
                s.push(t);
            }
        }
    }
    // Split critical edges with appended blocks.
    let mut npreds = vec![0usize; spine];
    for s in &succs {
        for &t in s {
            npreds[t as usize] += 1;
        }
    }
    let mut extra: Vec<u32> = Vec::new(); // target of each edge block
    for ss in succs.iter_mut() {
        if ss.len() > 1 {
            for t in ss.iter_mut() {
                if npreds[*t as usize] > 1 {
                    extra.push(*t);
                    *t = (spine + extra.len() - 1) as u32;
                }
            }
        }
    }
    for &t in &extra {
        succs.push(vec![t]);
    }
    let succs = reverse_postorder_layout(succs);
    let n = succs.len();
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s as usize].push(b as u32);
        }
    }
    let idom = idoms(&succs);
    // Blocks in dominator-tree preorder, so a dominator's defs exist before its dominees.
    let mut children = vec![Vec::new(); n];
    for (b, d) in idom.iter().enumerate().skip(1) {
        if let Some(d) = d {
            children[*d as usize].push(b);
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        order.push(b);
        stack.extend(children[b].iter().rev());
    }
    let mut g = Gen {
        f: MachineFunction::default(),
        defs: vec![Vec::new(); n],
        idom,
    };
    let mut body: Vec<Vec<(Vec<Operand>, PRegSet)>> = vec![Vec::new(); n];
    g.f.params = vec![SmallVec::new(); n];
    for &b in &order {
        let single_succ_preds = preds[b].iter().all(|&p| succs[p as usize].len() == 1);
        if b != 0 && single_succ_preds && u.ratio(1, 2)? {
            for _ in 0..u.int_in_range(1..=3u8)? {
                let c = class(u)?;
                let v = g.new_vreg(c);
                g.f.params[b].push(v);
                g.defs[b].push(v);
            }
        }
        let count = u.int_in_range(0..=opts.max_insts_per_block)?;
        for _ in 0..count {
            let inst = instruction(u, &mut g, b, opts)?;
            body[b].push(inst);
        }
    }
    // Branch arguments: per successor, one available vreg of each parameter's class (a
    // fresh def in the block when none is at hand).
    let mut args: Vec<Vec<Vec<VReg>>> = vec![Vec::new(); n];
    for b in 0..n {
        for s in succs[b].clone() {
            let mut a = Vec::new();
            for p in g.f.params[s as usize].clone() {
                let mut chosen = None;
                for _ in 0..4 {
                    if let Some(v) = g.available(u, b)? {
                        if v.class() == p.class() && !a.contains(&v) {
                            chosen = Some(v);
                            break;
                        }
                    }
                }
                let v = match chosen {
                    Some(v) => v,
                    None => {
                        let v = g.new_vreg(p.class());
                        g.defs[b].push(v);
                        body[b].push((
                            vec![Operand::def(v, OperandConstraint::Any)],
                            PRegSet::empty(),
                        ));
                        v
                    }
                };
                a.push(v);
            }
            args[b].push(a);
        }
    }
    // Lay out: blocks in index order, terminator last.
    let mut f = g.f;
    for b in 0..n {
        for (ops, clobbers) in std::mem::take(&mut body[b]) {
            f.push_inst(MachineOp::new(Opcode::Op), &ops, clobbers);
        }
        let mut term_ops = Vec::new();
        if succs[b].is_empty() {
            // A return reads a value now and then, with a fixed register.
            if let (Some(v), true) = (pick(u, &g.defs[b])?, u.ratio(1, 2)?) {
                let c = if opts.fixed {
                    OperandConstraint::FixedReg(reg(v.class(), 0))
                } else {
                    OperandConstraint::Reg
                };
                term_ops.push(Operand::use_(v, c));
            }
            f.push_inst(MachineOp::new(Opcode::Ret), &term_ops, PRegSet::empty());
        } else {
            f.push_inst(MachineOp::new(Opcode::Branch), &term_ops, PRegSet::empty());
        }
        f.close_block();
    }
    let blocks = |list: Vec<u32>| list.into_iter().map(MBlock).collect();
    f.succs = succs.into_iter().map(blocks).collect();
    f.preds = preds.into_iter().map(blocks).collect();
    f.branch_args = args
        .iter()
        .map(|lists| lists.iter().map(Vec::as_slice).collect())
        .collect();
    debug_assert_eq!(crate::machine::verify::verify(&f), Vec::new());
    Ok(f)
}

/// One ordinary instruction of block `b`: uses of available vregs, defs of new ones.
fn instruction(
    u: &mut Unstructured<'_>,
    g: &mut Gen,
    b: usize,
    opts: &MachineGenOptions,
) -> Result<(Vec<Operand>, PRegSet)> {
    let mut ops: Vec<Operand> = Vec::new();
    let mut fixed_use: Vec<(PReg, VReg)> = Vec::new();
    let mut fixed_late_use: Vec<PReg> = Vec::new();
    let mut fixed_def: Vec<PReg> = Vec::new();
    let mut in_reg = [0u8; 3];
    let mut used: Vec<VReg> = Vec::new();
    for _ in 0..u.int_in_range(0..=3u8)? {
        let Some(v) = g.available(u, b)? else { break };
        let c = v.class();
        let pos = if u.ratio(1, 8)? {
            OperandPos::Late
        } else {
            OperandPos::Early
        };
        let mut constraint = match u.int_in_range(0..=9u8)? {
            0..=2 => OperandConstraint::Any,
            3..=5 => OperandConstraint::Reg,
            6 => OperandConstraint::Stack,
            _ if pos == OperandPos::Late => OperandConstraint::Reg,
            7 => OperandConstraint::Limit(4),
            _ => OperandConstraint::FixedReg(reg(c, u.int_in_range(0..=REGS - 1)?)),
        };
        // A vreg used twice on one instruction: only as the multi-fixed case (every use
        // fixed, at the same position).
        if used.contains(&v) {
            let all_fixed = ops
                .iter()
                .filter(|o| o.vreg == v)
                .all(|o| matches!(o.constraint, OperandConstraint::FixedReg(_)) && o.pos == pos);
            if !all_fixed || !matches!(constraint, OperandConstraint::FixedReg(_)) {
                continue;
            }
        }
        if let OperandConstraint::FixedReg(r) = constraint {
            let clash = !opts.fixed
                || fixed_use.iter().any(|&(q, _)| q == r)
                || (pos == OperandPos::Late && fixed_def.contains(&r));
            if clash {
                constraint = OperandConstraint::Reg;
            } else {
                fixed_use.push((r, v));
                if pos == OperandPos::Late {
                    fixed_late_use.push(r);
                }
            }
        }
        if used.contains(&v) && !matches!(constraint, OperandConstraint::FixedReg(_)) {
            continue;
        }
        if matches!(
            constraint,
            OperandConstraint::Reg | OperandConstraint::Limit(_) | OperandConstraint::FixedReg(_)
        ) {
            if in_reg[c.index()] >= 4 {
                constraint = OperandConstraint::Any;
            } else {
                in_reg[c.index()] += 1;
            }
        }
        used.push(v);
        ops.push(Operand {
            vreg: v,
            constraint,
            kind: OperandKind::Use,
            pos,
        });
    }
    let num_uses = ops.len();
    for _ in 0..u.int_in_range(0..=2u8)? {
        // Reuse: of an early use with a register constraint, same class.
        let reusable = (0..num_uses).find(|&k| {
            ops[k].pos == OperandPos::Early
                && ops[k].constraint == OperandConstraint::Reg
                && !ops
                    .iter()
                    .any(|o| o.constraint == OperandConstraint::Reuse(k as u8))
        });
        let (c, constraint, pos) = match (opts.reuse, reusable, u.int_in_range(0..=9u8)?) {
            (true, Some(k), 0..=3) => (
                ops[k].vreg.class(),
                OperandConstraint::Reuse(k as u8),
                OperandPos::Late,
            ),
            (_, _, 4) if opts.fixed => {
                let c = class(u)?;
                let r = reg(c, u.int_in_range(0..=REGS - 1)?);
                if fixed_def.contains(&r) || fixed_late_use.contains(&r) {
                    (c, OperandConstraint::Reg, OperandPos::Late)
                } else {
                    fixed_def.push(r);
                    (c, OperandConstraint::FixedReg(r), OperandPos::Late)
                }
            }
            (_, _, 5) => (class(u)?, OperandConstraint::Reg, OperandPos::Early),
            (_, _, 6) => (class(u)?, OperandConstraint::Any, OperandPos::Late),
            _ => (class(u)?, OperandConstraint::Reg, OperandPos::Late),
        };
        let counts = matches!(
            constraint,
            OperandConstraint::Reg | OperandConstraint::FixedReg(_)
        );
        if counts && in_reg[c.index()] >= 5 {
            continue;
        }
        if counts {
            in_reg[c.index()] += 1;
        }
        let v = g.new_vreg(c);
        g.defs[b].push(v);
        ops.push(Operand {
            vreg: v,
            constraint,
            kind: OperandKind::Def,
            pos,
        });
    }
    let mut clobbers = PRegSet::empty();
    if opts.fixed && u.ratio(1, 6)? {
        for _ in 0..u.int_in_range(1..=2u8)? {
            // Clobbers stay above the registers `limit(4)` operands may take.
            let r = reg(class(u)?, u.int_in_range(4..=REGS - 1)?);
            if !fixed_def.contains(&r) {
                clobbers.insert(r);
            }
        }
    }
    Ok((ops, clobbers))
}

/// A deterministic function of about `n` instructions (seeded bytes; for benchmarks).
pub fn sized(seed: u64, n: usize) -> MachineFunction {
    let opts = MachineGenOptions {
        max_blocks: (n / 5).max(1),
        max_insts_per_block: 8,
        fixed: true,
        reuse: true,
    };
    // Enough bytes that the draw does not run dry: the block count is drawn first and
    // uniformly, so retry seeds until the size is within 25% of `n`.
    let mut s = seed;
    loop {
        let bytes = super::generate::seed_bytes(s, n * 64 + 256);
        let mut u = Unstructured::new(&bytes);
        if let Ok(f) = function(&mut u, &opts) {
            let len = f.ops.len();
            if len * 4 >= n * 3 && len * 4 <= n * 5 {
                return f;
            }
        }
        s = s.wrapping_add(0x9e37_79b9);
    }
}

/// A one-block x86-64 function `name` over `num_vregs` integer vregs: `args` defines v0 and
/// v1 in the first two argument registers, `body` appends the instructions, and the return
/// reads the last vreg in the result register.
fn x86_one_block(
    name: &str,
    num_vregs: usize,
    body: impl FnOnce(&mut MachineFunction, &crate::machine::targets::TargetDesc),
) -> MachineFunction {
    use crate::machine::targets::{Arch, TargetDesc};
    let t = TargetDesc::new(Arch::X86_64);
    let fixed = OperandConstraint::FixedReg;
    let mut f = MachineFunction {
        name: name.into(),
        target: "x86-64".into(),
        num_vregs,
        ..MachineFunction::default()
    };
    f.push_inst(
        MachineOp::new(Opcode::Args),
        &[
            Operand::def(int_vreg(0), fixed(t.int_args[0])),
            Operand::def(int_vreg(1), fixed(t.int_args[1])),
        ],
        PRegSet::empty(),
    );
    body(&mut f, &t);
    f.push_inst(
        MachineOp::new(Opcode::Ret),
        &[Operand::use_(int_vreg(num_vregs - 1), fixed(t.int_ret))],
        PRegSet::empty(),
    );
    f.close_block();
    f.params.push(SmallVec::new());
    f.succs.push(SmallVec::new());
    f.branch_args.push(Default::default());
    f.compute_preds();
    f
}

/// Integer vreg `i`.
fn int_vreg(i: usize) -> VReg {
    VReg::new(i as u32, RegClass::Int).expect("in range")
}

/// One value passed to `calls` calls, alternately in x86-64's first and second integer
/// argument registers (`rdi`, `rsi`), each call clobbering every caller-saved register and
/// defining a result in `rax` that the next call also takes (wasmtime issue 4291's shape:
/// the value needs a home outside the clobbered registers and a copy into a different fixed
/// register at every call). One block; about `calls` instructions. The clobbers leave out
/// the result register, as lowering's do.
pub fn alternating_args(calls: usize) -> MachineFunction {
    x86_one_block("alternating_args", calls + 2, |f, t| {
        let fixed = OperandConstraint::FixedReg;
        let mut clobbers = t.caller_saved;
        clobbers.remove(t.int_ret);
        for k in 0..calls {
            let (here, other) = if k % 2 == 0 {
                (t.int_args[0], t.int_args[1])
            } else {
                (t.int_args[1], t.int_args[0])
            };
            f.push_inst(
                MachineOp::imm(Opcode::Call, 0),
                &[
                    Operand::use_(int_vreg(0), fixed(here)),
                    Operand::use_(int_vreg(k + 1), fixed(other)),
                    Operand::def(int_vreg(k + 2), fixed(t.int_ret)),
                ],
                clobbers,
            );
        }
    })
}

/// A chain of `n` x86-64 two-address additions in one block, each def reusing its first
/// input (`add def vK:reuse(1), use vK-1:reg, use vJ:reg`), where every fourth input also
/// lives on past its instruction (a later addition reads it again), so some pairs can share
/// a register and some cannot (regalloc2 issue 265's shape: reuse-heavy code).
pub fn reuse_chain(n: usize) -> MachineFunction {
    x86_one_block("reuse_chain", n + 2, |f, _| {
        for k in 2..n + 2 {
            // The second input: the value four back when that one is still live (every
            // fourth value is read twice), else the first argument.
            let second = if k >= 6 && (k - 4) % 4 == 0 { k - 4 } else { 0 };
            f.push_inst(
                MachineOp::new(Opcode::Add),
                &[
                    Operand::def(int_vreg(k), OperandConstraint::Reuse(1)),
                    Operand::use_(int_vreg(k - 1), OperandConstraint::Reg),
                    Operand::use_(int_vreg(second), OperandConstraint::Reg),
                ],
                PRegSet::empty(),
            );
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_functions_are_valid() {
        let mut shapes = [0usize; 4];
        for seed in 0..500u64 {
            let f = seeded(seed);
            let defects = crate::machine::verify::verify(&f);
            assert!(defects.is_empty(), "seed {seed}: {defects:?}");
            let ops = f.operands.iter().flatten();
            for o in ops {
                match o.constraint {
                    OperandConstraint::Reuse(_) => shapes[0] += 1,
                    OperandConstraint::FixedReg(_) => shapes[1] += 1,
                    _ => {}
                }
            }
            shapes[2] += f.params.iter().map(SmallVec::len).sum::<usize>();
            shapes[3] += f.clobbers.iter().filter(|c| !c.is_empty()).count();
        }
        assert!(
            shapes.iter().all(|&s| s > 50),
            "coverage too thin: {shapes:?}"
        );
    }

    /// The pathological shapes are valid, and our allocator's output for them satisfies both
    /// checkers in x86-64's environment.
    #[test]
    fn pathological_shapes_allocate_and_check() {
        let env = crate::machine::targets::TargetDesc::new(crate::stage::Arch::X86_64).env;
        let mut ctx = crate::regalloc::ion::IonContext::default();
        let mut tally = crate::fuzzing::ion::Tally::default();
        for f in [alternating_args(200), reuse_chain(300)] {
            let defects = crate::machine::verify::verify(&f);
            assert!(defects.is_empty(), "@{}: {defects:?}", f.name);
            crate::fuzzing::ion::check_function(&mut ctx, &f, &env, &mut tally);
        }
        assert_eq!(tally.accepted, 2, "{tally:?}");
    }

    #[test]
    fn sized_hits_its_target() {
        for n in [100, 1000] {
            let f = sized(1, n);
            assert!(f.ops.len() * 4 >= n * 3 && f.ops.len() * 4 <= n * 5);
        }
    }
}
