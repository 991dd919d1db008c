//! Machine descriptions: the register environments and calling conventions of x86-64 System V
//! and aarch64 AAPCS64, as lowering and the allocator need them.
//!
//! x86-64 (System V AMD64 ABI, 3.2.3): 16 GPRs numbered by hardware encoding (r0 rax, r1
//! rcx, r2 rdx, r3 rbx, r4 rsp, r5 rbp, r6 rsi, r7 rdi, r8-r15); rsp and rbp (stack and
//! frame pointer) are not allocatable. Caller-saved: rax rcx rdx rsi rdi r8-r11 (preferred);
//! callee-saved: rbx r12-r15 (non-preferred, they cost a save in the prologue). 16 XMM
//! registers (f0-f15), all caller-saved. Integer arguments in rdi rsi rdx rcx r8 r9, float
//! arguments in xmm0-xmm7, results in rax (and rdx) and xmm0; a variadic call passes the
//! number of vector registers used in al. Arithmetic is two-address (reuse constraints).
//! Values of several parts (aggregates, `i128`, `x86_fp80`; [`super::parts`]) return their
//! integer parts in rax, rdx, then rdi rsi rcx r8 r9, and their float parts in xmm0-xmm7.
//!
//! aarch64 (AAPCS64, 6.1): x0-x30 (r0-r30) and 32 FP/SIMD registers (f0-f31 as d0-d31).
//! Not allocatable: x18 (the platform register), x29 (frame pointer), x30 (link register);
//! sp is not a GPR number here. Caller-saved: x0-x17 (x16/x17 are the intra-procedure-call
//! registers, free inside a body), v0-v7 and v16-v31; callee-saved x19-x28 and (the low 64
//! bits of) v8-v15, non-preferred. Arguments in x0-x7 and v0-v7, results in x0 (x1) and v0;
//! values of several parts return in x0-x7 and v0-v7.
//! Three-address arithmetic.
//!
//! Vector values live in the float class: XMM0-15 and V0-31 hold `f32`, `f64` and 128-bit
//! vectors alike ([`super::parts`]), so their slots are 16 bytes
//! ([`super::MachineRead::spill_slot_size`]) and vector arguments and results take the float
//! argument and result registers (SysV: `__m128` in xmm0-7 and xmm0; AAPCS64: short and
//! 128-bit vectors in v0-7 and v0). The vector class stays empty on both targets: its
//! registers would be the same physical registers as the float class's, and neither our
//! allocator nor regalloc2 models registers of two classes aliasing each other (a vector in
//! v3 and a double in f3 at once would pass both checkers and corrupt each other); Cranelift
//! likewise gives x86-64 and aarch64 vectors its float class.
//!
//! No dedicated scratch register: regalloc2 and our resolver find a free register or a slot.
//!
//! Complexity: building a description is O(registers).

pub use crate::stage::Arch;

use super::{MachineEnv, PRegSet};
use crate::registers::{PReg, RegClass};

/// What lowering needs to know about a target besides its [`MachineEnv`].
#[derive(Clone, Debug)]
pub struct TargetDesc {
    /// The architecture.
    pub arch: Arch,
    /// Allocatable registers.
    pub env: MachineEnv,
    /// Integer argument registers, in order.
    pub int_args: Vec<PReg>,
    /// Float argument registers, in order.
    pub float_args: Vec<PReg>,
    /// Integer result register.
    pub int_ret: PReg,
    /// Float result register.
    pub float_ret: PReg,
    /// Integer result registers of a value of several parts, in order (`int_rets[0]` is
    /// `int_ret`; see the calling convention in [`super::parts`]).
    pub int_rets: Vec<PReg>,
    /// Float result registers of a value of several parts, in order.
    pub float_rets: Vec<PReg>,
    /// Registers a call clobbers (all caller-saved allocatable registers).
    pub caller_saved: PRegSet,
    /// Two-address arithmetic (x86-64): the def reuses the first input's register.
    pub two_address: bool,
    /// ALU instructions may read their second input from memory (x86-64 `r/m` forms).
    pub mem_operands: bool,
}

