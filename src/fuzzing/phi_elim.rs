//! Oracle check of phi elimination and block-parameter conversion (DESIGN.md 5).
//!
//! What: [`check`] draws a module of memory-form functions from fuzz bytes, promotes every
//! function ([`crate::api::promote_allocas`], checked as in
//! [`super::mem2reg`]), then eliminates the phis ([`eliminate_phis`]); [`check_block_params`]
//! converts them to block parameters instead. Judged: the verifier accepts the result
//! (phase `destructed`, or `ssa` with block parameters), no phi remains (block parameters:
//! except in `indirect_br` targets), and the interpreter gives the same result, output,
//! exit code, memory digest and trace as on the original memory-form function.
//! [`check_swaps`] builds SSA functions with swap and rotation phis on loop back edges,
//! which promotion of generated code rarely produces, and runs them the same way.
//!
//! Complexity: as [`super::mem2reg`], plus linear passes.

use super::generate;
use super::mem2reg::{check_module_with, gen_options, promote_checked};
use crate::api::{convert_phis_to_block_params, eliminate_phis};
use crate::interp::{self, Val};
use crate::ir::{
    BinaryOp, Block, Function, FunctionBuilder, InstKind, IntPredicate, ModuleBuilder, Operand,
    Phase, Signature, Type,
};
use crate::ssa::ParamAllocas;
use arbitrary::Unstructured;

fn no_phis(f: &Function) -> bool {
    f.blocks.iter().filter(|b| !b.dead).all(|b| {
        b.insts
            .iter()
            .all(|i| !matches!(f.insts[i.index()].kind, InstKind::Phi { .. }))
    })
}

/// Fuzz entry point: mem2reg then phi elimination, judged against the original.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(m) = generate::module(&mut u, &gen_options()) else {
        return;
    };
    let seed = u.arbitrary::<u64>().unwrap_or(0);
    check_module_with(&m, seed, &mut |f, symbols| {
        promote_checked(f, symbols, ParamAllocas::IncludeStored);
        eliminate_phis(f, symbols);
        assert_eq!(f.phase, Phase::Destructed);
        assert!(no_phis(f), "@{}: a phi survived", f.name);
    });
    check_swaps(seed);
}

/// Fuzz entry point: mem2reg then block-parameter conversion, judged against the original.
pub fn check_block_params(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(m) = generate::module(&mut u, &gen_options()) else {
        return;
    };
    let seed = u.arbitrary::<u64>().unwrap_or(0);
    check_module_with(&m, seed, &mut |f, symbols| {
        promote_checked(f, symbols, ParamAllocas::IncludeStored);
        convert_phis_to_block_params(f, symbols);
        assert!(no_phis(f), "@{}: a phi survived", f.name);
    });
}

/// A loop of `n` iterations whose header rotates `k` phis (`x_i = phi [entry: i+1],
/// [latch: x_{(i+1) % k}]`) and whose latch has two successor edges (so the back edge is
/// critical), returning a weighted sum of the phis at exit. Phase `ssa`.
pub fn rotation_function(k: usize, shift: usize) -> Function {
    let sig = Signature {
        params: vec![Type::I64],
        ret: Type::I64,
        varargs: false,
    };
    let mut b = FunctionBuilder::new("rot", sig);
    b.set_phase(Phase::Ssa);
    let n = b.param(0);
    let head = b.create_block();
    let exit = b.create_block();
    let entry = Block(0);
    b.jump(head);
    b.switch_to(head);
    // Phis first; their incoming latch values are patched below.
    let mut xs = Vec::new();
    for i in 0..k {
        let c = b.iconst(Type::I64, i as i128 + 1);
        xs.push(b.phi(Type::I64, &[(entry, c), (head, c)]));
    }
    let one = b.iconst(Type::I64, 0);
    let count = b.phi(Type::I64, &[(entry, one), (head, one)]);
    let step = b.iconst(Type::I64, 1);
    let next = b.binary(BinaryOp::Add, Type::I64, count.into(), step);
    let more = b.icmp(IntPredicate::Slt, Type::I64, next.into(), n.into());
    b.br(more.into(), head, exit);
    b.switch_to(exit);
    let mut acc: Operand = b.iconst(Type::I64, 0);
    for (i, &x) in xs.iter().enumerate() {
        let w = b.iconst(Type::I64, 10i128.pow(i as u32 % 18));
        let t = b.binary(BinaryOp::Mul, Type::I64, x.into(), w);
        acc = b.binary(BinaryOp::Add, Type::I64, acc, t.into()).into();
    }
    b.ret(Some(acc));
    let mut f = b.finish();
    // Patch the latch entries: x_i takes x_{(i + shift) % k}; the counter takes `next`.
    let phi_insts: Vec<_> = f.blocks[head.index()].insts[..=k].to_vec();
    for (i, &pi) in phi_insts.iter().enumerate() {
        let v = if i < k {
            Operand::Value(xs[(i + shift) % k])
        } else {
            Operand::Value(next)
        };
        if let InstKind::Phi { incoming, .. } = &mut f.insts[pi.index()].kind {
            incoming[1].1 = v;
        }
    }
    f
}

