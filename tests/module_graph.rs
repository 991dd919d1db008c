//! Imports between strata's top-level modules point one way (issue 24 §2; DESIGN.md 7: "layers
//! point one way").
//!
//! What: reads every `.rs` file under `src/` (except `lib.rs` and `main.rs`, which only declare
//! modules and drive the CLI), finds its references to other top-level modules (`use
//! crate::x::...`, `use crate::{x::A, y}`, a path `crate::x::f(...)` in code, `super::` paths
//! that climb to the crate root) and builds the graph of edges `a -> b` between top-level
//! modules (`ir`, `text`, `llvm`, `analysis`, `ssa`, `sccp`, `placement`, `engine`, ...), each
//! edge with the files that cause it. The graph must have no cycle once the back-edges of
//! [`KNOWN_BACK_EDGES`] are removed.
//!
//! Not counted: comments (a doc link is not a dependency), string and character literals, and
//! test code (a `tests.rs` file, or an item under `#[cfg(test)]` / `#[cfg(all(test, ...))]`):
//! tests may drive the module under test through the engine above it.
//!
//! [`KNOWN_BACK_EDGES`] lists today's back-edges, each with exactly the files that cause it.
//! The test fails on a new cycle, on a new file causing a listed back-edge, and on a listed
//! back-edge or file that no longer exists: the list can only shrink, and whoever removes a
//! back-edge removes its entry.
//!
//! Algorithm: a linear scanner per file (comments, literals and test items skipped), then
//! Tarjan's strongly connected components over the graph without the listed back-edges
//! (R. E. Tarjan, "Depth-first search and linear graph algorithms", 1972). Complexity: linear
//! in the source text plus O(modules + edges).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A back-edge `from -> to` that exists today, the files (relative to `src/`) that cause it,
/// and why it is there. Ordered by the intended layering: leaves (`stage`, `ir`) first,
/// then `text`, `llvm`, `interp`, `analysis`, `verify`, the stages (`ssa`, `sccp`,
/// `placement`, `machine`, `regalloc`), `engine`, `api`, and the drivers (`cli`, `fuzzing`).
struct BackEdge {
    from: &'static str,
    to: &'static str,
    files: &'static [&'static str],
    why: &'static str,
}

/// Today's back-edges: none (issue 24 §2 removed the last two, `machine -> engine` and
/// `machine -> regalloc`, by moving the register vocabulary to the leaf `registers`, the
/// allocation driver and the regalloc2 adapter to `regalloc`, and the lowering driver to
/// `api`). A new one must be listed here with its files and reason, or removed.
const KNOWN_BACK_EDGES: &[BackEdge] = &[];

