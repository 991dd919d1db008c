//! Built-in external functions: dispatch, the output, `<stdlib.h>`, `<ctype.h>` and
//! intrinsic families, and the external-call trace. Which names exist is decided by the
//! table in [`super::libc`] (the same table `strata run --help` lists); `<string.h>` is in
//! [`super::strings`]. Any other name is [`InterpError::UnsupportedExternal`].
//!
//! Semantics worth knowing: integer arguments are read at whatever integer width the call
//! passes them; results are produced at the call's result type. `malloc(0)` returns a unique
//! non-null pointer; `realloc(p, 0)` frees `p` and returns null; `calloc` whose size
//! overflows returns null. `free(null)` does nothing; freeing anything but a live heap block
//! is an error. `abs(INT_MIN)` is a signed-overflow error. The environment is empty:
//! `getenv` returns null for every name. `sscanf`, the `strtol` family, `atoi`, `strtod`
//! and `atof` are [`super::scanf`]'s (no `errno`: an out-of-range `strtol` saturates). Output goes to standard output
//! ([`super::Outcome::output`]) or, for `write(2, ...)` and the `stderr` stream, to
//! standard error ([`super::Outcome::error_output`]); the output limit counts both. The
//! streams `fprintf`, `fputs`, `fputc`/`putc` and `fwrite` take must be `stdout` or
//! `stderr`. `sprintf` and `snprintf` format with the memory limit as their budget;
//! `snprintf` writes at most `n - 1` bytes and a NUL and returns the full length, as C does.
//! `printf`-family counts past `INT_MAX` return -1. `fflush` does nothing and returns 0.
//! `<ctype.h>` follows the C locale; its `is...` functions return glibc's class bit, and
//! `__ctype_b_loc`/`__ctype_toupper_loc`/`__ctype_tolower_loc` return the tables
//! [`super::libc`] lays out, so clang -O0 code using the macros runs.
//!
//! Trace (when [`Config::record_trace`](super::Config), bounded by the memory limit): every
//! call appends `name(arg, ...) -> result`, pointers named by region
//! (`@global+off`, `heap#N+off` in allocation order, `stack:@f.instK+off` by alloca
//! instruction, `@f` for functions, `blockaddress(@f, blockN)`, `null`), so traces compare
//! equal between runs whose stack layouts differ. Cost: O(bytes touched) per call.

use super::exec::{Interpreter, Pc, BLOCK_BASE, FUNC_BASE};
use super::libc::{
    change_case, int_class_bits, lookup, stream_handle, Ctype, Ext, Intrinsic, Lib, Out,
};
use super::memory::{Arena, Label};
use super::printf::{format_printf, Printed, PrintfError};
use super::{InterpError, Val};
use crate::ir::{Block, Type};
use std::fmt::Write;

