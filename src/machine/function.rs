//! The detached machine function: opcodes, instructions and blocks in plain vectors, the
//! form lowering builds, the text parser produces and the World's columns are loaded from.
//!
//! What: [`MachineFunction`] is to the machine form what [`crate::ir::Function`] is to the
//! IR: the out-of-World shape, in which a function is built ([`MachineBuilder`]), parsed and
//! printed, and which [`super::columns::MachineLoader`] moves into entity rows (one table per
//! kind, row = dense index) for the Lower stage's systems. It implements [`MachineRead`].
//!
//! An instruction is a [`MachineOp`] (a target-neutral mnemonic [`Opcode`], a suffix index
//! for the opcodes that take one, and one immediate), its operands and its clobbers. The
//! targets differ in the constraints lowering writes (x86-64 two-address arithmetic as
//! `Reuse`, fixed registers for division and shifts, ABI registers at calls), not in the
//! mnemonics; a mnemonic is what the allocator needs to print, not an encoding.
//!
//! [`MachineBuilder`] collects blocks with their instructions in any order, then
//! [`MachineBuilder::finish`] splits critical edges (a new block holding a `jump` that carries
//! the edge's branch arguments), lays the blocks out in reverse postorder from the entry
//! (so every block follows one of its predecessors), numbers instructions contiguously in
//! block order and computes predecessors. Algorithm: one pass over the edges and one
//! depth-first search; O(blocks + edges + insts).
//!
//! Invariants of a finished function: those of [`super`] (checked by [`super::verify`]).

use super::{InstRange, MBlock, MInst, MachineRead, Operand, PRegSet, VReg};
use crate::registers::RegClass;
use smallvec::SmallVec;

