//! Functions and modules as plain, column-oriented data.
//!
//! A [`Function`] holds dense tables indexed by the typed handles: `blocks[Block]`,
//! `insts[Inst]`, `values[Value]` and the constant pool `consts[Const]`. It is what the
//! parsers and the builder produce, what the interpreter executes and what the printer
//! prints: the interchange form at the edges. Between load and take the engine holds the
//! same data as component columns (see [`super::body`]), one entity per block and per
//! instruction in index order.
//!
//! Layout: blocks are laid out in index order and block 0 is the entry block. A block lists
//! its instructions in order ([`BlockData::insts`]); an instruction not listed by any live
//! block is deleted. Holes are allowed in the tables (a dead block, an unused value index) so
//! that text names (`block7`, `v12`) map directly to indices and printing round-trips.
//!
//! [`IrRead`] is the read-only view that the verifier, the analyses and the printer are
//! written against; it is implemented by `Function` and by the engine's system parameter.

use super::{Block, Const, Inst, InstKind, Symbol, Terminator, Type, Value};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// IR phase of a function; each phase has its own verifier invariants (DESIGN.md 3.1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Default, serde::Serialize)]
pub enum Phase {
    /// Memory form: locals in `alloca`s; no phis.
    #[default]
    Memory,
    /// SSA form: phis allowed; every use dominated by its definition.
    Ssa,
    /// SSA after scalar optimisation (SCCP).
    Optimized,
    /// Blocks placed on execution targets.
    Placed,
    /// SSA left by phi elimination: no phis; a value may be defined by several `copy`
    /// instructions (one per predecessor edge), so uses are not checked for dominance.
    Destructed,
    /// Machine form (operands with constraints).
    Lowered,
    /// Registers assigned.
    Allocated,
}

impl Phase {
    /// Every phase in pipeline order.
    pub const ALL: [Phase; 7] = [
        Phase::Memory,
        Phase::Ssa,
        Phase::Optimized,
        Phase::Placed,
        Phase::Destructed,
        Phase::Lowered,
        Phase::Allocated,
    ];

    /// The keyword used in text (`memory`, `ssa`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Memory => "memory",
            Phase::Ssa => "ssa",
            Phase::Optimized => "optimized",
            Phase::Placed => "placed",
            Phase::Destructed => "destructed",
            Phase::Lowered => "lowered",
            Phase::Allocated => "allocated",
        }
    }

    /// Parses a phase keyword.
    pub fn from_name(s: &str) -> Option<Phase> {
        Phase::ALL.iter().copied().find(|p| p.name() == s)
    }

    /// True in the SSA phases, where phis are allowed (`Ssa` through `Placed`).
    pub fn is_ssa(self) -> bool {
        matches!(self, Phase::Ssa | Phase::Optimized | Phase::Placed)
    }

    /// True where every value has exactly one definition that dominates its uses (every
    /// phase before `Destructed`; memory form too, since only allocas are non-SSA there).
    pub fn single_definition(self) -> bool {
        self < Phase::Destructed
    }
}

/// The value of a constant. Integers are stored as their bit pattern zero-extended to 128
/// bits (so `i8 -1` is `0xff`); floats as their IEEE bit pattern (`f32` in the low 32 bits,
/// `f80` in the low 80).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ConstKind {
    /// Integer bit pattern, masked to the type's width.
    Int(u128),
    /// Float bit pattern (zero-extended).
    Float(u128),
    /// The null pointer.
    Null,
    /// An undefined value (any bit pattern may be observed; the interpreter uses zero).
    Undef,
    /// The address of a module symbol (global variable or function).
    SymbolAddr(Symbol),
    /// The address of a block of this function (for `indirect_br`).
    BlockAddr(Block),
    /// A struct, array or vector constant: its members (lanes) are the pool's member list
    /// with this index ([`ConstPool::members`]), one constant per member, in order.
    Aggregate(u32),
}

