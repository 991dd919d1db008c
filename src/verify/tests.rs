//! The dominance gate: `check_dominance` walks a function only when a use checked along with
//! the operand types was not available. On mutated corpus functions (operands replaced by
//! other values of their type, neighbouring instructions swapped), the reports equal those
//! of a run that always walks.

use super::*;
use crate::engine::{Engine, PipelineConfig};
use crate::stage::PassSet;
use std::sync::Arc;

/// The example programs and (with the generator) a few generated functions, as the
/// built-in benchmark corpus has them, in memory form and after mem2reg (with phis) and SCCP.
fn corpus() -> Vec<(Function, Arc<SymbolTable>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sir");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("examples/sir")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sir"))
        .collect();
    paths.sort();
    let mut modules: Vec<(Module, Vec<Function>)> = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("example reads");
            let m = crate::text::parse_module(&text, &p.to_string_lossy()).expect("parses");
            let functions = m.functions.clone();
            (m, functions)
        })
        .collect();
    #[cfg(feature = "fuzzing")]
    {
        let opts = crate::fuzzing::generate::GenOptions::default();
        let functions = (0..12)
            .map(|k| crate::fuzzing::generate::seeded(0x5eed_0000 + k, &opts))
            .collect();
        modules.push((ModuleBuilder::new().finish(), functions));
    }
    let mut out = Vec::new();
    for (m, functions) in modules {
        let symbols = Arc::new(m.symbol_table());
        for f in &functions {
            out.push((f.clone(), symbols.clone()));
            for passes in ["cfg,dominance,mem2reg", "cfg,dominance,mem2reg,sccp"] {
                let set = PassSet::parse(passes).expect("pass list");
                let run = Engine::new(PipelineConfig::new(set)).run(f.clone(), &symbols);
                if !run.has_errors() && run.function.phase.single_definition() {
                    out.push((run.function, symbols.clone()));
                }
            }
        }
    }
    out
}

/// Reports of the gated verifier and of one that always walks `check_dominance`.
fn both(f: &Function, symbols: &SymbolTable) -> (Vec<VerifyError>, Vec<VerifyError>) {
    let mut cfg = Cfg::default();
    cfg.compute(f);
    let mut dom = DomTree::default();
    dom.compute(&cfg);
    let gated = check_all(f, symbols, &cfg, &dom, &mut VerifyScratch::default(), false);
    let walked = check_all(f, symbols, &cfg, &dom, &mut VerifyScratch::default(), true);
    (gated, walked)
}

/// Every variant of `f` with one operand (of an instruction or a terminator) replaced by
/// another defined value of the same type, at most `per_slot` per operand.
fn operand_variants(f: &Function, per_slot: usize) -> Vec<Function> {
    let defined: Vec<(Value, Type)> = f
        .values
        .iter()
        .enumerate()
        .filter(|(_, d)| d.def != ValueDef::Unused)
        .map(|(k, d)| (Value::new(k), d.ty))
        .collect();
    let same_type = |ty: Type| -> Vec<Value> {
        let all: Vec<Value> = defined
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(v, _)| *v)
            .collect();
        let step = all.len().div_ceil(per_slot).max(1);
        all.into_iter().step_by(step).collect()
    };
    let mut out = Vec::new();
    let mut operands = Vec::new();
    for i in 0..f.insts.len() {
        operands.clear();
        f.insts[i].kind.for_each_operand(|op| operands.push(op));
        for (slot, op) in operands.iter().enumerate() {
            let Operand::Value(v) = op else { continue };
            for w in same_type(f.values[v.index()].ty) {
                let mut g = f.clone();
                let mut k = 0;
                g.insts[i].kind.for_each_operand_mut(|o| {
                    if k == slot {
                        *o = Operand::Value(w);
                    }
                    k += 1;
                });
                out.push(g);
            }
        }
    }
    for b in 0..f.blocks.len() {
        operands.clear();
        f.blocks[b]
            .terminator
            .for_each_operand(|op| operands.push(op));
        for (slot, op) in operands.iter().enumerate() {
            let Operand::Value(v) = op else { continue };
            for w in same_type(f.values[v.index()].ty) {
                let mut g = f.clone();
                let mut k = 0;
                g.blocks[b].terminator.for_each_operand_mut(|o| {
                    if k == slot {
                        *o = Operand::Value(w);
                    }
                    k += 1;
                });
                out.push(g);
            }
        }
    }
    out
}

/// Every variant of `f` with two neighbouring instructions of a block swapped.
fn swap_variants(f: &Function) -> Vec<Function> {
    let mut out = Vec::new();
    for b in 0..f.blocks.len() {
        for k in 1..f.blocks[b].insts.len() {
            let mut g = f.clone();
            g.blocks[b].insts.swap(k - 1, k);
            out.push(g);
        }
    }
    out
}

#[test]
fn gated_dominance_reports_what_the_full_walk_reports() {
    let mut variants = 0;
    let mut undominated = 0;
    for (f, symbols) in corpus() {
        let (gated, walked) = both(&f, &symbols);
        assert_eq!(gated, walked, "@{}", f.name);
        for g in operand_variants(&f, 4).into_iter().chain(swap_variants(&f)) {
            let (gated, walked) = both(&g, &symbols);
            assert_eq!(gated, walked, "@{}", g.name);
            variants += 1;
            undominated += gated
                .iter()
                .any(|e| e.message.contains("not dominated") || e.message.contains("not available"))
                as usize;
        }
    }
    // The mutations reach the dominance check (and not just the type checks before it).
    assert!(variants > 1000, "{variants} variants");
    assert!(
        undominated > 100,
        "{undominated} of {variants} variants not dominated"
    );
}
