//! Lowering: SSA-phase IR in block-parameter form to the machine form of one target.
//!
//! What: every reachable IR block becomes a machine block (entry first, then IR order); its
//! parameters become vregs; each instruction becomes one or a few machine instructions whose
//! operands carry the target's constraints ([`super::targets`]); each terminator becomes a
//! branch that passes the IR's branch arguments. A `switch` becomes a chain of `casebr`
//! blocks (compare with one case, branch); critical edges are split by the builder
//! ([`super::function::MachineBuilder::finish`]).
//!
//! The instruction selection is one rule per IR instruction kind (macro expansion, no
//! pattern matching over trees, no folding of constants or addresses into operands beyond
//! what the rules below say), because what register allocation needs is the right operand
//! shapes:
//! - constants are materialised where used (`movi`, `fconst`, `symaddr`, `blockaddr`);
//! - x86-64 integer and float arithmetic is two-address: `def d:reuse(1), use a:reg, use b:any`
//!   (the second input may be in memory); aarch64 is three-address with register inputs;
//! - x86-64 division and remainder: dividend and quotient fixed to rax, the remainder (or a
//!   dead def standing for the sign extension into rdx) an early def fixed to rdx, so the
//!   divisor is in neither; variable shifts take the count in rcx; aarch64 remainder is
//!   `sdiv`/`udiv` then `msub`;
//! - calls: arguments fixed to the ABI's registers in order per class (the rest stored to the
//!   outgoing area with `storearg`), the result fixed to rax/x0 or xmm0/v0, every caller-saved
//!   register clobbered except the result's; on x86-64 a variadic call also sets al;
//!   parameters: an `args` instruction at entry defining them in their ABI registers (stack
//!   parameters through `loadarg`);
//! - `alloca` is a frame slot (`frameaddr`), `gep` is `lea` plus one `leax` per index (with
//!   `muli` for scales other than 1, 2, 4, 8 and `cast.sext` for narrow indices);
//! - atomics: x86-64 cmpxchg-loop shapes with rax fixed, aarch64 load/store-exclusive loops
//!   with early defs; inline asm maps its constraint codes (`r`, `x`, `g`, `m`, tied digits,
//!   x86 letters `a b c d S D`, `&` early clobber) and its register clobbers;
//! - an opaque IR operation (`va_arg`) becomes an `opaque` placeholder with register operands
//!   that clobbers like a call: the allocation problem keeps its shape, emission would need
//!   the real sequence;
//! - aggregates, `i128` (and integers wider than 64 bits) and `x86_fp80` values are split
//!   into scalar parts, one vreg each, with the rules and the calling convention of
//!   [`super::parts`] (scalarized aggregates, register pairs with carry and compiler-rt
//!   helpers, soft-float `x86_fp80` in integer pairs); block parameters, branch arguments,
//!   arguments and results carry every part.
//!
//! Refused with an error naming function, block and instruction: atomics and inline-asm
//! operands of split types, phis (`block-params` leaves those of blocks an `indirect_br`
//! reaches), `asm goto`, switch cases wider than 64 bits, an indirect branch to a block with
//! parameters, an entry block with both predecessors and parameters (an entry with
//! predecessors alone gets a prologue block), a result of more parts than the target has
//! result registers, a value of more than [`super::parts::MAX_PARTS`] parts.
//!
//! Complexity: O(instructions + edges) for one function.

use super::function::{BuildBlock, MachineBuilder, MachineFunction, MachineOp, Opcode, Operands};
use super::parts::{is_split, layout, libcall_imm, member_parts, Layout};
use super::targets::{Arch, TargetDesc};
use super::{MBlock, Operand as MOp, OperandConstraint as C, OperandPos, PRegSet, VReg};
use crate::ir::{
    Block, Callee, CastOp, Const, ConstKind, Inst, InstKind, IrRead, Operand, Terminator, Type,
    Value,
};
use crate::registers::{PReg, RegClass};
use smallvec::{smallvec, SmallVec};

/// Why a function could not be lowered: what, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("@{function}: {place}: {message}")]
pub struct LowerError {
    /// The function.
    pub function: String,
    /// Block and instruction (`block3, inst12 (call)`) or block alone.
    pub place: String,
    /// What is not supported.
    pub message: String,
}

/// Lowers `ir` (SSA phase, block-parameter form) for `target`. Calls name their callee by
/// symbol index (`call #N` is `symbols.names[N]`; negative immediates are library helpers:
/// `-1` fmod, `-2` fmodf).
///
/// # Errors
/// A construct lowering does not support (see the module doc), named with its place.
pub fn lower_function(
    ir: &impl IrRead,
    target: &TargetDesc,
) -> Result<MachineFunction, LowerError> {
    let mut l = Lowerer {
        ir,
        t: target,
        m: MachineBuilder::default(),
        vmap: vec![None; ir.values().len()],
        mblock: vec![None; ir.num_blocks()],
        cur: MBlock(0),
        place: (Block::new(0), None),
    };
    l.run()?;
    Ok(l.m.finish(ir.name(), target.arch.name()))
}

struct Lowerer<'a, F: IrRead> {
    ir: &'a F,
    t: &'a TargetDesc,
    m: MachineBuilder,
    vmap: Vec<Option<Parts>>,
    mblock: Vec<Option<MBlock>>,
    cur: MBlock,
    place: (Block, Option<Inst>),
}

type R<T> = Result<T, LowerError>;

/// The vregs of one value's parts, in [`super::parts::layout`] order.
type Parts = SmallVec<[VReg; 2]>;

fn class_of(ty: Type) -> Option<RegClass> {
    match ty {
        Type::F32 | Type::F64 => Some(RegClass::Float),
        Type::Void => None,
        t if is_split(t) => None,
        _ => Some(RegClass::Int),
    }
}

fn mem_suffix(ty: Type) -> u8 {
    let name = match ty {
        Type::Int(n) if n <= 8 => "i8",
        Type::Int(n) if n <= 16 => "i16",
        Type::Int(n) if n <= 32 => "i32",
        Type::Int(_) => "i64",
        Type::Void => "i8",
        other => return mem_suffix_name(&other.to_string()),
    };
    mem_suffix_name(name)
}

fn mem_suffix_name(name: &str) -> u8 {
    super::function::MEM_TYPES
        .iter()
        .position(|n| *n == name)
        .unwrap_or(4) as u8
}

impl<'a, F: IrRead> Lowerer<'a, F> {
    fn err(&self, message: impl Into<String>) -> LowerError {
        let place = match self.place.1 {
            Some(i) => format!(
                "{}, {} ({})",
                self.place.0,
                i,
                self.ir.inst_kind(i).opcode_name()
            ),
            None => format!("{} (terminator)", self.place.0),
        };
        LowerError {
            function: self.ir.name().to_string(),
            place,
            message: message.into(),
        }
    }

    fn class(&self, ty: Type) -> R<RegClass> {
        class_of(ty).ok_or_else(|| {
            if is_split(ty) {
                self.err(format!(
                    "a value of type {ty} (several register parts) is not supported here"
                ))
            } else {
                self.err(format!("a value of type {ty} has no register class"))
            }
        })
    }

    fn layout(&self, ty: Type) -> R<Layout> {
        layout(ty).map_err(|e| self.err(e))
    }