/// One call of a built-in: where, which, its arguments and its declared result type.
pub(super) struct Call<'a> {
    pub pc: Pc,
    pub name: &'a str,
    pub args: &'a [Val],
    pub ret: Type,
}

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
        let c = Call {
            pc,
            name,
            args,
            ret,
        };
        match lookup(name) {
            Some(Ext::Out(f)) => self.output_external(&c, f),
            Some(Ext::Str(f)) => self.string_external(&c, f),
            Some(Ext::Ctype(f)) => self.ctype_external(&c, f),
            Some(Ext::Lib(f)) => self.stdlib_external(&c, f),
            Some(Ext::Intrinsic(f)) => self.intrinsic(&c, f),
            None => Err(InterpError::UnsupportedExternal {
                name: name.to_string(),
                at: self.loc(pc),
            }),
        }
    }

    /// An error of the call `c`: bad arguments or result type.
    pub(super) fn ext_err(&self, c: &Call, reason: String) -> InterpError {
        InterpError::ExternalError {
            name: c.name.to_string(),
            reason,
            at: self.loc(c.pc),
        }
    }

    /// Argument `i` of `c` as a pointer.
    pub(super) fn arg_ptr(&self, c: &Call, i: usize) -> Result<u64, InterpError> {
        match c.args.get(i) {
            Some(Val::Ptr(a)) => Ok(*a),
            Some(v) => Err(self.ext_err(c, format!("argument {i} is {v}, expected ptr"))),
            None => Err(self.ext_err(c, format!("missing argument {i}"))),
        }
    }

    /// Argument `i` of `c` as an integer of any width.
    pub(super) fn arg_int(&self, c: &Call, i: usize) -> Result<Val, InterpError> {
        match c.args.get(i) {
            Some(v @ Val::Int { .. }) => Ok(*v),
            Some(v) => Err(self.ext_err(c, format!("argument {i} is {v}, expected an integer"))),
            None => Err(self.ext_err(c, format!("missing argument {i}"))),
        }
    }

    /// Argument `i` of `c` as a size (unsigned, saturated at `u64::MAX`).
    pub(super) fn arg_size(&self, c: &Call, i: usize) -> Result<u64, InterpError> {
        self.arg_int(c, i)
            .map(|v| v.as_u128().min(u64::MAX as u128) as u64)
    }

    /// Returns the integer `n` at the call's declared result type (nothing for `void`).
    pub(super) fn ret_int(&self, c: &Call, n: i128) -> Result<ExtResult, InterpError> {
        match c.ret {
            Type::Void => Ok(ExtResult::Value(None)),
            t if t.is_int() => Ok(ExtResult::Value(Some(Val::int(t, n)))),
            t => Err(self.ext_err(c, format!("declared result type {t} is not an integer"))),
        }
    }

    /// Returns the pointer `a` (nothing for a `void` call).
    pub(super) fn ret_ptr(&self, c: &Call, a: u64) -> Result<ExtResult, InterpError> {
        match c.ret {
            Type::Void => Ok(ExtResult::Value(None)),
            Type::Ptr => Ok(ExtResult::Value(Some(Val::Ptr(a)))),
            t => Err(self.ext_err(c, format!("declared result type {t} is not ptr"))),
        }
    }

    /// Stores `text + used` through the `char **endptr` in argument 1 unless it is null.
    fn store_end(&mut self, c: &Call, text: u64, used: usize) -> Result<(), InterpError> {
        let end = self.arg_ptr(c, 1)?;
        if end != 0 {
            let at = text.wrapping_add(used as u64);
            self.put_bytes(c.pc, end, &at.to_le_bytes())?;
        }
        Ok(())
    }

    /// The file descriptor of the stream in argument `i`: 1 for `stdout`, 2 for `stderr`
    /// (the handles [`super::libc`] put in those globals); anything else is an error.
    fn arg_stream(&self, c: &Call, i: usize) -> Result<u64, InterpError> {
        match self.arg_ptr(c, i)? {
            a if a == stream_handle(1) => Ok(1),
            a if a == stream_handle(2) => Ok(2),
            a => Err(self.ext_err(
                c,
                format!(
                    "argument {i} ({}) is not stdout or stderr",
                    self.describe_ptr(a)
                ),
            )),
        }
    }

    /// Formats the `printf` format in argument `fmt` with the arguments after it, producing
    /// at most `budget` bytes; `to_output` says whether going past the budget is an
    /// output-limit error (else a memory-limit error, for `sprintf`).
    fn format(
        &self,
        c: &Call,
        fmt: usize,
        budget: u64,
        to_output: bool,
    ) -> Result<Printed, InterpError> {
        let text = self.fault(c.pc, self.mem.c_string(self.arg_ptr(c, fmt)?))?;
        let used = self.output.len() as u64 + self.error_output.len() as u64;
        format_printf(&self.mem, text, &c.args[fmt + 1..], budget).map_err(|e| match e {
            PrintfError::Bad(reason) => self.ext_err(c, reason),
            PrintfError::Fault(fault) => InterpError::from_fault(fault, self.loc(c.pc)),
            PrintfError::OutputLimit(n) if to_output => InterpError::OutputLimit {
                at: self.loc(c.pc),
                limit: self.config.output_limit,
                requested: used.saturating_add(n),
            },
            PrintfError::OutputLimit(n) => InterpError::MemoryLimit {
                at: self.loc(c.pc),
                requested: n,
            },
        })
    }

    /// `printf`'s count: the bytes produced, or -1 when a count passed `INT_MAX`.
    fn count(printed: &Printed) -> i128 {
        if printed.overflow {
            -1
        } else {
            printed.bytes.len() as i128
        }
    }

    /// The output family (`<stdio.h>` and `write`).
    fn output_external(&mut self, c: &Call, f: Out) -> Result<ExtResult, InterpError> {
        let pc = c.pc;
        let budget = |s: &Self| {
            let used = s.output.len() as u64 + s.error_output.len() as u64;
            s.config.output_limit.saturating_sub(used)
        };
        match f {
            Out::Putchar => {
                let ch = self.arg_int(c, 0)?.as_u128() as u8;
                self.emit_to(pc, 1, &[ch])?;
                self.ret_int(c, ch as i128)
            }
            Out::Fputc => {
                let ch = self.arg_int(c, 0)?.as_u128() as u8;
                let fd = self.arg_stream(c, 1)?;
                self.emit_to(pc, fd, &[ch])?;
                self.ret_int(c, ch as i128)
            }
            Out::Puts => {
                let mut s = self
                    .fault(pc, self.mem.c_string(self.arg_ptr(c, 0)?))?
                    .to_vec();
                s.push(b'\n');
                self.emit_to(pc, 1, &s)?;
                self.ret_int(c, s.len() as i128)
            }
            Out::Fputs => {
                let s = self
                    .fault(pc, self.mem.c_string(self.arg_ptr(c, 0)?))?
                    .to_vec();
                let fd = self.arg_stream(c, 1)?;
                self.emit_to(pc, fd, &s)?;
                // glibc returns 1 on success.
                self.ret_int(c, 1)
            }
            Out::Printf | Out::Fprintf => {
                let (fd, fmt) = match f {
                    Out::Printf => (1, 0),
                    _ => (self.arg_stream(c, 0)?, 1),
                };
                let printed = self.format(c, fmt, budget(self), true)?;
                self.emit_to(pc, fd, &printed.bytes)?;
                self.ret_int(c, Self::count(&printed))
            }
            Out::Sprintf | Out::Snprintf => {
                let buf = self.arg_ptr(c, 0)?;
                let (cap, fmt) = match f {
                    Out::Sprintf => (u64::MAX, 1),
                    _ => (self.arg_size(c, 1)?, 2),
                };
                let printed = self.format(c, fmt, self.config.memory_limit, false)?;
                if cap > 0 {
                    let n = (printed.bytes.len() as u64).min(cap - 1) as usize;
                    let mut data = printed.bytes[..n].to_vec();
                    data.push(0);
                    self.put_bytes(pc, buf, &data)?;
                }
                self.ret_int(c, Self::count(&printed))
            }
            Out::Fwrite => {
                let (p, size, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_size(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let fd = self.arg_stream(c, 3)?;
                let Some(total) = size.checked_mul(n) else {
                    return Err(self.ext_err(c, format!("{size} * {n} bytes overflow")));
                };
                let data = self.fault(pc, self.mem.read(p, total))?.to_vec();
                self.emit_to(pc, fd, &data)?;
                self.ret_int(c, if size == 0 { 0 } else { n as i128 })
            }
            Out::Fflush => self.ret_int(c, 0),
            Out::Write => {
                let fd = self.arg_int(c, 0)?.as_i128();
                let (buf, n) = (self.arg_ptr(c, 1)?, self.arg_size(c, 2)?);
                let data = self.fault(pc, self.mem.read(buf, n))?.to_vec();
                if fd == 1 || fd == 2 {
                    self.emit_to(pc, fd as u64, &data)?;
                    self.ret_int(c, n as i128)
                } else {
                    self.ret_int(c, -1)
                }
            }
        }
    }

    /// `<stdlib.h>`: the heap, `abs`, `exit` and `abort`.
    fn stdlib_external(&mut self, c: &Call, f: Lib) -> Result<ExtResult, InterpError> {
        let pc = c.pc;
        match f {
            Lib::Malloc => {
                let a = self.heap_alloc(pc, self.arg_size(c, 0)?)?;
                self.ret_ptr(c, a)
            }
            Lib::Calloc => {
                let (n, m) = (self.arg_size(c, 0)?, self.arg_size(c, 1)?);
                match n.checked_mul(m) {
                    Some(total) => {
                        let a = self.heap_alloc(pc, total)?;
                        self.ret_ptr(c, a)
                    }
                    None => self.ret_ptr(c, 0),
                }
            }
            Lib::Realloc => {
                let (p, n) = (self.arg_ptr(c, 0)?, self.arg_size(c, 1)?);
                if p == 0 {
                    let a = self.heap_alloc(pc, n)?;
                    return self.ret_ptr(c, a);
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
                    return self.ret_ptr(c, 0);
                }
                let a = self.heap_alloc(pc, n)?;
                let r = self.mem.copy(a, p, old.min(n));
                self.fault(pc, r)?;
                let r = self.mem.free(p, true);
                self.fault(pc, r)?;
                self.ret_ptr(c, a)
            }
            Lib::Free => {
                let p = self.arg_ptr(c, 0)?;
                if p != 0 {
                    let r = self.mem.free(p, true);
                    self.fault(pc, r)?;
                }
                Ok(ExtResult::Value(None))
            }
            Lib::Abs => {
                let v = self.arg_int(c, 0)?;
                let (x, w) = (v.as_i128(), v.ty().bits());
                if w == 0 {
                    return Err(self.ext_err(c, format!("argument {v} is not an integer")));
                }
                if x == super::value::sext(1u128 << (w - 1), w) {
                    return Err(InterpError::SignedOverflow { at: self.loc(pc) });
                }
                self.ret_int(c, x.abs())
            }
            // The interpreted program has an empty environment: runs do not depend on the
            // caller's variables (the name must still be a readable C string).
            Lib::Sscanf => {
                let input = self.fault(pc, self.mem.c_string(self.arg_ptr(c, 0)?))?;
                let format = self.fault(pc, self.mem.c_string(self.arg_ptr(c, 1)?))?;
                let scanned = super::scanf::scan(input, format)
                    .map_err(|why| self.ext_err(c, format!("{why} is not supported")))?;
                for store in scanned.stores {
                    let at = self.arg_ptr(c, 2 + store.arg)?;
                    self.put_bytes(pc, at, &store.bytes)?;
                }
                self.ret_int(c, scanned.result as i128)
            }
            Lib::Strtol(_) | Lib::Atoi => {
                let text = self.arg_ptr(c, 0)?;
                let base = match f {
                    Lib::Atoi => 10,
                    _ => self.arg_int(c, 2)?.as_i128(),
                };
                if base != 0 && !(2..=36).contains(&base) {
                    return Err(self.ext_err(c, format!("base {base} is not 0 or 2..=36")));
                }
                let bytes = self.fault(pc, self.mem.c_string(text))?;
                let signed = !matches!(f, Lib::Strtol(false));
                let (used, value) = super::scanf::strtol(bytes, base as u32, signed);
                if let Lib::Strtol(_) = f {
                    self.store_end(c, text, used)?;
                }
                self.ret_int(c, value as i64 as i128)
            }
            Lib::Strtod | Lib::Atof => {
                let text = self.arg_ptr(c, 0)?;
                let bytes = self.fault(pc, self.mem.c_string(text))?;
                let (used, value) = super::scanf::strtod(bytes);
                if f == Lib::Strtod {
                    self.store_end(c, text, used)?;
                }
                match c.ret {
                    Type::F64 => Ok(ExtResult::Value(Some(Val::f64(value)))),
                    t => Err(self.ext_err(c, format!("declared result type {t} is not double"))),
                }
            }
            Lib::Getenv => {
                let name = self.arg_ptr(c, 0)?;
                self.fault(pc, self.mem.c_string(name))?;
                self.ret_ptr(c, 0)
            }
            Lib::Exit => Ok(ExtResult::Exit(self.arg_int(c, 0)?.as_i128() as i32)),
            Lib::Abort => Err(InterpError::Abort { at: self.loc(pc) }),
        }
    }

    /// LLVM intrinsics.
    fn intrinsic(&mut self, c: &Call, f: Intrinsic) -> Result<ExtResult, InterpError> {
        let pc = c.pc;
        match f {
            // `a * b + c`, rounded twice: LLVM lets `fmuladd` fuse or not, and x87 (`f80`)
            // cannot fuse, so this is what `lli` computes for `long double`.
            Intrinsic::Fmuladd => {
                let (a, b, d) = match c.args {
                    [a, b, d] if c.ret.is_float() => (*a, *b, *d),
                    _ => return Err(self.ext_err(c, format!("expects three {} arguments", c.ret))),
                };
                let bad = |s: &Self, e: super::ops::EvalError| s.ext_err(c, format!("{e:?}"));
                let m = super::ops::binary(crate::ir::BinaryOp::FMul, c.ret, a, b)
                    .map_err(|e| bad(self, e))?;
                let r = super::ops::binary(crate::ir::BinaryOp::FAdd, c.ret, m, d)
                    .map_err(|e| bad(self, e))?;
                Ok(ExtResult::Value(Some(r)))
            }
            // The stack of a frame is freed when it returns; `stackrestore` (the end of a
            // VLA's scope) frees nothing earlier, so a VLA in a loop holds memory until then.
            Intrinsic::VectorReduce => self.vector_reduce(c),
            Intrinsic::BitMath => self.bit_math(c),
            Intrinsic::X86Shift => self.x86_shift(c),
            Intrinsic::Stacksave => self.ret_ptr(c, 0),
            Intrinsic::LoadRelative => {
                let (base, offset) = (self.arg_ptr(c, 0)?, self.arg_int(c, 1)?);
                let entry = base.wrapping_add(offset.as_u128() as u64);
                let bytes = self.fault(pc, self.mem.read(entry, 4))?;
                let relative = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                self.ret_ptr(c, base.wrapping_add(relative as i64 as u64))
            }
            Intrinsic::Stackrestore | Intrinsic::Lifetime => Ok(ExtResult::Value(None)),
            Intrinsic::Memcpy => {
                let (d, s, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_ptr(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let r = self.mem.copy(d, s, n);
                self.fault(pc, r)?;
                Ok(ExtResult::Value(None))
            }
            Intrinsic::Memset => {
                let (d, v, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_int(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let r = self.mem.write(d, n).map(|m| m.fill(v.as_u128() as u8));
                self.fault(pc, r)?;
                Ok(ExtResult::Value(None))
            }
        }
    }

    /// `<ctype.h>`: the functions, and the table accessors of glibc's macros.
    fn ctype_external(&mut self, c: &Call, f: Ctype) -> Result<ExtResult, InterpError> {
        let cell = |k: usize| self.libc.ctype_cells[k];
        match f {
            Ctype::Is(class) => {
                let ch = self.arg_int(c, 0)?.as_i128();
                self.ret_int(c, (int_class_bits(ch) & class as u16) as i128)
            }
            Ctype::Toupper | Ctype::Tolower => {
                let ch = self.arg_int(c, 0)?.as_i128();
                self.ret_int(c, change_case(ch, f == Ctype::Toupper))
            }
            Ctype::BLoc => self.ret_ptr(c, cell(0)),
            Ctype::ToupperLoc => self.ret_ptr(c, cell(1)),
            Ctype::TolowerLoc => self.ret_ptr(c, cell(2)),
        }
    }

    /// Writes `data` at `addr` (a fault if it does not fit one writable region).
    pub(super) fn put_bytes(&mut self, pc: Pc, addr: u64, data: &[u8]) -> Result<(), InterpError> {
        let r = self
            .mem
            .write(addr, data.len() as u64)
            .map(|m| m.copy_from_slice(data));
        self.fault(pc, r)
    }

    /// Appends program output to standard output (`fd` 1) or standard error (2), failing if
    /// both together would pass the output limit.
    fn emit_to(&mut self, pc: Pc, fd: u64, bytes: &[u8]) -> Result<(), InterpError> {
        let total = self.output.len() as u64 + self.error_output.len() as u64 + bytes.len() as u64;
        if total > self.config.output_limit {
            return Err(InterpError::OutputLimit {
                at: self.loc(pc),
                limit: self.config.output_limit,
                requested: total,
            });
        }
        match fd {
            2 => self.error_output.extend_from_slice(bytes),
            _ => self.output.extend_from_slice(bytes),
        }
        Ok(())
    }

    pub(super) fn heap_alloc(&mut self, pc: Pc, n: u64) -> Result<u64, InterpError> {
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
        if let Some(fd) = (0..3).find(|&fd| a == stream_handle(fd)) {
            return ["stdin", "stdout", "stderr"][fd as usize].into();
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