/// A typed constant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ConstData {
    /// Type of the constant.
    pub ty: Type,
    /// Its value.
    pub kind: ConstKind,
}

impl ConstData {
    /// Integer constant of type `ty`; `bits` is masked to the type's width.
    pub fn int(ty: Type, bits: u128) -> Self {
        ConstData {
            ty,
            kind: ConstKind::Int(bits & ty.mask()),
        }
    }

    /// `f64` constant.
    pub fn f64(x: f64) -> Self {
        ConstData {
            ty: Type::F64,
            kind: ConstKind::Float(x.to_bits() as u128),
        }
    }

    /// `f32` constant.
    pub fn f32(x: f32) -> Self {
        ConstData {
            ty: Type::F32,
            kind: ConstKind::Float(x.to_bits() as u128),
        }
    }

    /// The zero of a type (`0`, `0.0`, `null`; `undef`, which reads as zero, for an
    /// aggregate type: [`ConstPool::zero`] builds the member-by-member zero).
    pub fn zero(ty: Type) -> Self {
        match ty {
            Type::Agg(_) | Type::Vec(_) => ConstData {
                ty,
                kind: ConstKind::Undef,
            },
            Type::Ptr => ConstData {
                ty,
                kind: ConstKind::Null,
            },
            t if t.is_float() => ConstData {
                ty,
                kind: ConstKind::Float(0),
            },
            t => ConstData::int(t, 0),
        }
    }
}

/// A function's constant pool: interned, so equal constants share one [`Const`].
#[derive(Default, Debug, PartialEq, Eq, bevy_ecs::resource::Resource)]
pub struct ConstPool {
    data: Vec<ConstData>,
    /// Interning index (Fx hash: the keys are a few machine words, hashed on every
    /// constant the importer and the passes create).
    index: FxHashMap<ConstData, Const>,
    /// Member lists of aggregate constants, interned (so equal aggregates share a handle).
    members: Vec<Box<[Const]>>,
    members_index: FxHashMap<Box<[Const]>, u32>,
}

impl Clone for ConstPool {
    fn clone(&self) -> Self {
        ConstPool {
            data: self.data.clone(),
            index: self.index.clone(),
            members: self.members.clone(),
            members_index: self.members_index.clone(),
        }
    }

    /// Field by field, so the tables keep their allocations (the engine copies a pool
    /// into its World this way once per function: `FunctionLoader::load_copies`).
    fn clone_from(&mut self, source: &Self) {
        self.data.clone_from(&source.data);
        self.index.clone_from(&source.index);
        self.members.clone_from(&source.members);
        self.members_index.clone_from(&source.members_index);
    }
}

impl ConstPool {
    /// Interns `c`, returning its handle (the existing one if present).
    pub fn intern(&mut self, c: ConstData) -> Const {
        if let Some(&k) = self.index.get(&c) {
            return k;
        }
        let k = Const::new(self.data.len());
        self.data.push(c);
        self.index.insert(c, k);
        k
    }

    /// The constant behind a handle. Panics on a handle of another pool.
    pub fn get(&self, c: Const) -> ConstData {
        self.data[c.index()]
    }

    /// The constant behind a handle, or `None` if it is out of range.
    pub fn try_get(&self, c: Const) -> Option<ConstData> {
        self.data.get(c.index()).copied()
    }

    /// Every constant, indexed by handle (for scans of the whole pool).
    pub fn as_slice(&self) -> &[ConstData] {
        &self.data
    }

    /// Number of constants.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True if the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Removes every constant, keeping capacity.
    pub fn clear(&mut self) {
        self.data.clear();
        self.index.clear();
        self.members.clear();
        self.members_index.clear();
    }

