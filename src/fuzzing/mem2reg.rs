//! Oracle check of SSA construction (DESIGN.md 5).
//!
//! What: [`check`] draws a module of memory-form functions from fuzz bytes
//! ([`generate::module`]; one time in eight a function computing with vectors,
//! [`super::vectors::vector_function`]), promotes every function with both invocations
//! ([`ParamAllocas::Skip`] and [`ParamAllocas::IncludeStored`]) and judges:
//! (a) the verifier accepts every result (phase `ssa`);
//! (b) the interpreter gives the same result, output, exit code, memory digest and
//!     external-call trace before and after, on a few argument vectors;
//! (c) pruning: every phi sits where its variable is live-in (naive backward dataflow to a
//!     fixpoint on the original function) and inside the iterated dominance frontier of
//!     the variable's defining blocks (naive fixpoint), so the phi count is at most minimal
//!     SSA's (with `asm goto`, whose labels can be extra phi sites, only liveness is
//!     checked);
//! (d) no promoted alloca, and no load or store of one, remains;
//! (e) the promoted allocas are exactly those a naive restatement of the rules accepts,
//!     less those rejected by the cost limit or the parameter rules;
//! (f) no redundant set of placed phis is left (trivial phis and redundant phi SCCs,
//!     Braun et al. 2013, 3.1-3.2): for every operand `v` of a placed phi, the greatest
//!     set of placed phis other than `v` whose operands from reachable predecessors all
//!     lie in the set or are `v` (found by removing offenders to a fixpoint) is empty.
//!
//! [`check_module_with`] is shared with the phi elimination and block-parameter checks,
//! which run further passes after promotion and compare the same way.
//!
//! Complexity: O(blocks² × allocas) per function for the naive oracles, and
//! O(phi operands² × placed phis) for (f); inputs are small.

use super::generate::{self, GenOptions};
use crate::analysis::{Cfg, DomTree, DominanceFrontiers};
use crate::engine::{with_thread_engine, PassSet, PipelineConfig};
use crate::interp::{self, Config, Val};
use crate::ir::{AsmOutputPlace, Block, Function, InstKind, Module, Operand, SymbolTable, Value};
use crate::ssa::{Mem2RegScratch, Mem2RegStats, ParamAllocas, Reject};
use crate::verify as verifier;
use arbitrary::Unstructured;
use std::sync::Arc;

/// Options of the generated inputs: small CFGs with entry loops and many locals.
pub fn gen_options() -> GenOptions {
    GenOptions {
        max_blocks: 10,
        max_insts_per_block: 6,
        max_locals: 5,
        step_budget: 48,
        ..GenOptions::default()
    }
}

/// Fuzz entry point: panics only if promotion is wrong (see the module doc).
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    // One input in eight computes with vectors (whole-vector slots are promoted).
    let m = if u.ratio(1u8, 8).unwrap_or(false) {
        super::vectors::vector_function(&mut u).map(|f| {
            let mut m = crate::ir::ModuleBuilder::new();
            m.declare_function(&f.name, f.signature.clone());
            m.define_function(f);
            m.finish()
        })
    } else {
        generate::module(&mut u, &gen_options())
    };
    let Ok(m) = m else {
        return;
    };
    let seed = u.arbitrary::<u64>().unwrap_or(0);
    for params in [ParamAllocas::Skip, ParamAllocas::IncludeStored] {
        check_module_with(&m, seed, &mut |f, symbols| {
            promote_checked(f, symbols, params)
        });
    }
}

/// What the `mem2reg` systems left in their scratch about one function.
struct Promotion {
    stats: Mem2RegStats,
    placed: Vec<(Value, Block)>,
    promoted: Vec<Value>,
    rejected: Vec<(Value, Reject)>,
}

