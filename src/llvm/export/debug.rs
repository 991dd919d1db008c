//! Debug information on export: what LLVM's `strip-debug` would leave.
//!
//! Functions printed from the IR carry no debug locations (import drops `llvm.dbg.*` calls
//! and `!dbg` attachments). The module's debug metadata would otherwise be re-emitted
//! verbatim, and import checks specialized nodes (`!DIFile(...)`) only for balance and
//! defined references, not against LLVM's per-node field lists: a malformed node would
//! reach the output. So export drops debug information from the whole module:
//!
//! - metadata definitions that are specialized nodes (`!DI...(...)`, `distinct` or not),
//!   then every definition that refers to a dropped one (tuples such as retained-node
//!   lists, loop metadata holding `!DILocation`s), to a fixpoint;
//! - the named metadata `!llvm.dbg.cu`, and any other named metadata that refers to a
//!   dropped node;
//! - attachments naming a dropped node (`, !dbg !12` on globals and instructions, a
//!   function header's `!dbg !7`, `!llvm.loop !30` whose loop node held locations) in the
//!   verbatim text of items and skipped functions;
//! - calls to `llvm.dbg.*` in skipped functions' verbatim text.
//!
//! Module flags (`"Debug Info Version"`) stay: LLVM accepts them without debug info.
//! Complexity: linear in the metadata text, times the length of reference chains for the
//! fixpoint (short: tuples hang off specialized nodes one level deep).

use std::borrow::Cow;
use std::collections::HashSet;

/// The metadata names (`!12`, `!llvm.dbg.cu`) export drops, computed from the verbatim
/// top-level items (see the module doc). Empty when the module has no debug information.
#[derive(Default, Debug)]
pub(super) struct DebugStrip {
    dropped: HashSet<String>,
}

/// `!name` tokens (not `!"strings"`, not `!{`) in `text`, each with its `!`.
fn references(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut k = 0;
    std::iter::from_fn(move || {
        while k < bytes.len() {
            if bytes[k] == b'"' {
                // Skip a string (metadata strings may contain `!`).
                k += 1;
                while k < bytes.len() && bytes[k] != b'"' {
                    k += 1;
                }
                k += 1;
                continue;
            }
            if bytes[k] == b'!' {
                let start = k;
                k += 1;
                while k < bytes.len()
                    && (bytes[k].is_ascii_alphanumeric() || matches!(bytes[k], b'.' | b'_' | b'-'))
                {
                    k += 1;
                }
                if k > start + 1 {
                    return Some(&text[start..k]);
                }
                continue;
            }
            k += 1;
        }
        None
    })
}

/// The name and body of a metadata definition line (`!12 = distinct !DIFile(...)`).
fn definition(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_start();
    if !line.starts_with('!') {
        return None;
    }
    let (name, body) = line.split_once('=')?;
    let name = name.trim();
    references(name).next().filter(|n| *n == name)?;
    Some((name, body.trim()))
}

/// True if a definition body is or holds a specialized node (`!DIFile(...)`, `distinct
/// !DISubprogram(...)`, `!{..., !DIExpression()}`, `!GenericDINode(...)`).
fn mentions_debug(body: &str) -> bool {
    body.contains("!DI") || body.contains("!GenericDINode")
}

impl DebugStrip {
    /// Finds what to drop in the verbatim top-level `texts`: `!llvm.dbg.cu`, definitions that
    /// mention a specialized node, and definitions that refer to a dropped one, to a fixpoint.
    pub(super) fn new<'a>(texts: impl Iterator<Item = &'a str>) -> Self {
        let defs: Vec<(&str, &str)> = texts.flat_map(str::lines).filter_map(definition).collect();
        let mut dropped: HashSet<String> = HashSet::new();
        loop {
            let before = dropped.len();
            for (name, body) in &defs {
                if !dropped.contains(*name)
                    && (*name == "!llvm.dbg.cu"
                        || mentions_debug(body)
                        || (!dropped.is_empty() && references(body).any(|r| dropped.contains(r))))
                {
                    dropped.insert(name.to_string());
                }
            }
            if dropped.len() == before {
                break;
            }
        }
        DebugStrip { dropped }
    }

    /// One verbatim top-level item: nothing if it is a dropped definition (all its lines: a
    /// node may span several), else the item without attachments naming dropped nodes
    /// (borrowed unchanged when the module has no debug information).
    pub(super) fn apply_item<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        match definition(first) {
            Some((name, _)) if self.dropped.contains(name) => Cow::Borrowed(""),
            _ => self.apply(text),
        }
    }

    /// `text` (a function's verbatim text) without attachments naming dropped nodes and
    /// `llvm.dbg.*` calls (borrowed unchanged when the module has no debug information).
    pub(super) fn apply<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.dropped.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            if let Some((name, _)) = definition(line) {
                if self.dropped.contains(name) {
                    continue;
                }
            }
            if line.contains("@llvm.dbg.") && line.trim_start().starts_with("call ") {
                continue;
            }
            out.push_str(&self.strip_attachments(line));
            out.push('\n');
        }
        if !text.ends_with('\n') {
            out.pop();
        }
        Cow::Owned(out)
    }

    /// `line` without `[,] !kind !N` attachments whose node is dropped.
    fn strip_attachments(&self, line: &str) -> String {
        if !line.contains('!') {
            return line.to_string();
        }
        let refs: Vec<&str> = references(line).collect();
        let mut out = line.to_string();
        for pair in refs.windows(2) {
            let (kind, node) = (pair[0], pair[1]);
            if !self.dropped.contains(node) || self.dropped.contains(kind) {
                continue;
            }
            for sep in [", ", " "] {
                let attachment = format!("{sep}{kind} {node}");
                if let Some(at) = out.find(&attachment) {
                    let end = at + attachment.len();
                    // Only a whole attachment (not a prefix of `!120` when dropping `!12`).
                    let whole = out[end..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_ascii_alphanumeric());
                    if whole {
                        out.replace_range(at..end, "");
                        break;
                    }
                }
            }
        }
        out
    }
}
