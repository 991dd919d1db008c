//! Tests of size estimation: static sizes, propagation, widening, summaries.

use super::*;
use crate::ir::{Function, Module};

fn module(src: &str) -> Module {
    crate::text::parse_module(src, "sizes.sir").unwrap_or_else(|e| panic!("{e}"))
}

/// The sizes of every value of `f` (with `summaries`), and its summary.
fn sizes_of(m: &Module, f: &Function, summaries: &SizeSummaries) -> (Vec<Size>, Option<SizeForm>) {
    let mut cfg = Cfg::new();
    cfg.compute(f);
    let mut s = SizeScratch::default();
    let table = m.symbol_table();
    let sum = compute(f, &cfg, Some(&table), summaries, &mut s);
    let sizes = f
        .values()
        .iter()
        .enumerate()
        .map(|(v, d)| s.size(v, d.ty))
        .collect();
    (sizes, sum)
}

fn size(units: (u64, u64), card: (u64, u64)) -> Size {
    Size {
        units: Range::new(units.0, units.1),
        card: Range::new(card.0, card.1),
    }
}

#[test]
fn static_sizes_follow_type_structure() {
    assert_eq!(Size::of_type(Type::I32), Size::units(1));
    assert_eq!(Size::of_type(Type::I128), Size::units(2));
    assert_eq!(Size::of_type(Type::Void), Size::units(0));
    assert_eq!(Size::of_type(Type::Ptr), Size::units(1));
    let pair = Type::aggregate(AggShape::Struct {
        fields: vec![Type::I64, Type::I128].into(),
        packed: false,
    })
    .unwrap();
    assert_eq!(Size::of_type(pair), Size::units(3));
    let array = Type::aggregate(AggShape::Array {
        len: 10,
        elem: pair,
    })
    .unwrap();
    assert_eq!(Size::of_type(array), size((3, 3), (10, 10)));
    assert_eq!(Size::of_type(array).total(), Range::exact(30));
}

#[test]
fn global_sizes_bound_units_by_bytes() {
    assert_eq!(global_size(64), size((4, 64), (1, 1)));
    assert_eq!(global_size(1), size((1, 1), (1, 1)));
    assert_eq!(global_size(0), size((1, 1), (1, 1)), "unknown: one unit");
}

#[test]
fn ranges_become_costs_by_the_chosen_estimate() {
    let r = Range::new(4, 9);
    assert_eq!(r.estimate(SizeEstimate::Lower), 4);
    assert_eq!(r.estimate(SizeEstimate::Mid), 7, "midpoint rounded up");
    assert_eq!(r.estimate(SizeEstimate::Upper), 9);
    assert_eq!(Range::exact(5).estimate(SizeEstimate::Mid), 5);
    assert_eq!(Range::new(9, 4), r, "bounds are ordered");
    assert_eq!(r.join(Range::new(1, 5)), Range::new(1, 9));
    assert_eq!(r.mul(Range::new(2, 3), 20), Range::new(8, 20), "saturates");
}

#[test]
fn forward_propagation_through_assignments() {
    let m = module(
        "global @g size 64 align 8

func @f(i1 v0) -> i64 {
block0:
  v1 = alloca i32, size 400, align 4
  v2 = alloca i64, size 8, align 8
  v3 = gep v1, 4
  v4 = select ptr v0, v3, v2
  v9 = copy ptr @g
  br v0, block1, block2
block1:
  jump block2
block2:
  v5 = phi ptr [block0: v2], [block1: v1]
  v6 = load i64, v5
  ret i64 v6
}
",
    );
    let (s, _) = sizes_of(&m, &m.functions[0], &SizeSummaries::default());
    assert_eq!(
        s[1],
        size((1, 1), (1, 100)),
        "alloca: up to 400 / 4 elements"
    );
    assert_eq!(s[2], size((1, 1), (1, 1)));
    assert_eq!(s[3], s[1], "gep keeps its base's object");
    assert_eq!(s[4], size((1, 1), (1, 100)), "select joins");
    assert_eq!(s[5], size((1, 1), (1, 100)), "phi joins");
    assert_eq!(s[6], Size::units(1), "a load: its type");
    assert_eq!(s[9], global_size(64), "a global's address: the global");
}

