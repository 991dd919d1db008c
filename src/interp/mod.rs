//! The reference interpreter (DESIGN.md 3.3): executes module functions exactly and
//! deterministically, as the oracle for mem2reg, SCCP, phi elimination and block splitting.
//!
//! Run a function before and after a pass on the same inputs and compare the [`Outcome`]s:
//! result, bytes written, exit code, the trace of external calls and the digest of global
//! and heap memory.
//!
//! Algorithm: a loop over an explicit stack of frames (no Rust recursion, so deep programs
//! cannot overflow the host stack). Each frame has a dense register file indexed by
//! [`crate::ir::Value`] (reused across calls through a pool) and executes
//! `BlockData::insts` in order, then the terminator. On an edge from block `P` to block `B`,
//! the branch arguments and every phi at the head of `B` read their incoming values (the
//! first phi entry naming `P`) before any is assigned: parallel semantics. Memory is
//! byte-addressed regions ([`memory`]); scalar semantics are in [`ops`] and the lane-wise
//! semantics of vectors in [`lanes`] (a vector is the member list of its lanes, like an
//! aggregate, and lays out packed in memory, lane 0 lowest), both shared with constant
//! folding; built-in externals (`printf`, `malloc`, `memcpy`, ...) are in
//! `externals`.
//!
//! What is an error (never a panic, never a hang; every error names function, block and
//! instruction): exceeding the step limit (every instruction, phi and terminator is a step),
//! the memory limit, the output limit (checked before output is formatted, so a huge
//! `printf` width allocates nothing) or the call depth; memory accesses outside one live region, to the null
//! page (below 4096), to freed memory, or writes to constant globals; division by zero,
//! `MIN / -1`, shifts by at least the width, float-to-int out of range; `unreachable`; use of
//! a value not defined on the executed path; operand types that do not match; calls with the
//! wrong argument count, to undefined or unsupported functions, through pointers that are not
//! functions; `indirect_br` to a block not in its list; inline asm and opaque instructions;
//! structurally invalid IR met on the executed path (a jump to a dead block, a phi without an
//! entry for the edge taken, a phi not at a block head).
//!
//! What is defined: integer wrap-around; `undef` is zero (also an `undef` vector lane or
//! shuffle-mask lane); an `extractelement`/`insertelement` index past the last lane is an
//! error; uninitialised memory is zero;
//! IEEE float arithmetic including NaN and infinities; `memcpy` with overlap (as `memmove`).
//!
//! Each [`Interpreter::call`] starts from a fresh memory image (globals re-initialised).
//! Complexity: O(1) per instruction plus O(log regions) per memory access.

mod aggregate;
mod bitmath;
mod control;
mod exec;
mod externals;
pub mod lanes;
pub mod libc;
pub mod memory;
pub mod ops;
mod printf;
mod scanf;
mod strings;
mod value;
mod vector;

#[cfg(test)]
mod tests;

pub use exec::Interpreter;
pub use libc::externals_help;
pub use memory::Fault;
pub use ops::EvalError;
pub use value::{ConstError, Val, ValueParseError};

use crate::ir::{Block, Inst, Module, Value};
use std::fmt;

/// Resource limits of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Maximum number of instructions (phis included) plus terminators executed.
    pub step_limit: u64,
    /// Maximum live bytes of memory (globals, stack and heap), capped at 1 TiB.
    pub memory_limit: u64,
    /// Maximum depth of nested calls of module functions (the entry call is depth 1).
    pub call_depth_limit: u32,
    /// Maximum bytes of program output (`putchar`, `puts`, `printf`, `write`) in one run.
    pub output_limit: u64,
    /// Record the external-call trace ([`Outcome::trace`]); its bytes count against
    /// `memory_limit` (a run that only wants the output, like `strata run`, turns it off).
    pub record_trace: bool,
}

impl Default for Config {
    /// 10,000,000 steps, 256 MiB of memory, depth 1000, 64 MiB of output, trace recorded.
    fn default() -> Self {
        Config {
            step_limit: 10_000_000,
            memory_limit: 256 << 20,
            call_depth_limit: 1000,
            output_limit: 64 << 20,
            record_trace: true,
        }
    }
}

