//! Control flow: calls, terminators and edges.
//!
//! A call evaluates its callee (a direct symbol, or a pointer that must be a function
//! symbol's address, else `BadIndirectTarget`), checks the argument count and types against
//! the callee's signature and the call's result type against the callee's, then either asks
//! the run loop to push a frame (module functions) or runs a built-in external. A terminator
//! picks one target; `enter` takes the edge: it reads the branch arguments and, for every
//! phi at the head of the target, the first incoming entry naming the predecessor, all into
//! a scratch buffer, and only then assigns them (parallel semantics, so phis that swap each
//! other work). A missing block, a dead block, a parameter-count mismatch or a phi without
//! an entry for the edge is `Malformed`. Cost: O(args + phis at the head) per edge.

use super::exec::{Flow, Interpreter, Pc, BLOCK_BASE, FUNC_BASE};
use super::externals::ExtResult;
use super::{InterpError, Val};
use crate::ir::*;
use smallvec::SmallVec;

impl<'m> Interpreter<'m> {
    pub(super) fn exec_call(
        &mut self,
        pc: Pc,
        data: &InstData,
        ret: Type,
        callee: &Callee,
        args: &[Operand],
    ) -> Result<Flow, InterpError> {
        let module = self.module;
        let sym = match callee {
            Callee::Direct(s) => *s,
            Callee::Indirect(op) => {
                let addr = self.get_ptr(pc, *op)?;
                let idx = addr.wrapping_sub(FUNC_BASE);
                let ok = addr >= FUNC_BASE
                    && idx.is_multiple_of(16)
                    && ((idx / 16) as usize) < module.symbols.len();
                let s = Symbol((idx / 16) as u32);
                if !ok || matches!(module.symbols[s.index()].kind, SymbolKind::Global(_)) {
                    return Err(InterpError::BadIndirectTarget {
                        at: self.loc(pc),
                        addr,
                    });
                }
                s
            }
        };
        let Some(sd) = module.symbols.get(sym.index()) else {
            return Err(self.malformed(pc, format!("call of unknown {sym}")));
        };
        let mut vals: SmallVec<[Val; 4]> = SmallVec::new();
        for &a in args {
            vals.push(self.get(pc, a)?);
        }
        // Not `Module::signature`, which indexes without checking.
        let sig = match sd.kind {
            SymbolKind::Function(i) => module.functions.get(i as usize).map(|f| &f.signature),
            SymbolKind::Extern(i) => module.externs.get(i as usize).map(|e| &e.signature),
            SymbolKind::Global(_) => None,
        };
        let sig = match sig {
            Some(s) => s,
            None => return Err(self.malformed(pc, format!("call of global @{}", sd.name))),
        };
        if sig.ret != ret {
            return Err(self.mismatch(
                pc,
                format!("call expects {ret} but @{} returns {}", sd.name, sig.ret),
            ));
        }
        let ret_to = data.results.first().copied();
        match sd.kind {
            SymbolKind::Function(i) => {
                let Some(f) = module.functions.get(i as usize) else {
                    return Err(self.malformed(pc, format!("bad function index of @{}", sd.name)));
                };
                if f.blocks.is_empty() {
                    return Err(InterpError::UnknownFunction {
                        name: sd.name.clone(),
                        at: Some(self.loc(pc)),
                    });
                }
                self.check_args(i, &vals, self.loc(pc))?;
                Ok(Flow::Call {
                    func: i,
                    args: vals,
                    ret_to,
                })
            }
            SymbolKind::Extern(_) => {
                let n = sig.params.len();
                if vals.len() < n || (vals.len() > n && !sig.varargs) {
                    return Err(InterpError::ArgCount {
                        function: sd.name.clone(),
                        expected: n,
                        got: vals.len(),
                        at: self.loc(pc),
                    });
                }
                match self.call_external(pc, &sd.name, &vals, ret)? {
                    ExtResult::Exit(code) => Ok(Flow::Exit(code)),
                    ExtResult::Value(v) => {
                        match (v, ret_to) {
                            (Some(v), Some(_)) => self.set(pc, data, 0, v)?,
                            (None, None) => {}
                            _ => {
                                return Err(
                                    self.mismatch(pc, format!("@{} result does not fit", sd.name))
                                )
                            }
                        }
                        Ok(Flow::Next)
                    }
                }
            }
            SymbolKind::Global(_) => {
                Err(self.malformed(pc, format!("call of global @{}", sd.name)))
            }
        }
    }

