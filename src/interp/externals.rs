//! Built-in external functions and the external-call trace.
//!
//! The set (matched by exact name, LLVM intrinsics by prefix): `putchar`, `puts`, `printf`,
//! `write`, `malloc`, `calloc`, `realloc`, `free`, `memcpy`, `memmove`, `memset`, `memcmp`,
//! `strlen`, `strcmp`, `strcpy`, `abs`, `labs`, `llabs`, `exit`, `abort`, and
//! `llvm.memcpy.*`, `llvm.memmove.*`, `llvm.memset.*` (the trailing `isvolatile` argument is
//! ignored), `llvm.lifetime.*` (no-ops), `llvm.fmuladd.*` (multiply, then add: two
//! roundings). Anything else is
//! [`InterpError::UnsupportedExternal`].
//!
//! Semantics worth knowing: integer arguments are read at whatever integer width the call
//! passes them; results are produced at the call's result type. `memcpy` with overlapping
//! ranges behaves like `memmove`. `memcmp`/`strcmp` return the difference of the first
//! differing bytes (as glibc does). `malloc(0)` returns a unique non-null pointer;
//! `realloc(p, 0)` frees `p` and returns null; `calloc` whose size overflows returns null.
//! `free(null)` does nothing; freeing anything but a live heap block is an error. `write` to
//! fds 1 and 2 appends to the output. `abs(INT_MIN)` is a signed-overflow error.
//!
//! Trace (when [`Config::record_trace`](super::Config), bounded by the memory limit): every
//! call appends `name(arg, ...) -> result`, pointers named by region
//! (`@global+off`, `heap#N+off` in allocation order, `stack:@f.instK+off` by alloca
//! instruction, `@f` for functions, `blockaddress(@f, blockN)`, `null`), so traces compare
//! equal between runs whose stack layouts differ. Cost: O(bytes touched) per call.

use super::exec::{Interpreter, Pc, BLOCK_BASE, FUNC_BASE};
use super::memory::{Arena, Label};
use super::printf::{format_printf, PrintfError};
use super::{InterpError, Val};
use crate::ir::{Block, Type};
use std::fmt::Write;

/// What an external call did.
pub(super) enum ExtResult {
    /// Returned (a value unless the call's type is `void`).
    Value(Option<Val>),
    /// Called `exit(code)`.
    Exit(i32),
}

