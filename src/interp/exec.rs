//! The execution engine: module set-up, frames, instructions, terminators and edges.
//!
//! Set-up ([`Interpreter::new`]) lays out every global in the globals arena (initial bytes,
//! then relocations patched with symbol addresses) into a memory image that each run clones,
//! and converts every function's constant pool to [`Val`]s once. Function and extern symbols
//! get addresses `FUNC_BASE + 16 * symbol` and blocks `BLOCK_BASE + (function << 32) +
//! block`; both ranges lie outside every memory arena, so they can be compared and passed
//! around but never loaded from.
//!
//! A run keeps an explicit stack of frames. A frame is (function, block, position in the
//! block, register file, allocas). The loop executes the instruction at the position, or the
//! terminator when the position reaches the end of the block. Calls of module functions push
//! a frame; `ret` pops it, frees its allocas and writes the result into the caller's result
//! value. Edges go through `enter` (in `control`), which reads branch arguments and head phis before
//! assigning any (parallel semantics). Invariant: a frame's block is live and in range (it
//! was checked when entered). Cost: O(1) per instruction (operands are dense indices; phis
//! cost O(incoming) on their edge), O(log regions) per memory access.

use super::aggregate::AggArena;
use super::memory::{Arena, Label, Memory};
use super::value::sext;
use super::{ops, Config, ConstError, InterpError, Location, Outcome, Val};
use crate::ir::*;
use smallvec::SmallVec;

/// Address of the symbol with index 0; symbol `s` is at `FUNC_BASE + 16 * s`.
pub(super) const FUNC_BASE: u64 = 0xF000_0000_0000;
/// Address of block 0 of function 0; `(f, b)` is at `BLOCK_BASE + (f << 32) + b`.
pub(super) const BLOCK_BASE: u64 = 0xB000_0000_0000_0000;

/// A program counter: enough to name the location of an error.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pc {
    pub func: u32,
    pub block: Block,
    pub inst: Option<Inst>,
}

pub(super) struct Frame {
    pub func: u32,
    pub block: Block,
    pub pos: usize,
    pub regs: Vec<Option<Val>>,
    pub allocas: Vec<u64>,
    /// The caller's value receiving this frame's result.
    pub ret_to: Option<Value>,
}

pub(super) enum Flow {
    Next,
    Call {
        func: u32,
        args: SmallVec<[Val; 4]>,
        ret_to: Option<Value>,
    },
    Exit(i32),
}

/// The interpreter of one module; see the module docs of [`crate::interp`] and this file.
pub struct Interpreter<'m> {
    pub(super) module: &'m Module,
    pub(super) config: Config,
    image: Result<Memory, InterpError>,
    /// Base address of `module.globals[i]` (0 if set-up failed before it).
    global_bases: Vec<u64>,
    /// Global bases in symbol order (the digest order).
    digest_order: Vec<u64>,
    /// `consts[f][c]`: constant `c` of function `f`, or the reason it has no value.
    consts: Vec<Vec<Result<Val, ConstError>>>,
    pub(super) mem: Memory,
    pub(super) output: Vec<u8>,
    /// Bytes written to standard error.
    pub(super) error_output: Vec<u8>,
    /// Where the image keeps the C library's state.
    pub(super) libc: super::libc::LibcImage,
    pub(super) trace: Vec<String>,
    /// Bytes held by `trace` (line lengths plus a `String` header each), counted against the
    /// memory limit.
    pub(super) trace_bytes: u64,
    steps: u64,
    pub(super) stack: Vec<Frame>,
    pool: Vec<Vec<Option<Val>>>,
    pub(super) scratch: Vec<Val>,
    /// Aggregate values (see [`super::aggregate`]).
    pub(super) aggs: AggArena,
}