    /// Interns the aggregate constant of type `ty` whose members are `members` (the caller
    /// ensures they match `ty`'s members; the verifier checks it).
    pub fn aggregate(&mut self, ty: Type, members: &[Const]) -> Const {
        let i = match self.members_index.get(members) {
            Some(&i) => i,
            None => {
                let i = self.members.len() as u32;
                self.members.push(members.into());
                self.members_index.insert(members.into(), i);
                i
            }
        };
        self.intern(ConstData {
            ty,
            kind: ConstKind::Aggregate(i),
        })
    }

    /// The members of an aggregate constant; `None` if `c` is not one (or out of range).
    pub fn members(&self, c: Const) -> Option<&[Const]> {
        match self.try_get(c)?.kind {
            ConstKind::Aggregate(i) => self.members.get(i as usize).map(|m| &**m),
            _ => None,
        }
    }

    /// The lanes of a `shufflevector` mask constant: an index per lane, `None` for an
    /// `undef` lane (a whole `undef` mask has `lanes` of them); `None` if `mask` is not a
    /// constant vector of integers below 2^32.
    pub fn mask_lanes(&self, mask: Const, lanes: u32) -> Option<Vec<Option<u32>>> {
        match self.try_get(mask)?.kind {
            ConstKind::Undef => Some(vec![None; lanes as usize]),
            ConstKind::Aggregate(_) => self
                .members(mask)?
                .iter()
                .map(|&l| match self.try_get(l)?.kind {
                    ConstKind::Undef => Some(None),
                    ConstKind::Int(k) => u32::try_from(k).ok().map(Some),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// The zero of any value type (`zeroinitializer` for aggregates and vectors: every
    /// member or lane zero).
    pub fn zero(&mut self, ty: Type) -> Const {
        if let Some((n, lane)) = ty.vector_shape() {
            let z = self.intern(ConstData::zero(lane));
            return self.aggregate(ty, &vec![z; n as usize]);
        }
        match ty.agg_info() {
            None => self.intern(ConstData::zero(ty)),
            Some(info) => {
                let members: Vec<Const> = (0..info.len())
                    .map(|i| {
                        let m = info.member(i).unwrap_or(Type::I8);
                        self.zero(m)
                    })
                    .collect();
                self.aggregate(ty, &members)
            }
        }
    }
}

/// Where a value is defined.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum ValueDef {
    /// Function parameter `n`.
    Param(u32),
    /// Result `n` of an instruction.
    Result(Inst, u32),
    /// Parameter `n` of a block (block-parameter form).
    BlockParam(Block, u32),
    /// An index with no definition (a hole left by text names or deleted instructions).
    #[default]
    Unused,
}

/// Type and definition of a value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ValueData {
    /// The value's type (never `void` for a used value).
    pub ty: Type,
    /// Its definition.
    pub def: ValueDef,
}

/// A basic block: its instructions in order, its parameters (block-parameter form) and its
/// terminator. Also the block entity's component in the World.
#[derive(Clone, PartialEq, Debug)]
pub struct BlockData {
    /// Instructions in execution order.
    pub insts: Vec<Inst>,
    /// Block parameters (empty before the block-parameter form).
    pub params: SmallVec<[Value; 2]>,
    /// The terminator.
    pub terminator: Terminator,
    /// A hole in the block table (never reached, never printed).
    pub dead: bool,
}

impl BlockData {
    /// An empty live block ending in `unreachable`.
    pub fn new() -> Self {
        BlockData {
            insts: Vec::new(),
            params: SmallVec::new(),
            terminator: Terminator::Unreachable,
            dead: false,
        }
    }

    /// A dead placeholder block.
    pub fn dead() -> Self {
        BlockData {
            dead: true,
            ..BlockData::new()
        }
    }
}

impl Default for BlockData {
    fn default() -> Self {
        BlockData::new()
    }
}

/// An instruction and the values it defines. Also the instruction entity's component.
#[derive(Clone, PartialEq, Debug)]
pub struct InstData {
    /// What the instruction does.
    pub kind: InstKind,
    /// Values defined, one per entry of [`InstKind::result_types`].
    pub results: SmallVec<[Value; 1]>,
    /// The block that lists this instruction (meaningless once deleted).
    pub block: Block,
}

impl InstData {
    /// The single result, if the instruction has exactly one.
    pub fn result(&self) -> Option<Value> {
        match self.results.as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }
}

/// Linkage of a module symbol.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Linkage {
    /// Visible outside the module.
    #[default]
    External,
    /// Private to the module.
    Internal,
}

/// Signature of a function or external declaration.
#[derive(PartialEq, Eq, Hash, Debug, Default)]
pub struct Signature {
    /// Parameter types.
    pub params: Vec<Type>,
    /// Result type (`void` for none).
    pub ret: Type,
    /// Accepts extra arguments after `params` (C `...`).
    pub varargs: bool,
}

impl Clone for Signature {
    fn clone(&self) -> Self {
        Signature {
            params: self.params.clone(),
            ret: self.ret,
            varargs: self.varargs,
        }
    }

