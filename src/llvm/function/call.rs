//! Lowering of `call`: direct, varargs, K&R (`bitcast` callee), indirect and inline-asm
//! calls, recording each call's original shape ([`CallSite`]) for export.
//!
//! A call is direct when its type equals the callee's declared signature; otherwise it
//! calls the symbol's address indirectly. Inline asm maps its constraint string onto
//! [`InlineAsm`]: `=c` outputs are results, `=*c` outputs write through a pointer operand,
//! `~{x}` are clobbers, everything else an input. Complexity: linear in the call's tokens.

use super::*;

/// True for the intrinsics that only annotate the code for LLVM's own analyses and never
/// change what it computes: debug records (`llvm.dbg.declare`, `llvm.dbg.value`,
/// `llvm.dbg.label`, ...) and `llvm.experimental.noalias.scope.decl` (clang -O0 emits it
/// where an `always_inline` helper with a `restrict` parameter is inlined). Import drops
/// their calls, so no metadata or debug use ever holds an alloca's address (mem2reg
/// promotes it as LLVM does after dropping the record). Export keeps their declarations
/// and the metadata nodes verbatim.
pub(crate) fn is_annotation_intrinsic(name: &str) -> bool {
    name.starts_with("llvm.dbg.") || name == "llvm.experimental.noalias.scope.decl"
}

/// A call's arguments as [`Lower::call_arguments`] reads them.
struct CallArguments {
    args: SmallVec<[Operand; 4]>,
    arg_info: Vec<LlvmParam>,
    arg_types: Vec<Type>,
    /// Metadata arguments: position among all arguments, text.
    metadata_args: Vec<(u32, String)>,
    /// The types of all arguments, metadata included, for the implied function type.
    all_types: Vec<LType>,
}

impl<'a, 'm> Lower<'a, 'm> {
    /// Parses `call ...` after the `call` keyword. Returns the result (or `None` for a
    /// call without a result, or a dropped `llvm.dbg.*` call).
    pub(super) fn call(&mut self) -> PResult<Option<Local>> {
        let call_tok = self.at;
        let ret_attrs = self.return_attributes()?;
        let ty = self.c.parse_type()?;
        let (ret_ty, explicit) = match &ty {
            LType::Func { ret, .. } => ((**ret).clone(), Some(ty.clone())),
            _ => (ty.clone(), None),
        };
        if self.c.is_word("asm") {
            self.c.bump();
            let ret = ret_ty.scalar().unwrap_or(Type::Void);
            return self.inline_asm(ret, &ret_ty).map(Some);
        }
        let ret = match ret_ty.scalar() {
            Some(t) => t,
            None => {
                if !ret_ty.is_first_class() {
                    return self.err(call_tok, format!("call returning {ret_ty}"));
                }
                self.scalar(&ret_ty, call_tok)?
            }
        };
        let callee_v = self.c.parse_value()?;
        if let Val::Global(n, _) = &callee_v {
            if is_annotation_intrinsic(n) {
                let from = self.c.pos;
                self.c.skip_parens()?;
                let toks = &self.c.toks[from..self.c.pos];
                for (k, &t) in toks.iter().enumerate() {
                    if t.kind == Tok::MetaVar {
                        self.check_metadata_ref_before(t, toks.get(k + 1).copied())?;
                    }
                }
                self.skip_fn_attrs()?;
                return Ok(None);
            }
        }
        self.c
            .expect(Tok::LParen, "`(` starting the call arguments")?;
        let CallArguments {
            args,
            arg_info,
            arg_types,
            metadata_args,
            all_types,
        } = self.call_arguments()?;
        self.skip_fn_attrs()?;
        let fn_ty = explicit.clone().unwrap_or_else(|| LType::Func {
            ret: Arc::new(ret_ty.clone()),
            params: all_types.into(),
            varargs: false,
        });
        let (call_params, varargs) = match &fn_ty {
            LType::Func {
                params, varargs, ..
            } => (
                params.len() - metadata_args.len().min(params.len()),
                *varargs,
            ),
            _ => (0, false),
        };
        if args.len() < call_params || (!varargs && args.len() != call_params) {
            return self.err(
                call_tok,
                format!(
                    "call passes {} arguments to a function of type {fn_ty}",
                    args.len()
                ),
            );
        }
        let fixed_args = if varargs {
            Some(call_params as u32)
        } else {
            None
        };
        let (callee, callee_name) =
            self.resolve_callee(&callee_v, &fn_ty, &arg_types[..call_params], ret, varargs)?;
        let inst = self.b.function().insts.len() as u32;
        let rs = self.b.push(InstKind::Call {
            ret,
            callee,
            args,
            fixed_args,
        });
        self.calls.push((
            inst,
            CallSite {
                callee: callee_name,
                fn_ty,
                ret_attrs,
                args: arg_info,
                arg_types,
                metadata_args,
            },
        ));
        Ok(rs.first().map(|&v| Local::Op(Operand::Value(v))))
    }