    /// Fresh vregs for the parts of a value of type `ty`.
    fn new_parts(&mut self, ty: Type) -> R<Parts> {
        let mut out = Parts::new();
        for p in self.layout(ty)? {
            out.push(self.new_vreg(p.class)?);
        }
        Ok(out)
    }

    /// The vregs of `v`'s parts (made on first sight).
    fn value_parts(&mut self, v: Value) -> R<Parts> {
        if let Some(Some(r)) = self.vmap.get(v.index()) {
            return Ok(r.clone());
        }
        let ty = self
            .ir
            .values()
            .get(v.index())
            .map(|d| d.ty)
            .ok_or_else(|| self.err(format!("{v} is not in the value table")))?;
        let parts = self.new_parts(ty)?;
        self.vmap[v.index()] = Some(parts.clone());
        Ok(parts)
    }

    fn vreg_of(&mut self, v: Value) -> R<VReg> {
        let parts = self.value_parts(v)?;
        match parts.as_slice() {
            [r] => Ok(*r),
            _ => {
                let ty = self.ir.values().get(v.index()).map(|d| d.ty);
                Err(self.err(format!(
                    "{v} of type {} ({} register parts) where one register is expected",
                    ty.unwrap_or_default(),
                    parts.len()
                )))
            }
        }
    }

    /// The vregs holding `op`'s parts (a constant is materialised in the current block).
    fn use_parts(&mut self, op: Operand) -> R<Parts> {
        match op {
            Operand::Value(v) => self.value_parts(v),
            Operand::Const(c) => {
                let mut out = Parts::new();
                self.const_parts(c, &mut out)?;
                Ok(out)
            }
        }
    }

    /// Materialises constant `c`, one instruction per part, appending the vregs to `out`.
    fn const_parts(&mut self, c: Const, out: &mut Parts) -> R<()> {
        let data = self
            .ir
            .consts()
            .try_get(c)
            .ok_or_else(|| self.err(format!("{c:?} is not in the constant pool")))?;
        if !is_split(data.ty) {
            out.push(self.use_op(Operand::Const(c))?);
            return Ok(());
        }
        if let ConstKind::Aggregate(_) = data.kind {
            let members = self
                .ir
                .consts()
                .members(c)
                .ok_or_else(|| self.err(format!("{c:?} has no member list")))?
                .to_vec();
            for m in members {
                self.const_parts(m, out)?;
            }
            return Ok(());
        }
        // Wide integers and x86_fp80: low 64 bits, then the rest; zero/undef aggregates and
        // any other kind: zeros.
        let bits = match data.kind {
            ConstKind::Int(v) | ConstKind::Float(v) if !data.ty.is_aggregate() => v,
            _ => 0,
        };
        for (k, p) in self.layout(data.ty)?.into_iter().enumerate() {
            let chunk = match k {
                0 => bits as u64,
                1 => (bits >> 64) as u64,
                _ => 0,
            };
            let d = self.new_vreg(p.class)?;
            let op = match p.class {
                RegClass::Int => MachineOp::imm(Opcode::MovImm, chunk as i64),
                _ => MachineOp::imm(Opcode::FConst, 0),
            };
            self.emit1(op, smallvec![MOp::def(d, C::Reg)]);
            out.push(d);
        }
        Ok(())
    }

    /// The parts of result `n` of `i`, or fresh vregs standing for an unused one.
    fn result_parts(&mut self, i: Inst, n: usize, ty: Type) -> R<Parts> {
        match self.ir.inst_results(i).get(n) {
            Some(&v) => self.value_parts(v),
            None => self.new_parts(ty),
        }
    }

    fn new_vreg(&mut self, class: RegClass) -> R<VReg> {
        self.m.vreg(class).map_err(|e| self.err(e.0))
    }

    fn emit(&mut self, op: MachineOp, operands: Operands, clobbers: PRegSet) {
        self.m.push(self.cur, op, operands, clobbers);
    }

    fn emit1(&mut self, op: MachineOp, operands: Operands) {
        self.emit(op, operands, PRegSet::empty());
    }

    /// The vreg holding `op` (a constant is materialised in the current block).
    fn use_op(&mut self, op: Operand) -> R<VReg> {
        match op {
            Operand::Value(v) => self.vreg_of(v),
            Operand::Const(c) => {
                let data = self
                    .ir
                    .consts()
                    .try_get(c)
                    .ok_or_else(|| self.err(format!("{c:?} is not in the constant pool")))?;
                let class = self.class(data.ty)?;
                let d = self.new_vreg(class)?;
                let op = match (data.kind, class) {
                    (ConstKind::Int(v), RegClass::Int) => MachineOp::imm(Opcode::MovImm, v as i64),
                    (ConstKind::Float(bits), _) => MachineOp::imm(Opcode::FConst, bits as i64),
                    (ConstKind::Int(v), _) => MachineOp::imm(Opcode::FConst, v as i64),
                    (ConstKind::Null | ConstKind::Undef, RegClass::Int) => {
                        MachineOp::imm(Opcode::MovImm, 0)
                    }
                    (ConstKind::Null | ConstKind::Undef, _) => MachineOp::imm(Opcode::FConst, 0),
                    (ConstKind::SymbolAddr(s), _) => {
                        MachineOp::imm(Opcode::SymAddr, s.index() as i64)
                    }
                    (ConstKind::BlockAddr(b), _) => {
                        MachineOp::imm(Opcode::BlockAddr, b.index() as i64)
                    }
                    (ConstKind::Aggregate(_), _) => {
                        return Err(self.err(format!(
                            "aggregate constant {c:?} where one register is expected"
                        )));
                    }
                };
                self.emit1(op, smallvec![MOp::def(d, C::Reg)]);
                Ok(d)
            }
        }
    }

    /// The constraint of an ALU instruction's second input.
    fn rm(&self) -> C {
        if self.t.mem_operands {
            C::Any
        } else {
            C::Reg
        }
    }

    /// `def d, use a, use b` in the target's arithmetic shape.
    fn alu(&mut self, op: MachineOp, d: VReg, a: VReg, b: VReg) {
        let ops = if self.t.two_address {
            smallvec![
                MOp::def(d, C::Reuse(1)),
                MOp::use_(a, C::Reg),
                MOp::use_(b, self.rm())
            ]
        } else {
            smallvec![
                MOp::def(d, C::Reg),
                MOp::use_(a, C::Reg),
                MOp::use_(b, C::Reg)
            ]
        };
        self.emit1(op, ops);
    }

    fn result(&mut self, i: Inst, n: usize) -> R<Option<VReg>> {
        match self.ir.inst_results(i).get(n) {
            Some(&v) => Ok(Some(self.vreg_of(v)?)),
            None => Ok(None),
        }
    }

    /// The result, or a fresh vreg standing for an unused one.
    fn result_or_dead(&mut self, i: Inst, n: usize, class: RegClass) -> R<VReg> {
        match self.result(i, n)? {
            Some(v) => Ok(v),
            None => self.new_vreg(class),
        }
    }