#[test]
fn parameters_are_affine_and_calls_substitute_summaries() {
    let m = module(
        "func @id(ptr v0) -> ptr {
block0:
  v1 = gep v0, 8
  ret ptr v1
}

func @two(ptr v0, i1 v1) -> ptr {
block0:
  v2 = alloca i8, size 16, align 1
  v3 = select ptr v1, v0, v2
  ret ptr v3
}

func @caller(i1 v0) -> ptr {
block0:
  v1 = alloca i64, size 800, align 8
  v2 = call ptr @id(ptr v1)
  v3 = call ptr @two(ptr v1, i1 v0)
  ret ptr v2
}
",
    );
    let (_, id) = sizes_of(&m, &m.functions[0], &SizeSummaries::default());
    assert_eq!(id, Some(SizeForm::param(0)), "gep of a parameter: identity");
    let (_, two) = sizes_of(&m, &m.functions[1], &SizeSummaries::default());
    // A join of the parameter with a known size is evaluated under the parameter's
    // static size (a pointer: one unit).
    assert_eq!(two, Some(SizeForm::Known(size((1, 1), (1, 16)))));
    let mut sums = SizeSummaries::default();
    sums.insert("id", id.unwrap());
    sums.insert("two", two.unwrap());
    let (s, caller) = sizes_of(&m, &m.functions[2], &sums);
    assert_eq!(
        s[2],
        size((1, 1), (1, 100)),
        "the argument's size comes back"
    );
    assert_eq!(s[3], size((1, 1), (1, 16)));
    assert_eq!(caller, Some(SizeForm::Known(size((1, 1), (1, 100)))));
    // Without summaries a call's result has its type's static size.
    let (s, _) = sizes_of(&m, &m.functions[2], &SizeSummaries::default());
    assert_eq!(s[2], Size::units(1));
    // The whole-module phase finds the same, callees first.
    assert_eq!(
        summarize_module(&m.functions, &m.symbol_table()),
        sums_with(&sums, "caller", caller.unwrap())
    );
}

/// The summaries reach the placement problem: a call result live across an edge is
/// charged at its callee's summarized size (what `strata place` builds), not at a
/// pointer's one unit (the pipeline's pass, which has no summaries).
#[test]
fn summaries_raise_transfer_costs_of_call_results() {
    let m = module(
        "func @id(ptr v0) -> ptr {
block0:
  v1 = gep v0, 8
  ret ptr v1
}

func @caller(i1 v0) -> i64 {
block0:
  v1 = alloca i64, size 800, align 8
  v2 = call ptr @id(ptr v1)
  br v0, block1, block2
block1:
  v3 = load i64, v2
  ret i64 v3
block2:
  ret i64 0
}
",
    );
    let symbols = m.symbol_table();
    let model = crate::placement::targets::TargetModel::default_model();
    let sums = summarize_module(&m.functions, &symbols);
    let f = &m.functions[1];
    let plain = crate::placement::build::build_problem(f, Some(&symbols), &model);
    let summarized =
        crate::placement::build::build_problem_with_summaries(f, Some(&symbols), &model, &sums);
    let (a, b) = (&plain.problem.matrices, &summarized.problem.matrices);
    assert_eq!(a.len(), b.len());
    assert!(
        a.iter().zip(b).all(|(x, y)| y >= x) && a != b,
        "some transfer across block0's edges costs more with the summary:\n{a:?}\n{b:?}"
    );
}

fn sums_with(base: &SizeSummaries, name: &str, form: SizeForm) -> SizeSummaries {
    let mut s = base.clone();
    s.insert(name, form);
    s
}

