//! Filetests: `tests/filetests/<stage>/*.sir`.
//!
//! The first line names the test: `; test <kind> [arguments]`. The expected output is the
//! comment block after the line `; ---- expected ----` at the end of the file; run with
//! `BLESS=1` to rewrite it from the actual output. Kinds:
//!
//! - `print`: the module as printed (and printing is a fixed point of parse-print).
//! - `parse-error`: the parse error message with its location.
//! - `verify`: verifier errors, one per line, or `ok`.
//! - `cfg`: successors, predecessors (per edge), reverse postorder, critical edges.
//! - `dominance`: immediate dominators, dominator-tree children, dominance frontiers,
//!   iterated frontiers of each block, SCCs.
//! - `run @f(ARGS...)`: the interpreter's output and result for each `@f(...)` call listed.
//! - `sccp`: the SCCP analysis of each function: reachable blocks, executable edges
//!   (`blockN#successor -> target`), every lattice cell that is not `Unknown`, the counts.
//! - `compile passes=LIST [stats] [sccp-memory-limit=BYTES] [placement-split]
//!   [placement-model=PATH] [run @f(ARGS...)...]`: the module after the pipeline, plus
//!   diagnostics (and the non-zero pass statistics with `stats`); `placement-split` lets
//!   placement rewrite the IR, `placement-model` names a target model file (crate-relative);
//!   with `run`, also each call's output and result on the original module (`before`) and on
//!   the compiled one (`after`), so a transformation's effect and its equivalence are
//!   reviewed together.
//! - `sizes`: placement's size estimation (`strata::placement::sizes::describe`): per
//!   function, every parameter's and result's size and the return-size summary.

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use strata::analysis::{Cfg, DomTree, DominanceFrontiers, Sccs};
use strata::engine::{batch, PassSet, PipelineConfig};
use strata::ir::{Block, Module};

/// Parses with the path relative to the crate, so messages do not depend on the checkout.
fn parse(src: &str, path: &Path) -> Result<Module, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let name = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    strata::text::parse_module(src, &name).map_err(|e| e.to_string())
}

fn list(blocks: impl IntoIterator<Item = Block>) -> String {
    let v: Vec<String> = blocks.into_iter().map(|b| b.to_string()).collect();
    format!("[{}]", v.join(", "))
}

fn analyse(m: &Module, dominance: bool) -> String {
    let mut out = String::new();
    for f in &m.functions {
        let mut cfg = Cfg::default();
        cfg.compute(f);
        writeln!(out, "function @{}", f.name).unwrap();
        if !dominance {
            writeln!(out, "  rpo {}", list(cfg.rpo().iter().copied())).unwrap();
            for b in (0..f.blocks.len())
                .map(Block::new)
                .filter(|b| !f.blocks[b.index()].dead)
            {
                writeln!(
                    out,
                    "  {b}: succs {} preds {}",
                    list(cfg.succs(b).iter().copied()),
                    list(cfg.preds(b).iter().copied())
                )
                .unwrap();
            }
            let crit: Vec<String> = cfg
                .critical_edges()
                .iter()
                .map(|(b, i)| format!("{b}#{i}"))
                .collect();
            writeln!(out, "  critical edges [{}]", crit.join(", ")).unwrap();
            continue;
        }
        let mut dom = DomTree::default();
        dom.compute(&cfg);
        let mut df = DominanceFrontiers::default();
        df.compute(&cfg, &dom);
        let mut sccs = Sccs::default();
        sccs.compute(&cfg);
        for &b in cfg.rpo() {
            let idom = dom.idom(b).map_or("-".to_string(), |d| d.to_string());
            let mut idf = Vec::new();
            df.iterated(&[b], &mut idf, &mut strata::analysis::IdfScratch::default());
            writeln!(
                out,
                "  {b}: idom {idom} children {} df {} idf {}",
                list(dom.children(b).iter().copied()),
                list(df.frontier(b).iter().copied()),
                list(idf)
            )
            .unwrap();
        }
        let comps: Vec<String> = (0..sccs.len())
            .map(|c| list(sccs.members(c).iter().copied()))
            .collect();
        writeln!(out, "  sccs {}", comps.join(" ")).unwrap();
    }
    out
}