    /// The return attributes between `call` and the call's type (`noalias`, `zeroext`...),
    /// checked as words and kept as text for export.
    fn return_attributes(&mut self) -> PResult<String> {
        let attr_start = self.c.peek().start as usize;
        let mut guard = 0;
        while !self.c.at_type() {
            let t = self.c.peek();
            if matches!(
                t.kind,
                Tok::Eof | Tok::GlobalVar | Tok::LocalVar | Tok::Comma
            ) || guard > 32
            {
                return self.c.expected("the call's type");
            }
            self.c.bump();
            self.c.skip_parens()?;
            guard += 1;
        }
        let attr_end = if self.c.pos > 0 {
            self.c.toks[self.c.pos - 1].end as usize
        } else {
            attr_start
        };
        if guard > 0 {
            let first = self
                .c
                .toks
                .partition_point(|t| (t.start as usize) < attr_start);
            crate::llvm::validate::check_words(
                &self.c,
                &self.c.toks[first..self.c.pos],
                &crate::llvm::validate::Defined::default(),
            )?;
        }
        Ok(if guard > 0 {
            self.c
                .src
                .get(attr_start..attr_end)
                .unwrap_or("")
                .to_string()
        } else {
            String::new()
        })
    }

    /// The argument list after `(`, up to and including `)`: operands, their LLVM types and
    /// attributes, and metadata arguments (kept as text with their positions).
    fn call_arguments(&mut self) -> PResult<CallArguments> {
        let mut args: SmallVec<[Operand; 4]> = SmallVec::new();
        let mut arg_info: Vec<LlvmParam> = Vec::new();
        let mut arg_types = Vec::new();
        // Metadata arguments (position among all arguments, text) and the types of all
        // arguments, metadata included, for the implied function type.
        let mut metadata_args: Vec<(u32, String)> = Vec::new();
        let mut all_types: Vec<LType> = Vec::new();
        if !self.c.eat(Tok::RParen) {
            loop {
                let aty = self.c.parse_type()?;
                if aty == LType::Other("metadata") {
                    let text = self.metadata_argument()?;
                    metadata_args.push((all_types.len() as u32, text));
                    all_types.push(aty);
                    if self.c.eat(Tok::RParen) {
                        break;
                    }
                    self.comma()?;
                    continue;
                }
                all_types.push(aty.clone());
                let attrs = self.argument_attributes()?;
                let v = self.c.parse_value()?;
                let op = self.operand(&aty, &v)?;
                arg_types.push(self.b.function().operand_type(op));
                args.push(op);
                arg_info.push(LlvmParam { ty: aty, attrs });
                if self.c.eat(Tok::RParen) {
                    break;
                }
                self.comma()?;
            }
        }
        Ok(CallArguments {
            args,
            arg_info,
            arg_types,
            metadata_args,
            all_types,
        })
    }

    /// The attributes of one argument, between its type and its value, as text.
    fn argument_attributes(&mut self) -> PResult<String> {
        let s = self.c.peek().start as usize;
        let mut e = s;
        loop {
            let t = self.c.peek();
            if t.kind != Tok::Ident || is_value_word(self.c.text(t)) {
                break;
            }
            let w = self.c.text(t);
            if !crate::llvm::validate::is_keyword(w) {
                return self.err(t, format!("unknown attribute `{w}`"));
            }
            self.c.bump();
            e = t.end as usize;
            if self.c.peek().kind == Tok::LParen {
                self.c.skip_parens()?;
                e = self.c.toks[self.c.pos - 1].end as usize;
            } else if (w == "align" || w.starts_with("dereferenceable"))
                && self.c.peek().kind == Tok::Int
            {
                e = self.c.bump().end as usize;
            }
        }
        Ok(self.c.src.get(s..e).unwrap_or("").to_string())
    }

