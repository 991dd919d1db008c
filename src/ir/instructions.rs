//! Instructions, terminators and operands of the strata IR (DESIGN.md 3.1).
//!
//! An instruction is an [`InstKind`] plus the values it defines ([`InstData::results`]).
//! Operands are [`Operand`]s: an SSA [`Value`] or an interned [`Const`] of the function's
//! constant pool, so an operand is 8 bytes and the type of every operand is known from its
//! value or constant. Terminators ([`Terminator`]) end blocks and are not instructions; they
//! name their successors in successor-index order, and a block may name the same successor
//! twice (the CFG counts edges, not blocks).
//!
//! Memory form uses `alloca`/`load`/`store`; SSA form adds `phi`; after phi elimination
//! `copy` carries values across edges; block parameters and branch arguments
//! ([`Target::args`]) are reserved for the block-parameter form used by register allocation.

use super::{Block, Const, Symbol, Type, Value};
use smallvec::SmallVec;

mod operands;

/// An instruction operand: an SSA value or a constant of the function's pool.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Operand {
    /// An SSA value.
    Value(Value),
    /// An interned constant.
    Const(Const),
}

impl Operand {
    /// The value, if this operand is one.
    pub fn as_value(self) -> Option<Value> {
        match self {
            Operand::Value(v) => Some(v),
            Operand::Const(_) => None,
        }
    }
}

impl From<Value> for Operand {
    fn from(v: Value) -> Self {
        Operand::Value(v)
    }
}

impl From<Const> for Operand {
    fn from(c: Const) -> Self {
        Operand::Const(c)
    }
}

macro_rules! keyword_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The keyword used in `.sir` text.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Parses the keyword; `None` if `s` is not one.
            pub fn from_name(s: &str) -> Option<Self> {
                match s {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

keyword_enum!(
    /// Two-operand arithmetic. Integer ops wrap modulo 2^width; shifts by at least the width
    /// and division by zero (or signed overflow `MIN / -1`) are undefined behaviour that the
    /// interpreter reports as an error. Float ops follow IEEE 754 round-to-nearest.
    BinaryOp {
        /// Integer addition.
        Add = "add",
        /// Integer subtraction.
        Sub = "sub",
        /// Integer multiplication.
        Mul = "mul",
        /// Signed division, rounding toward zero.
        SDiv = "sdiv",
        /// Unsigned division.
        UDiv = "udiv",
        /// Signed remainder (sign of the dividend).
        SRem = "srem",
        /// Unsigned remainder.
        URem = "urem",
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
        /// Float remainder (C `fmod`).
        FRem = "frem",
    }
);

impl BinaryOp {
    /// True for the float operations `fadd` .. `frem`.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FRem
        )
    }
}

keyword_enum!(
    /// One-operand arithmetic.
    UnaryOp {
        /// Float negation (flips the sign bit).
        FNeg = "fneg",
    }
);

keyword_enum!(
    /// Integer comparison predicates (`icmp`).
    IntPredicate {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// Signed less than.
        Slt = "slt",
        /// Signed less or equal.
        Sle = "sle",
        /// Signed greater than.
        Sgt = "sgt",
        /// Signed greater or equal.
        Sge = "sge",
        /// Unsigned less than.
        Ult = "ult",
        /// Unsigned less or equal.
        Ule = "ule",
        /// Unsigned greater than.
        Ugt = "ugt",
        /// Unsigned greater or equal.
        Uge = "uge",
    }
);

impl IntPredicate {
    /// Whether the predicate holds between two integers given both as unsigned (`x`, `y`)
    /// and as signed (`sx`, `sy`) values of one width (the interpreter passes 128-bit
    /// values, SCCP's narrow folding 64-bit ones).
    #[inline]
    pub fn holds<U: Ord, S: Ord>(self, x: U, y: U, sx: S, sy: S) -> bool {
        use IntPredicate as P;
        match self {
            P::Eq => x == y,
            P::Ne => x != y,
            P::Slt => sx < sy,
            P::Sle => sx <= sy,
            P::Sgt => sx > sy,
            P::Sge => sx >= sy,
            P::Ult => x < y,
            P::Ule => x <= y,
            P::Ugt => x > y,
            P::Uge => x >= y,
        }
    }
}