impl<'m> Interpreter<'m> {
    /// Prepares `module` for execution: lays out globals and converts constants. Errors in
    /// global initialisers are reported by every [`Interpreter::call`].
    pub fn new(module: &'m Module, config: Config) -> Self {
        let mut global_bases = vec![0; module.globals.len()];
        let mut libc = super::libc::LibcImage::default();
        let image = Self::build_image(module, config, &mut global_bases, &mut libc);
        let digest_order = module
            .symbols
            .iter()
            .filter_map(|s| match s.kind {
                SymbolKind::Global(i) => global_bases.get(i as usize).copied(),
                _ => None,
            })
            .collect();
        let mut aggs = AggArena::default();
        let consts = module
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                let scalar = |c: Const| {
                    Val::from_const(
                        f.consts.get(c),
                        |s| symbol_addr(module, &global_bases, s),
                        |b| block_addr(f, fi, b),
                    )
                };
                (0..f.consts.len())
                    .map(|c| aggs.constant(&f.consts, Const::new(c), &scalar))
                    .collect()
            })
            .collect();
        aggs.seal();
        Interpreter {
            module,
            config,
            image,
            global_bases,
            digest_order,
            consts,
            mem: Memory::new(config.memory_limit),
            output: Vec::new(),
            error_output: Vec::new(),
            libc,
            trace: Vec::new(),
            trace_bytes: 0,
            steps: 0,
            stack: Vec::new(),
            pool: Vec::new(),
            scratch: Vec::new(),
            aggs,
        }
    }

    fn build_image(
        module: &Module,
        config: Config,
        bases: &mut [u64],
        libc: &mut super::libc::LibcImage,
    ) -> Result<Memory, InterpError> {
        let mut mem = Memory::new(config.memory_limit);
        let bad = |g: &Global, reason: String| InterpError::BadGlobal {
            name: module
                .symbols
                .get(g.symbol.index())
                .map_or_else(|| g.symbol.to_string(), |s| s.name.clone()),
            reason,
        };
        for (i, g) in module.globals.iter().enumerate() {
            let label = Label::Global(g.symbol);
            let base = mem
                .allocate(Arena::Global, g.size, g.align as u64, label, g.constant)
                .map_err(|f| bad(g, format!("cannot allocate {} bytes: {f:?}", g.size)))?;
            bases[i] = base;
            if let Some(init) = &g.init {
                if init.len() as u64 > g.size {
                    return Err(bad(
                        g,
                        format!("{} initial bytes exceed size {}", init.len(), g.size),
                    ));
                }
                mem.init_write(base, init)
                    .map_err(|f| bad(g, format!("initialiser: {f:?}")))?;
            }
        }
        for (i, g) in module.globals.iter().enumerate() {
            for r in &g.relocations {
                let value = relocation_value(module, bases, r)
                    .ok_or_else(|| bad(g, format!("relocation to unknown {}", r.symbol)))?;
                let in_range = r.offset.checked_add(r.bytes()).is_some_and(|e| e <= g.size);
                if !in_range {
                    return Err(bad(
                        g,
                        format!("relocation at offset {} out of range", r.offset),
                    ));
                }
                let bytes = value.to_le_bytes();
                mem.init_write(bases[i] + r.offset, &bytes[..r.bytes() as usize])
                    .map_err(|f| bad(g, format!("relocation: {f:?}")))?;
            }
        }
        *libc = super::libc::init_image(module, &mut mem, bases).map_err(|e| {
            InterpError::BadGlobal {
                reason: format!("C library state: {:?}", e.fault),
                name: e.name,
            }
        })?;
        Ok(mem)
    }

    /// Marks the globals named `names` as holding unknown contents: a read of one faults
    /// with [`InterpError::UnknownContents`] instead of seeing the zeros the module gives it.
    /// For the globals whose initialiser the LLVM importer could not evaluate
    /// (`LlvmContext::unevaluated`); a name that is not a global's is ignored.
    pub fn mark_unknown_globals(&mut self, names: &[String]) {
        let Ok(image) = &mut self.image else {
            return;
        };
        for (g, &base) in self.module.globals.iter().zip(&self.global_bases) {
            let name = self.module.symbol_name(g.symbol);
            if names.iter().any(|n| n == name) {
                image.mark_unknown(base);
            }
        }
    }

    /// Runs `function` on `args` from a fresh memory image and returns what it did.
    pub fn call(&mut self, function: &str, args: &[Val]) -> Result<Outcome, InterpError> {
        self.mem = self.image.clone()?;
        self.output.clear();
        self.error_output.clear();
        self.trace.clear();
        self.trace_bytes = 0;
        self.steps = 0;
        self.aggs.reset_run();
        while let Some(frame) = self.stack.pop() {
            self.recycle(frame);
        }
        let module = self.module;
        let unknown = || InterpError::UnknownFunction {
            name: function.to_string(),
            at: None,
        };
        let fi = module
            .functions
            .iter()
            .position(|f| f.name == function)
            .ok_or_else(unknown)?;
        if module.functions[fi].blocks.is_empty() {
            return Err(unknown());
        }
        let at = Location::function(function);
        self.check_args(fi as u32, args, at)?;
        self.push_frame(fi as u32, args.iter().copied().collect(), None)?;
        let (result, exit_code) = match self.run_loop()? {
            Ok(result) => (result, None),
            Err(code) => (None, Some(code)),
        };
        while let Some(frame) = self.stack.pop() {
            self.recycle(frame);
        }
        let mut result_members = Vec::new();
        let result = match result {
            Some(v) if v.ty().is_aggregate() || v.ty().is_vector() => {
                self.aggs.flatten(v, &mut result_members);
                None
            }
            r => r,
        };
        Ok(Outcome {
            result,
            result_members,
            output: std::mem::take(&mut self.output),
            error_output: std::mem::take(&mut self.error_output),
            exit_code,
            steps: self.steps,
            memory_digest: self.mem.digest(&self.digest_order),
            trace: std::mem::take(&mut self.trace),
        })
    }

    /// The address of a symbol, if it has one.
    pub fn symbol_address(&self, s: Symbol) -> Option<u64> {
        symbol_addr(self.module, &self.global_bases, s)
    }

    pub(super) fn loc(&self, pc: Pc) -> Location {
        let name = self
            .module
            .functions
            .get(pc.func as usize)
            .map_or("?", |f| f.name.as_str());
        Location {
            function: name.to_string(),
            block: Some(pc.block),
            inst: pc.inst,
        }
    }

    pub(super) fn malformed(&self, pc: Pc, reason: impl Into<String>) -> InterpError {
        InterpError::Malformed {
            reason: reason.into(),
            at: self.loc(pc),
        }
    }

    pub(super) fn mismatch(&self, pc: Pc, reason: String) -> InterpError {
        InterpError::TypeMismatch {
            reason,
            at: self.loc(pc),
        }
    }

    fn recycle(&mut self, mut frame: Frame) {
        for &a in &frame.allocas {
            let _ = self.mem.free(a, false);
        }
        frame.regs.clear();
        self.pool.push(frame.regs);
    }

    pub(super) fn check_args(
        &self,
        fi: u32,
        args: &[Val],
        at: Location,
    ) -> Result<(), InterpError> {
        let f = &self.module.functions[fi as usize];
        let sig = &f.signature;
        let n = sig.params.len();
        if args.len() < n || (args.len() > n && !sig.varargs) {
            return Err(InterpError::ArgCount {
                function: f.name.clone(),
                expected: n,
                got: args.len(),
                at,
            });
        }
        for (i, (a, &t)) in args.iter().zip(&sig.params).enumerate() {
            if a.ty() != t {
                return Err(InterpError::TypeMismatch {
                    reason: format!("argument {i} of @{} is {a}, expected {t}", f.name),
                    at,
                });
            }
        }
        Ok(())
    }

    pub(super) fn push_frame(
        &mut self,
        fi: u32,
        args: SmallVec<[Val; 4]>,
        ret_to: Option<Value>,
    ) -> Result<(), InterpError> {
        let module = self.module;
        let f = &module.functions[fi as usize];
        let entry_pc = Pc {
            func: fi,
            block: Block(0),
            inst: None,
        };
        if self.stack.len() >= self.config.call_depth_limit as usize {
            let at = match self.stack.last() {
                Some(caller) => self.loc(Pc {
                    func: caller.func,
                    block: caller.block,
                    inst: module.functions[caller.func as usize].blocks[caller.block.index()]
                        .insts
                        .get(caller.pos.wrapping_sub(1))
                        .copied(),
                }),
                None => Location::function(&f.name),
            };
            return Err(InterpError::CallDepth {
                at,
                limit: self.config.call_depth_limit,
            });
        }
        let mut regs = self.pool.pop().unwrap_or_default();
        regs.resize(f.values.len(), None);
        for (&p, a) in f.param_values.iter().zip(args) {
            match regs.get_mut(p.index()) {
                Some(slot) => *slot = Some(a),
                None => return Err(self.malformed(entry_pc, format!("parameter {p} out of range"))),
            }
        }
        self.stack.push(Frame {
            func: fi,
            block: Block(0),
            pos: 0,
            regs,
            allocas: Vec::new(),
            ret_to,
        });
        self.enter(entry_pc, None, Block(0), &[])
    }

    /// `Ok(Ok(result))` on return from the entry function, `Ok(Err(code))` on `exit`.
    fn run_loop(&mut self) -> Result<Result<Option<Val>, i32>, InterpError> {
        let module = self.module;
        loop {
            let Some(frame) = self.stack.last_mut() else {
                return Ok(Ok(None));
            };
            let fi = frame.func;
            let f = &module.functions[fi as usize];
            let block = frame.block;
            let bd = &f.blocks[block.index()];
            let mut pc = Pc {
                func: fi,
                block,
                inst: None,
            };
            if let Some(&inst) = bd.insts.get(frame.pos) {
                frame.pos += 1;
                pc.inst = Some(inst);
                self.tick(pc, 1)?;
                let data = f
                    .insts
                    .get(inst.index())
                    .ok_or_else(|| self.malformed(pc, "instruction out of range"))?;
                match self.exec_inst(pc, f, data)? {
                    Flow::Next => {}
                    Flow::Call { func, args, ret_to } => self.push_frame(func, args, ret_to)?,
                    Flow::Exit(code) => return Ok(Err(code)),
                }
                continue;
            }
            self.tick(pc, 1)?;
            let Some(ret) = self.exec_terminator(pc, f, &bd.terminator)? else {
                continue;
            };
            let Some(frame) = self.stack.pop() else {
                return Ok(Ok(ret));
            };
            let ret_to = frame.ret_to;
            self.recycle(frame);
            let Some(caller) = self.stack.last_mut() else {
                return Ok(Ok(ret));
            };
            if let (Some(v), Some(r)) = (ret_to, ret) {
                if let Some(slot) = caller.regs.get_mut(v.index()) {
                    *slot = Some(r);
                }
            }
        }
    }

    pub(super) fn tick(&mut self, pc: Pc, n: u64) -> Result<(), InterpError> {
        self.steps += n;
        if self.steps > self.config.step_limit {
            return Err(InterpError::StepLimit {
                at: self.loc(pc),
                limit: self.config.step_limit,
            });
        }
        Ok(())
    }

    pub(super) fn get(&self, pc: Pc, op: Operand) -> Result<Val, InterpError> {
        match op {
            Operand::Value(v) => {
                let frame = self.stack.last();
                match frame.and_then(|fr| fr.regs.get(v.index())) {
                    Some(Some(x)) => Ok(*x),
                    Some(None) => Err(InterpError::UndefinedValue {
                        at: self.loc(pc),
                        value: v,
                    }),
                    None => Err(self.malformed(pc, format!("value {v} out of range"))),
                }
            }
            Operand::Const(c) => match self.consts[pc.func as usize].get(c.index()) {
                Some(Ok(x)) => Ok(*x),
                Some(Err(e)) => Err(InterpError::BadConstant {
                    source: e.clone(),
                    at: self.loc(pc),
                }),
                None => Err(self.malformed(pc, format!("constant {c} out of range"))),
            },
        }
    }

    pub(super) fn get_typed(&self, pc: Pc, op: Operand, ty: Type) -> Result<Val, InterpError> {
        let v = self.get(pc, op)?;
        if v.ty() != ty {
            return Err(self.mismatch(pc, format!("expected {ty} operand, found {v}")));
        }
        Ok(v)
    }

    pub(super) fn get_ptr(&self, pc: Pc, op: Operand) -> Result<u64, InterpError> {
        Ok(self.get_typed(pc, op, Type::Ptr)?.as_u128() as u64)
    }

    pub(super) fn set(
        &mut self,
        pc: Pc,
        data: &InstData,
        n: usize,
        v: Val,
    ) -> Result<(), InterpError> {
        let Some(&r) = data.results.get(n) else {
            return Err(self.malformed(pc, format!("missing result {n}")));
        };
        let frame = self.stack.last_mut();
        match frame.and_then(|fr| fr.regs.get_mut(r.index())) {
            Some(slot) => {
                *slot = Some(v);
                Ok(())
            }
            None => Err(self.malformed(pc, format!("result {r} out of range"))),
        }
    }

    fn eval<T>(&self, pc: Pc, r: Result<T, ops::EvalError>) -> Result<T, InterpError> {
        r.map_err(|e| InterpError::from_eval(e, self.loc(pc)))
    }

    pub(super) fn fault<T>(&self, pc: Pc, r: Result<T, super::Fault>) -> Result<T, InterpError> {
        r.map_err(|e| InterpError::from_fault(e, self.loc(pc)))
    }

    pub(super) fn load(&self, pc: Pc, ty: Type, addr: u64) -> Result<Val, InterpError> {
        if !ty.is_value() {
            return Err(self.mismatch(pc, "load of void".into()));
        }
        let bytes = self.fault(pc, self.mem.read(addr, ty.bytes() as u64))?;
        Ok(Val::from_bytes(ty, bytes))
    }

    pub(super) fn store(&mut self, pc: Pc, v: Val, addr: u64) -> Result<(), InterpError> {
        let mut buf = [0u8; 16];
        let n = v.to_bytes(&mut buf);
        let r = self
            .mem
            .write(addr, n as u64)
            .map(|m| m.copy_from_slice(&buf[..n]));
        self.fault(pc, r)
    }

    fn exec_inst(&mut self, pc: Pc, f: &'m Function, data: &InstData) -> Result<Flow, InterpError> {
        let v = match &data.kind {
            kind @ (InstKind::Binary {
                ty: Type::Vec(_), ..
            }
            | InstKind::Unary {
                ty: Type::Vec(_), ..
            }
            | InstKind::Icmp {
                ty: Type::Vec(_), ..
            }
            | InstKind::Fcmp {
                ty: Type::Vec(_), ..
            }
            | InstKind::Cast {
                from: Type::Vec(_), ..
            }
            | InstKind::Cast {
                to: Type::Vec(_), ..
            }
            | InstKind::Select {
                ty: Type::Vec(_), ..
            }
            | InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }) => self.exec_vector(pc, f, kind)?,
            InstKind::Binary { op, ty, lhs, rhs } => {
                let (a, b) = (self.get(pc, *lhs)?, self.get(pc, *rhs)?);
                self.eval(pc, ops::binary(*op, *ty, a, b))?
            }
            InstKind::Unary { op, ty, arg } => {
                let a = self.get(pc, *arg)?;
                self.eval(pc, ops::unary(*op, *ty, a))?
            }
            InstKind::Icmp { pred, ty, lhs, rhs } => {
                let (a, b) = (self.get(pc, *lhs)?, self.get(pc, *rhs)?);
                Val::bool(self.eval(pc, ops::icmp(*pred, *ty, a, b))?)
            }
            InstKind::Fcmp { pred, ty, lhs, rhs } => {
                let (a, b) = (self.get(pc, *lhs)?, self.get(pc, *rhs)?);
                Val::bool(self.eval(pc, ops::fcmp(*pred, *ty, a, b))?)
            }
            InstKind::Cast { op, from, to, arg } => {
                let a = self.get(pc, *arg)?;
                self.eval(pc, ops::cast(*op, *from, *to, a))?
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                let c = self.get_typed(pc, *cond, Type::I1)?;
                let t = self.get_typed(pc, *if_true, *ty)?;
                let e = self.get_typed(pc, *if_false, *ty)?;
                if c.as_u128() != 0 {
                    t
                } else {
                    e
                }
            }
            InstKind::Copy { ty, src } => self.get_typed(pc, *src, *ty)?,
            InstKind::Alloca { size, align, .. } => {
                let label = Label::Stack {
                    func: pc.func,
                    inst: pc.inst.unwrap_or_default(),
                };
                let r = self
                    .mem
                    .allocate(Arena::Stack, *size as u64, *align as u64, label, false);
                let base = self.fault(pc, r)?;
                if let Some(frame) = self.stack.last_mut() {
                    frame.allocas.push(base);
                }
                Val::Ptr(base)
            }
            InstKind::DynAlloca {
                count,
                elem_size,
                align,
                ..
            } => {
                let n = self.get(pc, *count)?.as_u128();
                let bytes = n.saturating_mul(*elem_size as u128).min(u64::MAX as u128) as u64;
                let label = Label::Stack {
                    func: pc.func,
                    inst: pc.inst.unwrap_or_default(),
                };
                let r = self
                    .mem
                    .allocate(Arena::Stack, bytes, *align as u64, label, false);
                let base = self.fault(pc, r)?;
                if let Some(frame) = self.stack.last_mut() {
                    frame.allocas.push(base);
                }
                Val::Ptr(base)
            }
            InstKind::Load { ty, ptr, .. } => {
                let addr = self.get_ptr(pc, *ptr)?;
                if ty.is_aggregate() {
                    self.load_agg(pc, *ty, addr)?
                } else if ty.is_vector() {
                    self.load_vector(pc, *ty, addr)?
                } else {
                    self.load(pc, *ty, addr)?
                }
            }
            InstKind::Store { ty, value, ptr, .. } => {
                let v = self.get_typed(pc, *value, *ty)?;
                let addr = self.get_ptr(pc, *ptr)?;
                if ty.is_aggregate() {
                    self.store_agg(pc, v, addr)?;
                } else if ty.is_vector() {
                    self.store_vector(pc, v, addr)?;
                } else {
                    self.store(pc, v, addr)?;
                }
                return Ok(Flow::Next);
            }
            InstKind::ExtractValue { ty, agg, index } => {
                let a = self.get_typed(pc, *agg, *ty)?;
                self.extract(pc, a, *index)?
            }
            InstKind::InsertValue {
                ty,
                agg,
                value,
                index,
            } => {
                let a = self.get_typed(pc, *agg, *ty)?;
                let m = self.get(pc, *value)?;
                self.insert(pc, a, m, *index)?
            }
            InstKind::Gep {
                base,
                offset,
                indices,
            } => {
                let mut addr = self.get_ptr(pc, *base)?.wrapping_add(*offset as u64);
                for &(idx, scale) in indices {
                    let i = self.get(pc, idx)?;
                    if !i.ty().is_int() {
                        return Err(self.mismatch(pc, format!("gep index {i} is not an integer")));
                    }
                    let i64v = sext(i.as_u128(), i.ty().bits()) as u64;
                    addr = addr.wrapping_add(i64v.wrapping_mul(scale as u64));
                }
                Val::Ptr(addr)
            }
            InstKind::Call {
                ret, callee, args, ..
            } => return self.exec_call(pc, data, *ret, callee, args),
            InstKind::InlineAsm(_) => return Err(InterpError::UnsupportedAsm { at: self.loc(pc) }),
            InstKind::Opaque(o) => {
                return Err(InterpError::OpaqueInstruction {
                    name: o.name.clone(),
                    at: self.loc(pc),
                })
            }
            InstKind::AtomicRmw {
                op, ty, ptr, value, ..
            } => {
                let addr = self.get_ptr(pc, *ptr)?;
                let v = self.get(pc, *value)?;
                let old = self.load(pc, *ty, addr)?;
                let new = self.eval(pc, ops::atomic_rmw(*op, *ty, old, v))?;
                self.store(pc, new, addr)?;
                old
            }
            InstKind::CmpXchg {
                ty,
                ptr,
                expected,
                new,
                ..
            } => {
                let addr = self.get_ptr(pc, *ptr)?;
                let exp = self.get_typed(pc, *expected, *ty)?;
                let new = self.get_typed(pc, *new, *ty)?;
                let old = self.load(pc, *ty, addr)?;
                let ok = old == exp;
                if ok {
                    self.store(pc, new, addr)?;
                }
                self.set(pc, data, 1, Val::bool(ok))?;
                old
            }
            InstKind::Fence { .. } => return Ok(Flow::Next),
            InstKind::Phi { .. } => {
                return Err(self.malformed(pc, "phi after a non-phi instruction"))
            }
        };
        // Results must have the declared value types (catches ill-typed IR early).
        if let Some(r) = data.results.first() {
            let declared = f.values.get(r.index()).map_or(Type::Void, |d| d.ty);
            if declared != v.ty() {
                return Err(self.mismatch(
                    pc,
                    format!("result {r} is declared {declared}, computed {v}"),
                ));
            }
        }
        self.set(pc, data, 0, v)?;
        Ok(Flow::Next)
    }
}

