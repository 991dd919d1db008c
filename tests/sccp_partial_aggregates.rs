//! SCCP with partly known aggregates (DESIGN.md 4; `strata::sccp::lattice`), as an oracle
//! property over generated functions.
//!
//! Each function builds a `{ i64, i64, i64 }` value by a chain of `insertvalue`s, starting
//! from `undef` (all members zero) and inserting at random indices either a constant or a
//! value computed from the parameter `x` (not known), then changes it on both arms of a
//! branch on the parameter `c`, merges the arms with a phi and extracts every member. A
//! model tracks each member: known (with its constant) or not, met at the phi (known only
//! when both arms know the same constant). SCCP must fold exactly the extracts of the
//! members the model knows (no more: the others vary with `x`; no fewer: that is what
//! member-by-member tracking is for), and the interpreter must compute the same results
//! before and after SCCP for several `x` and both `c` (`strata::fuzzing::sccp::check_function`,
//! which also checks the verifier and the solver's invariants).

use arbitrary::{Result, Unstructured};
use std::sync::Arc;
use strata::fuzzing::generate::seed_bytes;
use strata::fuzzing::sccp::check_function;
use strata::interp::Val;
use strata::ir::{
    BinaryOp, ConstData, ConstKind, Function, FunctionBuilder, InstKind, Operand, Phase, Signature,
    Type,
};

const MEMBERS: u32 = 3;

/// One member in the model: `Some(k)` when it is the constant `k` on every execution.
type Model = [Option<i128>; MEMBERS as usize];

/// Appends `n` random `insertvalue`s to `agg` in the current block, updating `model`.
fn inserts(
    u: &mut Unstructured,
    b: &mut FunctionBuilder,
    ty: Type,
    mut agg: Operand,
    model: &mut Model,
    n: u32,
) -> Result<Operand> {
    for _ in 0..n {
        let index = u.int_in_range(0..=MEMBERS - 1)?;
        let value = if u.ratio(1u8, 2)? {
            let k = *u.choose(&[0i128, 1, 7, -3, 42])?;
            model[index as usize] = Some(k);
            b.iconst(Type::I64, k)
        } else {
            model[index as usize] = None;
            let k = b.iconst(Type::I64, u.int_in_range(1i128..=9)?);
            Operand::Value(b.binary(BinaryOp::Add, Type::I64, Operand::Value(b.param(0)), k))
        };
        agg = Operand::Value(
            b.push(InstKind::InsertValue {
                ty,
                agg,
                value,
                index,
            })[0],
        );
    }
    Ok(agg)
}

/// A generated function and how many of its final extracts the model knows.
fn generate(u: &mut Unstructured) -> Result<(Function, usize)> {
    let ty = Type::struct_of(&[Type::I64; MEMBERS as usize]).expect("a valid struct");
    let signature = Signature {
        params: vec![Type::I64, Type::I1],
        ret: Type::I64,
        varargs: false,
    };
    let mut b = FunctionBuilder::new("f", signature);
    b.set_phase(Phase::Ssa);
    let (then_b, else_b, join) = (b.create_block(), b.create_block(), b.create_block());
    let undef = b.constant(ConstData {
        ty,
        kind: ConstKind::Undef,
    });
    let mut start: Model = [Some(0); MEMBERS as usize];
    let n = u.int_in_range(1..=4)?;
    let agg = inserts(u, &mut b, ty, undef, &mut start, n)?;
    b.br(Operand::Value(b.param(1)), then_b, else_b);
    let mut arms = Vec::new();
    for arm in [then_b, else_b] {
        b.switch_to(arm);
        let mut model = start;
        let n = u.int_in_range(0..=3)?;
        let v = inserts(u, &mut b, ty, agg, &mut model, n)?;
        b.jump(join);
        arms.push((arm, v, model));
    }
    b.switch_to(join);
    let phi = b.phi(ty, &[(arms[0].0, arms[0].1), (arms[1].0, arms[1].1)]);
    let mut known = 0;
    let mut sum = b.iconst(Type::I64, 0);
    for index in 0..MEMBERS {
        let (x, y) = (arms[0].2[index as usize], arms[1].2[index as usize]);
        if x.is_some() && x == y {
            known += 1;
        }
        let m = b.push(InstKind::ExtractValue {
            ty,
            agg: Operand::Value(phi),
            index,
        })[0];
        // Weighted, so that a member read from the wrong index changes the result.
        let w = b.iconst(Type::I64, 1 + 10 * index as i128);
        let t = b.binary(BinaryOp::Mul, Type::I64, Operand::Value(m), w);
        sum = Operand::Value(b.binary(BinaryOp::Add, Type::I64, sum, Operand::Value(t)));
    }
    b.ret(Some(sum));
    Ok((b.finish(), known))
}

fn extracts(f: &Function) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| matches!(f.insts[i.index()].kind, InstKind::ExtractValue { .. }))
        .count()
}

#[test]
fn extracts_of_known_members_fold_and_results_match_the_interpreter() {
    let symbols = Arc::new(strata::ir::SymbolTable::default());
    let (mut cases, mut partly_known) = (0, 0);
    for seed in 0..300 {
        let data = seed_bytes(seed, 512);
        let Ok((f, known)) = generate(&mut Unstructured::new(&data)) else {
            continue;
        };
        cases += 1;
        if known > 0 && known < MEMBERS as usize {
            partly_known += 1;
        }
        let mut after = f.clone();
        strata::api::optimize_with_sccp(&mut after, &symbols, usize::MAX).expect("SCCP runs");
        assert_eq!(
            extracts(&after),
            MEMBERS as usize - known,
            "seed {seed}: extracts left after SCCP (the model knows {known} members) in\n{}",
            strata::text::print_function(&f, &symbols)
        );
        let args: Vec<Vec<Val>> = [0i128, 5, -9]
            .iter()
            .flat_map(|&x| [true, false].map(|c| vec![Val::int(Type::I64, x), Val::bool(c)]))
            .collect();
        check_function(f, usize::MAX, &args);
    }
    assert!(cases > 250, "only {cases} functions generated");
    assert!(
        partly_known > 50,
        "only {partly_known} functions with partly known aggregates"
    );
}
