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
//!   arguments and results carry every part;
//! - vector values are float-class vregs, one per 128-bit part (xmm / v registers), with
//!   SSE2 and NEON operation shapes, scalarized lanes where a target has no instruction and
//!   lane access through a stack temporary for a variable index (`vector`, `lanes`).
//! - every constant (`movi`, `fconst`) and frame or global address (`frameaddr`, `symaddr`)
//!   is its value's rematerialization hook (the same on both targets), so the allocator
//!   recomputes it instead of spilling and reloading it.
//!
//! Phis: `block-params` keeps the phis of blocks an `indirect_br` enters (an indirect edge
//! can carry no arguments, and it cannot be redirected, its target being a runtime address).
//! Lowering makes them machine block parameters after the block's own, and every edge into
//! such a block passes each phi's incoming value for its predecessor; the indirect branch
//! passes them too. The machine form then has ordinary block parameters: an edge from the
//! indirect branch to a block with one predecessor needs no edge block (the allocator's
//! parameter moves go at the target's start, which only that edge enters); one to a block
//! with several predecessors is critical and the builder splits it like any other, so the
//! allocation problem is the one a `br` would make. Emission (not written) would have to
//! place such an edge block's moves before the indirect jump, or give the jump a landing
//! block per target; the alternatives (one vreg shared by all the targets' parameters, or a
//! frame slot per phi) break SSA or add memory traffic on every dispatch.
//!
//! Refused with an error naming function, block and instruction: atomics and inline-asm
//! operands of split types, a phi after a non-phi instruction, `asm goto`, switch cases wider than 64 bits, an indirect branch to a block with
//! parameters, an entry block with both predecessors and parameters (an entry with
//! predecessors alone gets a prologue block), a result of more parts than the target has
//! result registers, a value of more than [`super::parts::MAX_PARTS`] parts, and the vector
//! constructs `vector` lists (`x86_fp80` lanes, `i128`-lane compares, vector operands of
//! atomics, inline asm and `getelementptr`).
//!
//! Files, one per phase of the rules: `control` (block order, block parameters, terminators),
//! `arith` (arithmetic, comparisons, casts, selects), `memory` (frame slots, loads, stores,
//! addresses, atomics), `calls` (calling convention, parameters), `asm` (inline assembly),
//! `split` (values of several parts), `vector` (vector arithmetic, compares, selects, casts,
//! memory) and `lanes` (`extractelement`, `insertelement`, `shufflevector`); this file holds
//! the value-to-vreg map and dispatch.
//!
//! Complexity: O(instructions + edges) for one function.

mod arith;
mod asm;
mod calls;
mod control;
mod lanes;
mod memory;
mod split;
mod vector;

use calls::CallTarget;

use super::function::{remat_op, MachineBuilder, MachineFunction, MachineOp, Opcode, Operands};
use super::parts::{is_split, layout, Layout};
use super::targets::TargetDesc;
use super::{MBlock, Operand as MOp, OperandConstraint as C, PRegSet, VReg};
use crate::ir::{Block, Callee, Const, ConstKind, Inst, InstKind, IrRead, Operand, Type, Value};
use crate::registers::RegClass;
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
        wide: Vec::new(),
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
    /// `wide[vreg]`: the vreg holds a vector part of more than 8 bytes (a stack argument
    /// takes 16 bytes, 16-aligned).
    wide: Vec<bool>,
}

type R<T> = Result<T, LowerError>;

/// The vregs of one value's parts, in [`super::parts::layout`] order.
type Parts = SmallVec<[VReg; 2]>;

/// Bits a vector part of type `ty` takes in its register (lane masks take more than their
/// packed bits); 0 for any other type.
fn register_bits(ty: Type) -> u32 {
    super::parts::vector_form(ty).map_or(0, |f| f.lanes * f.width)
}

fn class_of(ty: Type) -> Option<RegClass> {
    match ty {
        Type::F32 | Type::F64 => Some(RegClass::Float),
        Type::Vec(_) if !is_split(ty) => Some(RegClass::Float),
        Type::Void => None,
        t if is_split(t) => None,
        _ => Some(RegClass::Int),
    }
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
        layout(ty).map_err(|e| self.err(e.to_string()))
    }

    /// Fresh vregs for the parts of a value of type `ty`.
    fn new_parts(&mut self, ty: Type) -> R<Parts> {
        let mut out = Parts::new();
        for p in self.layout(ty)? {
            let v = self.new_vreg(p.class)?;
            if register_bits(p.mem) > 64 {
                self.mark_wide(v);
            }
            out.push(v);
        }
        Ok(out)
    }

    /// Records that `v` holds a vector part wider than 8 bytes.
    fn mark_wide(&mut self, v: VReg) {
        if self.wide.len() <= v.index() {
            self.wide.resize(v.index() + 1, false);
        }
        self.wide[v.index()] = true;
    }

    /// Whether `v` holds a vector part wider than 8 bytes.
    fn is_wide(&self, v: VReg) -> bool {
        self.wide.get(v.index()).copied().unwrap_or(false)
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
        if data.ty.is_vector() {
            // One `vconst` per part: part `k` of pool entry `c`.
            for (k, p) in self.layout(data.ty)?.into_iter().enumerate() {
                let d = self.new_vreg(p.class)?;
                if register_bits(p.mem) > 64 {
                    self.mark_wide(d);
                }
                let imm = ((c.index() as i64) << 8) | k as i64;
                self.emit1(
                    MachineOp::imm(Opcode::VConst, imm),
                    smallvec![MOp::def(d, C::Reg)],
                );
                out.push(d);
            }
            return Ok(());
        }
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

    /// Appends an instruction to the current block; a constant or a frame or global address
    /// also becomes its value's rematerialization hook ([`remat_op`]), so the allocator may
    /// recompute it instead of reloading it.
    fn emit(&mut self, op: MachineOp, operands: Operands, clobbers: PRegSet) {
        if let Some(hook) = remat_op(op, &operands) {
            self.m.remat.push(hook);
        }
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

    fn lower_inst(&mut self, i: Inst) -> R<()> {
        if self.lower_vector(i)? || self.lower_split(i)? {
            return Ok(());
        }
        let kind = self.ir.inst_kind(i).clone();
        if self.lower_arith(i, &kind)? || self.lower_memory(i, &kind)? {
            return Ok(());
        }
        match kind {
            InstKind::ExtractValue { .. } | InstKind::InsertValue { .. } => {
                return Err(
                    self.err("extractvalue/insertvalue on a value that is not an aggregate")
                );
            }
            InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. } => {
                return Err(self.err("a lane operation on a value that is not a vector"));
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
            InstKind::Phi { .. } => {
                return Err(self.err("a phi after the first non-phi instruction of its block"))
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
            other => {
                return Err(self.err(format!(
                    "lowering has no rule for `{}`",
                    other.opcode_name()
                )))
            }
        }
        Ok(())
    }
}