/// Runs the pipeline's `mem2reg` systems alone on `f` (through this thread's engine) and
/// reads their scratch before taking the function back.
fn promote_in_engine(
    f: &mut Function,
    symbols: &Arc<SymbolTable>,
    params: ParamAllocas,
) -> Promotion {
    let mut config = PipelineConfig::new(PassSet::MEM2REG);
    config.options.mem2reg_skip_params = params == ParamAllocas::Skip;
    let input = std::mem::take(f);
    let (promotion, back) = with_thread_engine(&config, |engine| {
        engine.load(input, symbols);
        engine.run_schedule();
        let scratch = &engine
            .world()
            .resource::<crate::ir::PerSlot<Mem2RegScratch>>()[0];
        let placed = scratch.placed_phis().collect();
        let promoted = scratch.promoted_allocas().collect();
        let rejected = scratch.rejected_allocas().collect();
        let run = engine.take();
        assert!(!run.has_errors(), "{:?}", run.diagnostics);
        let stats = Mem2RegStats::from_report(&crate::engine::PassReport {
            diagnostics: run.diagnostics,
            stats: run.stats,
        });
        (
            Promotion {
                stats,
                placed,
                promoted,
                rejected,
            },
            run.function,
        )
    })
    .unwrap_or_else(|panic| panic!("{panic}"));
    *f = back;
    promotion
}

/// Promotes `f` with `params` through the `mem2reg` systems and checks the pruning oracle
/// (c) and cleanup (d).
pub fn promote_checked(f: &mut Function, symbols: &Arc<SymbolTable>, params: ParamAllocas) {
    let mut cfg = Cfg::default();
    cfg.compute(f);
    let mut dom = DomTree::default();
    dom.compute(&cfg);
    // The rules below judge the function as the first promotion round sees it once its
    // address slots are forwarded (LLVM's later rounds, restated naively).
    let original = naive_forward(f, &dom, params);
    let mut df = DominanceFrontiers::default();
    df.compute(&cfg, &dom);
    let Promotion {
        stats,
        placed,
        promoted,
        rejected,
    } = promote_in_engine(f, symbols, params);
    assert_eq!(stats.phis_placed as usize, placed.len());
    let has_goto = original
        .insts
        .iter()
        .any(|d| matches!(&d.kind, InstKind::InlineAsm(asm) if !asm.goto_labels.is_empty()));
    // (e) the promoted set is the naive one, less the cost limit and parameter rules.
    let naive = naive_promotable(&original);
    assert!(
        promoted.iter().all(|v| naive.contains(v)),
        "@{}: promoted {promoted:?}, naive {naive:?}",
        f.name
    );
    for &(v, why) in &rejected {
        assert!(
            !naive.contains(&v)
                || matches!(
                    why,
                    Reject::PhiCost | Reject::ParamSkipped | Reject::ParamWithoutStore
                ),
            "@{}: {v} rejected ({why:?}) but promotable",
            f.name
        );
    }
    for &(v, b) in &placed {
        let (live_in, defs) = naive_liveness(&original, &cfg, v);
        assert!(
            live_in[b.index()],
            "@{}: phi for {v} at {b}, where it is dead",
            f.name
        );
        if has_goto {
            continue; // goto labels of late definitions are extra sites (see place_phis)
        }
        let idf = naive_idf(&df, &defs, f.blocks.len());
        assert!(
            idf[b.index()],
            "@{}: phi for {v} at {b} is outside DF+",
            f.name
        );
    }
    // Minimal SSA: DF+(defs ∪ {entry}) for every promoted variable.
    let mut minimal = if has_goto { usize::MAX / 2 } else { 0 };
    for &v in &promoted {
        let (_, mut defs) = naive_liveness(&original, &cfg, v);
        defs.push(Block(0));
        minimal += naive_idf(&df, &defs, f.blocks.len())
            .iter()
            .filter(|&&x| x)
            .count();
    }
    assert!(
        placed.len() <= minimal,
        "@{}: more phis than minimal SSA",
        f.name
    );
    // (f) no redundant set of placed phis (they define the values promotion created).
    assert_no_redundant_phis(f, original.values.len());
    // (d) nothing of a promoted slot remains, parameter allocas included (DESIGN.md 4).
    for b in f.blocks.iter().filter(|b| !b.dead) {
        for &i in &b.insts {
            let mut bad = false;
            let d = &f.insts[i.index()];
            match &d.kind {
                InstKind::Alloca { .. } => {
                    assert!(
                        !d.results.iter().any(|v| promoted.contains(v)),
                        "@{}: promoted alloca {i} is still listed",
                        f.name
                    );
                }
                kind => kind.for_each_operand(|op| {
                    bad |= matches!(op, Operand::Value(v) if promoted.contains(&v))
                }),
            }
            assert!(!bad, "@{}: {i} still uses a promoted alloca", f.name);
        }
    }
}