/// Every top-level module under `src/`: its directories and its `.rs` files but `lib.rs` and
/// `main.rs`.
fn top_level_modules(src: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(src).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let rust = path.extension().is_some_and(|e| e == "rs");
        if (path.is_dir() || rust && name != "lib") && name != "main" {
            out.insert(name.to_string());
        }
    }
    out
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` with comments, string and character literals and test items (`#[cfg(test)]`,
/// `#[cfg(all(test, ...))]`) replaced by spaces, so only code is searched.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, ch)| c.get(i + k) == Some(&ch))
    };
    let mut i = 0;
    while i < c.len() {
        if starts(i, "//") {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if starts(i, "/*") {
            let mut depth = 0;
            while i < c.len() {
                if starts(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if starts(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if starts(i, "#[cfg(test)]") || starts(i, "#[cfg(all(test") {
            i = item_end(&c, i);
        } else if c[i] == 'r' && (c.get(i + 1) == Some(&'"') || c.get(i + 1) == Some(&'#')) {
            // A raw string `r"..."` or `r#"..."#` (a word ending in `r` never precedes `"`).
            let hashes = c[i + 1..].iter().take_while(|&&ch| ch == '#').count();
            if c.get(i + 1 + hashes) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            i += 2 + hashes;
            while i < c.len() && !(c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')))
            {
                i += 1;
            }
            i += 1 + hashes;
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c[i] == '\'' {
            // A character literal (`'x'`, `'\n'`, `'"'`); otherwise a lifetime.
            if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                out.push(c[i]);
                i += 1;
                continue;
            }
        } else {
            out.push(c[i]);
            i += 1;
            continue;
        }
        // What was skipped still separates the words around it.
        out.push(' ');
    }
    out
}

/// The index just past the item that starts at `i`: its attribute, then everything up to
/// the `}` closing the item's first brace, or a `;` before any brace.
fn item_end(c: &[char], i: usize) -> usize {
    let i = past_group(c, i, ('[', ']'), None);
    past_group(c, i, ('{', '}'), Some(';'))
}

/// The index just past the `close` that balances the first `open` at or after `i`, or just
/// past a `stop` character met outside any group first (the end of `c` if neither comes).
fn past_group(c: &[char], mut i: usize, (open, close): (char, char), stop: Option<char>) -> usize {
    let mut depth = 0usize;
    while i < c.len() {
        let ch = c[i];
        i += 1;
        if ch == open {
            depth += 1;
        } else if ch == close && depth > 0 {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        } else if depth == 0 && Some(ch) == stop {
            return i;
        }
    }
    i
}

/// The identifier at the start of `s`, if any.
fn ident(s: &str) -> &str {
    let end = s
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segments of the paths of a `{...}` group (`s` starts just after `{`): `a` and
/// `c` of `{a::b, c, d::{e, f}}`.
fn group_heads(s: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_start = true;
    for (k, ch) in s.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            ch if ch.is_whitespace() => {}
            _ if at_start && depth == 0 => {
                heads.push(ident(&s[k..]));
                at_start = false;
            }
            _ => at_start = false,
        }
    }
    heads
}

/// The top-level modules that `code` (of a file `depth` modules below the crate root: 1 for
/// `src/x.rs` and `src/x/mod.rs`, 2 for `src/x/y.rs`) refers to.
fn references(code: &str, depth: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = code.as_bytes();
    let word_start =
        |k: usize| k == 0 || !(bytes[k - 1].is_ascii_alphanumeric() || bytes[k - 1] == b'_');
    for (k, _) in code.match_indices("crate::") {
        if !word_start(k) {
            continue;
        }
        let rest = &code[k + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => out.extend(group_heads(group).into_iter().map(str::to_string)),
            None => {
                out.insert(ident(rest).to_string());
            }
        }
    }
    for (k, _) in code.match_indices("super::") {
        if !word_start(k) || code[..k].ends_with("super::") {
            continue;
        }
        let mut rest = &code[k..];
        let mut climbed = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            climbed += 1;
        }
        if climbed == depth {
            out.insert(ident(rest).to_string());
        }
    }
    out
}

/// Edges `from -> to` between top-level modules, each with the files (relative to `src`)
/// that cause it.
type Graph = BTreeMap<(String, String), BTreeSet<String>>;

/// The module graph of the crate whose sources are in `src`.
fn module_graph(src: &Path) -> Graph {
    let modules = top_level_modules(src);
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    for path in files {
        let rel = path.strip_prefix(src).expect("under src");
        let parts: Vec<&str> = rel.iter().filter_map(|p| p.to_str()).collect();
        let name = *parts.last().expect("a file name");
        if parts.len() == 1 && (name == "lib.rs" || name == "main.rs") || name == "tests.rs" {
            continue;
        }
        let from = parts[0].trim_end_matches(".rs").to_string();
        // `src/x.rs` and `src/x/mod.rs` are module `x`, one below the root.
        let depth = parts.len() - usize::from(name == "mod.rs");
        let text = std::fs::read_to_string(&path).expect("a readable source file");
        for to in references(&code_only(&text), depth) {
            if to != from && modules.contains(&to) {
                let rel = parts.join("/");
                graph.entry((from.clone(), to)).or_default().insert(rel);
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let index_of = |n: &String| nodes.binary_search(&n).expect("a node");
    let mut succ = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        succ[index_of(a)].push(index_of(b));
    }
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        sccs: Vec<Vec<usize>>,
    }
    fn visit(v: usize, succ: &[Vec<usize>], s: &mut State) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &succ[v] {
            match s.index[w] {
                None => {
                    visit(w, succ, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            s.sccs.push(scc);
        }
    }
    let n = nodes.len();
    let mut s = State {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        sccs: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(v, &succ, &mut s);
        }
    }
    let mut out: Vec<Vec<String>> = s
        .sccs
        .into_iter()
        .filter(|scc| scc.len() > 1)
        .map(|scc| {
            let mut names: Vec<String> = scc.into_iter().map(|v| nodes[v].clone()).collect();
            names.sort();
            names
        })
        .collect();
    out.sort();
    out
}

/// What is wrong with `graph` given the allowed back-edges: stale or grown entries, then
/// every cycle left, with the files causing each of its edges. Empty if nothing.
fn problems(graph: &Graph, allowed: &[BackEdge]) -> Vec<String> {
    let mut out = Vec::new();
    let mut remaining: BTreeSet<(String, String)> = graph.keys().cloned().collect();
    for e in allowed {
        let key = (e.from.to_string(), e.to.to_string());
        let listed: BTreeSet<String> = e.files.iter().map(|f| f.to_string()).collect();
        match graph.get(&key) {
            None => out.push(format!(
                "back-edge {} -> {} is gone: remove it from KNOWN_BACK_EDGES",
                e.from, e.to
            )),
            Some(files) if *files != listed => out.push(format!(
                "back-edge {} -> {} ({}) is now caused by {:?}, listed as {:?}: a file that \
                 no longer causes it leaves the list; a new one must not add to it",
                e.from, e.to, e.why, files, listed
            )),
            Some(_) => {}
        }
        remaining.remove(&key);
    }
    for scc in cycles(&remaining) {
        let edges: Vec<String> = remaining
            .iter()
            .filter(|(a, b)| scc.contains(a) && scc.contains(b))
            .map(|k| format!("{} -> {} ({:?})", k.0, k.1, graph[k]))
            .collect();
        out.push(format!(
            "import cycle between {}: {}",
            scc.join(", "),
            edges.join("; ")
        ));
    }
    out
}

#[test]
fn top_level_modules_import_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(
        graph.contains_key(&("engine".to_string(), "ssa".to_string())),
        "the scanner found no engine -> ssa edge: it reads nothing"
    );
    for e in KNOWN_BACK_EDGES {
        assert!(!e.why.is_empty(), "{} -> {} does not say why", e.from, e.to);
    }
    let found = problems(&graph, KNOWN_BACK_EDGES);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The scanner sees code only, and the checker reports cycles, stale and grown entries: a
/// small crate written to a temporary directory.
#[test]
fn the_checker_finds_cycles_and_stale_entries() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write("lib.rs", "pub mod a; pub mod b; pub mod c; pub mod leaf;");
    write(
        "leaf.rs",
        "// use crate::a; (a comment)\nconst S: &str = \"crate::b\";\n",
    );
    write(
        "a/mod.rs",
        "use crate::{leaf, b::X};\nfn f<'a>(x: &'a u8) -> char { '\"' }\n",
    );
    write(
        "b/mod.rs",
        "mod inner;\n#[cfg(test)]\nmod tests { use crate::c; }\n",
    );
    write("b/inner.rs", "fn g() { super::super::c::h() }\n");
    write("c.rs", "pub fn h() { crate::a::f(); }\n");
    write("c/tests.rs", "use crate::leaf;\n");
    let graph = module_graph(src);
    let keys: Vec<(&str, &str)> = graph
        .keys()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        keys,
        [("a", "b"), ("a", "leaf"), ("b", "c"), ("c", "a")],
        "{graph:?}"
    );
    assert_eq!(
        graph[&("b".into(), "c".into())],
        ["b/inner.rs".to_string()].into()
    );
    // a -> b -> c -> a is a cycle.
    let found = problems(&graph, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("import cycle between a, b, c"),
        "{found:?}"
    );
    // Allowing its back-edge clears it; a stale entry and a wrong file list do not pass.
    let allow = |from, to, files| BackEdge {
        from,
        to,
        files,
        why: "",
    };
    assert!(problems(&graph, &[allow("c", "a", &["c.rs"])]).is_empty());
    let stale = problems(
        &graph,
        &[allow("c", "a", &["c.rs"]), allow("leaf", "a", &["leaf.rs"])],
    );
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert!(stale[0].contains("is gone"), "{stale:?}");
    let grown = problems(&graph, &[allow("c", "a", &["c/x.rs"])]);
    assert_eq!(grown.len(), 1, "{grown:?}");
    assert!(grown[0].contains("is now caused by"), "{grown:?}");
}