/// Swap (k = 2) and rotation phis through phi elimination and block parameters, compared
/// with the interpreter on the SSA input.
pub fn check_swaps(seed: u64) {
    let k = 2 + (seed % 5) as usize;
    let shift = 1 + (seed as usize / 5) % k;
    for pass in [0, 1] {
        let f = rotation_function(k, shift);
        let mut g = f.clone();
        if pass == 0 {
            eliminate_phis(&mut g, &Default::default());
        } else {
            convert_phis_to_block_params(&mut g, &Default::default());
        }
        assert!(no_phis(&g));
        let mut mb = ModuleBuilder::new();
        mb.declare_function("rot", f.signature.clone());
        mb.define_function(f);
        let before = mb.finish();
        let mut after = before.clone();
        after.functions[0] = g;
        let errors = crate::verify::verify_module(&after);
        assert!(
            errors.is_empty(),
            "{errors:?}\n{}",
            crate::text::print_module(&after)
        );
        for n in [0i64, 1, 2, 3, 7] {
            let args = [Val::Int {
                ty: Type::I64,
                bits: n as u128,
            }];
            let a = interp::run(&before, "rot", &args, Default::default()).unwrap();
            let b = interp::run(&after, "rot", &args, Default::default()).unwrap();
            assert_eq!(
                a.result,
                b.result,
                "k={k} shift={shift} n={n}\n{}",
                crate::text::print_module(&after)
            );
        }
    }
}

/// Structural check with `asm goto`, which the interpreter cannot run: generated functions
/// get register-output `asm goto` statements (writing an entry-block local, jumping to
/// random blocks) before some terminators; after mem2reg, and after phi elimination or
/// block parameters, the verifier must accept the result and no phi may survive.
pub fn check_asm_goto(data: &[u8]) {
    use crate::ir::{AsmOutput, AsmOutputPlace, InlineAsm, InstData};
    let mut u = Unstructured::new(data);
    let Ok(m) = generate::module(&mut u, &gen_options()) else {
        return;
    };
    let symbols = std::sync::Arc::new(m.symbol_table());
    for f in &m.functions {
        let mut f = f.clone();
        let locals: Vec<(crate::ir::Value, Type)> = f.blocks[0]
            .insts
            .iter()
            .filter_map(|&i| match f.insts[i.index()].kind {
                InstKind::Alloca { ty, size, .. } if size <= 8 => {
                    Some((f.insts[i.index()].results[0], ty))
                }
                _ => None,
            })
            .collect();
        if locals.is_empty() {
            continue;
        }
        let nb = f.blocks.len();
        for b in 0..nb {
            if f.blocks[b].dead || !u.arbitrary::<bool>().unwrap_or(false) {
                continue;
            }
            let (slot, ty) = locals[u.int_in_range(0..=locals.len() - 1).unwrap_or(0)];
            let nl = u.int_in_range(1..=2).unwrap_or(1);
            let labels = (0..nl)
                .map(|_| Block::new(u.int_in_range(0..=nb - 1).unwrap_or(0)))
                .filter(|l| !f.blocks[l.index()].dead)
                .collect();
            let i = crate::ir::Inst::new(f.insts.len());
            f.insts.push(InstData {
                kind: InstKind::InlineAsm(Box::new(InlineAsm {
                    template: String::new(),
                    clobbers: vec![],
                    side_effects: true,
                    outputs: vec![AsmOutput {
                        constraint: "r".into(),
                        ty,
                        place: AsmOutputPlace::Pointer(Operand::Value(slot)),
                    }],
                    inputs: vec![],
                    goto_labels: labels,
                })),
                results: Default::default(),
                block: Block::new(b),
            });
            f.blocks[b].insts.push(i);
        }
        let errors = crate::verify::verify(&f, &symbols);
        assert!(errors.is_empty(), "{errors:?}");
        for mode in 0..2 {
            let mut g = f.clone();
            promote_checked(&mut g, &symbols, ParamAllocas::IncludeStored);
            let errors = crate::verify::verify(&g, &symbols);
            assert!(
                errors.is_empty(),
                "mem2reg: {errors:?}\n{}",
                crate::text::print_function(&g, &symbols)
            );
            if mode == 0 {
                eliminate_phis(&mut g, &symbols);
                assert!(no_phis(&g));
            } else {
                let stats = convert_phis_to_block_params(&mut g, &symbols);
                assert!(no_phis(&g) || stats.phis_kept > 0);
            }
            let errors = crate::verify::verify(&g, &symbols);
            assert!(
                errors.is_empty(),
                "mode {mode}: {errors:?}\n{}",
                crate::text::print_function(&g, &symbols)
            );
        }
    }
}