keyword_enum!(
    /// Float comparison predicates (`fcmp`), as in LLVM: `o*` are false if either operand is
    /// NaN, `u*` are true if either is.
    FloatPredicate {
        /// Always false.
        False = "false",
        /// Ordered and equal.
        Oeq = "oeq",
        /// Ordered and greater than.
        Ogt = "ogt",
        /// Ordered and greater or equal.
        Oge = "oge",
        /// Ordered and less than.
        Olt = "olt",
        /// Ordered and less or equal.
        Ole = "ole",
        /// Ordered and not equal.
        One = "one",
        /// Neither operand is NaN.
        Ord = "ord",
        /// Unordered or equal.
        Ueq = "ueq",
        /// Unordered or greater than.
        Ugt = "ugt",
        /// Unordered or greater or equal.
        Uge = "uge",
        /// Unordered or less than.
        Ult = "ult",
        /// Unordered or less or equal.
        Ule = "ule",
        /// Unordered or not equal.
        Une = "une",
        /// Either operand is NaN.
        Uno = "uno",
        /// Always true.
        True = "true",
    }
);

keyword_enum!(
    /// Conversions between scalar types.
    CastOp {
        /// Integer truncation to a narrower integer.
        Trunc = "trunc",
        /// Zero extension to a wider integer.
        ZExt = "zext",
        /// Sign extension to a wider integer.
        SExt = "sext",
        /// f64 to f32.
        FpTrunc = "fptrunc",
        /// f32 to f64.
        FpExt = "fpext",
        /// Float to signed integer, rounding toward zero (out of range is an error).
        FpToSi = "fptosi",
        /// Float to unsigned integer, rounding toward zero (out of range is an error).
        FpToUi = "fptoui",
        /// Signed integer to float.
        SiToFp = "sitofp",
        /// Unsigned integer to float.
        UiToFp = "uitofp",
        /// Pointer to integer.
        PtrToInt = "ptrtoint",
        /// Integer to pointer.
        IntToPtr = "inttoptr",
        /// Reinterpretation of the bits between types of equal width.
        Bitcast = "bitcast",
    }
);

keyword_enum!(
    /// Read-modify-write operations of `atomicrmw`.
    AtomicOp {
        /// Exchange.
        Xchg = "xchg",
        /// Add.
        Add = "add",
        /// Subtract.
        Sub = "sub",
        /// And.
        And = "and",
        /// Nand.
        Nand = "nand",
        /// Or.
        Or = "or",
        /// Xor.
        Xor = "xor",
        /// Signed maximum.
        Max = "max",
        /// Signed minimum.
        Min = "min",
        /// Unsigned maximum.
        UMax = "umax",
        /// Unsigned minimum.
        UMin = "umin",
    }
);

keyword_enum!(
    /// Memory orderings of atomic operations (kept for export; the interpreter is
    /// single-threaded, so all behave as sequentially consistent).
    Ordering {
        /// No ordering constraint beyond atomicity.
        Monotonic = "monotonic",
        /// Acquire.
        Acquire = "acquire",
        /// Release.
        Release = "release",
        /// Acquire and release.
        AcqRel = "acq_rel",
        /// Sequentially consistent.
        SeqCst = "seq_cst",
    }
);

/// The callee of a `call`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Callee {
    /// A defined function or external declaration of the module.
    Direct(Symbol),
    /// A pointer operand (indirect call).
    Indirect(Operand),
}

/// Where an inline-asm output goes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AsmOutputPlace {
    /// Memory form: the asm writes through this pointer operand (an `alloca`, typically).
    /// With a register constraint (`=r`) mem2reg may promote the alloca; with a memory
    /// constraint (`=m`, `=o`, `=V`, `=p`) the asm writes the stack slot directly.
    Pointer(Operand),
    /// SSA form: the output is the next value of [`InstData::results`](crate::ir::InstData::results).
    Result,
}