    /// Field by field, so the parameter list keeps its allocation (the engine copies a
    /// signature into and out of its World once per function).
    fn clone_from(&mut self, source: &Self) {
        self.params.clone_from(&source.params);
        self.ret = source.ret;
        self.varargs = source.varargs;
    }
}

/// A function body with its dense tables (see the module doc).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Function {
    /// Name without the `@`.
    pub name: String,
    /// Linkage.
    pub linkage: Linkage,
    /// Signature; `params[i]` is the type of `param_values[i]`.
    pub signature: Signature,
    /// The values of the parameters, in order.
    pub param_values: Vec<Value>,
    /// Blocks; `blocks[0]` is the entry block.
    pub blocks: Vec<BlockData>,
    /// Instructions (deleted ones included).
    pub insts: Vec<InstData>,
    /// Values.
    pub values: Vec<ValueData>,
    /// Constants.
    pub consts: ConstPool,
    /// IR phase.
    pub phase: Phase,
}

/// What a module-level symbol names.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SymbolKind {
    /// `module.globals[i]`.
    Global(u32),
    /// `module.functions[i]`.
    Function(u32),
    /// `module.externs[i]`.
    Extern(u32),
}

/// A module-level name.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SymbolData {
    /// Name without the `@`.
    pub name: String,
    /// What it names.
    pub kind: SymbolKind,
}

/// An address stored in a global's initial bytes at `offset`: `address(symbol) + addend`,
/// as [`RelocationKind`] says (a plain pointer, a block's address, or a difference of two
/// addresses as LLVM's relative lookup tables store it).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Relocation {
    /// Byte offset in the global.
    pub offset: u64,
    /// The symbol whose address is stored (for [`RelocationKind::BlockAddress`], the
    /// function whose block it is).
    pub symbol: Symbol,
    /// Added to the address.
    pub addend: i64,
    /// What is stored and how wide it is.
    pub kind: RelocationKind,
}

impl Relocation {
    /// An 8-byte pointer `address(symbol) + addend` at `offset` (the common kind).
    pub fn address(offset: u64, symbol: Symbol, addend: i64) -> Self {
        Relocation {
            offset,
            symbol,
            addend,
            kind: RelocationKind::Address,
        }
    }

    /// Bytes of the global the relocation writes.
    pub fn bytes(&self) -> u64 {
        self.kind.bytes()
    }
}

/// What a [`Relocation`] stores.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum RelocationKind {
    /// An 8-byte pointer: `address(symbol) + addend`.
    #[default]
    Address,
    /// An 8-byte pointer to a block of function `symbol` (LLVM's `blockaddress(@f, %b)`,
    /// the tables of computed `goto`), plus the addend.
    BlockAddress(Block),
    /// `address(symbol) + addend - address(base)`, truncated to its low `bytes` bytes
    /// (1 to 8): the `trunc (sub (ptrtoint @target, ptrtoint @table))` entries of the
    /// relative lookup tables clang `-O2` makes from `switch` tables of pointers, read by
    /// `llvm.load.relative`.
    Relative {
        /// The symbol whose address is subtracted.
        base: Symbol,
        /// Width in bytes.
        bytes: u8,
    },
}