    /// The callee of a call of type `fn_ty`: a direct call when it names a function (through
    /// pointer casts) whose signature is exactly the call's, else an indirect call of the
    /// address. Also returns the named symbol, if any.
    fn resolve_callee(
        &mut self,
        callee_v: &Val<'a>,
        fn_ty: &LType,
        fixed_types: &[Type],
        ret: Type,
        varargs: bool,
    ) -> PResult<(Callee, Option<String>)> {
        // Resolve the callee: strip pointer casts of a global.
        let mut target = callee_v;
        while let Val::Cast(CastOp::Bitcast, inner, _) = target {
            target = &inner.1;
        }
        let callee_name = match target {
            Val::Global(name, _) => Some(name.to_string()),
            _ => None,
        };
        let callee = match target {
            Val::Global(name, t) => {
                let Some(&sym) = self.m.symbols.get(name.as_ref()) else {
                    return self.err(*t, format!("call to undefined symbol @{name}"));
                };
                if matches!(callee_v, Val::Global(..)) {
                    // A direct call names the callee's exact type (a different type needs a
                    // `bitcast` of the callee).
                    let actual = &self.m.symbol_types[sym.index()];
                    if !matches!(actual, LType::Ptr(f) if **f == *fn_ty) {
                        return self.err(
                            *t,
                            format!("@{name} has type {actual} but is called as {fn_ty}"),
                        );
                    }
                }
                let call_sig = Signature {
                    params: fixed_types.to_vec(),
                    ret,
                    varargs,
                };
                if self.m.signatures.get(sym.index()).and_then(|s| s.as_ref()) == Some(&call_sig) {
                    Callee::Direct(sym)
                } else {
                    Callee::Indirect(self.konst(ConstData {
                        ty: Type::Ptr,
                        kind: ConstKind::SymbolAddr(sym),
                    }))
                }
            }
            _ => {
                let pty = LType::Ptr(Arc::new(fn_ty.clone()));
                let op = self.operand(&pty, callee_v)?;
                Callee::Indirect(op)
            }
        };
        Ok((callee, callee_name))
    }

    /// Reads a metadata call argument after its `metadata` type (`!6`, `!"text"`,
    /// `!{...}`, `!DIExpression()`, or a constant as metadata: `metadata i32 0`) and returns
    /// its text, which export prints back verbatim. Metadata naming a local value
    /// (`metadata i32* %x`) is unsupported: the IR renames locals.
    fn metadata_argument(&mut self) -> PResult<String> {
        let first = self.c.peek();
        let start = first.start as usize;
        let mut end = start;
        let mut depth = 0i32;
        loop {
            let t = self.c.peek();
            match t.kind {
                Tok::Eof => return self.err(t, "unterminated call arguments"),
                Tok::Comma | Tok::RParen if depth == 0 => break,
                Tok::LParen | Tok::LBrace | Tok::LBracket => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RBracket => depth -= 1,
                Tok::LocalVar => {
                    return self.unsupported(
                        t,
                        "a metadata call argument naming a local value is not supported",
                    )
                }
                _ => {}
            }
            end = self.c.bump().end as usize;
            if t.kind == Tok::MetaVar {
                self.check_metadata_ref(t)?;
            }
        }
        if end == start {
            return self.c.expected("a metadata argument");
        }
        Ok(self.c.src.get(start..end).unwrap_or("").to_string())
    }

    /// Skips function attributes and operand bundles after a call's `)`, on the same line.
    fn skip_fn_attrs(&mut self) -> PResult<()> {
        // Stop at the first token on a later line than the call's last token so far: one that
        // starts a line, or comes after one (an operand bundle skipped below may span lines).
        let mut seen = self.c.pos;
        let mut new_line = false;
        loop {
            let t = self.c.peek();
            while seen <= self.c.pos && seen < self.c.toks.len() {
                new_line |= self.c.toks[seen].nl;
                seen += 1;
            }
            if new_line
                || matches!(t.kind, Tok::Comma | Tok::Eof)
                || (t.kind == Tok::Ident && self.c.text(t) == "to")
            {
                return Ok(());
            }
            if t.kind == Tok::LBracket {
                let mut depth = 0;
                loop {
                    let t = self.c.bump();
                    match t.kind {
                        Tok::LBracket => depth += 1,
                        Tok::RBracket => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Eof => return self.err(t, "unterminated operand bundle"),
                        _ => {}
                    }
                }
                continue;
            }
            self.c.bump();
            self.c.skip_parens()?;
        }
    }