/// One output of an inline-asm instruction.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AsmOutput {
    /// The constraint code without the leading `=` (for example `r`, `a`, `m`, `+r`).
    pub constraint: String,
    /// Type of the output value.
    pub ty: Type,
    /// Where the value goes.
    pub place: AsmOutputPlace,
}

/// One input of an inline-asm instruction.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AsmInput {
    /// The constraint code (for example `r`, `m`, `i`, `0`).
    pub constraint: String,
    /// The input operand.
    pub value: Operand,
}

/// An inline-asm statement (`asm volatile goto (...)`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InlineAsm {
    /// The template string, verbatim.
    pub template: String,
    /// Clobber list (for example `memory`, `cc`, `rax`), verbatim.
    pub clobbers: Vec<String>,
    /// True for `asm volatile` (has side effects).
    pub side_effects: bool,
    /// Outputs in order.
    pub outputs: Vec<AsmOutput>,
    /// Inputs in order.
    pub inputs: Vec<AsmInput>,
    /// `asm goto` labels: implicit control-flow edges from this instruction to these blocks.
    pub goto_labels: Vec<Block>,
}

impl InlineAsm {
    /// True if `constraint` (without `=`) is a memory constraint that pins an output to its
    /// stack address (`m`, `o`, `V`, `p`; 002 step 1).
    pub fn is_memory_constraint(constraint: &str) -> bool {
        constraint
            .trim_start_matches(['=', '+', '&'])
            .chars()
            .any(|c| matches!(c, 'm' | 'o' | 'V' | 'p'))
    }
}

/// An instruction the IR does not model but must carry through unchanged (for example an
/// imported `va_arg` or `extractvalue`). Its operands and results are exact, so uses and
/// escapes are exact; the interpreter refuses to execute it.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct OpaqueInst {
    /// The operation's name (for example `va_arg`).
    pub name: String,
    /// Result type (`void` if none).
    pub ty: Type,
    /// Operands, all treated as escaping uses.
    pub args: SmallVec<[Operand; 2]>,
    /// Free-form payload preserved for export, verbatim.
    pub payload: String,
}

