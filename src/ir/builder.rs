//! The builder API: how a front end (or a test, or a generator) constructs functions.
//!
//! A [`FunctionBuilder`] appends instructions to a current block and returns the values they
//! define; constants are interned on the fly. It maintains every table invariant of
//! [`Function`] (results registered in the value table with their definitions, instruction
//! parent blocks), so a built function needs only the semantic checks of the verifier.
//!
//! ```
//! use strata::ir::*;
//! let mut b = FunctionBuilder::new("add1", Signature { params: vec![Type::I32], ret: Type::I32, varargs: false });
//! let x = b.param(0);
//! let one = b.iconst(Type::I32, 1);
//! let y = b.binary(BinaryOp::Add, Type::I32, x.into(), one);
//! b.ret(Some(y.into()));
//! let f = b.finish();
//! assert_eq!(f.live_inst_count(), 1);
//! ```

use super::*;
use smallvec::SmallVec;

/// Builds one [`Function`]; see the module doc.
pub struct FunctionBuilder {
    func: Function,
    current: Block,
}

impl FunctionBuilder {
    /// Starts a function with an empty entry block (`block0`) and one value per parameter.
    pub fn new(name: &str, signature: Signature) -> Self {
        let mut func = Function {
            name: name.to_string(),
            signature,
            ..Function::default()
        };
        for (i, &ty) in func.signature.params.iter().enumerate() {
            func.values.push(ValueData {
                ty,
                def: ValueDef::Param(i as u32),
            });
            func.param_values.push(Value::new(i));
        }
        func.blocks.push(BlockData::new());
        FunctionBuilder {
            func,
            current: Block(0),
        }
    }

    /// The value of parameter `i`. Panics if out of range.
    pub fn param(&self, i: usize) -> Value {
        self.func.param_values[i]
    }

    /// Sets the function's phase (default `Memory`).
    pub fn set_phase(&mut self, phase: Phase) {
        self.func.phase = phase;
    }

    /// Appends a new empty block ending in `unreachable` and returns it.
    pub fn create_block(&mut self) -> Block {
        self.func.blocks.push(BlockData::new());
        Block::new(self.func.blocks.len() - 1)
    }

    /// Makes `b` the block that instructions are appended to.
    pub fn switch_to(&mut self, b: Block) {
        self.current = b;
    }

    /// The block instructions are appended to.
    pub fn current_block(&self) -> Block {
        self.current
    }

    /// Interns a constant and returns it as an operand.
    pub fn constant(&mut self, c: ConstData) -> Operand {
        Operand::Const(self.func.consts.intern(c))
    }

    /// Integer constant of type `ty` (masked to its width; negative numbers wrap).
    pub fn iconst(&mut self, ty: Type, value: i128) -> Operand {
        self.constant(ConstData::int(ty, value as u128))
    }

    /// `f64` constant.
    pub fn f64const(&mut self, x: f64) -> Operand {
        self.constant(ConstData::f64(x))
    }

    /// Appends an instruction of any kind to the current block; returns its results.
    pub fn push(&mut self, kind: InstKind) -> SmallVec<[Value; 1]> {
        let inst = Inst::new(self.func.insts.len());
        let results: SmallVec<[Value; 1]> = match kind.single_result_type() {
            // Every instruction but asm and cmpxchg has at most one result: no list of types.
            Some(None) => SmallVec::new(),
            Some(Some(ty)) => {
                self.func.values.push(ValueData {
                    ty,
                    def: ValueDef::Result(inst, 0),
                });
                smallvec::smallvec![Value::new(self.func.values.len() - 1)]
            }
            None => kind
                .result_types()
                .iter()
                .enumerate()
                .map(|(n, &ty)| {
                    self.func.values.push(ValueData {
                        ty,
                        def: ValueDef::Result(inst, n as u32),
                    });
                    Value::new(self.func.values.len() - 1)
                })
                .collect(),
        };
        self.func.insts.push(InstData {
            kind,
            results: SmallVec::from_slice(&results),
            block: self.current,
        });
        self.func.blocks[self.current.index()].insts.push(inst);
        results
    }

    fn push_one(&mut self, kind: InstKind) -> Value {
        self.push(kind)[0]
    }

    /// `binary op ty lhs, rhs`.
    pub fn binary(&mut self, op: BinaryOp, ty: Type, lhs: Operand, rhs: Operand) -> Value {
        self.push_one(InstKind::Binary { op, ty, lhs, rhs })
    }

    /// `icmp pred ty lhs, rhs`.
    pub fn icmp(&mut self, pred: IntPredicate, ty: Type, lhs: Operand, rhs: Operand) -> Value {
        self.push_one(InstKind::Icmp { pred, ty, lhs, rhs })
    }

    /// `fcmp pred ty lhs, rhs`.
    pub fn fcmp(&mut self, pred: FloatPredicate, ty: Type, lhs: Operand, rhs: Operand) -> Value {
        self.push_one(InstKind::Fcmp { pred, ty, lhs, rhs })
    }

    /// A cast from `from` to `to`.
    pub fn cast(&mut self, op: CastOp, from: Type, to: Type, arg: Operand) -> Value {
        self.push_one(InstKind::Cast { op, from, to, arg })
    }

    /// `select ty cond, a, b`.
    pub fn select(
        &mut self,
        ty: Type,
        cond: Operand,
        if_true: Operand,
        if_false: Operand,
    ) -> Value {
        self.push_one(InstKind::Select {
            ty,
            cond,
            if_true,
            if_false,
        })
    }