macro_rules! opcodes {
    ($($(#[$doc:meta])* $variant:ident = $text:literal,)*) => {
        /// A target-neutral machine mnemonic (see the module doc and [`Opcode::name`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Opcode {
            $($(#[$doc])* $variant,)*
        }

        impl Opcode {
            /// Every opcode, in declaration order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The mnemonic used in machine text.
            pub fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $text,)*
                }
            }

            /// Parses a mnemonic.
            pub fn from_name(s: &str) -> Option<Opcode> {
                match s {
                    $($text => Some(Opcode::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    /// Defines the function's parameters at entry (defs fixed to the ABI's registers).
    Args = "args",
    /// Register (or stack) copy.
    Mov = "mov",
    /// Integer constant into a register (`imm` = the value).
    MovImm = "movi",
    /// Float constant into a register (`imm` = the bit pattern).
    FConst = "fconst",
    /// Address of module symbol number `imm`.
    SymAddr = "symaddr",
    /// Address of frame slot number `imm` (an `alloca`).
    FrameAddr = "frameaddr",
    /// Address of IR block number `imm` (a `blockaddress`).
    BlockAddr = "blockaddr",
    /// Integer addition.
    Add = "add",
    /// Integer subtraction.
    Sub = "sub",
    /// Addition of the high halves of a register pair with the carry of the [`Opcode::Add`]
    /// just before it (the carry lives in the flags; lowering places nothing between them).
    AddCarry = "adc",
    /// Subtraction of the high halves with the borrow of the [`Opcode::Sub`] just before it.
    SubBorrow = "sbb",
    /// Integer multiplication.
    Mul = "mul",
    /// Multiply by the immediate.
    MulImm = "muli",
    /// Signed division (x86-64: quotient in rax, remainder in rdx).
    SDiv = "sdiv",
    /// Unsigned division.
    UDiv = "udiv",
    /// Signed remainder.
    SRem = "srem",
    /// Unsigned remainder.
    URem = "urem",
    /// Multiply-subtract `a - b * c` (aarch64 remainder).
    MSub = "msub",
    /// Bitwise and.
    And = "and",
    /// Bitwise or.
    Or = "or",
    /// Bitwise exclusive or.
    Xor = "xor",
    /// Shift left.
    Shl = "shl",
    /// Logical shift right.
    LShr = "lshr",
    /// Arithmetic shift right.
    AShr = "ashr",
    /// Float addition.
    FAdd = "fadd",
    /// Float subtraction.
    FSub = "fsub",
    /// Float multiplication.
    FMul = "fmul",
    /// Float division.
    FDiv = "fdiv",
    /// Float negation.
    FNeg = "fneg",
    /// Integer comparison to a 0/1 register (suffix: the predicate).
    Icmp = "icmp",
    /// Comparison of two register pairs (`i128`: low, high of each) to a 0/1 register, with
    /// an early scratch def (suffix: the predicate).
    Icmp2 = "icmp2",
    /// Float comparison to a 0/1 register (suffix: the predicate).
    Fcmp = "fcmp",
    /// Integer or float select on a 0/1 condition.
    Select = "select",
    /// Conversion (suffix: the cast).
    Cast = "cast",
    /// Load (suffix: the type; `imm` = byte offset from the address).
    Load = "load",
    /// Store (suffix: the type; `imm` = byte offset).
    Store = "store",
    /// Address arithmetic: `base + imm`.
    Lea = "lea",
    /// Address arithmetic: `base + index * imm` (imm 1, 2, 4 or 8).
    LeaIndex = "leax",
    /// Direct call of module symbol number `imm`.
    Call = "call",
    /// Indirect call through a register.
    CallInd = "callind",
    /// Stores an outgoing call argument at stack offset `imm`.
    StoreArg = "storearg",
    /// Loads an incoming stack argument at offset `imm`.
    LoadArg = "loadarg",
    /// Dynamic stack allocation (`imm` = element size).
    DynAlloca = "dynalloca",
    /// Atomic read-modify-write (suffix: the operation).
    AtomicRmw = "atomicrmw",
    /// Atomic compare-and-exchange.
    CmpXchg = "cmpxchg",
    /// Memory fence.
    Fence = "fence",
    /// A 128-bit vector constant: part `imm & 255` of constant pool entry `imm >> 8`
    /// (`pxor`/`pcmpeqd` or a constant-pool load; NEON `movi` or `ldr q`); `imm` -1 is a
    /// part of undefined lanes (any bits: a shuffle result no mask lane defines).
    VConst = "vconst",
    /// Lane-wise addition (suffix: the lane shape; `paddd`, `addps`; NEON `add`, `fadd`).
    VAdd = "vadd",
    /// Lane-wise subtraction (suffix: the lane shape).
    VSub = "vsub",
    /// Lane-wise multiplication (suffix: the lane shape; SSE2 has no `i8`, `i32` or `i64`
    /// lane product: on x86-64 those carry two early scratch defs for the `pmuludq`/unpack
    /// sequence).
    VMul = "vmul",
    /// Lane-wise float division (suffix: the lane shape).
    VDiv = "vdiv",
    /// Bitwise and of 128 bits.
    VAnd = "vand",
    /// Bitwise or of 128 bits.
    VOr = "vor",
    /// Bitwise exclusive or of 128 bits.
    VXor = "vxor",
    /// Lane-wise float negation (suffix: the lane shape; x86-64 `xorps` with a sign mask in
    /// an early scratch def).
    VFNeg = "vfneg",
    /// Lane-wise shift left by a vector of counts (aarch64 `ushl`; suffix: the lane shape).
    VShl = "vshl",
    /// Lane-wise logical shift right by a vector of counts (aarch64 `neg` into an early
    /// scratch def, then `ushl`).
    VLShr = "vlshr",
    /// Lane-wise arithmetic shift right by a vector of counts (aarch64 `neg`, `sshl`).
    VAShr = "vashr",
    /// Lane-wise shift left by the immediate (`psllq $imm`; NEON `shl #imm`).
    VShlImm = "vshli",
    /// Lane-wise logical shift right by the immediate.
    VLShrImm = "vlshri",
    /// Lane-wise arithmetic shift right by the immediate.
    VAShrImm = "vashri",
    /// Lane-wise integer comparison to a lane mask (suffix: predicate and lane shape).
    VIcmp = "vicmp",
    /// Lane-wise float comparison to a lane mask (suffix: predicate and lane shape).
    VFcmp = "vfcmp",
    /// Lane-wise select by a lane mask: `mask ? a : b` per lane (SSE2 `pand`/`pandn`/`por`,
    /// NEON `bsl`; suffix: the lane shape).
    VSelect = "vselect",
    /// Replaces lane `imm` of a vector by a scalar register (suffix: the lane shape).
    VInsert = "vinsert",
    /// Reads lane `imm` of a vector into a scalar register (suffix: the lane shape).
    VExtract = "vextract",
    /// Part `imm & 255` of the `shufflevector` at IR instruction `imm >> 8` (the mask is the
    /// IR's constant), from the source parts it reads (suffix: the lane shape).
    VShuffle = "vshuffle",
    /// Lane-wise conversion, from the source parts to the result parts (suffix: the cast
    /// and the result's lane shape).
    VCast = "vcast",
    /// Inline assembly (`imm` = the asm's instruction index in the IR).
    Asm = "asm",
    /// An IR operation lowering keeps as a placeholder of the right operand shape (`imm` =
    /// the IR instruction index), for example `va_arg`; emission would need its sequence.
    Opaque = "opaque",
    /// An instruction known only by its operands and clobbers: the form of a function
    /// imported from a `regalloc2::Function` or drawn by the machine generator, where the
    /// allocator needs no mnemonic.
    Op = "op",
    /// Unconditional branch (terminator, one successor).
    Jump = "jump",
    /// Branch on a 0/1 register: successor 0 if non-zero, else successor 1.
    Br = "br",
    /// Branch to successor 0 if the register equals `imm`, else successor 1 (switch chains).
    CaseBr = "casebr",
    /// Jump through a register to one of the successors.
    JumpInd = "jumpind",
    /// A branch to its successors known only by its operands (the terminator of an imported
    /// regalloc2 function or a generated one, see [`Opcode::Op`]).
    Branch = "branch",
    /// Return (terminator).
    Ret = "ret",
    /// Trap (`unreachable`; terminator without successors).
    Trap = "trap",
}

/// Suffixes of [`Opcode::Load`] and [`Opcode::Store`]: the accessed type.
/// `vN` is a vector part of `N` bytes.
pub const MEM_TYPES: &[&str] = &[
    "i1", "i8", "i16", "i32", "i64", "i128", "f32", "f64", "ptr", "v1", "v2", "v3", "v4", "v5",
    "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16",
];

/// Lane shapes of a 128-bit vector register, the suffix of the vector opcodes.
pub const LANE_SHAPES: &[&str] = &["i8x16", "i16x8", "i32x4", "i64x2", "f32x4", "f64x2"];

/// The suffixes `a.shape` for every `a` of `first` and every shape of `shapes`, as static
/// strings (built once per table).
fn product(
    cell: &'static std::sync::OnceLock<Vec<&'static str>>,
    first: &[&str],
    shapes: &[&str],
) -> Vec<&'static str> {
    cell.get_or_init(|| {
        let mut out = Vec::new();
        for a in first {
            for s in shapes {
                out.push(&*Box::leak(format!("{a}.{s}").into_boxed_str()));
            }
        }
        out
    })
    .clone()
}

impl Opcode {
    /// True for opcodes that end a block.
    pub fn is_terminator(self) -> bool {
        matches!(
            self,
            Opcode::Jump
                | Opcode::Br
                | Opcode::CaseBr
                | Opcode::JumpInd
                | Opcode::Branch
                | Opcode::Ret
                | Opcode::Trap
        )
    }

    /// True for the terminators without successors.
    pub fn is_ret(self) -> bool {
        matches!(self, Opcode::Ret | Opcode::Trap)
    }

    /// The suffix names of this opcode (empty for opcodes without a suffix).
    pub fn suffixes(self) -> Vec<&'static str> {
        use crate::ir::{AtomicOp, CastOp, FloatPredicate, IntPredicate};
        match self {
            Opcode::Icmp | Opcode::Icmp2 => IntPredicate::ALL.iter().map(|p| p.name()).collect(),
            Opcode::Fcmp => FloatPredicate::ALL.iter().map(|p| p.name()).collect(),
            Opcode::Cast => CastOp::ALL.iter().map(|p| p.name()).collect(),
            Opcode::AtomicRmw => AtomicOp::ALL.iter().map(|p| p.name()).collect(),
            Opcode::Load | Opcode::Store => MEM_TYPES.to_vec(),
            Opcode::VIcmp => {
                static CELL: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
                let preds: Vec<&str> = IntPredicate::ALL.iter().map(|p| p.name()).collect();
                product(&CELL, &preds, &LANE_SHAPES[..4])
            }
            Opcode::VFcmp => {
                static CELL: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
                let preds: Vec<&str> = FloatPredicate::ALL.iter().map(|p| p.name()).collect();
                product(&CELL, &preds, &LANE_SHAPES[4..])
            }
            Opcode::VCast => {
                static CELL: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
                let casts: Vec<&str> = CastOp::ALL.iter().map(|p| p.name()).collect();
                product(&CELL, &casts, LANE_SHAPES)
            }
            Opcode::VAdd
            | Opcode::VSub
            | Opcode::VMul
            | Opcode::VDiv
            | Opcode::VFNeg
            | Opcode::VShl
            | Opcode::VLShr
            | Opcode::VAShr
            | Opcode::VShlImm
            | Opcode::VLShrImm
            | Opcode::VAShrImm
            | Opcode::VSelect
            | Opcode::VInsert
            | Opcode::VExtract
            | Opcode::VShuffle => LANE_SHAPES.to_vec(),
            _ => Vec::new(),
        }
    }

    /// Whether the opcode's two register inputs may be exchanged without changing its
    /// result: integer add, multiply, and, or, xor and float add and multiply. On a
    /// two-address target, an allocator may exchange the inputs of such an instruction so
    /// that the reused input is the one that dies there (regalloc2 issue 265), saving the
    /// copy the reuse constraint costs when the reused input stays live.
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            Opcode::Add
                | Opcode::Mul
                | Opcode::And
                | Opcode::Or
                | Opcode::Xor
                | Opcode::FAdd
                | Opcode::FMul
        )
    }

    /// Whether the opcode prints an immediate.
    pub fn has_imm(self) -> bool {
        matches!(
            self,
            Opcode::MovImm
                | Opcode::FConst
                | Opcode::SymAddr
                | Opcode::FrameAddr
                | Opcode::BlockAddr
                | Opcode::MulImm
                | Opcode::Load
                | Opcode::Store
                | Opcode::Lea
                | Opcode::LeaIndex
                | Opcode::Call
                | Opcode::StoreArg
                | Opcode::LoadArg
                | Opcode::DynAlloca
                | Opcode::Asm
                | Opcode::Opaque
                | Opcode::CaseBr
                | Opcode::VConst
                | Opcode::VShlImm
                | Opcode::VLShrImm
                | Opcode::VAShrImm
                | Opcode::VInsert
                | Opcode::VExtract
                | Opcode::VShuffle
        )
    }
}

/// An instruction's operation: mnemonic, suffix index and immediate (16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MachineOp {
    /// The mnemonic.
    pub opcode: Opcode,
    /// Index into [`Opcode::suffixes`] (0 when the opcode has none).
    pub suffix: u8,
    /// The immediate (meaning per opcode; 0 when it has none).
    pub imm: i64,
}

impl MachineOp {
    /// `opcode` without suffix or immediate.
    pub const fn new(opcode: Opcode) -> MachineOp {
        MachineOp {
            opcode,
            suffix: 0,
            imm: 0,
        }
    }

    /// `opcode` with immediate `imm`.
    pub const fn imm(opcode: Opcode, imm: i64) -> MachineOp {
        MachineOp {
            opcode,
            suffix: 0,
            imm,
        }
    }

    /// The same operation with suffix index `suffix`.
    pub const fn with_suffix(self, suffix: u8) -> MachineOp {
        MachineOp { suffix, ..self }
    }
}

/// The operands of one instruction (inline up to four).
pub type Operands = SmallVec<[Operand; 4]>;

/// The branch arguments of one block: `args[ends[s-1]..ends[s]]` go to successor `s`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchArgs {
    /// Arguments of every successor, concatenated.
    pub args: SmallVec<[VReg; 4]>,
    /// End offset of each successor's arguments in `args`.
    pub ends: SmallVec<[u32; 2]>,
}