/// What an instruction does. Result values live in [`InstData::results`](crate::ir::InstData::results); the variant
/// determines how many (see [`InstKind::result_types`]).
#[derive(Clone, PartialEq, Debug)]
pub enum InstKind {
    /// `vR = <op> ty lhs, rhs`: integer or float arithmetic; operands and result are `ty`.
    Binary {
        /// The operation.
        op: BinaryOp,
        /// Operand and result type.
        ty: Type,
        /// Left operand.
        lhs: Operand,
        /// Right operand.
        rhs: Operand,
    },
    /// `vR = fneg ty arg`.
    Unary {
        /// The operation.
        op: UnaryOp,
        /// Operand and result type.
        ty: Type,
        /// The operand.
        arg: Operand,
    },
    /// `vR = icmp pred ty lhs, rhs`: result `i1`; `ty` is an integer or `ptr`.
    Icmp {
        /// The predicate.
        pred: IntPredicate,
        /// Operand type.
        ty: Type,
        /// Left operand.
        lhs: Operand,
        /// Right operand.
        rhs: Operand,
    },
    /// `vR = fcmp pred ty lhs, rhs`: result `i1`.
    Fcmp {
        /// The predicate.
        pred: FloatPredicate,
        /// Operand type.
        ty: Type,
        /// Left operand.
        lhs: Operand,
        /// Right operand.
        rhs: Operand,
    },
    /// `vR = <op> from arg to to`.
    Cast {
        /// The conversion.
        op: CastOp,
        /// Source type.
        from: Type,
        /// Result type.
        to: Type,
        /// The operand.
        arg: Operand,
    },
    /// `vR = select ty cond, a, b`: `cond` is `i1`.
    Select {
        /// Type of both arms and the result.
        ty: Type,
        /// Condition (`i1`).
        cond: Operand,
        /// Result when `cond` is 1.
        if_true: Operand,
        /// Result when `cond` is 0.
        if_false: Operand,
    },
    /// `vR = alloca ty, size N, align A [, volatile]`: a stack slot of `size` bytes; result `ptr`.
    Alloca {
        /// The element type the front end declared (the slot may be larger: arrays, structs).
        ty: Type,
        /// Allocation size in bytes.
        size: u32,
        /// Alignment in bytes (a power of two).
        align: u32,
        /// C `volatile` local: never promoted.
        volatile: bool,
    },
    /// `vR = dyn_alloca ty, count x elem_size, align A`: a stack slot of `count * elem_size`
    /// bytes whose count is only known at run time (a C variable-length array); result
    /// `ptr`. Never promoted; freed when the function returns.
    DynAlloca {
        /// The element type the front end declared (`i8` for aggregates).
        ty: Type,
        /// Number of elements (an integer; read as unsigned, as LLVM reads an `alloca`
        /// count).
        count: Operand,
        /// Bytes per element.
        elem_size: u32,
        /// Alignment in bytes (a power of two).
        align: u32,
    },
    /// `vR = load ty, ptr [, volatile]`.
    Load {
        /// Loaded type.
        ty: Type,
        /// Address (`ptr`).
        ptr: Operand,
        /// Volatile access.
        volatile: bool,
    },
    /// `store ty value, ptr [, volatile]`.
    Store {
        /// Stored type.
        ty: Type,
        /// The stored value.
        value: Operand,
        /// Address (`ptr`).
        ptr: Operand,
        /// Volatile access.
        volatile: bool,
    },
    /// `vR = gep base, offset [, idx * scale]...`: `base + offset + Σ sext64(idx) * scale`
    /// in bytes, wrapping; result `ptr`.
    Gep {
        /// Base pointer.
        base: Operand,
        /// Constant byte offset.
        offset: i64,
        /// Scaled integer indices (sign-extended to 64 bits).
        indices: SmallVec<[(Operand, i64); 2]>,
    },
    /// `[vR =] call ret callee(args...)`.
    Call {
        /// Result type (`void` for none).
        ret: Type,
        /// Direct symbol or indirect pointer.
        callee: Callee,
        /// Arguments in order.
        args: SmallVec<[Operand; 4]>,
        /// For calls to variadic functions: the number of fixed parameters.
        fixed_args: Option<u32>,
    },
    /// Inline assembly; results are its `Result` outputs in order.
    InlineAsm(Box<InlineAsm>),
    /// `vR = atomicrmw op ty ptr, value, ordering`: result is the old value.
    AtomicRmw {
        /// The operation.
        op: AtomicOp,
        /// Memory and value type.
        ty: Type,
        /// Address.
        ptr: Operand,
        /// Operand value.
        value: Operand,
        /// Memory ordering.
        ordering: Ordering,
        /// `volatile` (LLVM's flag: the access is never removed or merged; our passes treat
        /// every atomic that way already, so only export and the text keep it).
        volatile: bool,
    },
    /// `vOld, vOk = cmpxchg ty ptr, expected, new, success, failure[, weak][, volatile]`.
    CmpXchg {
        /// Memory and value type.
        ty: Type,
        /// Address.
        ptr: Operand,
        /// Expected old value.
        expected: Operand,
        /// Value stored on success.
        new: Operand,
        /// Ordering on success.
        success: Ordering,
        /// Ordering on failure.
        failure: Ordering,
        /// `weak`: may fail spuriously even when the value matched (LLVM's flag; the
        /// interpreter and the lowering implement the strong form, a legal refinement).
        weak: bool,
        /// `volatile` (see [`InstKind::AtomicRmw`]).
        volatile: bool,
    },
    /// `fence ordering`.
    Fence {
        /// Memory ordering.
        ordering: Ordering,
    },
    /// `vR = phi ty [blockP: op]...`: one incoming entry per CFG edge from each predecessor
    /// (a predecessor with two edges to this block has two entries).
    Phi {
        /// Result type.
        ty: Type,
        /// Incoming (predecessor block, value) pairs.
        incoming: SmallVec<[(Block, Operand); 2]>,
    },
    /// `vR = copy ty src`.
    Copy {
        /// Result type.
        ty: Type,
        /// Source operand.
        src: Operand,
    },
    /// `vR = extractvalue ty agg, index`: member `index` of the aggregate `agg` of type `ty`.
    ExtractValue {
        /// The aggregate's type.
        ty: Type,
        /// The aggregate operand.
        agg: Operand,
        /// Member index.
        index: u32,
    },
    /// `vR = insertvalue ty agg, value, index`: the aggregate `agg` of type `ty` with member
    /// `index` replaced by `value`; result type `ty`.
    InsertValue {
        /// The aggregate's (and the result's) type.
        ty: Type,
        /// The aggregate operand.
        agg: Operand,
        /// The new member value.
        value: Operand,
        /// Member index.
        index: u32,
    },
    /// `vR = extractelement ty vec, ity index`: lane `index` of the vector `vec` of type
    /// `ty`; result the lane type. An index out of range gives poison (the interpreter
    /// reports it as an error).
    ExtractElement {
        /// The vector's type.
        ty: Type,
        /// The vector operand.
        vec: Operand,
        /// Lane index (any integer type, read as unsigned).
        index: Operand,
    },
    /// `vR = insertelement ty vec, T value, ity index`: the vector `vec` of type `ty` with
    /// lane `index` replaced by `value` (of the lane type); result type `ty`.
    InsertElement {
        /// The vector's (and the result's) type.
        ty: Type,
        /// The vector operand.
        vec: Operand,
        /// The new lane value.
        value: Operand,
        /// Lane index (any integer type, read as unsigned).
        index: Operand,
    },
    /// `vR = shufflevector ty a, b, mask`: the vector of `M` lanes whose lane `i` is lane
    /// `mask[i]` of the concatenation `a ++ b` (both of type `ty`, `N` lanes each), or undef
    /// where the mask lane is `undef`. `mask` is a constant `<M x i32>` of the pool (lanes
    /// in `0..2N` or `undef`); the result is `<M x lane(ty)>`, kept in `result`.
    ShuffleVector {
        /// Type of both inputs.
        ty: Type,
        /// Result type `<M x lane(ty)>`.
        result: Type,
        /// First input (lanes `0..N`).
        a: Operand,
        /// Second input (lanes `N..2N`).
        b: Operand,
        /// The mask: a `<M x i32>` constant (or `zeroinitializer`/`undef` of that type).
        mask: Const,
    },
    /// An imported operation carried through unchanged.
    Opaque(Box<OpaqueInst>),
}