/// Oracle (f) on the promoted `f`, whose placed phis are the phis defining values
/// numbered from `new_values` on (promotion creates their values).
fn assert_no_redundant_phis(f: &Function, new_values: usize) {
    let mut cfg = Cfg::default();
    cfg.compute(f);
    // Placed phis in reachable blocks: (value, operands from reachable predecessors).
    let mut phis: Vec<(Value, Vec<Operand>)> = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        if block.dead || !cfg.is_reachable(Block::new(b)) {
            continue;
        }
        for &i in &block.insts {
            let d = &f.insts[i.index()];
            let InstKind::Phi { incoming, .. } = &d.kind else {
                continue;
            };
            let Some(&v) = d.results.first().filter(|v| v.index() >= new_values) else {
                continue;
            };
            let ops = incoming
                .iter()
                .filter(|(p, _)| cfg.is_reachable(*p))
                .map(|&(_, op)| op)
                .collect();
            phis.push((v, ops));
        }
    }
    let mut candidates: Vec<Operand> = Vec::new();
    for &op in phis.iter().flat_map(|(_, ops)| ops) {
        if !candidates.contains(&op) {
            candidates.push(op);
        }
    }
    for v in candidates {
        let mut inside: Vec<bool> = phis.iter().map(|(p, _)| Operand::Value(*p) != v).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for k in 0..phis.len() {
                let ok = |op: &Operand| {
                    *op == v
                        || phis
                            .iter()
                            .zip(&inside)
                            .any(|((p, _), &i)| i && Operand::Value(*p) == *op)
                };
                if inside[k] && !phis[k].1.iter().all(ok) {
                    inside[k] = false;
                    changed = true;
                }
            }
        }
        let left: Vec<Value> = phis
            .iter()
            .zip(&inside)
            .filter(|(_, &i)| i)
            .map(|((p, _), _)| *p)
            .collect();
        assert!(
            left.is_empty(),
            "@{}: placed phis {left:?} are all {v:?} (a redundant set was left)",
            f.name
        );
    }
}

/// 002 step 1 and DESIGN.md 4 restated: scalar, not volatile, every use the address of a
/// non-volatile load or store of the alloca's type, or the place of a register-constraint
/// asm output of that type.
fn naive_promotable(f: &Function) -> Vec<Value> {
    let mut out = Vec::new();
    let live = || f.blocks.iter().filter(|b| !b.dead).flat_map(|b| &b.insts);
    for &i in live() {
        let d = &f.insts[i.index()];
        let InstKind::Alloca {
            ty, size, volatile, ..
        } = d.kind
        else {
            continue;
        };
        let v = d.results[0];
        if !crate::ssa::promotable_size(ty, size as u64) || volatile {
            continue;
        }
        let me = Operand::Value(v);
        let mut ok = true;
        for &j in live() {
            match &f.insts[j.index()].kind {
                InstKind::Load {
                    ty: t,
                    ptr,
                    volatile,
                } if *ptr == me => ok &= *t == ty && !volatile,
                InstKind::Store {
                    ty: t,
                    value,
                    ptr,
                    volatile,
                } if *ptr == me => ok &= *t == ty && !volatile && *value != me,
                InstKind::InlineAsm(asm) => {
                    for o in &asm.outputs {
                        if o.place == AsmOutputPlace::Pointer(me) {
                            ok &= o.ty == ty && !o.constraint.contains(['m', 'o', 'V', 'p', '+']);
                        }
                    }
                    ok &= asm.inputs.iter().all(|i| i.value != me);
                }
                kind => kind.for_each_operand(|op| ok &= op != me),
            }
        }
        for b in f.blocks.iter().filter(|b| !b.dead) {
            b.terminator.for_each_operand(|op| ok &= op != me);
        }
        if ok {
            out.push(v);
        }
    }
    out
}