impl RelocationKind {
    /// Bytes of the global the relocation writes.
    pub fn bytes(&self) -> u64 {
        match self {
            RelocationKind::Address | RelocationKind::BlockAddress(_) => 8,
            RelocationKind::Relative { bytes, .. } => *bytes as u64,
        }
    }
}

/// A global variable.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Global {
    /// Its symbol.
    pub symbol: Symbol,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u32,
    /// Read-only, with the initial contents for every reader of the module (the LLVM
    /// importer leaves it false for `weak`, `linkonce` and `common` definitions, which the
    /// linker may replace).
    pub constant: bool,
    /// Linkage.
    pub linkage: Linkage,
    /// Initial bytes (shorter than `size`: the rest is zero). `None` for an external global
    /// defined elsewhere.
    pub init: Option<Vec<u8>>,
    /// Pointers in the initial contents.
    pub relocations: Vec<Relocation>,
}

/// A function declared but not defined in the module.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ExternDecl {
    /// Its symbol.
    pub symbol: Symbol,
    /// Its signature.
    pub signature: Signature,
}

/// A translation unit: symbols, globals, external declarations and functions.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    /// Every symbol; names are unique.
    pub symbols: Vec<SymbolData>,
    /// Global variables.
    pub globals: Vec<Global>,
    /// External declarations.
    pub externs: Vec<ExternDecl>,
    /// Defined functions.
    pub functions: Vec<Function>,
    /// `symbols` by name, for [`Module::symbol_by_name`] (a cache; see [`super::names`]).
    pub(crate) names: super::names::NameIndex,
}

impl Module {
    /// The symbol with this name (amortised O(1): a hash map over `symbols`).
    pub fn symbol_by_name(&self, name: &str) -> Option<Symbol> {
        self.names.lookup(&self.symbols, name).map(Symbol::new)
    }

    /// The name of a symbol.
    pub fn symbol_name(&self, s: Symbol) -> &str {
        &self.symbols[s.index()].name
    }

    /// Adds a symbol; returns `None` if the name is taken.
    pub fn add_symbol(&mut self, name: &str, kind: SymbolKind) -> Option<Symbol> {
        if self.symbol_by_name(name).is_some() {
            return None;
        }
        self.symbols.push(SymbolData {
            name: name.to_string(),
            kind,
        });
        Some(Symbol::new(self.symbols.len() - 1))
    }

    /// The signature of a function or external symbol (`None` for globals).
    pub fn signature(&self, s: Symbol) -> Option<&Signature> {
        match self.symbols.get(s.index())?.kind {
            SymbolKind::Function(i) => self.functions.get(i as usize).map(|f| &f.signature),
            SymbolKind::Extern(i) => self.externs.get(i as usize).map(|e| &e.signature),
            SymbolKind::Global(_) => None,
        }
    }

    /// The defined function with this name (by the symbol's index when `functions` is in
    /// symbol order, else by a scan).
    pub fn function(&self, name: &str) -> Option<&Function> {
        if let Some(SymbolKind::Function(i)) = self
            .symbol_by_name(name)
            .map(|s| self.symbols[s.index()].kind)
        {
            if let Some(f) = self.functions.get(i as usize).filter(|f| f.name == name) {
                return Some(f);
            }
        }
        self.functions.iter().find(|f| f.name == name)
    }