impl InstKind {
    /// True if the instruction owns no heap memory: no `Box` (asm, opaque) and no spilled
    /// list (call arguments beyond 4, `gep` indices beyond 2, phi entries beyond 2). Such a
    /// value is plain data; [`InstKind::copy_from`] copies it as bytes.
    #[inline]
    pub fn owns_no_heap(&self) -> bool {
        match self {
            InstKind::Gep { indices, .. } => !indices.spilled(),
            InstKind::Call { args, .. } => !args.spilled(),
            InstKind::Phi { incoming, .. } => !incoming.spilled(),
            InstKind::InlineAsm(_) | InstKind::Opaque(_) => false,
            _ => true,
        }
    }

    /// `self.clone()`, as its 64 bytes when it owns no heap memory
    /// ([`InstKind::owns_no_heap`]): the derived `clone` matches on every variant and calls
    /// the lists' `clone`.
    #[inline]
    pub fn duplicate(&self) -> InstKind {
        if self.owns_no_heap() {
            // SAFETY: as in `copy_from`: a heap-free `InstKind` is plain data, so a bitwise
            // copy is an independent value equal to a clone.
            unsafe { std::ptr::read(self) }
        } else {
            self.clone()
        }
    }

    /// `*self = source.clone()`, keeping what can be kept: a `source` that owns no heap
    /// memory ([`InstKind::owns_no_heap`], nearly every instruction) is copied as its 64
    /// bytes, which costs about a fifth of the derived `clone_from` (a match, the lists'
    /// `extend`, the drop of `self`); the engine copies every instruction of a function into
    /// the World this way (`FunctionLoader::load_copies`).
    #[inline]
    pub fn copy_from(&mut self, source: &InstKind) {
        if source.owns_no_heap() {
            // SAFETY: every field of a heap-free `InstKind` is `Copy` data or an inline
            // (unspilled) `SmallVec` of `Copy` items, which owns nothing outside its own
            // bytes: a bitwise copy is an independent value equal to a clone (it is what a
            // move of `source` would write).
            let copy = unsafe { std::ptr::read(source) };
            if self.owns_no_heap() {
                // SAFETY: the old `*self` owns nothing either (same argument), so
                // overwriting it without running its drop leaks nothing; skipping the drop
                // (a match over every variant and the lists' spill tests, about forty
                // instructions) halves the cost of the copy.
                unsafe { std::ptr::write(self, copy) };
            } else {
                *self = copy;
            }
        } else {
            // A list that spilled to the heap: reuse `self`'s list when it is the same kind
            // (a pooled row or a reused output that held a large phi or call keeps its
            // allocation), instead of cloning and dropping the old value.
            match (self, source) {
                (
                    InstKind::Phi { ty, incoming },
                    InstKind::Phi {
                        ty: src_ty,
                        incoming: src,
                    },
                ) => {
                    *ty = *src_ty;
                    incoming.clone_from(src);
                }
                (
                    InstKind::Call {
                        ret,
                        callee,
                        args,
                        fixed_args,
                    },
                    InstKind::Call {
                        ret: src_ret,
                        callee: src_callee,
                        args: src_args,
                        fixed_args: src_fixed,
                    },
                ) => {
                    *ret = *src_ret;
                    *callee = *src_callee;
                    args.clone_from(src_args);
                    *fixed_args = *src_fixed;
                }
                (
                    InstKind::Gep {
                        base,
                        offset,
                        indices,
                    },
                    InstKind::Gep {
                        base: src_base,
                        offset: src_offset,
                        indices: src_indices,
                    },
                ) => {
                    *base = *src_base;
                    *offset = *src_offset;
                    indices.clone_from(src_indices);
                }
                (this, _) => *this = source.clone(),
            }
        }
    }
    /// The opcode name used in text.
    pub fn opcode_name(&self) -> &str {
        match self {
            InstKind::Binary { op, .. } => op.name(),
            InstKind::Unary { op, .. } => op.name(),
            InstKind::Icmp { .. } => "icmp",
            InstKind::Fcmp { .. } => "fcmp",
            InstKind::Cast { op, .. } => op.name(),
            InstKind::Select { .. } => "select",
            InstKind::Alloca { .. } => "alloca",
            InstKind::DynAlloca { .. } => "dyn_alloca",
            InstKind::Load { .. } => "load",
            InstKind::Store { .. } => "store",
            InstKind::Gep { .. } => "gep",
            InstKind::Call { .. } => "call",
            InstKind::InlineAsm(_) => "asm",
            InstKind::AtomicRmw { .. } => "atomicrmw",
            InstKind::CmpXchg { .. } => "cmpxchg",
            InstKind::Fence { .. } => "fence",
            InstKind::Phi { .. } => "phi",
            InstKind::Copy { .. } => "copy",
            InstKind::ExtractValue { .. } => "extractvalue",
            InstKind::InsertValue { .. } => "insertvalue",
            InstKind::ExtractElement { .. } => "extractelement",
            InstKind::InsertElement { .. } => "insertelement",
            InstKind::ShuffleVector { .. } => "shufflevector",
            InstKind::Opaque(o) => &o.name,
        }
    }