/// A naive restatement of address-slot forwarding ([`crate::ssa::forward`]) on a copy of
/// `f`: while some `ptr` alloca `S` is used only as the address of non-volatile `ptr` loads
/// and stores, has loads and stores, every store stores the same alloca (through earlier
/// forwardings) and every load comes after a store in its block or in a strictly
/// dominating block, its loads are replaced by that alloca and its loads and stores go.
/// With [`ParamAllocas::Skip`] the first N allocas of the entry block (N parameters) stay.
fn naive_forward(f: &Function, dom: &DomTree, params: ParamAllocas) -> Function {
    let mut g = f.clone();
    let protected: Vec<crate::ir::Inst> = match params {
        ParamAllocas::Skip => f.blocks[0]
            .insts
            .iter()
            .copied()
            .filter(|i| matches!(f.insts[i.index()].kind, InstKind::Alloca { .. }))
            .take(f.param_values.len())
            .collect(),
        ParamAllocas::IncludeStored => Vec::new(),
    };
    let mut repl: std::collections::HashMap<Value, Value> = Default::default();
    let resolve = |repl: &std::collections::HashMap<Value, Value>, mut v: Value| {
        while let Some(&w) = repl.get(&v) {
            v = w;
        }
        v
    };
    loop {
        let mut changed = false;
        let listed: Vec<(usize, usize, crate::ir::Inst)> = g
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.dead)
            .flat_map(|(bi, b)| b.insts.iter().enumerate().map(move |(k, &i)| (bi, k, i)))
            .collect();
        for &(_, _, a) in &listed {
            if protected.contains(&a) {
                continue;
            }
            let InstKind::Alloca {
                ty: crate::ir::Type::Ptr,
                volatile: false,
                ..
            } = g.insts[a.index()].kind
            else {
                continue;
            };
            let s = Operand::Value(g.insts[a.index()].results[0]);
            let (mut loads, mut stores, mut ok) = (Vec::new(), Vec::new(), true);
            for &(b, k, i) in &listed {
                match &g.insts[i.index()].kind {
                    InstKind::Load { ty, ptr, volatile } if *ptr == s => {
                        ok &= *ty == crate::ir::Type::Ptr && !volatile;
                        loads.push((b, k, i));
                    }
                    InstKind::Store {
                        ty,
                        value,
                        ptr,
                        volatile,
                    } if *ptr == s => {
                        ok &= *ty == crate::ir::Type::Ptr && !volatile && *value != s;
                        stores.push((b, k, *value));
                    }
                    kind => kind.for_each_operand(|o| ok &= o != s),
                }
            }
            for b in g.blocks.iter().filter(|b| !b.dead) {
                b.terminator.for_each_operand(|o| ok &= o != s);
            }
            if !ok || loads.is_empty() || stores.is_empty() {
                continue;
            }
            let values: Vec<Option<Value>> = stores
                .iter()
                .map(|&(_, _, v)| match v {
                    Operand::Value(v) => Some(resolve(&repl, v)),
                    Operand::Const(_) => None,
                })
                .collect();
            let Some(Some(target)) = values.first().copied() else {
                continue;
            };
            let is_alloca = |v: Value| {
                g.insts.iter().any(|d| {
                    d.results.first() == Some(&v) && matches!(d.kind, InstKind::Alloca { .. })
                })
            };
            if values.iter().any(|&v| v != Some(target))
                || Operand::Value(target) == s
                || !is_alloca(target)
            {
                continue;
            }
            let covered = loads.iter().all(|&(lb, lk, _)| {
                dom.preorder_number(Block::new(lb)).is_some()
                    && stores.iter().any(|&(sb, sk, _)| {
                        (sb == lb && sk < lk)
                            || dom.strictly_dominates(Block::new(sb), Block::new(lb))
                    })
            });
            if !covered {
                continue;
            }
            for &(_, _, i) in &loads {
                repl.insert(g.insts[i.index()].results[0], target);
            }
            let gone: Vec<crate::ir::Inst> = loads
                .iter()
                .map(|&(_, _, i)| i)
                .chain(listed.iter().filter_map(|&(_, _, i)| {
                    matches!(&g.insts[i.index()].kind, InstKind::Store { ptr, .. } if *ptr == s)
                        .then_some(i)
                }))
                .collect();
            for b in &mut g.blocks {
                b.insts.retain(|i| !gone.contains(i));
            }
            changed = true;
            break;
        }
        if !changed {
            break;
        }
    }
    let fix = |o: &mut Operand| {
        if let Operand::Value(v) = *o {
            *o = Operand::Value(resolve(&repl, v));
        }
    };
    for b in 0..g.blocks.len() {
        for k in 0..g.blocks[b].insts.len() {
            let i = g.blocks[b].insts[k];
            g.insts[i.index()].kind.for_each_operand_mut(fix);
        }
        g.blocks[b].terminator.for_each_operand_mut(fix);
    }
    g
}

