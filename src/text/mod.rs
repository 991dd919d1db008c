//! The `.sir` text format: lexer, parser and printer (DESIGN.md 3.2).
//!
//! `.sir` is strata's own human-readable IR. Values print as `vN` and blocks as `blockN`
//! where `N` is the dense [`crate::ir::Value`] / [`crate::ir::Block`] index, so that text
//! names map directly to table indices and printing round-trips exactly: for text that is
//! printer output, `print_module(&parse_module(x)?) == x`. Instructions are unnamed and get
//! [`crate::ir::Inst`] indices in program order. The grammar (comments start with `;`):
//!
//! ```text
//! module   := item*
//! item     := extern | global | func
//! extern   := 'extern' '@'name '(' [type (',' type)*] [',' '...' | '...'] ')' '->' type
//! global   := ['internal'] ('global'|'const') '@'name 'size' INT 'align' INT
//!             ('external' | ['init' STRING] reloc*)
//! reloc    := 'reloc' INT target [('+'|'-') INT] ['from' '@'name]
//! target   := '@'name                                  (an 8-byte pointer)
//!           | 'blockaddress' '(' '@'name ',' 'block'N ')'   (a block of that function)
//!           | 'relative' ('i8'|'i16'|'i32'|'i64') '@'name   (needs 'from' '@'base: the
//!                                        low bits of address + addend - address(base))
//! func     := ['internal'] 'func' '@'name
//!             '(' [type value (',' type value)*] [',' '...' | '...'] ')' '->' type
//!             ['phase' PHASE] '{' block* '}'
//! block    := 'block'N ['(' type value (',' type value)* ')'] ':' inst* terminator
//! ```
//!
//! Instructions and terminators are listed in [`parser`]'s module doc. Algorithm: the
//! [`lexer`] produces located tokens borrowing from the source; the parser first lexes the
//! whole source and collects the module's item names (so symbols may be used before their
//! definition), then lexes again on demand while it parses items by recursive descent, checking at the end of each function that every used value and block is
//! defined. Every error is a [`ParseError`] with `file:line:col`, what was expected and what
//! was found; bad input never panics and never allocates tables larger than a budget
//! linear in the input size ([`parser::Budget`]). Complexity: O(n) in the input length for
//! lexing, parsing and printing (symbol lookups are hashed).

pub mod lexer;
pub mod parser;
mod parser_body;
mod parser_inst;
pub mod printer;

pub use parser::parse_module;
pub use printer::{print_function, print_module};

/// A syntax or naming error in `.sir` text, located at the offending token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct ParseError {
    /// The file name given to [`parse_module`].
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What was expected and what was found.
    pub message: String,
}