    /// The type of the instruction's result for the kinds that define at most one value:
    /// `Some(None)` for none, `Some(Some(t))` for one of type `t`; `None` for `asm` and
    /// `cmpxchg`, whose results [`InstKind::result_types`] lists. Builds no list (the
    /// verifier asks for every instruction).
    #[inline]
    pub fn single_result_type(&self) -> Option<Option<Type>> {
        let one = |t: Type| Some((t != Type::Void).then_some(t));
        match self {
            InstKind::Binary { ty, .. }
            | InstKind::Unary { ty, .. }
            | InstKind::Select { ty, .. }
            | InstKind::Load { ty, .. }
            | InstKind::AtomicRmw { ty, .. }
            | InstKind::Phi { ty, .. }
            | InstKind::Copy { ty, .. }
            | InstKind::InsertValue { ty, .. }
            | InstKind::InsertElement { ty, .. } => one(*ty),
            InstKind::ExtractValue { ty, index, .. } => {
                one(ty.member(*index as usize).map_or(Type::Void, |m| m.0))
            }
            InstKind::ExtractElement { ty, .. } => one(ty.lane()),
            InstKind::ShuffleVector { result, .. } => one(*result),
            // `i1`, or `<N x i1>` for a lane-wise comparison of `N`-lane vectors.
            InstKind::Icmp { ty, .. } | InstKind::Fcmp { ty, .. } => one(ty.with_lane(Type::I1)),
            InstKind::Cast { to, .. } => one(*to),
            InstKind::Alloca { .. } | InstKind::DynAlloca { .. } | InstKind::Gep { .. } => {
                one(Type::Ptr)
            }
            InstKind::Store { .. } | InstKind::Fence { .. } => Some(None),
            InstKind::Call { ret, .. } => one(*ret),
            InstKind::Opaque(o) => one(o.ty),
            InstKind::InlineAsm(_) | InstKind::CmpXchg { .. } => None,
        }
    }