    fn run(&mut self) -> R<()> {
        let ir = self.ir;
        let nb = ir.num_blocks();
        if nb == 0 || ir.is_block_dead(Block::new(0)) {
            return Err(LowerError {
                function: ir.name().to_string(),
                place: "block0".into(),
                message: "the function has no entry block".into(),
            });
        }
        // Reachable blocks from the entry, in IR order.
        let mut reach = vec![false; nb];
        let mut stack = vec![Block::new(0)];
        reach[0] = true;
        let mut has_pred_entry = false;
        while let Some(b) = stack.pop() {
            for s in successors(ir.terminator(b)) {
                if s.index() == 0 {
                    has_pred_entry = true;
                }
                if s.index() < nb && !reach[s.index()] && !ir.is_block_dead(s) {
                    reach[s.index()] = true;
                    stack.push(s);
                }
            }
        }
        // An entry block with predecessors (a loop back to it) gets a prologue block of its
        // own: the machine entry must have none (regalloc2: no live-in at entry).
        let prologue = has_pred_entry.then(|| self.m.block());
        for (b, &r) in reach.iter().enumerate() {
            if r {
                self.mblock[b] = Some(self.m.block());
            }
        }
        if let Some(p) = prologue {
            self.place = (Block::new(0), None);
            if !ir.block_params(Block::new(0)).is_empty() {
                return Err(self.err("the entry block has predecessors and parameters"));
            }
            self.cur = p;
            self.lower_args()?;
            self.emit1(MachineOp::new(Opcode::Jump), Operands::new());
            let entry = self.mblock[0].expect("the entry is reachable");
            self.set_succs(smallvec![(entry, SmallVec::new())]);
        }
        self.reject_vectors(&reach)?;
        for b in (0..nb).filter(|&b| reach[b]) {
            let block = Block::new(b);
            self.cur = self.mblock[b].expect("reachable block has a machine block");
            self.place = (block, None);
            let mut params = SmallVec::new();
            for &p in ir.block_params(block) {
                params.extend(self.value_parts(p)?);
            }
            self.m.blocks[self.cur.index()].params = params;
            if b == 0 && prologue.is_none() {
                self.lower_args()?;
            }
            for &i in ir.block_insts(block) {
                self.place = (block, Some(i));
                self.lower_inst(i)?;
            }
            self.place = (block, None);
            self.lower_terminator(ir.terminator(block))?;
        }
        Ok(())
    }

    /// Vector values have no register class yet: the first reachable instruction that
    /// defines or reads one (or a vector parameter) is an error naming it.
    fn reject_vectors(&mut self, reach: &[bool]) -> R<()> {
        let ir = self.ir;
        let message = "vector values are not lowered yet";
        if ir
            .param_values()
            .iter()
            .any(|&v| ir.values()[v.index()].ty.is_vector())
            || ir.signature().ret.is_vector()
        {
            self.place = (Block::new(0), None);
            return Err(self.err(format!("{message} (a vector parameter or result)")));
        }
        for b in (0..reach.len()).filter(|&b| reach[b]) {
            let block = Block::new(b);
            if ir
                .block_params(block)
                .iter()
                .any(|&v| ir.values()[v.index()].ty.is_vector())
            {
                self.place = (block, None);
                return Err(self.err(format!("{message} (a vector block parameter)")));
            }
            for &i in ir.block_insts(block) {
                let mut vector = ir
                    .inst_results(i)
                    .iter()
                    .any(|&v| ir.values()[v.index()].ty.is_vector());
                ir.inst_kind(i)
                    .for_each_operand(|o| vector |= ir.operand_type(o).is_vector());
                if vector {
                    self.place = (Block::new(b), Some(i));
                    return Err(self.err(message));
                }
            }
        }
        Ok(())
    }

    fn lower_args(&mut self) -> R<()> {
        let ir = self.ir;
        let mut defs = Operands::new();
        let mut stack = Vec::new();
        let (mut ni, mut nf, mut off) = (0, 0, 0i64);
        let mut parts = Vec::new();
        for &p in ir.param_values() {
            parts.extend(self.value_parts(p)?);
        }
        for v in parts {
            let reg = match v.class() {
                RegClass::Int => {
                    ni += 1;
                    self.t.int_args.get(ni - 1)
                }
                _ => {
                    nf += 1;
                    self.t.float_args.get(nf - 1)
                }
            };
            match reg {
                Some(&r) => defs.push(MOp::def(v, C::FixedReg(r))),
                None => {
                    stack.push((v, off));
                    off += 8;
                }
            }
        }
        self.emit1(MachineOp::new(Opcode::Args), defs);
        for (v, off) in stack {
            self.emit1(
                MachineOp::imm(Opcode::LoadArg, off),
                smallvec![MOp::def(v, C::Reg)],
            );
        }
        Ok(())
    }

