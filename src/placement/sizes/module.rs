//! The inter-procedural phase of size estimation over a whole module (see the parent
//! module's doc): return-size summaries callees first ([`summarize_module`]) and the report
//! the `sizes` filetest compares ([`describe`]).
//!
//! Complexity: O(functions + calls) for the call graph and its SCCs, plus [`compute`] per
//! function per round ([`WIDEN_AFTER`] rounds at most inside a recursive SCC).

use super::{compute, SizeForm, SizeScratch, SizeSummaries, WIDEN_AFTER};
use crate::analysis::Cfg;
use crate::ir::{Block, Callee, InstKind, IrRead, SymbolTable, Type};
use std::collections::HashMap;

/// Return-size summaries of every function of a module (already in SSA form, for useful
/// answers), callees first: the call graph's SCCs bottom-up; a recursive SCC is iterated
/// [`WIDEN_AFTER`] rounds, after which a summary still changing is dropped (its callers
/// then use the static size of the return type).
pub fn summarize_module(functions: &[crate::ir::Function], symbols: &SymbolTable) -> SizeSummaries {
    let index: HashMap<&str, usize> = functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    // Call graph over the defined functions.
    let mut callees: Vec<Vec<Block>> = vec![Vec::new(); functions.len()];
    for (i, f) in functions.iter().enumerate() {
        for b in 0..f.num_blocks() {
            for &inst in f.block_insts(Block::new(b)) {
                if let InstKind::Call {
                    callee: Callee::Direct(sym),
                    ..
                } = f.inst_kind(inst)
                {
                    if let Some(&j) = symbols
                        .names
                        .get(sym.index())
                        .and_then(|n| index.get(n.as_str()))
                    {
                        if !callees[i].contains(&Block::new(j)) {
                            callees[i].push(Block::new(j));
                        }
                    }
                }
            }
        }
    }
    let mut sccs = crate::analysis::Sccs::new();
    sccs.compute_graph(functions.len(), |b| &callees[b.index()]);
    let mut out = SizeSummaries::default();
    let mut scratch = SizeScratch::default();
    let mut cfg = Cfg::new();
    // Tarjan numbers SCCs in reverse topological order of the graph: callees first.
    for k in 0..sccs.len() {
        let members: Vec<usize> = sccs.members(k).iter().map(|b| b.index()).collect();
        let mut stable = false;
        for _ in 0..WIDEN_AFTER {
            let mut changed = false;
            for &m in &members {
                let f = &functions[m];
                cfg.compute(f);
                let sum = compute(f, &cfg, Some(symbols), &out, &mut scratch);
                if let Some(sum) = sum {
                    if out.get(&f.name) != Some(sum) {
                        out.insert(&f.name, sum);
                        changed = true;
                    }
                }
            }
            if !changed {
                stable = true;
                break;
            }
        }
        if !stable {
            for &m in &members {
                out.by_name.remove(&functions[m].name);
            }
        }
    }
    out
}

/// A report of a module's sizes (the `sizes` filetest): the summaries of
/// [`summarize_module`], then per function each parameter's and instruction result's size
/// (the form evaluated under the parameters' static sizes, and the affine form when it
/// depends on a parameter) and the function's summary.
pub fn describe(m: &crate::ir::Module) -> String {
    use std::fmt::Write as _;
    let symbols = m.symbol_table();
    let summaries = summarize_module(&m.functions, &symbols);
    let mut out = String::new();
    let mut s = SizeScratch::default();
    let mut cfg = Cfg::new();
    for f in &m.functions {
        cfg.compute(f);
        let summary = compute(f, &cfg, Some(&symbols), &summaries, &mut s);
        let _ = writeln!(out, "function @{}", f.name);
        let line = |v: crate::ir::Value, out: &mut String| {
            let ty = f.values().get(v.index()).map_or(Type::Void, |d| d.ty);
            let size = s.size(v.index(), ty);
            let _ = write!(out, "  {v}: {size}");
            if let Some(form @ SizeForm::Affine { .. }) = s.form.get(v.index()).copied().flatten() {
                let _ = write!(out, " ({form})");
            }
            out.push('\n');
        };
        for &p in f.param_values() {
            line(p, &mut out);
        }
        for b in cfg.rpo() {
            for &i in f.block_insts(*b) {
                if let [r] = f.inst_results(i) {
                    line(*r, &mut out);
                }
            }
        }
        match summary {
            Some(form) => {
                let _ = writeln!(out, "  returns: {form}");
            }
            None => out.push_str("  returns: nothing\n"),
        }
    }
    out
}