    /// Executes a terminator: `Ok(None)` after a jump, `Ok(Some(result))` on `ret`.
    pub(super) fn exec_terminator(
        &mut self,
        pc: Pc,
        f: &'m Function,
        t: &'m Terminator,
    ) -> Result<Option<Option<Val>>, InterpError> {
        let target = match t {
            Terminator::Jump(t) => t,
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                if self.get_typed(pc, *cond, Type::I1)?.as_u128() != 0 {
                    then_dest
                } else {
                    else_dest
                }
            }
            Terminator::Switch {
                ty,
                value,
                default,
                cases,
            } => {
                let v = self.get_typed(pc, *value, *ty)?.as_u128();
                cases
                    .iter()
                    .find(|(c, _)| *c & ty.mask() == v)
                    .map_or(default, |(_, t)| t)
            }
            Terminator::IndirectBr { addr, dests } => {
                let a = self.get_ptr(pc, *addr)?;
                let rel = a.wrapping_sub(BLOCK_BASE);
                let b = Block((rel & 0xffff_ffff) as u32);
                if a < BLOCK_BASE || rel >> 32 != pc.func as u64 || !dests.contains(&b) {
                    return Err(InterpError::BadIndirectTarget {
                        at: self.loc(pc),
                        addr: a,
                    });
                }
                self.enter(pc, Some(pc.block), b, &[])?;
                return Ok(None);
            }
            Terminator::Ret(op) => {
                let want = f.signature.ret;
                let v = match op {
                    Some(op) => Some(self.get_typed(pc, *op, want)?),
                    None => None,
                };
                if v.is_none() && want != Type::Void {
                    return Err(self.mismatch(
                        pc,
                        format!("ret without value in a function returning {want}"),
                    ));
                }
                return Ok(Some(v));
            }
            Terminator::Unreachable => return Err(InterpError::Unreachable { at: self.loc(pc) }),
        };
        self.enter(pc, Some(pc.block), target.block, &target.args)?;
        Ok(None)
    }

    /// Takes the edge from `from` (`None`: function entry) to `target`: reads branch
    /// arguments and head phis, then assigns them all, then positions after the phis.
    pub(super) fn enter(
        &mut self,
        pc: Pc,
        from: Option<Block>,
        target: Block,
        args: &[Operand],
    ) -> Result<(), InterpError> {
        let f = &self.module.functions[pc.func as usize];
        let Some(bd) = f.blocks.get(target.index()).filter(|b| !b.dead) else {
            return Err(self.malformed(pc, format!("jump to dead or missing {target}")));
        };
        if bd.params.len() != args.len() {
            return Err(self.malformed(
                pc,
                format!(
                    "{target} has {} parameters, edge passes {}",
                    bd.params.len(),
                    args.len()
                ),
            ));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let result = self.read_edge(pc, f, bd, from, target, args, &mut scratch);
        let nphi = match result {
            Ok(n) => n,
            Err(e) => {
                self.scratch = scratch;
                return Err(e);
            }
        };
        let Some(frame) = self.stack.last_mut() else {
            self.scratch = scratch;
            return Err(self.malformed(pc, "edge taken outside a frame"));
        };
        let dests = bd
            .params
            .iter()
            .copied()
            .chain(bd.insts[..nphi].iter().filter_map(|&i| {
                f.insts
                    .get(i.index())
                    .and_then(|d| d.results.first().copied())
            }));
        for (d, &v) in dests.zip(scratch.iter()) {
            if let Some(slot) = frame.regs.get_mut(d.index()) {
                *slot = Some(v);
            }
        }
        frame.block = target;
        frame.pos = nphi;
        self.scratch = scratch;
        self.tick(pc, nphi as u64)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_edge(
        &self,
        pc: Pc,
        f: &Function,
        bd: &BlockData,
        from: Option<Block>,
        target: Block,
        args: &[Operand],
        out: &mut Vec<Val>,
    ) -> Result<usize, InterpError> {
        for (&a, &p) in args.iter().zip(&bd.params) {
            let want = f.values.get(p.index()).map_or(Type::Void, |d| d.ty);
            out.push(self.get_typed(pc, a, want)?);
            if f.values.get(p.index()).is_none() {
                return Err(self.malformed(pc, format!("block parameter {p} out of range")));
            }
        }
        let mut nphi = 0;
        for &i in &bd.insts {
            let Some(InstData {
                kind: InstKind::Phi { ty, incoming },
                results,
                ..
            }) = f.insts.get(i.index())
            else {
                break;
            };
            let phi_pc = Pc {
                func: pc.func,
                block: target,
                inst: Some(i),
            };
            let entry = from.and_then(|p| incoming.iter().find(|(b, _)| *b == p));
            let Some(&(_, op)) = entry else {
                let pred = from.map_or("function entry".to_string(), |b| b.to_string());
                return Err(self.malformed(phi_pc, format!("phi has no entry for {pred}")));
            };
            if results.len() != 1 || results[0].index() >= f.values.len() {
                return Err(self.malformed(phi_pc, "phi result out of range"));
            }
            // Operands are read in the predecessor's frame state, located at the phi.
            let v = self.get(phi_pc, op)?;
            if v.ty() != *ty {
                return Err(self.mismatch(phi_pc, format!("phi of {ty} receives {v}")));
            }
            out.push(v);
            nphi += 1;
        }
        Ok(nphi)
    }
}