fn run_calls(m: &Module, args: &str) -> String {
    let mut out = String::new();
    for call in args.split_whitespace() {
        let (name, rest) = call
            .trim_start_matches('@')
            .split_once('(')
            .expect("run: @f(args)");
        let f = m
            .function(name)
            .unwrap_or_else(|| panic!("run: no function @{name}"));
        let vals: Vec<_> = rest
            .trim_end_matches(')')
            .split(',')
            .filter(|a| !a.is_empty())
            .zip(&f.signature.params)
            .map(|(a, &ty)| strata::interp::Val::parse(ty, a).unwrap())
            .collect();
        match strata::interp::run(m, name, &vals, Default::default()) {
            Ok(o) => {
                let output = String::from_utf8_lossy(&o.output);
                for line in output.lines() {
                    writeln!(out, "{call} output: {line}").unwrap();
                }
                match (o.exit_code, o.result) {
                    (Some(c), _) => writeln!(out, "{call} => exit {c}").unwrap(),
                    (None, Some(v)) => writeln!(out, "{call} => {v}").unwrap(),
                    (None, None) if !o.result_members.is_empty() => {
                        let ms: Vec<String> =
                            o.result_members.iter().map(|m| m.to_string()).collect();
                        writeln!(out, "{call} => {{ {} }}", ms.join(", ")).unwrap()
                    }
                    (None, None) => writeln!(out, "{call} => void").unwrap(),
                }
            }
            Err(e) => writeln!(out, "{call} error: {e}").unwrap(),
        }
    }
    out
}

fn compile(mut m: Module, args: &str) -> String {
    let (args, calls) = match args.split_once(" run ") {
        Some((a, c)) => (a, Some(c)),
        None => (args, None),
    };
    let original = calls.map(|_| m.clone());
    let mut words = args.split_whitespace();
    let list = words
        .next()
        .and_then(|w| w.strip_prefix("passes="))
        .expect("compile passes=LIST");
    let mut config = PipelineConfig {
        verify_each: true,
        ..PipelineConfig::new(PassSet::parse(list).unwrap())
    };
    let mut stats = false;
    for option in words {
        if option == "stats" {
            stats = true;
            continue;
        }
        if option == "placement-split" {
            config.options.placement_split = true;
            continue;
        }
        match option.split_once('=') {
            Some(("sccp-memory-limit", n)) => {
                config.options.sccp_memory_limit = n.parse().expect("sccp-memory-limit=BYTES")
            }
            Some(("placement-model", path)) => {
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("placement-model={}: {e}", path.display()));
                config.options.placement_model = Some(Arc::from(text));
            }
            _ => panic!("compile: unknown option `{option}`"),
        }
    }
    let symbols = Arc::new(m.symbol_table());
    let functions = std::mem::take(&mut m.functions);
    let mut out = String::new();
    for run in batch::run_functions(&functions, &symbols, &config, &|| {}) {
        let run = run.unwrap();
        for d in &run.diagnostics {
            writeln!(out, "{:?} [{}] {}", d.severity, d.pass, d.message).unwrap();
        }
        if stats {
            for s in run.stats.iter().filter(|s| s.value != 0) {
                let f = &run.function.name;
                writeln!(out, "stat @{f} {}/{} = {}", s.pass, s.name, s.value).unwrap();
            }
        }
        m.functions.push(run.function);
    }
    out += &strata::text::print_module(&m);
    if let (Some(calls), Some(original)) = (calls, original) {
        for (when, module) in [("before", &original), ("after", &m)] {
            for line in run_calls(module, calls).lines() {
                writeln!(out, "{when}: {line}").unwrap();
            }
        }
    }
    out
}

fn actual(kind: &str, args: &str, input: &str, path: &Path) -> String {
    if kind == "parse-error" {
        return match parse(input, path) {
            Ok(_) => "parsed without error\n".to_string(),
            Err(e) => format!("{e}\n"),
        };
    }
    let m = match parse(input, path) {
        Ok(m) => m,
        Err(e) => return format!("parse error: {e}\n"),
    };
    match kind {
        "print" => {
            let printed = strata::text::print_module(&m);
            let again = strata::text::print_module(&parse(&printed, path).unwrap());
            assert_eq!(
                printed,
                again,
                "{}: printing is not a fixed point",
                path.display()
            );
            printed
        }
        "verify" => {
            let errs = strata::verify::verify_module(&m);
            if errs.is_empty() {
                "ok\n".to_string()
            } else {
                errs.iter().map(|e| format!("{e}\n")).collect()
            }
        }
        "cfg" => analyse(&m, false),
        "dominance" => analyse(&m, true),
        "run" => run_calls(&m, args),
        "sizes" => strata::placement::sizes::describe(&m),
        "compile" => compile(m, args),
        "sccp" => m
            .functions
            .iter()
            .map(|f| {
                match strata::sccp::sccp_analysis_in_module(f, &m.symbol_table(), usize::MAX) {
                    Ok(r) => format!("function @{}\n{}", f.name, r.describe(f)),
                    Err(e) => format!("function @{}: {e}\n", f.name),
                }
            })
            .collect(),
        other => panic!("{}: unknown test kind `{other}`", path.display()),
    }
}

#[test]
fn filetests() {
    common::filetest::run(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests"),
        &["sir"],
        "filetests",
        10,
        actual,
    );
}