    /// Types of the values this instruction defines, in order (empty if none).
    pub fn result_types(&self) -> SmallVec<[Type; 2]> {
        match (self.single_result_type(), self) {
            (Some(t), _) => t.into_iter().collect(),
            (None, InstKind::InlineAsm(asm)) => asm
                .outputs
                .iter()
                .filter(|o| o.place == AsmOutputPlace::Result)
                .map(|o| o.ty)
                .collect(),
            (None, InstKind::CmpXchg { ty, .. }) => smallvec::smallvec![*ty, Type::I1],
            (None, _) => SmallVec::new(),
        }
    }

    /// True if the instruction may read or write memory or have other side effects
    /// (stores, calls, asm, atomics, fences, volatile loads, opaque operations).
    pub fn has_side_effects(&self) -> bool {
        match self {
            InstKind::Store { .. }
            | InstKind::Call { .. }
            | InstKind::InlineAsm(_)
            | InstKind::AtomicRmw { .. }
            | InstKind::CmpXchg { .. }
            | InstKind::Fence { .. }
            | InstKind::DynAlloca { .. }
            | InstKind::Opaque(_) => true,
            InstKind::Load { volatile, .. } => *volatile,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, Operand, Value};
    use smallvec::smallvec;

    fn phi(n: u32) -> InstKind {
        InstKind::Phi {
            ty: Type::I32,
            incoming: (0..n)
                .map(|k| (Block(k), Operand::Value(Value(k))))
                .collect(),
        }
    }

    fn call(n: u32) -> InstKind {
        InstKind::Call {
            ret: Type::I64,
            callee: Callee::Indirect(Operand::Value(Value(99))),
            args: (0..n).map(|k| Operand::Value(Value(k))).collect(),
            fixed_args: Some(n / 2),
        }
    }

    fn gep(n: u32) -> InstKind {
        InstKind::Gep {
            base: Operand::Value(Value(7)),
            offset: 16,
            indices: (0..n).map(|k| (Operand::Value(Value(k)), 4)).collect(),
        }
    }

    /// `copy_from` and `duplicate` equal `clone` between every pair of heap-free and
    /// heap-owning kinds (inline and spilled lists, same and different variants), so the
    /// engine's pooled rows and reused outputs never keep stale parts.
    #[test]
    fn copies_equal_clones() {
        let kinds = [
            phi(1),
            phi(2),
            phi(3),
            phi(9),
            call(0),
            call(4),
            call(5),
            call(12),
            gep(1),
            gep(3),
            InstKind::Copy {
                ty: Type::I32,
                src: Operand::Value(Value(3)),
            },
            InstKind::Gep {
                base: Operand::Value(Value(1)),
                offset: 0,
                indices: smallvec![],
            },
        ];
        for dst in &kinds {
            assert_eq!(&dst.duplicate(), dst);
            for src in &kinds {
                let mut d = dst.clone();
                d.copy_from(src);
                assert_eq!(&d, src, "{dst:?} <- {src:?}");
            }
        }
    }
}