    fn lower_inst(&mut self, i: Inst) -> R<()> {
        if self.lower_split(i)? {
            return Ok(());
        }
        let two = self.t.two_address;
        let x86 = self.t.arch == Arch::X86_64;
        match self.ir.inst_kind(i).clone() {
            InstKind::ExtractValue { .. } | InstKind::InsertValue { .. } => {
                return Err(self.err("extractvalue/insertvalue on a value that is not an aggregate"));
            }
            InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. } => {
                return Err(self.err("vector values are not lowered yet"));
            }
            InstKind::Binary { op, ty, lhs, rhs } => {
                use crate::ir::BinaryOp as B;
                let class = self.class(ty)?;
                let a = self.use_op(lhs)?;
                let b = self.use_op(rhs)?;
                let d = self.result_or_dead(i, 0, class)?;
                let code = match op {
                    B::Add => Opcode::Add,
                    B::Sub => Opcode::Sub,
                    B::Mul => Opcode::Mul,
                    B::And => Opcode::And,
                    B::Or => Opcode::Or,
                    B::Xor => Opcode::Xor,
                    B::FAdd => Opcode::FAdd,
                    B::FSub => Opcode::FSub,
                    B::FMul => Opcode::FMul,
                    B::FDiv => Opcode::FDiv,
                    B::Shl | B::LShr | B::AShr => {
                        let code = match op {
                            B::Shl => Opcode::Shl,
                            B::LShr => Opcode::LShr,
                            _ => Opcode::AShr,
                        };
                        self.shift(code, d, a, b);
                        return Ok(());
                    }
                    B::SDiv | B::UDiv | B::SRem | B::URem => {
                        let code = match op {
                            B::SDiv => Opcode::SDiv,
                            B::UDiv => Opcode::UDiv,
                            B::SRem => Opcode::SRem,
                            _ => Opcode::URem,
                        };
                        if x86 {
                            let rax = PReg::new(RegClass::Int, 0).expect("rax");
                            let rdx = PReg::new(RegClass::Int, 2).expect("rdx");
                            let rem = matches!(op, B::SRem | B::URem);
                            let other = self.new_vreg(RegClass::Int)?;
                            let (q, r) = if rem { (other, d) } else { (d, other) };
                            self.emit1(
                                MachineOp::new(code),
                                smallvec![
                                    MOp::def(q, C::FixedReg(rax)),
                                    MOp::def(r, C::FixedReg(rdx)).at(OperandPos::Early),
                                    MOp::use_(a, C::FixedReg(rax)),
                                    MOp::use_(b, C::Reg)
                                ],
                            );
                        } else if matches!(op, B::SDiv | B::UDiv) {
                            self.alu(MachineOp::new(code), d, a, b);
                        } else {
                            let div = if op == B::SRem {
                                Opcode::SDiv
                            } else {
                                Opcode::UDiv
                            };
                            let t = self.new_vreg(RegClass::Int)?;
                            self.alu(MachineOp::new(div), t, a, b);
                            self.emit1(
                                MachineOp::new(Opcode::MSub),
                                smallvec![
                                    MOp::def(d, C::Reg),
                                    MOp::use_(t, C::Reg),
                                    MOp::use_(b, C::Reg),
                                    MOp::use_(a, C::Reg)
                                ],
                            );
                        }
                        return Ok(());
                    }
                    B::FRem => {
                        let name = if ty == Type::F32 { "fmodf" } else { "fmod" };
                        return self.libcall(name, &[a, b], &[d]);
                    }
                };
                self.alu(MachineOp::new(code), d, a, b);
            }
            InstKind::Unary { arg, ty, .. } => {
                let class = self.class(ty)?;
                let a = self.use_op(arg)?;
                let d = self.result_or_dead(i, 0, class)?;
                let dc = if two { C::Reuse(1) } else { C::Reg };
                self.emit1(
                    MachineOp::new(Opcode::FNeg),
                    smallvec![MOp::def(d, dc), MOp::use_(a, C::Reg)],
                );
            }
            InstKind::Icmp { pred, lhs, rhs, .. } => {
                self.compare(i, Opcode::Icmp, pred_pos_int(pred), lhs, rhs)?
            }
            InstKind::Fcmp { pred, lhs, rhs, .. } => {
                self.compare(i, Opcode::Fcmp, pred_pos_float(pred), lhs, rhs)?
            }
            InstKind::Cast { op, to, arg, .. } => {
                let a = self.use_op(arg)?;
                let class = self.class(to)?;
                let d = self.result_or_dead(i, 0, class)?;
                let suffix = crate::ir::CastOp::ALL
                    .iter()
                    .position(|c| *c == op)
                    .unwrap_or(0) as u8;
                let rm = self.rm();
                self.emit1(
                    MachineOp::new(Opcode::Cast).with_suffix(suffix),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(a, rm)],
                );
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                let class = self.class(ty)?;
                let c = self.use_op(cond)?;
                let t = self.use_op(if_true)?;
                let f = self.use_op(if_false)?;
                let d = self.result_or_dead(i, 0, class)?;
                let ops = if two {
                    // cmov/blend: d starts as the false value, the true value may be in memory.
                    let tc = if class == RegClass::Int {
                        C::Any
                    } else {
                        C::Reg
                    };
                    smallvec![
                        MOp::def(d, C::Reuse(3)),
                        MOp::use_(c, C::Reg),
                        MOp::use_(t, tc),
                        MOp::use_(f, C::Reg)
                    ]
                } else {
                    smallvec![
                        MOp::def(d, C::Reg),
                        MOp::use_(c, C::Reg),
                        MOp::use_(t, C::Reg),
                        MOp::use_(f, C::Reg)
                    ]
                };
                self.emit1(MachineOp::new(Opcode::Select), ops);
            }
            InstKind::Alloca { size, align, .. } => {
                let slot = self.m.frame_slots.len() as i64;
                self.m.frame_slots.push((size, align));
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                self.emit1(
                    MachineOp::imm(Opcode::FrameAddr, slot),
                    smallvec![MOp::def(d, C::Reg)],
                );
            }
            InstKind::DynAlloca {
                count, elem_size, ..
            } => {
                let c = self.use_op(count)?;
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                self.emit1(
                    MachineOp::imm(Opcode::DynAlloca, elem_size as i64),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(c, C::Reg)],
                );
            }
            InstKind::Load { ty, ptr, .. } => {
                let class = self.class(ty)?;
                let p = self.use_op(ptr)?;
                let d = self.result_or_dead(i, 0, class)?;
                self.emit1(
                    MachineOp::imm(Opcode::Load, 0).with_suffix(mem_suffix(ty)),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(p, C::Reg)],
                );
            }
            InstKind::Store { ty, value, ptr, .. } => {
                self.class(ty)?;
                let v = self.use_op(value)?;
                let p = self.use_op(ptr)?;
                self.emit1(
                    MachineOp::imm(Opcode::Store, 0).with_suffix(mem_suffix(ty)),
                    smallvec![MOp::use_(v, C::Reg), MOp::use_(p, C::Reg)],
                );
            }
            InstKind::Gep {
                base,
                offset,
                indices,
            } => {
                let mut acc = self.use_op(base)?;
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                let steps = indices.len() + 1;
                for k in 0..steps {
                    let last = k + 1 == steps;
                    let out = if last {
                        d
                    } else {
                        self.new_vreg(RegClass::Int)?
                    };
                    if k == 0 {
                        self.emit1(
                            MachineOp::imm(Opcode::Lea, offset),
                            smallvec![MOp::def(out, C::Reg), MOp::use_(acc, C::Reg)],
                        );
                    } else {
                        let (idx, scale) = indices[k - 1];
                        let ity = self.ir.operand_type(idx);
                        let mut x = self.use_op(idx)?;
                        if ity.bits() < 64 {
                            let w = self.new_vreg(RegClass::Int)?;
                            let sext = crate::ir::CastOp::ALL
                                .iter()
                                .position(|c| *c == crate::ir::CastOp::SExt)
                                .unwrap_or(0) as u8;
                            let rm = self.rm();
                            self.emit1(
                                MachineOp::new(Opcode::Cast).with_suffix(sext),
                                smallvec![MOp::def(w, C::Reg), MOp::use_(x, rm)],
                            );
                            x = w;
                        }
                        let mut sc = scale;
                        if ![1, 2, 4, 8].contains(&scale) {
                            let w = self.new_vreg(RegClass::Int)?;
                            let rm = self.rm();
                            self.emit1(
                                MachineOp::imm(Opcode::MulImm, scale),
                                smallvec![MOp::def(w, C::Reg), MOp::use_(x, rm)],
                            );
                            x = w;
                            sc = 1;
                        }
                        self.emit1(
                            MachineOp::imm(Opcode::LeaIndex, sc),
                            smallvec![
                                MOp::def(out, C::Reg),
                                MOp::use_(acc, C::Reg),
                                MOp::use_(x, C::Reg)
                            ],
                        );
                    }
                    acc = out;
                }
            }
            InstKind::Call {
                ret,
                callee,
                args,
                fixed_args,
            } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in &args {
                    vals.extend(self.use_parts(*a)?);
                }
                let d = match ret {
                    Type::Void => Parts::new(),
                    t => self.result_parts(i, 0, t)?,
                };
                let target = match callee {
                    Callee::Direct(s) => CallTarget::Symbol(s.index() as i64),
                    Callee::Indirect(op) => CallTarget::Reg(self.use_op(op)?),
                };
                self.call(target, &vals, &d, fixed_args.is_some())?;
            }
            InstKind::InlineAsm(asm) => self.lower_asm(i, &asm)?,
            InstKind::AtomicRmw {
                op, ty, ptr, value, ..
            } => {
                let class = self.class(ty)?;
                let p = self.use_op(ptr)?;
                let v = self.use_op(value)?;
                let d = self.result_or_dead(i, 0, class)?;
                let t = self.new_vreg(class)?;
                let suffix = crate::ir::AtomicOp::ALL
                    .iter()
                    .position(|o| *o == op)
                    .unwrap_or(0) as u8;
                let old = if x86 {
                    MOp::def(d, C::FixedReg(self.t.int_ret))
                } else {
                    MOp::def(d, C::Reg).at(OperandPos::Early)
                };
                self.emit1(
                    MachineOp::new(Opcode::AtomicRmw).with_suffix(suffix),
                    smallvec![
                        old,
                        MOp::def(t, C::Reg).at(OperandPos::Early),
                        MOp::use_(p, C::Reg),
                        MOp::use_(v, C::Reg)
                    ],
                );
            }
            InstKind::CmpXchg {
                ty,
                ptr,
                expected,
                new,
                ..
            } => {
                let class = self.class(ty)?;
                let p = self.use_op(ptr)?;
                let e = self.use_op(expected)?;
                let n = self.use_op(new)?;
                let old = self.result_or_dead(i, 0, class)?;
                let ok = self.result_or_dead(i, 1, RegClass::Int)?;
                let ops = if x86 {
                    let rax = self.t.int_ret;
                    smallvec![
                        MOp::def(old, C::FixedReg(rax)),
                        MOp::def(ok, C::Reg),
                        MOp::use_(p, C::Reg),
                        MOp::use_(e, C::FixedReg(rax)),
                        MOp::use_(n, C::Reg)
                    ]
                } else {
                    smallvec![
                        MOp::def(old, C::Reg).at(OperandPos::Early),
                        MOp::def(ok, C::Reg).at(OperandPos::Early),
                        MOp::use_(p, C::Reg),
                        MOp::use_(e, C::Reg),
                        MOp::use_(n, C::Reg)
                    ]
                };
                self.emit1(MachineOp::new(Opcode::CmpXchg), ops);
            }
            InstKind::Fence { .. } => self.emit1(MachineOp::new(Opcode::Fence), Operands::new()),
            InstKind::Phi { .. } => return Err(self.err(
                "phis are not lowered: block-params must turn every phi into a block parameter (it leaves those of blocks an indirect branch reaches, which cannot pass arguments)",
            )),
            InstKind::Copy { ty, src } => {
                let class = self.class(ty)?;
                let s = self.use_op(src)?;
                let d = self.result_or_dead(i, 0, class)?;
                self.emit1(
                    MachineOp::new(Opcode::Mov),
                    smallvec![MOp::def(d, C::Reg), MOp::use_(s, C::Any)],
                );
            }
            InstKind::Opaque(o) => {
                let mut ops = Operands::new();
                if o.ty != Type::Void {
                    for d in self.result_parts(i, 0, o.ty)? {
                        ops.push(MOp::def(d, C::Reg));
                    }
                }
                for a in &o.args {
                    let ty = self.ir.operand_type(*a);
                    if ty == Type::Void {
                        continue;
                    }
                    for v in self.use_parts(*a)? {
                        ops.push(MOp::use_(v, C::Reg));
                    }
                }
                self.emit(
                    MachineOp::imm(Opcode::Opaque, i.index() as i64),
                    ops,
                    self.t.caller_saved,
                );
            }
        }
        Ok(())
    }

    /// `d = a <shift> b`: x86-64 takes the count in rcx (two-address), aarch64 is an ALU op.
    fn shift(&mut self, code: Opcode, d: VReg, a: VReg, b: VReg) {
        if self.t.arch == Arch::X86_64 {
            let rcx = PReg::new(RegClass::Int, 1).expect("rcx");
            self.emit1(
                MachineOp::new(code),
                smallvec![
                    MOp::def(d, C::Reuse(1)),
                    MOp::use_(a, C::Reg),
                    MOp::use_(b, C::FixedReg(rcx))
                ],
            );
        } else {
            self.alu(MachineOp::new(code), d, a, b);
        }
    }

    fn mov(&mut self, d: VReg, s: VReg) {
        self.emit1(
            MachineOp::new(Opcode::Mov),
            smallvec![MOp::def(d, C::Reg), MOp::use_(s, C::Any)],
        );
    }

    fn movi(&mut self, value: i64) -> R<VReg> {
        let d = self.new_vreg(RegClass::Int)?;
        self.emit1(
            MachineOp::imm(Opcode::MovImm, value),
            smallvec![MOp::def(d, C::Reg)],
        );
        Ok(d)
    }

    fn cast1(&mut self, op: CastOp, d: VReg, a: VReg) {
        let suffix = CastOp::ALL.iter().position(|c| *c == op).unwrap_or(0) as u8;
        let rm = self.rm();
        self.emit1(
            MachineOp::new(Opcode::Cast).with_suffix(suffix),
            smallvec![MOp::def(d, C::Reg), MOp::use_(a, rm)],
        );
    }

    /// `a` extended to 64 bits when `from` is narrower (for a helper taking a 64-bit integer).
    fn widen(&mut self, a: VReg, from: Type, signed: bool) -> R<VReg> {
        if from.bits() >= 64 {
            return Ok(a);
        }
        let w = self.new_vreg(RegClass::Int)?;
        self.cast1(if signed { CastOp::SExt } else { CastOp::ZExt }, w, a);
        Ok(w)
    }

    /// Lowers `i` if it reads or makes a value of several parts ([`super::parts`]); false
    /// if it does not (the one-register rules apply).
    fn lower_split(&mut self, i: Inst) -> R<bool> {
        use crate::ir::BinaryOp as B;
        match self.ir.inst_kind(i).clone() {
            InstKind::ExtractValue { ty, agg, index } => {
                let member = ty
                    .member(index as usize)
                    .map(|m| m.0)
                    .ok_or_else(|| self.err(format!("{ty} has no member {index}")))?;
                let range = member_parts(ty, index as usize)
                    .ok_or_else(|| self.err(format!("{ty} has no member {index}")))?;
                let a = self.use_parts(agg)?;
                let d = self.result_parts(i, 0, member)?;
                for (k, &dk) in d.iter().enumerate() {
                    let src = *a
                        .get(range.start + k)
                        .ok_or_else(|| self.err("aggregate operand has too few parts"))?;
                    self.mov(dk, src);
                }
            }
            InstKind::InsertValue {
                ty,
                agg,
                value,
                index,
            } => {
                let range = member_parts(ty, index as usize)
                    .ok_or_else(|| self.err(format!("{ty} has no member {index}")))?;
                let a = self.use_parts(agg)?;
                let v = self.use_parts(value)?;
                let d = self.result_parts(i, 0, ty)?;
                if a.len() != d.len() || v.len() != range.len() {
                    return Err(self.err("insertvalue operands do not match the type's parts"));
                }
                for (k, &dk) in d.iter().enumerate() {
                    let src = if range.contains(&k) {
                        v[k - range.start]
                    } else {
                        a[k]
                    };
                    self.mov(dk, src);
                }
            }
            InstKind::Binary { op, ty, lhs, rhs } if is_split(ty) => {
                let a = self.use_parts(lhs)?;
                let b = self.use_parts(rhs)?;
                let d = self.result_parts(i, 0, ty)?;
                let both: Vec<VReg> = a.iter().chain(&b).copied().collect();
                if ty == Type::F80 {
                    let name = match op {
                        B::FAdd => "__addxf3",
                        B::FSub => "__subxf3",
                        B::FMul => "__mulxf3",
                        B::FDiv => "__divxf3",
                        B::FRem => "fmodl",
                        _ => return Err(self.err(format!("{op:?} on x86_fp80"))),
                    };
                    self.libcall(name, &both, &d)?;
                    return Ok(true);
                }
                if ty.is_aggregate() || a.len() != 2 || b.len() != 2 || d.len() != 2 {
                    return Err(self.err(format!("arithmetic on {ty} is not lowered")));
                }
                match op {
                    B::Add | B::Sub => {
                        let (lo, hi) = if op == B::Add {
                            (Opcode::Add, Opcode::AddCarry)
                        } else {
                            (Opcode::Sub, Opcode::SubBorrow)
                        };
                        self.alu(MachineOp::new(lo), d[0], a[0], b[0]);
                        self.alu(MachineOp::new(hi), d[1], a[1], b[1]);
                    }
                    B::And | B::Or | B::Xor => {
                        let code = match op {
                            B::And => Opcode::And,
                            B::Or => Opcode::Or,
                            _ => Opcode::Xor,
                        };
                        self.alu(MachineOp::new(code), d[0], a[0], b[0]);
                        self.alu(MachineOp::new(code), d[1], a[1], b[1]);
                    }
                    B::Mul | B::SDiv | B::UDiv | B::SRem | B::URem => {
                        let name = match op {
                            B::Mul => "__multi3",
                            B::SDiv => "__divti3",
                            B::UDiv => "__udivti3",
                            B::SRem => "__modti3",
                            _ => "__umodti3",
                        };
                        self.libcall(name, &both, &d)?;
                    }
                    B::Shl | B::LShr | B::AShr => {
                        let name = match op {
                            B::Shl => "__ashlti3",
                            B::LShr => "__lshrti3",
                            _ => "__ashrti3",
                        };
                        self.libcall(name, &[a[0], a[1], b[0]], &d)?;
                    }
                    _ => return Err(self.err(format!("{op:?} on {ty}"))),
                }
            }
            InstKind::Unary { ty, arg, .. } if is_split(ty) => {
                if ty != Type::F80 {
                    return Err(self.err(format!("fneg on {ty}")));
                }
                let a = self.use_parts(arg)?;
                let d = self.result_parts(i, 0, ty)?;
                self.mov(d[0], a[0]);
                let sign = self.movi(0x8000)?;
                self.alu(MachineOp::new(Opcode::Xor), d[1], a[1], sign);
            }
            InstKind::Icmp {
                pred, ty, lhs, rhs, ..
            } if is_split(ty) => {
                let a = self.use_parts(lhs)?;
                let b = self.use_parts(rhs)?;
                if a.len() != 2 || b.len() != 2 {
                    return Err(self.err(format!("icmp on {ty} is not lowered")));
                }
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                let t = self.new_vreg(RegClass::Int)?;
                self.emit1(
                    MachineOp::new(Opcode::Icmp2).with_suffix(pred_pos_int(pred)),
                    smallvec![
                        MOp::def(d, C::Reg),
                        MOp::def(t, C::Reg).at(OperandPos::Early),
                        MOp::use_(a[0], C::Reg),
                        MOp::use_(a[1], C::Reg),
                        MOp::use_(b[0], C::Reg),
                        MOp::use_(b[1], C::Reg)
                    ],
                );
            }
            InstKind::Fcmp {
                pred, ty, lhs, rhs, ..
            } if is_split(ty) => {
                let a = self.use_parts(lhs)?;
                let b = self.use_parts(rhs)?;
                let p = self.movi(pred_pos_float(pred) as i64)?;
                let d = self.result_or_dead(i, 0, RegClass::Int)?;
                let args: Vec<VReg> = a.iter().chain(&b).copied().chain([p]).collect();
                self.libcall("__cmpxf2", &args, &[d])?;
            }
            InstKind::Cast { op, from, to, arg } if is_split(from) || is_split(to) => {
                self.lower_split_cast(i, op, from, to, arg)?;
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } if is_split(ty) => {
                let c = self.use_op(cond)?;
                let t = self.use_parts(if_true)?;
                let f = self.use_parts(if_false)?;
                let d = self.result_parts(i, 0, ty)?;
                for k in 0..d.len() {
                    let ops = if self.t.two_address {
                        let tc = if d[k].class() == RegClass::Int {
                            C::Any
                        } else {
                            C::Reg
                        };
                        smallvec![
                            MOp::def(d[k], C::Reuse(3)),
                            MOp::use_(c, C::Reg),
                            MOp::use_(t[k], tc),
                            MOp::use_(f[k], C::Reg)
                        ]
                    } else {
                        smallvec![
                            MOp::def(d[k], C::Reg),
                            MOp::use_(c, C::Reg),
                            MOp::use_(t[k], C::Reg),
                            MOp::use_(f[k], C::Reg)
                        ]
                    };
                    self.emit1(MachineOp::new(Opcode::Select), ops);
                }
            }
            InstKind::Load { ty, ptr, .. } if is_split(ty) => {
                let p = self.use_op(ptr)?;
                let d = self.result_parts(i, 0, ty)?;
                for (part, &dk) in self.layout(ty)?.iter().zip(&d) {
                    self.emit1(
                        MachineOp::imm(Opcode::Load, part.offset as i64)
                            .with_suffix(mem_suffix(part.mem)),
                        smallvec![MOp::def(dk, C::Reg), MOp::use_(p, C::Reg)],
                    );
                }
            }
            InstKind::Store { ty, value, ptr, .. } if is_split(ty) => {
                let v = self.use_parts(value)?;
                let p = self.use_op(ptr)?;
                for (part, &vk) in self.layout(ty)?.iter().zip(&v) {
                    self.emit1(
                        MachineOp::imm(Opcode::Store, part.offset as i64)
                            .with_suffix(mem_suffix(part.mem)),
                        smallvec![MOp::use_(vk, C::Reg), MOp::use_(p, C::Reg)],
                    );
                }
            }
            InstKind::Copy { ty, src } if is_split(ty) => {
                let s = self.use_parts(src)?;
                let d = self.result_parts(i, 0, ty)?;
                for (&dk, &sk) in d.iter().zip(&s) {
                    self.mov(dk, sk);
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A conversion from or to a type of several parts (see [`super::parts`]).
    fn lower_split_cast(
        &mut self,
        i: Inst,
        op: CastOp,
        from: Type,
        to: Type,
        arg: Operand,
    ) -> R<()> {
        let a = self.use_parts(arg)?;
        let d = self.result_parts(i, 0, to)?;
        let signed = matches!(op, CastOp::SiToFp | CastOp::FpToSi);
        let wide_from = from != Type::F80 && is_split(from);
        let wide_to = to != Type::F80 && is_split(to);
        match op {
            CastOp::FpExt | CastOp::FpTrunc => {
                let name = match (from, to) {
                    (Type::F32, Type::F80) => "__extendsfxf2",
                    (Type::F64, Type::F80) => "__extenddfxf2",
                    (Type::F80, Type::F32) => "__truncxfsf2",
                    (Type::F80, Type::F64) => "__truncxfdf2",
                    _ => return Err(self.err(format!("{op:?} from {from} to {to}"))),
                };
                self.libcall(name, &a, &d)
            }
            CastOp::SiToFp | CastOp::UiToFp => {
                let name = match (wide_from, to, signed) {
                    (true, Type::F80, true) => "__floattixf",
                    (true, Type::F80, false) => "__floatuntixf",
                    (false, Type::F80, true) => "__floatdixf",
                    (false, Type::F80, false) => "__floatundixf",
                    (true, Type::F32, true) => "__floattisf",
                    (true, Type::F64, true) => "__floattidf",
                    (true, Type::F32, false) => "__floatuntisf",
                    (true, Type::F64, false) => "__floatuntidf",
                    _ => return Err(self.err(format!("{op:?} from {from} to {to}"))),
                };
                let args: Parts = if wide_from {
                    a
                } else {
                    smallvec![self.widen(a[0], from, signed)?]
                };
                self.libcall(name, &args, &d)
            }
            CastOp::FpToSi | CastOp::FpToUi => {
                let name = match (from, wide_to, signed) {
                    (Type::F80, true, true) => "__fixxfti",
                    (Type::F80, true, false) => "__fixunsxfti",
                    (Type::F80, false, true) => "__fixxfdi",
                    (Type::F80, false, false) => "__fixunsxfdi",
                    (Type::F32, true, true) => "__fixsfti",
                    (Type::F64, true, true) => "__fixdfti",
                    (Type::F32, true, false) => "__fixunssfti",
                    (Type::F64, true, false) => "__fixunsdfti",
                    _ => return Err(self.err(format!("{op:?} from {from} to {to}"))),
                };
                // A narrower result is the low bits of the helper's 64-bit one.
                self.libcall(name, &a, &d)
            }
            _ => {
                // Integer-like: truncation, extension, pointer casts and bitcasts of equal
                // width (f80 <-> i80 is a pair of integer parts both ways).
                match (a.len(), d.len()) {
                    (n, m) if n == m && a.iter().zip(&d).all(|(x, y)| x.class() == y.class()) => {
                        for (&dk, &ak) in d.iter().zip(&a) {
                            self.mov(dk, ak);
                        }
                    }
                    (2, 1) => self.cast1(op, d[0], a[0]),
                    (1, 2) => {
                        let lo_op = if op == CastOp::SExt {
                            CastOp::SExt
                        } else {
                            CastOp::ZExt
                        };
                        if from.bits() < 64 || matches!(op, CastOp::Bitcast) {
                            self.cast1(lo_op, d[0], a[0]);
                        } else {
                            self.mov(d[0], a[0]);
                        }
                        if op == CastOp::SExt {
                            let c = self.movi(63)?;
                            self.shift(Opcode::AShr, d[1], d[0], c);
                        } else {
                            self.emit1(
                                MachineOp::imm(Opcode::MovImm, 0),
                                smallvec![MOp::def(d[1], C::Reg)],
                            );
                        }
                    }
                    _ => return Err(self.err(format!("{op:?} from {from} to {to} is not lowered"))),
                }
                Ok(())
            }
        }
    }

    fn compare(&mut self, i: Inst, code: Opcode, suffix: u8, lhs: Operand, rhs: Operand) -> R<()> {
        let a = self.use_op(lhs)?;
        let b = self.use_op(rhs)?;
        let d = self.result_or_dead(i, 0, RegClass::Int)?;
        let rm = self.rm();
        self.emit1(
            MachineOp::new(code).with_suffix(suffix),
            smallvec![MOp::def(d, C::Reg), MOp::use_(a, C::Reg), MOp::use_(b, rm)],
        );
        Ok(())
    }

    /// Calls library helper `name` ([`super::parts::LIBCALLS`]; not a module symbol).
    fn libcall(&mut self, name: &str, args: &[VReg], results: &[VReg]) -> R<()> {
        let imm = libcall_imm(name)
            .ok_or_else(|| self.err(format!("no library helper `{name}` is known")))?;
        self.call(CallTarget::Symbol(imm), args, results, false)
    }

    /// The result registers of `results`' parts, in order per class.
    fn result_regs(&self, results: &[VReg]) -> R<SmallVec<[PReg; 2]>> {
        let (mut ni, mut nf) = (0, 0);
        let mut out = SmallVec::new();
        for d in results {
            let r = if d.class() == RegClass::Int {
                ni += 1;
                self.t.int_rets.get(ni - 1)
            } else {
                nf += 1;
                self.t.float_rets.get(nf - 1)
            };
            out.push(*r.ok_or_else(|| {
                self.err(format!(
                    "a result of {} parts needs more result registers than the target has",
                    results.len()
                ))
            })?);
        }
        Ok(out)
    }

    fn call(
        &mut self,
        target: CallTarget,
        args: &[VReg],
        results: &[VReg],
        variadic: bool,
    ) -> R<()> {
        let mut ops = Operands::new();
        let mut clobbers = self.t.caller_saved;
        for (&d, r) in results.iter().zip(self.result_regs(results)?) {
            ops.push(MOp::def(d, C::FixedReg(r)));
            clobbers.remove(r);
        }
        let (mut ni, mut nf, mut off) = (0usize, 0usize, 0i64);
        for &a in args {
            let reg = if a.class() == RegClass::Int {
                ni += 1;
                self.t.int_args.get(ni - 1)
            } else {
                nf += 1;
                self.t.float_args.get(nf - 1)
            };
            match reg {
                Some(&r) => ops.push(MOp::use_(a, C::FixedReg(r))),
                None => {
                    self.emit1(
                        MachineOp::imm(Opcode::StoreArg, off),
                        smallvec![MOp::use_(a, C::Reg)],
                    );
                    off += 8;
                }
            }
        }
        if variadic && self.t.arch == Arch::X86_64 {
            // al = number of vector registers used by the arguments.
            let al = self.new_vreg(RegClass::Int)?;
            let rax = self.t.int_ret;
            self.emit1(
                MachineOp::imm(Opcode::MovImm, nf.min(8) as i64),
                smallvec![MOp::def(al, C::Reg)],
            );
            ops.push(MOp::use_(al, C::FixedReg(rax)));
        }
        let op = match target {
            CallTarget::Symbol(s) => MachineOp::imm(Opcode::Call, s),
            CallTarget::Reg(r) => {
                ops.push(MOp::use_(r, C::Reg));
                MachineOp::new(Opcode::CallInd)
            }
        };
        self.emit(op, ops, clobbers);
        Ok(())
    }

    fn asm_reg(&self, code: &str) -> Option<PReg> {
        if self.t.arch != Arch::X86_64 {
            return None;
        }
        let idx = match code {
            "a" | "{ax}" | "{eax}" | "{rax}" => 0,
            "c" | "{cx}" | "{ecx}" | "{rcx}" => 1,
            "d" | "{dx}" | "{edx}" | "{rdx}" => 2,
            "b" | "{bx}" | "{ebx}" | "{rbx}" => 3,
            "S" | "{si}" | "{esi}" | "{rsi}" => 6,
            "D" | "{di}" | "{edi}" | "{rdi}" => 7,
            _ => return None,
        };
        PReg::new(RegClass::Int, idx)
    }

    fn asm_constraint(&self, code: &str, class: RegClass) -> R<C> {
        let code = code.trim_start_matches(['=', '+', '&', '*']);
        if let Some(r) = self.asm_reg(code) {
            if class != RegClass::Int {
                return Err(self.err(format!(
                    "asm constraint `{code}` names an integer register for a float value"
                )));
            }
            return Ok(C::FixedReg(r));
        }
        match code {
            "r" | "q" | "x" | "w" | "l" | "R" => Ok(C::Reg),
            "g" | "rm" | "mr" => Ok(C::Any),
            "m" | "o" | "V" | "p" | "Q" => Ok(C::Reg),
            _ => Err(self.err(format!(
                "asm constraint `{code}` is not supported by lowering"
            ))),
        }
    }

    fn lower_asm(&mut self, i: Inst, asm: &crate::ir::InlineAsm) -> R<()> {
        if !asm.goto_labels.is_empty() {
            return Err(self.err("asm goto is not lowered (its labels would make it a terminator)"));
        }
        let mut defs: Vec<MOp> = Vec::new();
        let mut ties: Vec<Option<usize>> = Vec::new();
        let mut uses: Vec<MOp> = Vec::new();
        let mut n_result = 0;
        for out in &asm.outputs {
            match out.place {
                crate::ir::AsmOutputPlace::Result => {
                    let class = self.class(out.ty)?;
                    let d = self.result_or_dead(i, n_result, class)?;
                    n_result += 1;
                    let c = self.asm_constraint(&out.constraint, class)?;
                    let pos = if out.constraint.contains('&') {
                        OperandPos::Early
                    } else {
                        OperandPos::Late
                    };
                    defs.push(MOp::def(d, if c == C::Any { C::Reg } else { c }).at(pos));
                    ties.push(None);
                }
                crate::ir::AsmOutputPlace::Pointer(p) => {
                    let v = self.use_op(p)?;
                    uses.push(MOp::use_(v, C::Reg));
                }
            }
        }
        for input in &asm.inputs {
            let code = input.constraint.as_str();
            if matches!(code, "i" | "n" | "I" | "J" | "K" | "N" | "e" | "Z") {
                continue;
            }
            let v = self.use_op(input.value)?;
            if let Ok(k) = code.parse::<usize>() {
                let Some(t) = ties.get_mut(k) else {
                    return Err(self.err(format!(
                        "asm input tied to output {k}, which is not a register result"
                    )));
                };
                *t = Some(defs.len() + uses.len());
                uses.push(MOp::use_(v, C::Reg));
                continue;
            }
            let c = self.asm_constraint(code, v.class())?;
            uses.push(MOp::use_(v, c));
        }
        let mut ops = Operands::new();
        for (d, t) in defs.iter().zip(&ties) {
            match t {
                Some(u) => ops.push(MOp {
                    constraint: C::Reuse(*u as u8),
                    pos: OperandPos::Late,
                    ..*d
                }),
                None => ops.push(*d),
            }
        }
        ops.extend(uses);
        let mut clobbers = PRegSet::empty();
        for c in &asm.clobbers {
            let name = c.trim_start_matches('~').trim_matches(['{', '}']);
            if matches!(name, "memory" | "cc" | "dirflag" | "fpsr" | "flags") {
                continue;
            }
            match self.asm_reg(&format!("{{{name}}}")) {
                Some(r) => clobbers.insert(r),
                None => {
                    return Err(self.err(format!(
                        "asm clobber `{c}` is not a register lowering knows"
                    )))
                }
            }
        }
        for o in &ops {
            if let C::FixedReg(r) = o.constraint {
                if o.kind == super::OperandKind::Def || o.pos == OperandPos::Late {
                    clobbers.remove(r);
                }
            }
        }
        self.emit(MachineOp::imm(Opcode::Asm, i.index() as i64), ops, clobbers);
        Ok(())
    }

    fn target(&mut self, t: &crate::ir::Target) -> R<(MBlock, SmallVec<[VReg; 2]>)> {
        let mb = self
            .mblock
            .get(t.block.index())
            .copied()
            .flatten()
            .ok_or_else(|| {
                self.err(format!(
                    "branch to {}, which is dead or out of range",
                    t.block
                ))
            })?;
        let mut args = SmallVec::new();
        for a in &t.args {
            args.extend(self.use_parts(*a)?);
        }
        Ok((mb, args))
    }

    fn set_succs(&mut self, succs: SmallVec<[(MBlock, SmallVec<[VReg; 2]>); 2]>) {
        self.m.blocks[self.cur.index()].succs = succs;
    }

    fn lower_terminator(&mut self, term: &Terminator) -> R<()> {
        match term {
            Terminator::Jump(t) => {
                let t = self.target(t)?;
                self.emit1(MachineOp::new(Opcode::Jump), Operands::new());
                self.set_succs(smallvec![t]);
            }
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.use_op(*cond)?;
                let a = self.target(then_dest)?;
                let b = self.target(else_dest)?;
                self.emit1(MachineOp::new(Opcode::Br), smallvec![MOp::use_(c, C::Reg)]);
                self.set_succs(smallvec![a, b]);
            }
            Terminator::Switch {
                ty,
                value,
                default,
                cases,
            } => {
                if ty.bits() > 64 {
                    return Err(self.err("switch on a value wider than 64 bits is not lowered"));
                }
                if cases.is_empty() {
                    let d = self.target(default)?;
                    self.emit1(MachineOp::new(Opcode::Jump), Operands::new());
                    self.set_succs(smallvec![d]);
                    return Ok(());
                }
                let v = self.use_op(*value)?;
                for (k, (case, t)) in cases.iter().enumerate() {
                    let hit = self.target(t)?;
                    let next = if k + 1 == cases.len() {
                        self.target(default)?
                    } else {
                        self.m.blocks.push(BuildBlock::default());
                        (MBlock::new(self.m.blocks.len() - 1), SmallVec::new())
                    };
                    let chain = next.0;
                    self.emit1(
                        MachineOp::imm(Opcode::CaseBr, *case as u64 as i64),
                        smallvec![MOp::use_(v, C::Reg)],
                    );
                    self.set_succs(smallvec![hit, next]);
                    if k + 1 < cases.len() {
                        self.cur = chain;
                    }
                }
            }
            Terminator::IndirectBr { addr, dests } => {
                let a = self.use_op(*addr)?;
                let mut succs = SmallVec::new();
                for d in dests {
                    if !self.ir.block_params(*d).is_empty() {
                        return Err(
                            self.err(format!("indirect branch to {d}, which has parameters"))
                        );
                    }
                    succs.push(self.target(&crate::ir::Target::new(*d))?);
                }
                self.emit1(
                    MachineOp::new(Opcode::JumpInd),
                    smallvec![MOp::use_(a, C::Reg)],
                );
                self.set_succs(succs);
            }
            Terminator::Ret(v) => {
                let mut ops = Operands::new();
                if let Some(v) = v {
                    let parts = self.use_parts(*v)?;
                    for (&r, reg) in parts.iter().zip(self.result_regs(&parts)?) {
                        ops.push(MOp::use_(r, C::FixedReg(reg)));
                    }
                }
                self.emit1(MachineOp::new(Opcode::Ret), ops);
            }
            Terminator::Unreachable => self.emit1(MachineOp::new(Opcode::Trap), Operands::new()),
        }
        Ok(())
    }
}

enum CallTarget {
    Symbol(i64),
    Reg(VReg),
}

fn pred_pos_int(p: crate::ir::IntPredicate) -> u8 {
    crate::ir::IntPredicate::ALL
        .iter()
        .position(|x| *x == p)
        .unwrap_or(0) as u8
}

fn pred_pos_float(p: crate::ir::FloatPredicate) -> u8 {
    crate::ir::FloatPredicate::ALL
        .iter()
        .position(|x| *x == p)
        .unwrap_or(0) as u8
}

/// The successor blocks a terminator names, in order.
fn successors(t: &Terminator) -> SmallVec<[Block; 2]> {
    match t {
        Terminator::Jump(t) => smallvec![t.block],
        Terminator::Br {
            then_dest,
            else_dest,
            ..
        } => smallvec![then_dest.block, else_dest.block],
        Terminator::Switch { default, cases, .. } => std::iter::once(default.block)
            .chain(cases.iter().map(|c| c.1.block))
            .collect(),
        Terminator::IndirectBr { dests, .. } => dests.iter().copied().collect(),
        Terminator::Ret(_) | Terminator::Unreachable => SmallVec::new(),
    }
}