    /// Lowers `asm [sideeffect] "template", "constraints"(args)`.
    fn inline_asm(&mut self, ret: Type, ret_ty: &LType) -> PResult<Local> {
        let at = self.at;
        let mut side_effects = false;
        loop {
            match self.word() {
                "sideeffect" => side_effects = true,
                "alignstack" => {}
                "inteldialect" => {
                    return self.unsupported(at, "inline asm in Intel dialect is not supported")
                }
                "unwind" => return self.unsupported(at, "unwinding inline asm is not supported"),
                _ => break,
            }
            self.c.bump();
        }
        let tt = self.c.expect(Tok::Str, "the asm template string")?;
        self.comma()?;
        let ct = self.c.expect(Tok::Str, "the asm constraint string")?;
        let unq = |t: Token| {
            let s = self.c.text(t);
            let body = s.get(1..s.len().saturating_sub(1)).unwrap_or("");
            String::from_utf8_lossy(&crate::llvm::lexer::unescape(body.as_bytes())).into_owned()
        };
        let template = unq(tt);
        let constraints = unq(ct);
        self.c
            .expect(Tok::LParen, "`(` starting the asm operands")?;
        let mut args: Vec<(LType, Operand, String)> = Vec::new();
        if !self.c.eat(Tok::RParen) {
            loop {
                let aty = self.c.parse_type()?;
                let mut elem = None;
                while self.c.peek().kind == Tok::Ident && !is_value_word(self.word()) {
                    let w = self.word();
                    self.c.bump();
                    if w == "elementtype" && self.c.eat(Tok::LParen) {
                        elem = Some(self.c.parse_type()?);
                        self.c.expect(Tok::RParen, "`)`")?;
                    } else {
                        self.c.skip_parens()?;
                    }
                }
                let v = self.c.parse_value()?;
                let op = self.operand(&aty, &v)?;
                let pointee = elem.or(match &aty {
                    LType::Ptr(p) => Some((**p).clone()),
                    _ => None,
                });
                args.push((pointee.unwrap_or(LType::Int(8)), op, String::new()));
                if self.c.eat(Tok::RParen) {
                    break;
                }
                self.comma()?;
            }
        }
        self.skip_fn_attrs()?;
        let mut asm = InlineAsm {
            template,
            clobbers: Vec::new(),
            side_effects,
            outputs: Vec::new(),
            inputs: Vec::new(),
            goto_labels: Vec::new(),
        };
        let direct_types: Vec<Type> = match ret_ty {
            LType::Void => Vec::new(),
            LType::Struct { fields, .. } => fields
                .iter()
                .map(|f| self.scalar(f, at))
                .collect::<PResult<_>>()?,
            _ => vec![ret],
        };
        let mut next_direct = 0usize;
        let mut next_arg = 0usize;
        for piece in constraints.split(',') {
            if let Some(c) = piece.strip_prefix('~') {
                asm.clobbers
                    .push(c.trim_start_matches('{').trim_end_matches('}').to_string());
            } else if let Some(c) = piece.strip_prefix('=') {
                if let Some(c) = c.strip_prefix('*') {
                    let Some((pointee, op, _)) = args.get(next_arg) else {
                        return self.err(at, "asm constraints name more operands than given");
                    };
                    let ty = match pointee.scalar() {
                        Some(t) if t != Type::Void => t,
                        _ => Type::I8,
                    };
                    asm.outputs.push(AsmOutput {
                        constraint: c.to_string(),
                        ty,
                        place: AsmOutputPlace::Pointer(*op),
                    });
                    next_arg += 1;
                } else {
                    let Some(&ty) = direct_types.get(next_direct) else {
                        return self.err(at, "asm has more outputs than its result type");
                    };
                    next_direct += 1;
                    asm.outputs.push(AsmOutput {
                        constraint: c.to_string(),
                        ty,
                        place: AsmOutputPlace::Result,
                    });
                }
            } else {
                let Some((_, op, _)) = args.get(next_arg) else {
                    return self.err(at, "asm constraints name more operands than given");
                };
                asm.inputs.push(AsmInput {
                    constraint: piece.to_string(),
                    value: *op,
                });
                next_arg += 1;
            }
        }
        if next_direct != direct_types.len() || next_arg != args.len() {
            return self.err(at, "asm constraints do not match its operands and result");
        }
        let rs = self.b.push(InstKind::InlineAsm(Box::new(asm)));
        Ok(match rs.len() {
            1 if !matches!(ret_ty, LType::Struct { .. }) => Local::Op(Operand::Value(rs[0])),
            _ => Local::Tuple(rs.iter().map(|&v| Operand::Value(v)).collect()),
        })
    }
}