impl BranchArgs {
    /// The arguments passed to successor number `succ` (empty if out of range).
    pub fn get(&self, succ: usize) -> &[VReg] {
        let Some(&end) = self.ends.get(succ) else {
            return &[];
        };
        let start = if succ == 0 { 0 } else { self.ends[succ - 1] };
        &self.args[start as usize..end as usize]
    }

    /// Appends the arguments of the next successor.
    pub fn push(&mut self, args: &[VReg]) {
        self.args.extend_from_slice(args);
        self.ends.push(self.args.len() as u32);
    }
}

impl<'a> FromIterator<&'a [VReg]> for BranchArgs {
    /// The branch arguments of successors 0, 1, ... in order.
    fn from_iter<I: IntoIterator<Item = &'a [VReg]>>(lists: I) -> BranchArgs {
        let mut args = BranchArgs::default();
        for list in lists {
            args.push(list);
        }
        args
    }
}

/// A machine function out of the World (see the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MachineFunction {
    /// The function's name.
    pub name: String,
    /// The target it was lowered for (`x86-64`, `aarch64`) or written for.
    pub target: String,
    /// `ops[MInst]`.
    pub ops: Vec<MachineOp>,
    /// `operands[MInst]`.
    pub operands: Vec<Operands>,
    /// `clobbers[MInst]`.
    pub clobbers: Vec<PRegSet>,
    /// `insts[MBlock]`: contiguous instruction ranges in block order.
    pub insts: Vec<InstRange>,
    /// `params[MBlock]`.
    pub params: Vec<SmallVec<[VReg; 2]>>,
    /// `succs[MBlock]`.
    pub succs: Vec<SmallVec<[MBlock; 2]>>,
    /// `preds[MBlock]` (one entry per edge).
    pub preds: Vec<SmallVec<[MBlock; 2]>>,
    /// `branch_args[MBlock]`.
    pub branch_args: Vec<BranchArgs>,
    /// Number of vregs (one above the largest index used).
    pub num_vregs: usize,
    /// Frame slots (`alloca`s): `(size, align)` in bytes, indexed by `frameaddr`'s immediate.
    pub frame_slots: Vec<(u32, u32)>,
    /// The rematerialization hook: `(vreg, op)` for every value that `op` (cheap, without
    /// side effects, reading no register) recomputes anywhere, sorted by vreg index, at most
    /// one per vreg (see [`MachineRead::remat`]). Lowering sets it for constants and frame
    /// and global addresses ([`remat_op`]).
    pub remat: Vec<(VReg, MachineOp)>,
    /// Spill slots a value of each class takes (`[Int, Float, Vector]`, in 8-byte units),
    /// when the function's producer says so: the regalloc2 import takes its `spillslot_size`
    /// per class (a drop-in user's frame layout). `None` (lowering, `.mir` text): the
    /// default of [`MachineRead::spill_slot_size`].
    pub spill_slot_sizes: Option<[usize; 3]>,
}