/// The observable result of a run that ended normally (by `ret` or by `exit`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The entry function's return value (`None` for `void`, for an aggregate, or after
    /// `exit`).
    pub result: Option<Val>,
    /// An aggregate return value of the entry function, as its scalar leaves in member
    /// order (empty otherwise).
    pub result_members: Vec<Val>,
    /// Bytes written to standard output (`putchar`, `puts`, `printf`, `fprintf(stdout)`,
    /// `write(1)`, ...).
    pub output: Vec<u8>,
    /// Bytes written to standard error (`fprintf(stderr)`, `fputs` to `stderr`,
    /// `write(2)`, ...).
    pub error_output: Vec<u8>,
    /// The code passed to `exit`, if it was called.
    pub exit_code: Option<i32>,
    /// Instructions, phis and terminators executed.
    pub steps: u64,
    /// FNV-1a hash of every global's bytes in symbol order, then of each live heap
    /// allocation's size and bytes in allocation order.
    pub memory_digest: u64,
    /// One line per external call (empty unless [`Config::record_trace`]):
    /// `name(args) -> result`, pointers named by region
    /// (`@global+off`, `heap#N+off`, `stack:@f.instK+off`), never raw stack addresses.
    pub trace: Vec<String>,
}

/// Where an error happened: a function, and within it a block and an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Function name (without `@`).
    pub function: String,
    /// The block, if execution was inside the body (`None`: entering the function).
    pub block: Option<Block>,
    /// The instruction (`None` with a block: the block's terminator).
    pub inst: Option<Inst>,
}

impl Location {
    /// The function level location (argument checks on entry).
    pub fn function(name: &str) -> Self {
        Location {
            function: name.to_string(),
            block: None,
            inst: None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.function)?;
        match (self.block, self.inst) {
            (None, _) => Ok(()),
            (Some(b), Some(i)) => write!(f, " {b} {i}"),
            (Some(b), None) => write!(f, " {b} terminator"),
        }
    }
}