#[test]
fn affine_forms_compose_and_join() {
    let f = SizeForm::Affine {
        param: 0,
        scale: 2,
        plus: Range::exact(1),
    };
    let g = SizeForm::Affine {
        param: 3,
        scale: 3,
        plus: Range::new(0, 2),
    };
    // f(g(x)) = 2 (3x + [0, 2]) + 1 = 6x + [1, 5].
    assert_eq!(
        f.substitute(&[Some(g)], Size::units(1)),
        SizeForm::Affine {
            param: 3,
            scale: 6,
            plus: Range::new(1, 5)
        }
    );
    let known = SizeForm::Known(size((4, 4), (2, 3)));
    assert_eq!(
        f.substitute(&[Some(known)], Size::units(1)),
        SizeForm::Known(size((9, 9), (2, 3)))
    );
    assert_eq!(
        f.substitute(&[None], Size::units(7)),
        SizeForm::Known(Size::units(7)),
        "a missing argument: the fallback"
    );
    let params = [Size::units(1)];
    let f2 = SizeForm::Affine {
        param: 0,
        scale: 2,
        plus: Range::exact(5),
    };
    assert_eq!(
        f.join(f2, &params),
        SizeForm::Affine {
            param: 0,
            scale: 2,
            plus: Range::new(1, 5)
        },
        "same parameter and scale: offsets join"
    );
    assert_eq!(
        f.join(known, &params),
        SizeForm::Known(size((3, 4), (1, 3))),
        "otherwise evaluated and joined"
    );
}

#[test]
fn growing_loops_are_widened_and_recursion_terminates() {
    let m = module(
        "func @grow(ptr v0) -> ptr {
block0:
  v1 = call ptr @grow(ptr v0)
  ret ptr v1
}

func @loop(ptr v0, i1 v1) -> ptr {
block0:
  jump block1
block1:
  v2 = phi ptr [block0: v0], [block1: v3]
  v3 = call ptr @dbl(ptr v2)
  br v1, block1, block2
block2:
  ret ptr v3
}

func @dbl(ptr v0) -> ptr {
block0:
  ret ptr v0
}
",
    );
    let mut sums = SizeSummaries::default();
    sums.insert(
        "dbl",
        SizeForm::Affine {
            param: 0,
            scale: 2,
            plus: Range::exact(1),
        },
    );
    let (s, _) = sizes_of(&m, &m.functions[1], &sums);
    assert_eq!(s[2].units.hi, MAX_UNITS, "widened: {}", s[2]);
    let all = summarize_module(&m.functions, &m.symbol_table());
    assert_eq!(all.get("dbl"), Some(SizeForm::param(0)));
    assert!(all.len() <= 3);
}

#[test]
fn the_model_chooses_the_estimate() {
    use crate::placement::targets::TargetModel;
    let m = TargetModel::default_model();
    assert_eq!(m.size_estimate, SizeEstimate::Mid);
    let m =
        TargetModel::parse("[sizes]\nestimate = \"upper\"\n[[target]]\nname = \"a\"\n").unwrap();
    assert_eq!(m.size_estimate, SizeEstimate::Upper);
    let err =
        TargetModel::parse("[sizes]\nestimate = \"most\"\n[[target]]\nname = \"a\"\n").unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
}

#[test]
fn costs_use_the_size_estimates() {
    use crate::placement::build::build_problem;
    use crate::placement::targets::TargetModel;
    let m = module(
        "global @pg_big size 64 align 8
global @pg_small size 16 align 8

func @big() -> i64 {
block0:
  v1 = load i64, @pg_big
  ret i64 v1
}

func @small() -> i64 {
block0:
  v1 = load i64, @pg_small
  ret i64 v1
}

func @edge(i1 v0) -> i64 {
block0:
  v1 = alloca i64, size 800, align 8
  br v0, block1, block2
block1:
  v2 = load i64, v1
  ret i64 v2
block2:
  ret i64 0
}
",
    );
    let table = m.symbol_table();
    let model = TargetModel::default_model();
    let interp = 0;
    assert_eq!(model.targets[interp].name, "interpreter");
    let big = build_problem(&m.functions[0], Some(&table), &model);
    let small = build_problem(&m.functions[1], Some(&table), &model);
    assert_eq!(big.path_sizes, vec![global_size(64)]);
    // Path premium on the interpreter: path_unit 2 × midpoint of the global's units
    // ([4, 64] -> 34; [1, 16] -> 9).
    assert_eq!(
        big.problem.cost(0, interp) - small.problem.cost(0, interp),
        2 * (34 - 9)
    );
    // Transfer: the alloca's pointer (cardinality [1, 100], midpoint 51) is live into
    // block1; interpreter -> embedding costs overhead 8 + 1 per unit.
    let e = build_problem(&m.functions[2], Some(&table), &model);
    let emb = model
        .targets
        .iter()
        .position(|t| t.name == "embedding")
        .unwrap();
    let into1 = e
        .problem
        .edges
        .iter()
        .position(|x| e.pieces[x.to as usize].block == 1)
        .unwrap();
    assert_eq!(e.problem.transition(into1, interp, emb), 8 + 51);
}