    /// Names and signatures of every symbol, and the read-only globals, for the engine,
    /// the passes and the printer.
    pub fn symbol_table(&self) -> SymbolTable {
        let mut read_only = vec![None; self.symbols.len()];
        let mut global_bytes = vec![0; self.symbols.len()];
        for g in &self.globals {
            if let Some(slot) = global_bytes.get_mut(g.symbol.index()) {
                *slot = g.size;
            }
            if g.constant && g.init.is_some() {
                if let Some(slot) = read_only.get_mut(g.symbol.index()) {
                    *slot = Some(g.clone());
                }
            }
        }
        SymbolTable {
            names: self.symbols.iter().map(|s| s.name.clone()).collect(),
            signatures: (0..self.symbols.len())
                .map(|i| self.signature(Symbol::new(i)).cloned())
                .collect(),
            read_only,
            global_bytes,
        }
    }
}

/// Module symbol names and signatures, and the contents of read-only globals, shared
/// read-only with the World while a function of the module is in it.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct SymbolTable {
    /// `names[Symbol]`.
    pub names: Vec<String>,
    /// `signatures[Symbol]` (`None` for globals).
    pub signatures: Vec<Option<Signature>>,
    /// `read_only[Symbol]`: the global, if it is `constant` with an initialiser (its
    /// contents are then the same for every reader of the module: the LLVM importer clears
    /// `constant` on interposable definitions). SCCP folds loads from these.
    pub read_only: Vec<Option<Global>>,
    /// `global_bytes[Symbol]`: the size in bytes of a global (defined or external), 0 for
    /// functions and unknown symbols. Placement's size estimation reads it (the IR keeps no
    /// type for a global).
    pub global_bytes: Vec<u64>,
}

impl SymbolTable {
    /// The read-only global `s` names (see [`SymbolTable::read_only`]).
    pub fn read_only(&self, s: Symbol) -> Option<&Global> {
        self.read_only.get(s.index())?.as_ref()
    }

    /// The name of a symbol, or `"?symN"` for an unknown one.
    pub fn name(&self, s: Symbol) -> std::borrow::Cow<'_, str> {
        match self.names.get(s.index()) {
            Some(n) => std::borrow::Cow::Borrowed(n),
            None => std::borrow::Cow::Owned(format!("?{s}")),
        }
    }
}

/// Read-only view of one function, implemented by [`Function`] and by the column views
/// [`super::Body`] and [`super::BodyRef`], so that the verifier, analyses and printer serve
/// both.
pub trait IrRead {
    /// Function name.
    fn name(&self) -> &str;
    /// Linkage.
    fn linkage(&self) -> Linkage;
    /// Signature.
    fn signature(&self) -> &Signature;
    /// Parameter values.
    fn param_values(&self) -> &[Value];
    /// IR phase.
    fn phase(&self) -> Phase;
    /// Number of block indices (dead holes included).
    fn num_blocks(&self) -> usize;
    /// The instructions of block `b` in order. Panics if out of range.
    fn block_insts(&self, b: Block) -> &[Inst];
    /// The parameters of block `b`. Panics if out of range.
    fn block_params(&self, b: Block) -> &[Value];
    /// The terminator of block `b`. Panics if out of range.
    fn terminator(&self, b: Block) -> &Terminator;
    /// True if `b` is a hole in the block table. Panics if out of range.
    fn is_block_dead(&self, b: Block) -> bool;
    /// Number of instruction indices.
    fn num_insts(&self) -> usize;
    /// The operation of instruction `i`. Panics if out of range.
    fn inst_kind(&self, i: Inst) -> &InstKind;
    /// The values instruction `i` defines. Panics if out of range.
    fn inst_results(&self, i: Inst) -> &[Value];
    /// The block listing instruction `i`. Panics if out of range.
    fn inst_block(&self, i: Inst) -> Block;
    /// The value table.
    fn values(&self) -> &[ValueData];
    /// The constant pool.
    fn consts(&self) -> &ConstPool;