/// Per block: is alloca `v` live-in; and the blocks that define it (stores, asm outputs).
fn naive_liveness(f: &Function, cfg: &Cfg, v: Value) -> (Vec<bool>, Vec<Block>) {
    let n = f.blocks.len();
    let mut ue = vec![false; n];
    let mut kill = vec![false; n];
    let mut defs = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        if block.dead {
            continue;
        }
        for &i in &block.insts {
            let d = &f.insts[i.index()];
            let (is_use, is_def) = match &d.kind {
                InstKind::Load { ptr, .. } => (*ptr == Operand::Value(v), false),
                InstKind::Store { ptr, .. } => (false, *ptr == Operand::Value(v)),
                InstKind::Alloca { .. } => (false, d.results.first() == Some(&v)),
                InstKind::InlineAsm(asm) => (
                    false,
                    asm.outputs
                        .iter()
                        .any(|o| o.place == AsmOutputPlace::Pointer(Operand::Value(v))),
                ),
                _ => (false, false),
            };
            if is_use && !kill[b] {
                ue[b] = true;
            }
            if is_def {
                if !matches!(d.kind, InstKind::Alloca { .. }) && defs.last() != Some(&Block::new(b))
                {
                    defs.push(Block::new(b));
                }
                kill[b] = true;
            }
        }
    }
    let mut live = ue.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if live[b] || kill[b] || !cfg.is_reachable(Block::new(b)) {
                continue;
            }
            if cfg.succs(Block::new(b)).iter().any(|s| live[s.index()]) {
                live[b] = true;
                changed = true;
            }
        }
    }
    (live, defs)
}

fn naive_idf(df: &DominanceFrontiers, defs: &[Block], n: usize) -> Vec<bool> {
    let mut idf = vec![false; n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if defs.contains(&Block::new(b)) || idf[b] {
                for &y in df.frontier(Block::new(b)) {
                    if !idf[y.index()] {
                        idf[y.index()] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    idf
}

/// Argument vectors for `f`: zeros, small values and values drawn from `seed`.
fn arg_sets(f: &Function, seed: u64) -> Vec<Vec<Val>> {
    let mut sets = Vec::new();
    for k in 0..3u64 {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(k);
        sets.push(
            f.signature
                .params
                .iter()
                .map(|&ty| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let bits = match k {
                        0 => 0,
                        1 => (x % 7) as u128,
                        _ => x as u128,
                    };
                    Val::Int {
                        ty,
                        bits: bits & ty.mask(),
                    }
                })
                .collect(),
        );
    }
    sets
}

/// Transforms a clone of `m` function by function with `pass`, verifies the result and
/// compares interpreter outcomes of every function before and after (see the module doc).
pub fn check_module_with(
    m: &Module,
    seed: u64,
    pass: &mut dyn FnMut(&mut Function, &Arc<SymbolTable>),
) {
    assert!(
        verifier::verify_module(m).is_empty(),
        "generator made invalid IR"
    );
    let mut after = m.clone();
    let symbols = Arc::new(m.symbol_table());
    for f in &mut after.functions {
        pass(f, &symbols);
    }
    let errors = verifier::verify_module(&after);
    assert!(
        errors.is_empty(),
        "invalid after the pass: {errors:?}\n{}",
        crate::text::print_module(&after)
    );
    let config = Config {
        step_limit: 200_000,
        ..Config::default()
    };
    for f in &m.functions {
        for args in arg_sets(f, seed) {
            let Ok(before) = interp::run(m, &f.name, &args, config) else {
                continue;
            };
            match interp::run(&after, &f.name, &args, config) {
                Ok(o) => super::assert_same_observable(&before, &o, || {
                    format!(
                        "@{} {args:?}\n--- before\n{}\n--- after\n{}",
                        f.name,
                        crate::text::print_module(m),
                        crate::text::print_module(&after)
                    )
                }),
                Err(e) => panic!(
                    "@{} {args:?} failed after the pass: {e}\n{}",
                    f.name,
                    crate::text::print_module(&after)
                ),
            }
        }
    }
}

/// Runs [`check`] on `n` seeded inputs (for `cargo test`).
pub fn run_seeds(n: u64, check: fn(&[u8])) {
    for seed in 0..n {
        check(&generate::seed_bytes(seed, 3000));
    }
}