/// Spill slots (8-byte units) a value of `class` takes: the producer's `sizes` when given
/// (`[Int, Float, Vector]`), else the default of [`MachineRead::spill_slot_size`].
pub fn slot_size(sizes: Option<[usize; 3]>, class: crate::registers::RegClass) -> usize {
    match sizes {
        Some(sizes) => sizes[class as usize],
        None => match class {
            crate::registers::RegClass::Int => 1,
            _ => 2,
        },
    }
}

/// The rematerialization of a def by `op` with `operands`, when it has one: a constant
/// (`movi`, `fconst`) or a frame or global address (`frameaddr`, `symaddr`) with one def and
/// no other operand is recomputed by re-executing `op` (the rule lowering applies).
pub fn remat_op(op: MachineOp, operands: &[Operand]) -> Option<(VReg, MachineOp)> {
    let cheap = matches!(
        op.opcode,
        Opcode::MovImm | Opcode::FConst | Opcode::SymAddr | Opcode::FrameAddr
    );
    match operands {
        [d] if cheap && d.kind == super::OperandKind::Def && d.vreg.is_value() => {
            Some((d.vreg, op))
        }
        _ => None,
    }
}

/// The operation in a sorted `(vreg, op)` remat list for `vreg` (binary search).
pub fn remat_lookup(list: &[(VReg, MachineOp)], vreg: VReg) -> Option<MachineOp> {
    list.binary_search_by_key(&vreg.index(), |(v, _)| v.index())
        .ok()
        .map(|k| list[k].1)
}