impl Interpreter<'_> {
    /// Executes the built-in `name` on `args`, producing a result of type `ret`.
    pub(super) fn call_external(
        &mut self,
        pc: Pc,
        name: &str,
        args: &[Val],
        ret: Type,
    ) -> Result<ExtResult, InterpError> {
        let r = self.external(pc, name, args, ret)?;
        if !self.config.record_trace {
            return Ok(r);
        }
        let mut line = format!("{name}(");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                line.push_str(", ");
            }
            line.push_str(&self.describe_val(*a));
        }
        line.push(')');
        if let ExtResult::Value(Some(v)) = r {
            let _ = write!(line, " -> {}", self.describe_val(v));
        }
        // The trace is memory the run holds: bounded by the memory limit like the program's.
        self.trace_bytes += line.len() as u64 + std::mem::size_of::<String>() as u64;
        if self.trace_bytes > self.config.memory_limit {
            return Err(InterpError::MemoryLimit {
                at: self.loc(pc),
                requested: self.trace_bytes,
            });
        }
        self.trace.push(line);
        Ok(r)
    }

    fn external(
        &mut self,
        pc: Pc,
        name: &str,
        args: &[Val],
        ret: Type,
    ) -> Result<ExtResult, InterpError> {
        let err = |s: &Self, reason: String| InterpError::ExternalError {
            name: name.to_string(),
            reason,
            at: s.loc(pc),
        };
        let ptr = |s: &Self, i: usize| -> Result<u64, InterpError> {
            match args.get(i) {
                Some(Val::Ptr(a)) => Ok(*a),
                Some(v) => Err(err(s, format!("argument {i} is {v}, expected ptr"))),
                None => Err(err(s, format!("missing argument {i}"))),
            }
        };
        let int = |s: &Self, i: usize| -> Result<Val, InterpError> {
            match args.get(i) {
                Some(v @ Val::Int { .. }) => Ok(*v),
                Some(v) => Err(err(s, format!("argument {i} is {v}, expected an integer"))),
                None => Err(err(s, format!("missing argument {i}"))),
            }
        };
        let size = |s: &Self, i: usize| int(s, i).map(|v| v.as_u128().min(u64::MAX as u128) as u64);
        // Result builders check the call's declared result type.
        let ret_int = |s: &Self, n: i128| -> Result<ExtResult, InterpError> {
            match ret {
                Type::Void => Ok(ExtResult::Value(None)),
                t if t.is_int() => Ok(ExtResult::Value(Some(Val::int(t, n)))),
                t => Err(err(
                    s,
                    format!("declared result type {t} is not an integer"),
                )),
            }
        };
        let ret_ptr = |s: &Self, a: u64| -> Result<ExtResult, InterpError> {
            match ret {
                Type::Void => Ok(ExtResult::Value(None)),
                Type::Ptr => Ok(ExtResult::Value(Some(Val::Ptr(a)))),
                t => Err(err(s, format!("declared result type {t} is not ptr"))),
            }
        };
        let intrinsic = |p: &str| name.strip_prefix("llvm.").is_some_and(|r| r.starts_with(p));
        match name {
            "putchar" => {
                let c = int(self, 0)?;
                self.emit(pc, &[c.as_u128() as u8])?;
                ret_int(self, (c.as_u128() as u8) as i128)
            }
            "puts" => {
                let mut s = self.fault(pc, self.mem.c_string(ptr(self, 0)?))?.to_vec();
                s.push(b'\n');
                self.emit(pc, &s)?;
                ret_int(self, s.len() as i128)
            }
            "printf" => {
                let fmt = self.fault(pc, self.mem.c_string(ptr(self, 0)?))?.to_vec();
                let used = self.output.len() as u64;
                let budget = self.config.output_limit.saturating_sub(used);
                let printed =
                    format_printf(&self.mem, &fmt, &args[1..], budget).map_err(|e| match e {
                        PrintfError::Bad(reason) => err(self, reason),
                        PrintfError::Fault(fault) => InterpError::from_fault(fault, self.loc(pc)),
                        PrintfError::OutputLimit(n) => InterpError::OutputLimit {
                            at: self.loc(pc),
                            limit: self.config.output_limit,
                            requested: used.saturating_add(n),
                        },
                    })?;
                self.emit(pc, &printed.bytes)?;
                let n = if printed.overflow {
                    -1
                } else {
                    printed.bytes.len() as i128
                };
                ret_int(self, n)
            }
            "write" => {
                let fd = int(self, 0)?.as_i128();
                let (buf, n) = (ptr(self, 1)?, size(self, 2)?);
                let data = self.fault(pc, self.mem.read(buf, n))?.to_vec();
                if fd == 1 || fd == 2 {
                    self.emit(pc, &data)?;
                    ret_int(self, n as i128)
                } else {
                    ret_int(self, -1)
                }
            }
            "malloc" => {
                let n = size(self, 0)?;
                let a = self.heap_alloc(pc, n)?;
                ret_ptr(self, a)
            }
            "calloc" => {
                let (n, m) = (size(self, 0)?, size(self, 1)?);
                match n.checked_mul(m) {
                    Some(total) => {
                        let a = self.heap_alloc(pc, total)?;
                        ret_ptr(self, a)
                    }
                    None => ret_ptr(self, 0),
                }
            }
            "realloc" => {
                let (p, n) = (ptr(self, 0)?, size(self, 1)?);
                if p == 0 {
                    let a = self.heap_alloc(pc, n)?;
                    return ret_ptr(self, a);
                }
                let Some(old) = self.mem.heap_size(p) else {
                    return Err(InterpError::InvalidFree {
                        at: self.loc(pc),
                        addr: p,
                    });
                };
                if n == 0 {
                    let r = self.mem.free(p, true);
                    self.fault(pc, r)?;
                    return ret_ptr(self, 0);
                }
                let a = self.heap_alloc(pc, n)?;
                let r = self.mem.copy(a, p, old.min(n));
                self.fault(pc, r)?;
                let r = self.mem.free(p, true);
                self.fault(pc, r)?;
                ret_ptr(self, a)
            }
            "free" => {
                let p = ptr(self, 0)?;
                if p != 0 {
                    let r = self.mem.free(p, true);
                    self.fault(pc, r)?;
                }
                Ok(ExtResult::Value(None))
            }
            // The stack of a frame is freed when it returns; `stackrestore` (the end of a VLA's
            // scope) frees nothing earlier, so a VLA in a loop holds memory until then.
            // `a * b + c`, rounded twice: LLVM lets `fmuladd` fuse or not, and x87 (`f80`)
            // cannot fuse, so this is what `lli` computes for `long double`.
            _ if intrinsic("fmuladd.") => {
                let (a, b, c) = match args {
                    [a, b, c] if ret.is_float() => (*a, *b, *c),
                    _ => return Err(err(self, format!("expects three {ret} arguments"))),
                };
                let bad = |s: &Self, e: super::ops::EvalError| err(s, format!("{e:?}"));
                let m = super::ops::binary(crate::ir::BinaryOp::FMul, ret, a, b)
                    .map_err(|e| bad(self, e))?;
                let r = super::ops::binary(crate::ir::BinaryOp::FAdd, ret, m, c)
                    .map_err(|e| bad(self, e))?;
                Ok(ExtResult::Value(Some(r)))
            }
            "llvm.stacksave" => ret_ptr(self, 0),
            "llvm.stackrestore" => Ok(ExtResult::Value(None)),
            "memcpy" | "memmove" => {
                let (d, s, n) = (ptr(self, 0)?, ptr(self, 1)?, size(self, 2)?);
                let r = self.mem.copy(d, s, n);
                self.fault(pc, r)?;
                ret_ptr(self, d)
            }
            _ if intrinsic("memcpy.") || intrinsic("memmove.") => {
                let (d, s, n) = (ptr(self, 0)?, ptr(self, 1)?, size(self, 2)?);
                let r = self.mem.copy(d, s, n);
                self.fault(pc, r)?;
                Ok(ExtResult::Value(None))
            }
            "memset" => {
                let (d, c, n) = (ptr(self, 0)?, int(self, 1)?, size(self, 2)?);
                let r = self.mem.write(d, n).map(|m| m.fill(c.as_u128() as u8));
                self.fault(pc, r)?;
                ret_ptr(self, d)
            }
            _ if intrinsic("memset.") => {
                let (d, c, n) = (ptr(self, 0)?, int(self, 1)?, size(self, 2)?);
                let r = self.mem.write(d, n).map(|m| m.fill(c.as_u128() as u8));
                self.fault(pc, r)?;
                Ok(ExtResult::Value(None))
            }
            _ if intrinsic("lifetime.") => Ok(ExtResult::Value(None)),
            "memcmp" => {
                let (a, b, n) = (ptr(self, 0)?, ptr(self, 1)?, size(self, 2)?);
                let x = self.fault(pc, self.mem.read(a, n))?;
                let y = self.fault(pc, self.mem.read(b, n))?;
                let d = x
                    .iter()
                    .zip(y)
                    .find(|(p, q)| p != q)
                    .map_or(0, |(p, q)| *p as i128 - *q as i128);
                ret_int(self, d)
            }
            "strlen" => {
                let n = self.fault(pc, self.mem.c_string(ptr(self, 0)?))?.len();
                ret_int(self, n as i128)
            }
            "strcmp" => {
                let x = self.fault(pc, self.mem.c_string(ptr(self, 0)?))?;
                let y = self.fault(pc, self.mem.c_string(ptr(self, 1)?))?;
                // Compare including the terminating NUL.
                let d = x
                    .iter()
                    .chain(&[0])
                    .zip(y.iter().chain(&[0]))
                    .find(|(p, q)| p != q)
                    .map_or(0, |(p, q)| *p as i128 - *q as i128);
                ret_int(self, d)
            }
            "strcpy" => {
                let (d, s) = (ptr(self, 0)?, ptr(self, 1)?);
                let mut data = self.fault(pc, self.mem.c_string(s))?.to_vec();
                data.push(0);
                let r = self
                    .mem
                    .write(d, data.len() as u64)
                    .map(|m| m.copy_from_slice(&data));
                self.fault(pc, r)?;
                ret_ptr(self, d)
            }
            "abs" | "labs" | "llabs" => {
                let v = int(self, 0)?;
                let (x, w) = (v.as_i128(), v.ty().bits());
                if w == 0 {
                    return Err(err(self, format!("argument {v} is not an integer")));
                }
                if x == super::value::sext(1u128 << (w - 1), w) {
                    return Err(InterpError::SignedOverflow { at: self.loc(pc) });
                }
                ret_int(self, x.abs())
            }
            "exit" => {
                let code = int(self, 0)?.as_i128() as i32;
                Ok(ExtResult::Exit(code))
            }
            "abort" => Err(InterpError::Abort { at: self.loc(pc) }),
            _ => Err(InterpError::UnsupportedExternal {
                name: name.to_string(),
                at: self.loc(pc),
            }),
        }
    }

    /// Appends program output, failing if it would pass the output limit.
    fn emit(&mut self, pc: Pc, bytes: &[u8]) -> Result<(), InterpError> {
        let total = self.output.len() as u64 + bytes.len() as u64;
        if total > self.config.output_limit {
            return Err(InterpError::OutputLimit {
                at: self.loc(pc),
                limit: self.config.output_limit,
                requested: total,
            });
        }
        self.output.extend_from_slice(bytes);
        Ok(())
    }

    fn heap_alloc(&mut self, pc: Pc, n: u64) -> Result<u64, InterpError> {
        let r = self.mem.allocate(Arena::Heap, n, 16, Label::Heap(0), false);
        self.fault(pc, r)
    }

    /// A value as the trace prints it (pointers named by region).
    fn describe_val(&self, v: Val) -> String {
        match v {
            Val::Ptr(a) => self.describe_ptr(a),
            v => v.to_string(),
        }
    }

    /// Names a pointer independently of the run's stack layout.
    pub(super) fn describe_ptr(&self, a: u64) -> String {
        let module = self.module;
        if a == 0 {
            return "null".into();
        }
        if a >= BLOCK_BASE {
            let rel = a - BLOCK_BASE;
            if let Some(f) = module.functions.get((rel >> 32) as usize) {
                return format!("blockaddress(@{}, {})", f.name, Block(rel as u32));
            }
        }
        if a >= FUNC_BASE && (a - FUNC_BASE).is_multiple_of(16) {
            if let Some(s) = module.symbols.get(((a - FUNC_BASE) / 16) as usize) {
                return format!("@{}", s.name);
            }
        }
        match self.mem.describe(a) {
            Some((label, off, live)) => {
                let dead = if live { "" } else { "freed:" };
                match label {
                    Label::Global(s) => {
                        let name = module
                            .symbols
                            .get(s.index())
                            .map_or("?", |d| d.name.as_str());
                        format!("{dead}@{name}+{off}")
                    }
                    Label::Heap(n) => format!("{dead}heap#{n}+{off}"),
                    Label::Stack { func, inst } => {
                        let name = module
                            .functions
                            .get(func as usize)
                            .map_or("?", |f| f.name.as_str());
                        format!("{dead}stack:@{name}.{inst}+{off}")
                    }
                }
            }
            None => format!("{a:#x}"),
        }
    }
}