/// Address of a module symbol: its global's base, or its function slot.
fn symbol_addr(module: &Module, global_bases: &[u64], s: Symbol) -> Option<u64> {
    match module.symbols.get(s.index())?.kind {
        SymbolKind::Global(i) => global_bases.get(i as usize).copied().filter(|&b| b != 0),
        SymbolKind::Function(_) | SymbolKind::Extern(_) => Some(FUNC_BASE + 16 * s.index() as u64),
    }
}

/// The value relocation `r` stores (before truncation to its width): a symbol's or a
/// block's address plus the addend, or for a relative one that minus the base's address.
/// `None` if a symbol or block does not exist.
fn relocation_value(module: &Module, global_bases: &[u64], r: &Relocation) -> Option<u64> {
    let target = match r.kind {
        RelocationKind::Address | RelocationKind::Relative { .. } => {
            symbol_addr(module, global_bases, r.symbol)?
        }
        RelocationKind::BlockAddress(b) => match module.symbols.get(r.symbol.index())?.kind {
            SymbolKind::Function(fi) => {
                block_addr(module.functions.get(fi as usize)?, fi as usize, b)?
            }
            _ => return None,
        },
    };
    let value = target.wrapping_add(r.addend as u64);
    match r.kind {
        RelocationKind::Relative { base, .. } => {
            Some(value.wrapping_sub(symbol_addr(module, global_bases, base)?))
        }
        _ => Some(value),
    }
}

/// Address of block `b` of function number `fi`, if it is a live block.
fn block_addr(f: &Function, fi: usize, b: Block) -> Option<u64> {
    f.blocks
        .get(b.index())
        .filter(|d| !d.dead)
        .map(|_| BLOCK_BASE + ((fi as u64) << 32) + b.0 as u64)
}