/// Why a run failed. Every variant with `at` names function, block and instruction.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InterpError {
    /// More than `limit` steps: how runaway programs end.
    #[error("{at}: step limit of {limit} exceeded")]
    StepLimit {
        /// Where it happened.
        at: Location,
        /// The configured limit.
        limit: u64,
    },
    /// Live memory would exceed the limit.
    #[error("{at}: memory limit exceeded (requested {requested} bytes)")]
    MemoryLimit {
        /// Where it happened.
        at: Location,
        /// Bytes requested.
        requested: u64,
    },
    /// The program's output would exceed the output limit.
    #[error("{at}: output limit of {limit} bytes exceeded (output would be {requested} bytes)")]
    OutputLimit {
        /// Where it happened.
        at: Location,
        /// The configured limit.
        limit: u64,
        /// Bytes the output would have reached.
        requested: u64,
    },
    /// Calls nested deeper than `limit`.
    #[error("{at}: call depth limit of {limit} exceeded")]
    CallDepth {
        /// Where it happened.
        at: Location,
        /// The configured limit.
        limit: u32,
    },
    /// Access to the null page (address below 4096).
    #[error("{at}: null pointer dereference (address {addr:#x})")]
    NullDeref {
        /// Where it happened.
        at: Location,
        /// The address.
        addr: u64,
    },
    /// Access of `size` bytes at `addr` not inside one live region.
    #[error("{at}: out-of-bounds access of {size} bytes at {addr:#x}")]
    OutOfBounds {
        /// Where it happened.
        at: Location,
        /// The address.
        addr: u64,
        /// Access size in bytes.
        size: u64,
    },
    /// Access to freed memory (a returned frame's alloca or a freed heap block).
    #[error("{at}: use after free at {addr:#x}")]
    UseAfterFree {
        /// Where it happened.
        at: Location,
        /// The address.
        addr: u64,
    },
    /// `free`/`realloc` of a pointer that is not a live heap block.
    #[error("{at}: invalid free of {addr:#x}")]
    InvalidFree {
        /// Where it happened.
        at: Location,
        /// The address.
        addr: u64,
    },
    /// Store to a constant global.
    #[error("{at}: write to constant memory at {addr:#x}")]
    WriteToConstant {
        /// Where it happened.
        at: Location,
        /// The address.
        addr: u64,
    },
    /// Read of a global whose initial contents are unknown (its initialiser was not
    /// evaluated at import, see [`Interpreter::mark_unknown_globals`]).
    #[error("{at}: read at {addr:#x} of a global whose initialiser was not evaluated")]
    UnknownContents {
        /// Where it happened.
        at: Location,
        /// The address.
        addr: u64,
    },
    /// Integer division or remainder by zero.
    #[error("{at}: division by zero")]
    DivisionByZero {
        /// Where it happened.
        at: Location,
    },
    /// Signed `MIN / -1` or `MIN % -1` (also `abs(MIN)`).
    #[error("{at}: signed overflow")]
    SignedOverflow {
        /// Where it happened.
        at: Location,
    },
    /// Shift by at least the width.
    #[error("{at}: shift by {amount} is too large")]
    ShiftTooLarge {
        /// Where it happened.
        at: Location,
        /// The shift amount.
        amount: u128,
    },
    /// `fptosi`/`fptoui` of NaN or of an out-of-range value.
    #[error("{at}: float to integer conversion out of range")]
    FloatToIntOutOfRange {
        /// Where it happened.
        at: Location,
    },
    /// An `unreachable` terminator was executed.
    #[error("{at}: unreachable executed")]
    Unreachable {
        /// Where it happened.
        at: Location,
    },
    /// Use of a value not yet defined on the executed path.
    #[error("{at}: use of undefined value {value}")]
    UndefinedValue {
        /// Where it happened.
        at: Location,
        /// The undefined value.
        value: Value,
    },
    /// No defined function of this name (or only a declaration without body).
    #[error("unknown function @{name}{}", at.as_ref().map(|l| format!(" called at {l}")).unwrap_or_default())]
    UnknownFunction {
        /// The function name.
        name: String,
        /// Where it was called (`None`: the entry call).
        at: Option<Location>,
    },
    /// A call to an external that is not built in.
    #[error("{at}: unsupported external function @{name}")]
    UnsupportedExternal {
        /// The external function.
        name: String,
        /// Where it happened.
        at: Location,
    },
    /// A built-in external called with arguments it cannot use.
    #[error("{at}: bad call of @{name}: {reason}")]
    ExternalError {
        /// The external function.
        name: String,
        /// What is wrong.
        reason: String,
        /// Where it happened.
        at: Location,
    },
    /// `abort()` was called.
    #[error("{at}: abort called")]
    Abort {
        /// Where it happened.
        at: Location,
    },
    /// An opaque (imported, unmodelled) instruction was executed.
    #[error("{at}: cannot execute opaque instruction `{name}`")]
    OpaqueInstruction {
        /// The opaque operation.
        name: String,
        /// Where it happened.
        at: Location,
    },
    /// Inline assembly was executed.
    #[error("{at}: cannot execute inline asm")]
    UnsupportedAsm {
        /// Where it happened.
        at: Location,
    },
    /// Indirect call or `indirect_br` to an address that is not a valid target.
    #[error("{at}: bad indirect target {addr:#x}")]
    BadIndirectTarget {
        /// Where it happened.
        at: Location,
        /// The address.
        addr: u64,
    },
    /// Operand or argument types do not match.
    #[error("{at}: type mismatch: {reason}")]
    TypeMismatch {
        /// What is wrong.
        reason: String,
        /// Where it happened.
        at: Location,
    },
    /// Wrong number of arguments for a function.
    #[error("{at}: @{function} expects {expected} arguments, got {got}")]
    ArgCount {
        /// The called function.
        function: String,
        /// Parameters declared.
        expected: usize,
        /// Arguments passed.
        got: usize,
        /// Where it happened.
        at: Location,
    },
    /// Structurally invalid IR on the executed path.
    #[error("{at}: malformed IR: {reason}")]
    Malformed {
        /// What is wrong.
        reason: String,
        /// Where it happened.
        at: Location,
    },
    /// A constant the executed instruction reads has no value (see [`ConstError`]).
    #[error("{at}: malformed IR: {source}")]
    BadConstant {
        /// Why the constant has no value.
        source: ConstError,
        /// Where it was read.
        at: Location,
    },
    /// A global's initial contents are invalid (reported by every call).
    #[error("global @{name}: {reason}")]
    BadGlobal {
        /// The global.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

impl InterpError {
    /// Converts a scalar evaluation error at `at`.
    pub fn from_eval(e: EvalError, at: Location) -> Self {
        match e {
            EvalError::DivisionByZero => InterpError::DivisionByZero { at },
            EvalError::SignedOverflow => InterpError::SignedOverflow { at },
            EvalError::ShiftTooLarge { amount } => InterpError::ShiftTooLarge { at, amount },
            EvalError::FloatToIntOutOfRange => InterpError::FloatToIntOutOfRange { at },
            EvalError::TypeMismatch(reason) => InterpError::TypeMismatch { reason, at },
        }
    }

    /// Converts a memory fault at `at`.
    pub fn from_fault(f: Fault, at: Location) -> Self {
        match f {
            Fault::NullDeref { addr } => InterpError::NullDeref { at, addr },
            Fault::OutOfBounds { addr, size } => InterpError::OutOfBounds { at, addr, size },
            Fault::UseAfterFree { addr } => InterpError::UseAfterFree { at, addr },
            Fault::WriteToConstant { addr } => InterpError::WriteToConstant { at, addr },
            Fault::UnknownContents { addr } => InterpError::UnknownContents { at, addr },
            Fault::InvalidFree { addr } => InterpError::InvalidFree { at, addr },
            Fault::MemoryLimit { requested } => InterpError::MemoryLimit { at, requested },
        }
    }
}

/// Runs `function` of `module` on `args` with a fresh interpreter.
pub fn run(
    module: &Module,
    function: &str,
    args: &[Val],
    config: Config,
) -> Result<Outcome, InterpError> {
    Interpreter::new(module, config).call(function, args)
}