impl MachineFunction {
    /// Appends an instruction to the block being laid out (the one [`Self::close_block`]
    /// ends next) and returns its index.
    pub fn push_inst(&mut self, op: MachineOp, operands: &[Operand], clobbers: PRegSet) -> MInst {
        self.ops.push(op);
        self.operands.push(Operands::from_slice(operands));
        self.clobbers.push(clobbers);
        MInst::new(self.ops.len() - 1)
    }

    /// Ends the block being laid out: it holds the instructions pushed since the previous
    /// block ended. Parameters, successors, predecessors and branch arguments are the
    /// caller's to fill. Returns the block's index.
    pub fn close_block(&mut self) -> MBlock {
        let start = self.insts.last().map_or(MInst(0), |r| r.end);
        self.insts
            .push(InstRange::new(start, MInst::new(self.ops.len())));
        MBlock::new(self.insts.len() - 1)
    }

    /// Recomputes the predecessor lists from the successor lists (one entry per edge, in
    /// block order). Successors must name existing blocks.
    pub fn compute_preds(&mut self) {
        self.preds = vec![SmallVec::new(); self.succs.len()];
        for (b, succs) in self.succs.iter().enumerate() {
            for &s in succs {
                self.preds[s.index()].push(MBlock::new(b));
            }
        }
    }
}

