//! A module's symbol names by hash map, kept beside [`Module::symbols`](super::Module).
//!
//! Algorithm: a `HashMap<name, index>` built incrementally. `Module::symbols` is a public
//! vector that builders, the parser and the importer push to directly, so the index does not
//! see pushes as they happen; instead it remembers how many symbols it has indexed and, on each
//! lookup, indexes the ones appended since. A hit is confirmed against the vector (and the
//! index rebuilt if it disagrees, or if the vector shrank), so replacing a symbol or truncating
//! the vector cannot give a wrong answer.
//!
//! Invariant relied on: a symbol's name is not changed in place to a name that is looked up
//! afterwards (nothing in strata renames symbols; kinds do change in place, which the index
//! does not record). Complexity: amortised O(1) per lookup and per appended symbol (one
//! string hash), O(symbols) for a rebuild. The map sits behind a mutex so a `&Module` can be
//! shared across threads; lookups are rare enough that it is never contended in practice.

use super::SymbolData;
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
struct State {
    map: HashMap<String, u32>,
    /// `symbols[..indexed]` are in `map`.
    indexed: usize,
}

/// The name index of a module (see the module doc). Clones start empty, and two indexes
/// always compare equal: it is a cache, not part of the module's value.
#[derive(Default)]
pub struct NameIndex(Mutex<State>);

impl NameIndex {
    /// The index in `symbols` of the symbol named `name`.
    pub fn lookup(&self, symbols: &[SymbolData], name: &str) -> Option<usize> {
        let mut state = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if state.indexed > symbols.len() {
            *state = State::default();
        }
        for attempt in 0..2 {
            let start = state.indexed;
            for (i, s) in symbols.iter().enumerate().skip(start) {
                state.map.entry(s.name.clone()).or_insert(i as u32);
            }
            state.indexed = symbols.len();
            match state.map.get(name) {
                None => return None,
                Some(&i) if symbols.get(i as usize).is_some_and(|s| s.name == name) => {
                    return Some(i as usize)
                }
                // Stale (a symbol was replaced): rebuild once.
                Some(_) if attempt == 0 => *state = State::default(),
                Some(_) => break,
            }
        }
        symbols.iter().position(|s| s.name == name)
    }
}

impl Clone for NameIndex {
    fn clone(&self) -> Self {
        NameIndex::default()
    }
}

impl PartialEq for NameIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NameIndex")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::SymbolKind;

    fn sym(name: &str) -> SymbolData {
        SymbolData {
            name: name.to_string(),
            kind: SymbolKind::Extern(0),
        }
    }

    #[test]
    fn follows_pushes_replacements_and_truncation() {
        let index = NameIndex::default();
        let mut symbols = vec![sym("a"), sym("b")];
        assert_eq!(index.lookup(&symbols, "b"), Some(1));
        assert_eq!(index.lookup(&symbols, "c"), None);
        symbols.push(sym("c"));
        assert_eq!(index.lookup(&symbols, "c"), Some(2));
        symbols[1] = sym("d");
        assert_eq!(index.lookup(&symbols, "b"), None);
        assert_eq!(index.lookup(&symbols, "d"), Some(1));
        symbols.truncate(1);
        assert_eq!(index.lookup(&symbols, "c"), None);
        assert_eq!(index.lookup(&symbols, "a"), Some(0));
    }
}