/// [`compute_values`] over a set closed under the operands of derivations, selects, phis
/// and direct calls gives each of its values the form [`compute_blocks`] gives it, loops
/// widened after the same rounds included (every value's closure in turn).
#[test]
fn closed_value_sets_get_the_forms_of_every_block() {
    let m = module(
        "global @g size 64 align 8

func @f(i1 v0, ptr v7) -> ptr {
block0:
  v1 = alloca i32, size 400, align 4
  v2 = alloca i64, size 8, align 8
  v3 = gep v1, 4
  v4 = select ptr v0, v3, v2
  v9 = copy ptr @g
  br v0, block1, block2
block1:
  v8 = call ptr @dbl(ptr v7)
  jump block2
block2:
  v5 = phi ptr [block0: v2], [block1: v8], [block2: v10]
  v10 = call ptr @dbl(ptr v5)
  v6 = load i64, v10
  br v0, block2, block3
block3:
  ret ptr v4
}

func @dbl(ptr v0) -> ptr {
block0:
  ret ptr v0
}
",
    );
    let mut sums = SizeSummaries::default();
    sums.insert(
        "dbl",
        SizeForm::Affine {
            param: 0,
            scale: 2,
            plus: Range::exact(1),
        },
    );
    let table = m.symbol_table();
    let f = &m.functions[0];
    let mut cfg = Cfg::new();
    cfg.compute(f);
    let mut all = SizeScratch::default();
    compute_blocks(f, cfg.rpo(), Some(&table), &sums, &mut all);
    let nv = f.values().len();
    let mut checked = 0;
    for v in 0..nv {
        // The closure of {v} under the operands transfer may read.
        let mut keep = vec![false; nv];
        let mut work = vec![v];
        keep[v] = true;
        while let Some(x) = work.pop() {
            let crate::ir::ValueDef::Result(i, _) = f.values()[x].def else {
                continue;
            };
            let kind = f.inst_kind(i);
            let propagates = matches!(
                kind,
                InstKind::Gep { .. }
                    | InstKind::Copy { .. }
                    | InstKind::Cast { .. }
                    | InstKind::Select { .. }
                    | InstKind::Phi { .. }
                    | InstKind::Call { .. }
            );
            if propagates {
                kind.for_each_operand(|op| {
                    if let Operand::Value(y) = op {
                        if !std::mem::replace(&mut keep[y.index()], true) {
                            work.push(y.index());
                        }
                    }
                });
            }
        }
        let mut some = SizeScratch::default();
        compute_values(f, cfg.rpo(), Some(&keep), Some(&table), &sums, &mut some);
        for x in (0..nv).filter(|&x| keep[x]) {
            assert_eq!(some.form[x], all.form[x], "v{x} in the closure of v{v}");
            checked += usize::from(some.form[x].is_some());
        }
        // A value outside the set is left unreached (unless a parameter).
        let outside =
            (0..nv).filter(|&x| !keep[x] && !f.param_values().iter().any(|p| p.index() == x));
        for x in outside {
            assert_eq!(some.form[x], None, "v{x} outside the closure of v{v}");
        }
    }
    assert!(checked > 20, "only {checked} forms compared");
    let widened = matches!(all.form[10], Some(SizeForm::Known(s)) if s.units.hi == MAX_UNITS);
    assert!(widened, "the doubling loop is widened: {:?}", all.form[10]);
}