fn r(i: u8) -> PReg {
    PReg::new(RegClass::Int, i).expect("hardware index below 64")
}

fn f(i: u8) -> PReg {
    PReg::new(RegClass::Float, i).expect("hardware index below 64")
}

impl TargetDesc {
    /// The description of `arch`.
    pub fn new(arch: Arch) -> TargetDesc {
        match arch {
            Arch::X86_64 => {
                let preferred_int: Vec<PReg> = [0, 1, 2, 6, 7, 8, 9, 10, 11].map(r).to_vec();
                let callee_int: Vec<PReg> = [3, 12, 13, 14, 15].map(r).to_vec();
                let floats: Vec<PReg> = (0..16).map(f).collect();
                let caller_saved = preferred_int.iter().chain(&floats).copied().collect();
                TargetDesc {
                    arch,
                    env: MachineEnv {
                        preferred: [preferred_int, floats, Vec::new()],
                        non_preferred: [callee_int, Vec::new(), Vec::new()],
                        scratch: [None; 3],
                    },
                    int_args: [7, 6, 2, 1, 8, 9].map(r).to_vec(),
                    float_args: (0..8).map(f).collect(),
                    int_ret: r(0),
                    float_ret: f(0),
                    int_rets: [0, 2, 7, 6, 1, 8, 9].map(r).to_vec(),
                    float_rets: (0..8).map(f).collect(),
                    caller_saved,
                    two_address: true,
                    mem_operands: true,
                }
            }
            Arch::Aarch64 => {
                let preferred_int: Vec<PReg> = (0..18).map(r).collect();
                let callee_int: Vec<PReg> = (19..29).map(r).collect();
                let preferred_float: Vec<PReg> = (0..8).chain(16..32).map(f).collect();
                let callee_float: Vec<PReg> = (8..16).map(f).collect();
                let caller_saved = preferred_int
                    .iter()
                    .chain(&preferred_float)
                    .copied()
                    .collect();
                TargetDesc {
                    arch,
                    env: MachineEnv {
                        preferred: [preferred_int, preferred_float, Vec::new()],
                        non_preferred: [callee_int, callee_float, Vec::new()],
                        scratch: [None; 3],
                    },
                    int_args: (0..8).map(r).collect(),
                    float_args: (0..8).map(f).collect(),
                    int_ret: r(0),
                    float_ret: f(0),
                    int_rets: (0..8).map(r).collect(),
                    float_rets: (0..8).map(f).collect(),
                    caller_saved,
                    two_address: false,
                    mem_operands: false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_counts_follow_the_abis() {
        let x = TargetDesc::new(Arch::X86_64);
        assert_eq!(x.env.allocatable(RegClass::Int).count(), 14);
        assert!(!x
            .env
            .allocatable(RegClass::Int)
            .any(|p| p == r(4) || p == r(5)));
        assert_eq!(x.env.allocatable(RegClass::Float).count(), 16);
        let a = TargetDesc::new(Arch::Aarch64);
        assert_eq!(a.env.allocatable(RegClass::Int).count(), 28);
        assert!(!a
            .env
            .allocatable(RegClass::Int)
            .any(|p| [18, 29, 30].contains(&p.index())));
        assert_eq!(a.env.allocatable(RegClass::Float).count(), 32);
        for t in [&x, &a] {
            let all: Vec<PReg> = RegClass::ALL
                .into_iter()
                .flat_map(|c| t.env.allocatable(c).collect::<Vec<_>>())
                .collect();
            let set: PRegSet = all.iter().copied().collect();
            assert_eq!(set.iter().count(), all.len(), "no register listed twice");
            assert_eq!(t.int_rets[0], t.int_ret);
            assert_eq!(t.float_rets[0], t.float_ret);
            for p in t
                .int_args
                .iter()
                .chain(&t.float_args)
                .chain(&t.int_rets)
                .chain(&t.float_rets)
            {
                assert!(t.caller_saved.contains(*p));
            }
        }
    }
}