    /// Type of an operand; `Void` for an out-of-range handle.
    fn operand_type(&self, op: super::Operand) -> Type {
        match op {
            super::Operand::Value(v) => self.values().get(v.index()).map_or(Type::Void, |d| d.ty),
            super::Operand::Const(c) => self.consts().try_get(c).map_or(Type::Void, |d| d.ty),
        }
    }

    /// The single result of `i`, if it has exactly one.
    fn inst_result(&self, i: Inst) -> Option<Value> {
        match self.inst_results(i) {
            [v] => Some(*v),
            _ => None,
        }
    }

    /// Row view of instruction `i` (its columns together). Panics if out of range.
    fn inst(&self, i: Inst) -> InstRef<'_> {
        InstRef {
            kind: self.inst_kind(i),
            results: self.inst_results(i),
            block: self.inst_block(i),
        }
    }

    /// Row view of block `b` (its columns together). Panics if out of range.
    fn block(&self, b: Block) -> BlockRef<'_> {
        BlockRef {
            insts: self.block_insts(b),
            params: self.block_params(b),
            terminator: self.terminator(b),
            dead: self.is_block_dead(b),
        }
    }

    /// Row views of every block index in order, dead holes included.
    fn blocks(&self) -> impl Iterator<Item = BlockRef<'_>> {
        (0..self.num_blocks()).map(move |b| self.block(Block::new(b)))
    }
}

/// One instruction's columns together (see [`IrRead::inst`]).
#[derive(Clone, Copy, Debug)]
pub struct InstRef<'a> {
    /// Operation and operands.
    pub kind: &'a InstKind,
    /// Values defined.
    pub results: &'a [Value],
    /// The block listing it.
    pub block: Block,
}

impl InstRef<'_> {
    /// The single result, if there is exactly one.
    pub fn result(&self) -> Option<Value> {
        match self.results {
            [v] => Some(*v),
            _ => None,
        }
    }
}

/// One block's columns together (see [`IrRead::block`]).
#[derive(Clone, Copy, Debug)]
pub struct BlockRef<'a> {
    /// Instructions in order.
    pub insts: &'a [Inst],
    /// Block parameters.
    pub params: &'a [Value],
    /// Terminator.
    pub terminator: &'a Terminator,
    /// A hole in the block table.
    pub dead: bool,
}

impl IrRead for Function {
    fn name(&self) -> &str {
        &self.name
    }
    fn linkage(&self) -> Linkage {
        self.linkage
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn param_values(&self) -> &[Value] {
        &self.param_values
    }
    fn phase(&self) -> Phase {
        self.phase
    }
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn block_insts(&self, b: Block) -> &[Inst] {
        &self.blocks[b.index()].insts
    }
    fn block_params(&self, b: Block) -> &[Value] {
        &self.blocks[b.index()].params
    }
    fn terminator(&self, b: Block) -> &Terminator {
        &self.blocks[b.index()].terminator
    }
    fn is_block_dead(&self, b: Block) -> bool {
        self.blocks[b.index()].dead
    }
    fn num_insts(&self) -> usize {
        self.insts.len()
    }
    fn inst_kind(&self, i: Inst) -> &InstKind {
        &self.insts[i.index()].kind
    }
    fn inst_results(&self, i: Inst) -> &[Value] {
        &self.insts[i.index()].results
    }
    fn inst_block(&self, i: Inst) -> Block {
        self.insts[i.index()].block
    }
    fn values(&self) -> &[ValueData] {
        &self.values
    }
    fn consts(&self) -> &ConstPool {
        &self.consts
    }
}

impl Function {
    /// Number of instructions listed by live blocks (the function's size).
    pub fn live_inst_count(&self) -> usize {
        self.blocks
            .iter()
            .filter(|b| !b.dead)
            .map(|b| b.insts.len())
            .sum()
    }

    /// Number of live blocks.
    pub fn live_block_count(&self) -> usize {
        self.blocks.iter().filter(|b| !b.dead).count()
    }
}