    /// `alloca ty, size, align`.
    pub fn alloca(&mut self, ty: Type, size: u32, align: u32) -> Value {
        self.push_one(InstKind::Alloca {
            ty,
            size,
            align,
            volatile: false,
        })
    }

    /// `load ty ptr`.
    pub fn load(&mut self, ty: Type, ptr: Operand) -> Value {
        self.push_one(InstKind::Load {
            ty,
            ptr,
            volatile: false,
        })
    }

    /// `store ty value, ptr`.
    pub fn store(&mut self, ty: Type, value: Operand, ptr: Operand) {
        self.push(InstKind::Store {
            ty,
            value,
            ptr,
            volatile: false,
        });
    }

    /// `gep base, offset, indices...`.
    pub fn gep(&mut self, base: Operand, offset: i64, indices: &[(Operand, i64)]) -> Value {
        self.push_one(InstKind::Gep {
            base,
            offset,
            indices: indices.iter().copied().collect(),
        })
    }

    /// Direct call; returns the result value if `ret` is not `void`.
    pub fn call(&mut self, ret: Type, callee: Symbol, args: &[Operand]) -> Option<Value> {
        self.push(InstKind::Call {
            ret,
            callee: Callee::Direct(callee),
            args: args.iter().copied().collect(),
            fixed_args: None,
        })
        .first()
        .copied()
    }

    /// `phi ty [block: value]...`.
    pub fn phi(&mut self, ty: Type, incoming: &[(Block, Operand)]) -> Value {
        self.push_one(InstKind::Phi {
            ty,
            incoming: incoming.iter().copied().collect(),
        })
    }

    /// `copy ty src`.
    pub fn copy(&mut self, ty: Type, src: Operand) -> Value {
        self.push_one(InstKind::Copy { ty, src })
    }

    /// Sets the current block's terminator.
    pub fn terminate(&mut self, t: Terminator) {
        self.func.blocks[self.current.index()].terminator = t;
    }

    /// `jump dest`.
    pub fn jump(&mut self, dest: Block) {
        self.terminate(Terminator::Jump(Target::new(dest)));
    }

    /// `br cond, then_dest, else_dest`.
    pub fn br(&mut self, cond: Operand, then_dest: Block, else_dest: Block) {
        self.terminate(Terminator::Br {
            cond,
            then_dest: Target::new(then_dest),
            else_dest: Target::new(else_dest),
        });
    }

    /// `switch ty value, default, cases`.
    pub fn switch(&mut self, ty: Type, value: Operand, default: Block, cases: &[(u128, Block)]) {
        self.terminate(Terminator::Switch {
            ty,
            value,
            default: Target::new(default),
            cases: cases
                .iter()
                .map(|&(c, b)| (c & ty.mask(), Target::new(b)))
                .collect(),
        });
    }

    /// `ret [value]`.
    pub fn ret(&mut self, value: Option<Operand>) {
        self.terminate(Terminator::Ret(value));
    }

    /// Read access to the function under construction.
    pub fn function(&self) -> &Function {
        &self.func
    }

    /// Mutable access to the function under construction (for edits the builder lacks).
    pub fn function_mut(&mut self) -> &mut Function {
        &mut self.func
    }

    /// Finishes and returns the function.
    pub fn finish(self) -> Function {
        self.func
    }
}

/// Builds a [`Module`]: symbols first, then functions that may call each other.
#[derive(Default)]
pub struct ModuleBuilder {
    module: Module,
}

impl ModuleBuilder {
    /// An empty module.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares an external function; returns `None` if the name is taken.
    pub fn declare_extern(&mut self, name: &str, signature: Signature) -> Option<Symbol> {
        let idx = self.module.externs.len() as u32;
        let symbol = self.module.add_symbol(name, SymbolKind::Extern(idx))?;
        self.module.externs.push(ExternDecl { symbol, signature });
        Some(symbol)
    }

    /// Declares a function to be defined later with [`ModuleBuilder::define_function`];
    /// returns `None` if the name is taken.
    pub fn declare_function(&mut self, name: &str, signature: Signature) -> Option<Symbol> {
        let idx = self.module.functions.len() as u32;
        let symbol = self.module.add_symbol(name, SymbolKind::Function(idx))?;
        self.module.functions.push(Function {
            name: name.to_string(),
            signature,
            ..Function::default()
        });
        Some(symbol)
    }

    /// Supplies the body of a declared function (matched by name). Returns `false` if no
    /// function of that name was declared.
    /// Amortised O(1): the slot is found through the module's name index.
    pub fn define_function(&mut self, f: Function) -> bool {
        let Some(symbol) = self.module.symbol_by_name(&f.name) else {
            return false;
        };
        let SymbolKind::Function(i) = self.module.symbols[symbol.index()].kind else {
            return false;
        };
        match self.module.functions.get_mut(i as usize) {
            Some(slot) if slot.name == f.name => {
                *slot = f;
                true
            }
            _ => false,
        }
    }

    /// Adds a global; returns `None` if the name is taken.
    pub fn add_global(&mut self, name: &str, mut global: Global) -> Option<Symbol> {
        let idx = self.module.globals.len() as u32;
        let symbol = self.module.add_symbol(name, SymbolKind::Global(idx))?;
        global.symbol = symbol;
        self.module.globals.push(global);
        Some(symbol)
    }

    /// Finishes and returns the module.
    pub fn finish(self) -> Module {
        self.module
    }
}