impl MachineRead for MachineFunction {
    fn num_insts(&self) -> usize {
        self.ops.len()
    }
    fn num_blocks(&self) -> usize {
        self.insts.len()
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn block_insts(&self, block: MBlock) -> InstRange {
        self.insts[block.index()]
    }
    fn block_succs(&self, block: MBlock) -> &[MBlock] {
        &self.succs[block.index()]
    }
    fn block_preds(&self, block: MBlock) -> &[MBlock] {
        &self.preds[block.index()]
    }
    fn block_params(&self, block: MBlock) -> &[VReg] {
        &self.params[block.index()]
    }
    fn is_ret(&self, inst: MInst) -> bool {
        self.ops[inst.index()].opcode.is_ret()
    }
    fn is_branch(&self, inst: MInst) -> bool {
        let op = self.ops[inst.index()].opcode;
        op.is_terminator() && !op.is_ret()
    }
    fn branch_args(&self, block: MBlock, succ: usize) -> &[VReg] {
        self.branch_args[block.index()].get(succ)
    }
    fn inst_operands(&self, inst: MInst) -> &[Operand] {
        &self.operands[inst.index()]
    }
    fn inst_clobbers(&self, inst: MInst) -> PRegSet {
        self.clobbers[inst.index()]
    }
    fn spill_slot_size(&self, class: crate::registers::RegClass) -> usize {
        slot_size(self.spill_slot_sizes, class)
    }
    fn remat(&self, vreg: VReg) -> Option<MachineOp> {
        remat_lookup(&self.remat, vreg)
    }
    fn is_commutative(&self, inst: MInst) -> bool {
        self.ops[inst.index()].opcode.is_commutative()
    }
}

/// One instruction while building.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildInst {
    /// Operation.
    pub op: MachineOp,
    /// Operands.
    pub operands: Operands,
    /// Clobbered registers.
    pub clobbers: PRegSet,
}

