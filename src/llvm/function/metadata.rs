//! Metadata operands and attachments inside a function body: `!N` / `!name` references
//! must name a node the module defines (or open a specialized node's fields, such as
//! `!DIExpression(...)`); inline `!{...}` tuples are skipped with their nesting checked.
//! Complexity: linear in the metadata's tokens.

use super::*;

impl<'a, 'm> Lower<'a, 'm> {
    /// `t` (a `!N` or `!name` token) must name a metadata node the module defines, unless
    /// it opens the fields of a specialized node (`!DIExpression(...)`).
    pub(super) fn check_metadata_ref(&self, t: Token) -> PResult<()> {
        self.check_metadata_ref_before(t, self.c.toks.get(self.c.pos).copied())
    }

    /// [`Self::check_metadata_ref`] of `t`, followed by `next`.
    pub(super) fn check_metadata_ref_before(&self, t: Token, next: Option<Token>) -> PResult<()> {
        let opens = next.is_some_and(|n| n.kind == Tok::LParen && n.start == t.end);
        let name = self.c.text(t);
        if opens || self.m.defined.metadata.contains(name) {
            Ok(())
        } else {
            self.err(t, format!("undefined metadata {name}"))
        }
    }

    pub(super) fn skip_metadata(&mut self) -> PResult<()> {
        let t = self.c.bump();
        match t.kind {
            Tok::MetaVar => self.check_metadata_ref(t),
            Tok::Exclaim => {
                if self.c.eat(Tok::Str) {
                    return Ok(());
                }
                if self.c.peek().kind != Tok::LBrace {
                    return self.c.expected("metadata");
                }
                let mut depth = 0;
                loop {
                    let t = self.c.bump();
                    match t.kind {
                        Tok::LBrace => depth += 1,
                        Tok::RBrace => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(());
                            }
                        }
                        Tok::Eof => return self.err(t, "unterminated metadata"),
                        Tok::MetaVar => self.check_metadata_ref(t)?,
                        _ => {}
                    }
                }
            }
            _ => self.err(t, "expected metadata"),
        }
    }
}