/// One block while building: its instructions (terminator last), parameters, successors
/// with their branch arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildBlock {
    /// Instructions, terminator last.
    pub insts: Vec<BuildInst>,
    /// Parameters.
    pub params: SmallVec<[VReg; 2]>,
    /// Successors with the arguments passed to each.
    pub succs: SmallVec<[(MBlock, SmallVec<[VReg; 2]>); 2]>,
}

/// Builds a [`MachineFunction`]: blocks in any order, vregs allocated densely.
#[derive(Clone, Debug, Default)]
pub struct MachineBuilder {
    /// Blocks by index; index 0 is the entry.
    pub blocks: Vec<BuildBlock>,
    /// Next vreg index.
    pub next_vreg: u32,
    /// Frame slots.
    pub frame_slots: Vec<(u32, u32)>,
    /// The rematerialization hook being collected: `(vreg, op)` in any order (sorted by
    /// [`MachineBuilder::finish`]).
    pub remat: Vec<(VReg, MachineOp)>,
}

/// Why a function cannot become a machine function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BuildError(pub String);

impl MachineBuilder {
    /// A fresh vreg of `class`.
    ///
    /// # Errors
    /// More than [`VReg::MAX_INDEX`] vregs.
    pub fn vreg(&mut self, class: RegClass) -> Result<VReg, BuildError> {
        let v = VReg::new(self.next_vreg, class)
            .ok_or_else(|| BuildError("more than 2^30 virtual registers".into()))?;
        self.next_vreg += 1;
        Ok(v)
    }

    /// Appends an empty block and returns its index.
    pub fn block(&mut self) -> MBlock {
        self.blocks.push(BuildBlock::default());
        MBlock::new(self.blocks.len() - 1)
    }

    /// Appends an instruction to `block`.
    pub fn push(&mut self, block: MBlock, op: MachineOp, operands: Operands, clobbers: PRegSet) {
        self.blocks[block.index()].insts.push(BuildInst {
            op,
            operands,
            clobbers,
        });
    }

    /// Splits critical edges, lays the instructions out in block order and computes
    /// predecessors (see the module doc). `name` and `target` label the function.
    pub fn finish(mut self, name: &str, target: &str) -> MachineFunction {
        // Critical edges: from a block with several successors to one with several
        // predecessors. The edge gets a block whose `jump` carries the arguments.
        let mut npreds = vec![0u32; self.blocks.len()];
        for b in &self.blocks {
            for (s, _) in &b.succs {
                if let Some(n) = npreds.get_mut(s.index()) {
                    *n += 1;
                }
            }
        }
        let original = self.blocks.len();
        for b in 0..original {
            if self.blocks[b].succs.len() < 2 {
                continue;
            }
            for e in 0..self.blocks[b].succs.len() {
                let (s, _) = self.blocks[b].succs[e];
                if npreds.get(s.index()).copied().unwrap_or(0) < 2 {
                    continue;
                }
                let args = std::mem::take(&mut self.blocks[b].succs[e].1);
                let edge = MBlock::new(self.blocks.len());
                self.blocks.push(BuildBlock {
                    insts: vec![BuildInst {
                        op: MachineOp::new(Opcode::Jump),
                        operands: Operands::new(),
                        clobbers: PRegSet::empty(),
                    }],
                    params: SmallVec::new(),
                    succs: smallvec::smallvec![(s, args)],
                });
                self.blocks[b].succs[e].0 = edge;
            }
        }
        // Lay blocks out in reverse postorder from the entry (unreachable ones last, in
        // index order): every block but the entry then follows one of its predecessors,
        // which regalloc2's checker needs (its first dataflow pass runs in layout order, and
        // a block visited before all its predecessors poisons its successors' state).
        let n = self.blocks.len();
        let order = reverse_postorder(&self.blocks);
        let mut new_index = vec![MBlock(0); n];
        for (k, &b) in order.iter().enumerate() {
            new_index[b] = MBlock::new(k);
        }
        let mut slots: Vec<Option<BuildBlock>> = self.blocks.into_iter().map(Some).collect();
        self.blocks = order
            .iter()
            .map(|&b| {
                let mut block = slots[b].take().expect("each block is laid out once");
                for (s, _) in &mut block.succs {
                    if let Some(&k) = new_index.get(s.index()) {
                        *s = k;
                    }
                }
                block
            })
            .collect();
        let mut f = MachineFunction {
            name: name.to_string(),
            target: target.to_string(),
            num_vregs: self.next_vreg as usize,
            frame_slots: self.frame_slots,
            remat: {
                let mut r = self.remat;
                r.sort_unstable_by_key(|(v, _)| v.index());
                r.dedup_by_key(|(v, _)| v.index());
                r
            },
            preds: vec![SmallVec::new(); n],
            ..Default::default()
        };
        for (b, block) in self.blocks.into_iter().enumerate() {
            let start = MInst::new(f.ops.len());
            for i in block.insts {
                f.ops.push(i.op);
                f.operands.push(i.operands);
                f.clobbers.push(i.clobbers);
            }
            f.insts.push(InstRange::new(start, MInst::new(f.ops.len())));
            f.params.push(block.params);
            let mut args = BranchArgs::default();
            let mut succs = SmallVec::new();
            for (s, a) in &block.succs {
                succs.push(*s);
                args.push(a);
                if let Some(p) = f.preds.get_mut(s.index()) {
                    p.push(MBlock::new(b));
                }
            }
            f.succs.push(succs);
            f.branch_args.push(args);
        }
        f
    }
}

/// Reverse postorder of `blocks` from block 0, then the unreachable blocks in index order.
fn reverse_postorder(blocks: &[BuildBlock]) -> Vec<usize> {
    let n = blocks.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    if n > 0 {
        seen[0] = true;
        stack.push((0, 0));
    }
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        if let Some(&(s, _)) = blocks[b].succs.get(*next) {
            *next += 1;
            let s = s.index();
            if s < n && !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post.extend((0..n).filter(|&b| !seen[b]));
    post
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{Operand as Op, OperandConstraint as C};

    #[test]
    fn critical_edges_get_a_block_carrying_the_arguments() {
        // b0 -> {b1, b2}; b1 -> b2; b2(p). Edge b0->b2 is critical.
        let mut m = MachineBuilder::default();
        let (b0, b1, b2) = (m.block(), m.block(), m.block());
        let c = m.vreg(RegClass::Int).unwrap();
        let p = m.vreg(RegClass::Int).unwrap();
        m.push(
            b0,
            MachineOp::imm(Opcode::MovImm, 1),
            smallvec::smallvec![Op::def(c, C::Reg)],
            PRegSet::empty(),
        );
        m.push(
            b0,
            MachineOp::new(Opcode::Br),
            smallvec::smallvec![Op::use_(c, C::Reg)],
            PRegSet::empty(),
        );
        m.blocks[b0.index()].succs =
            smallvec::smallvec![(b1, SmallVec::new()), (b2, smallvec::smallvec![c])];
        m.push(
            b1,
            MachineOp::new(Opcode::Jump),
            Operands::new(),
            PRegSet::empty(),
        );
        m.blocks[b1.index()].succs = smallvec::smallvec![(b2, smallvec::smallvec![c])];
        m.blocks[b2.index()].params = smallvec::smallvec![p];
        m.push(
            b2,
            MachineOp::new(Opcode::Ret),
            Operands::new(),
            PRegSet::empty(),
        );
        let f = m.finish("f", "x86-64");
        // Laid out in reverse postorder: b0, edge block, b1, b2.
        assert_eq!(f.num_blocks(), 4);
        assert_eq!(f.block_succs(MBlock(0)), &[MBlock(2), MBlock(1)]);
        assert_eq!(f.branch_args(MBlock(0), 1), &[] as &[VReg]);
        assert_eq!(f.block_succs(MBlock(1)), &[MBlock(3)]);
        assert_eq!(f.branch_args(MBlock(1), 0), &[c]);
        assert_eq!(f.block_preds(MBlock(3)), &[MBlock(1), MBlock(2)]);
        assert_eq!(f.block_insts(MBlock(1)), InstRange::new(MInst(2), MInst(3)));
        assert!(crate::machine::verify::verify(&f).is_empty());
    }
}
