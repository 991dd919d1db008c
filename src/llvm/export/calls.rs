//! Export of calls, inline asm and opaque operations.
//!
//! A call prints with the function type and argument attributes recorded at import when
//! its argument types are unchanged, else with the callee's original header, else with a
//! type derived from the IR; arguments and results of typed-pointer types get `bitcast`s.
//! Inline asm rebuilds its constraint string from outputs (`=c`, `=*c` with
//! `elementtype`), inputs and clobbers; a multi-output asm returns a literal struct read
//! back with `extractvalue`. Complexity: linear in the operands.

use super::*;

impl<'a> Printer<'a> {
    pub(super) fn opaque(&mut self, r: &str, o: &OpaqueInst) {
        match o.name.as_str() {
            "va_arg" if o.args.len() == 1 => {
                let mut parts = o.payload.splitn(2, '|');
                let pt = parse_type(parts.next().unwrap_or(""));
                let rt = parse_type(parts.next().unwrap_or(""));
                if let (Some(pt), Some(rt)) = (pt, rt) {
                    let p = self.typed_ptr(o.args[0], &pt);
                    if rt.is_ptr() && rt != LType::i8_ptr() {
                        let t = self.t();
                        self.line(format!("{t} = va_arg {pt} {p}, {rt}"));
                        self.line(format!("{r} = bitcast {rt} {t} to i8*"));
                    } else {
                        self.line(format!("{r} = va_arg {pt} {p}, {rt}"));
                    }
                    return;
                }
            }
            "atomic_load" | "atomic_store" => {
                let mut parts = o.payload.splitn(3, '|');
                let vol = if parts.next() == Some("volatile") {
                    "volatile "
                } else {
                    ""
                };
                let align: u32 = parts.next().and_then(|a| a.parse().ok()).unwrap_or(0);
                let ord = parts.next().unwrap_or("seq_cst").to_string();
                if o.name == "atomic_load" && o.args.len() == 1 && o.ty != Type::Void {
                    let lt = LType::from_scalar(o.ty);
                    let p = self.typed_ptr(o.args[0], &LType::Ptr(Arc::new(lt.clone())));
                    let a = if align == 0 { o.ty.bytes() } else { align };
                    self.line(format!(
                        "{r} = load atomic {vol}{lt}, {lt}* {p} {ord}, align {a}"
                    ));
                    return;
                }
                if o.name == "atomic_store" && o.args.len() == 2 {
                    let vt = self.op_type(o.args[0]);
                    let lt = LType::from_scalar(vt);
                    let p = self.typed_ptr(o.args[1], &LType::Ptr(Arc::new(lt.clone())));
                    let a = if align == 0 { vt.bytes() } else { align };
                    let s = format!(
                        "store atomic {vol}{lt} {}, {lt}* {p} {ord}, align {a}",
                        self.op(o.args[0])
                    );
                    self.line(s);
                    return;
                }
            }
            _ => {}
        }
        let _ = writeln!(self.out, "  ; unsupported opaque operation `{}`", o.name);
        if o.ty != Type::Void {
            self.line(format!("{r} = freeze {} undef", ty(o.ty)));
        }
    }

    pub(super) fn call(
        &mut self,
        idx: Inst,
        r: &str,
        ret: Type,
        callee: &Callee,
        args: &[Operand],
        fixed: Option<u32>,
    ) {
        let arg_types: Vec<Type> = args.iter().map(|&a| self.op_type(a)).collect();
        let callee_sym = match callee {
            Callee::Direct(s) => Some(*s),
            Callee::Indirect(Operand::Const(c)) => {
                match self.f.consts.try_get(*c).map(|d| d.kind) {
                    Some(ConstKind::SymbolAddr(s)) => Some(s),
                    _ => None,
                }
            }
            Callee::Indirect(_) => None,
        };
        let callee_name = callee_sym.map(|s| sym_name(self.m, s));
        let site: Option<&CallSite> = self.ctx.call_site(&self.f.name, idx.0).filter(|cs| {
            cs.arg_types == arg_types
                && cs.callee.as_deref() == callee_name
                && matches!(&cs.fn_ty, LType::Func { ret: rt, .. }
                    if self.ctx.layouts.value_type(rt) == Some(ret))
        });
        let header = callee_sym.and_then(|s| self.ctx.headers.get(sym_name(self.m, s)));
        let nfixed = fixed
            .map(|n| n as usize)
            .unwrap_or(args.len())
            .min(args.len());
        let (fn_ty, attrs): (LType, Vec<String>) = match (site, header) {
            (Some(cs), _) => (
                cs.fn_ty.clone(),
                cs.args.iter().map(|p| p.attrs.clone()).collect(),
            ),
            (None, Some(h))
                if h.params.len() == nfixed
                    && h.varargs == fixed.is_some()
                    && self.ctx.layouts.value_type(&h.ret) == Some(ret)
                    && h.params
                        .iter()
                        .zip(&arg_types)
                        .all(|(p, &t)| self.ctx.layouts.value_type(&p.ty) == Some(t)) =>
            {
                (
                    h.fn_type(),
                    h.params.iter().map(|p| p.attrs.clone()).collect(),
                )
            }
            _ => (
                LType::Func {
                    ret: Arc::new(LType::from_scalar(ret)),
                    params: arg_types[..nfixed]
                        .iter()
                        .map(|&t| LType::from_scalar(t))
                        .collect(),
                    varargs: fixed.is_some(),
                },
                Vec::new(),
            ),
        };
        let LType::Func {
            ret: fret,
            params: fparams,
            varargs,
        } = &fn_ty
        else {
            return;
        };
        let fn_ptr = LType::Ptr(Arc::new(fn_ty.clone()));
        let callee_text = match callee {
            Callee::Direct(_) | Callee::Indirect(Operand::Const(_)) if callee_sym.is_some() => {
                let s = callee_sym.unwrap_or_default();
                let st = self.symbol_type(s);
                let name = ident('@', sym_name(self.m, s));
                if st == fn_ptr {
                    name
                } else {
                    format!("bitcast ({st} {name} to {fn_ptr})")
                }
            }
            Callee::Indirect(o) => self.typed_ptr(*o, &fn_ptr),
            Callee::Direct(_) => "undef".into(),
        };
        let arg_text = self.call_arguments(args, &arg_types, fparams, site, &attrs);
        let ret_attrs = site
            .map(|cs| cs.ret_attrs.clone())
            .filter(|s| !s.is_empty())
            .map(|s| format!("{s} "))
            .unwrap_or_default();
        let call_ty = if *varargs {
            fn_ty.to_string()
        } else {
            fret.to_string()
        };
        let call = format!(
            "call {ret_attrs}{call_ty} {callee_text}({})",
            arg_text.join(", ")
        );
        if ret == Type::Void {
            self.line(call);
        } else if fret.is_ptr() && **fret != LType::i8_ptr() {
            let t = self.t();
            self.line(format!("{t} = {call}"));
            self.line(format!("{r} = bitcast {fret} {t} to i8*"));
        } else if fret.is_aggregate() && **fret != LType::from_scalar(ret) {
            let t = self.t();
            self.line(format!("{t} = {call}"));
            let ir = LType::from_scalar(ret);
            let (lines, _) = self.convert_aggregate(t, fret, &ir, Some(r));
            for l in lines {
                self.line(l);
            }
        } else {
            self.line(format!("{r} = {call}"));
        }
    }

    /// The argument list of a call: each argument typed as `fparams` (or the import's call
    /// site, or its IR type) declares it, pointers and aggregates converted to that type,
    /// with the call's metadata arguments put back where the site had them.
    fn call_arguments(
        &mut self,
        args: &[Operand],
        arg_types: &[Type],
        fparams: &[LType],
        site: Option<&CallSite>,
        attrs: &[String],
    ) -> Vec<String> {
        let mut arg_text = Vec::with_capacity(args.len());
        // Metadata arguments the call had at import: the IR call carries the others, so
        // IR argument i is parameter `i + (metadata arguments before it)` of `fn_ty`.
        let metadata: &[(u32, String)] = site.map_or(&[], |cs| &cs.metadata_args);
        let mut pending = metadata.iter().peekable();
        for (i, &a) in args.iter().enumerate() {
            while let Some((_, text)) = pending.next_if(|(at, _)| *at as usize == arg_text.len()) {
                arg_text.push(format!("metadata {text}"));
            }
            let slot = arg_text.len();
            let pt = match fparams.get(slot) {
                Some(p) => p.clone(),
                None => site
                    .and_then(|cs| cs.args.get(i))
                    .map(|p| p.ty.clone())
                    .unwrap_or_else(|| LType::from_scalar(arg_types[i])),
            };
            let v = if pt.is_ptr() {
                self.typed_ptr(a, &pt)
            } else if pt.is_aggregate() {
                let ir = LType::from_scalar(arg_types[i]);
                let (lines, out) = self.convert_aggregate(self.op(a), &ir, &pt, None);
                for l in lines {
                    self.line(l);
                }
                out
            } else {
                self.op(a)
            };
            let at = attrs
                .get(i)
                .filter(|s| !s.is_empty())
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            arg_text.push(format!("{pt}{at} {v}"));
        }
        arg_text.extend(pending.map(|(_, text)| format!("metadata {text}")));
        arg_text
    }

    pub(super) fn asm(&mut self, inst: &InstData, asm: &InlineAsm) {
        let mut cons: Vec<String> = Vec::new();
        let mut args: Vec<String> = Vec::new();
        let mut direct: Vec<(Type, Option<Value>, Option<Operand>)> = Vec::new();
        let mut results = inst.results.iter();
        for o in &asm.outputs {
            match o.place {
                AsmOutputPlace::Result => {
                    cons.push(format!("={}", o.constraint));
                    direct.push((o.ty, results.next().copied(), None));
                }
                AsmOutputPlace::Pointer(p) if InlineAsm::is_memory_constraint(&o.constraint) => {
                    cons.push(format!("=*{}", o.constraint));
                    let lt = LType::from_scalar(o.ty);
                    let pv = self.typed_ptr(p, &LType::Ptr(Arc::new(lt.clone())));
                    args.push(format!("{lt}* elementtype({lt}) {pv}"));
                }
                AsmOutputPlace::Pointer(p) => {
                    cons.push(format!("={}", o.constraint));
                    direct.push((o.ty, None, Some(p)));
                }
            }
        }
        for i in &asm.inputs {
            cons.push(i.constraint.clone());
            if i.constraint.starts_with('*') {
                let pv = self.typed_ptr(i.value, &LType::i8_ptr());
                args.push(format!("i8* elementtype(i8) {pv}"));
            } else {
                args.push(self.typed(i.value));
            }
        }
        for c in &asm.clobbers {
            cons.push(format!("~{{{c}}}"));
        }
        let rt = match direct.len() {
            0 => "void".to_string(),
            1 => ty(direct[0].0).to_string(),
            _ => format!(
                "{{ {} }}",
                direct
                    .iter()
                    .map(|d| ty(d.0))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let se = if asm.side_effects { "sideeffect " } else { "" };
        let fallthrough = self.callbr_fallthrough.take();
        let kw = if fallthrough.is_some() {
            "callbr"
        } else {
            "call"
        };
        let mut call = format!(
            "{kw} {rt} asm {se}\"{}\", \"{}\"({})",
            escape(asm.template.as_bytes()),
            escape(cons.join(",").as_bytes()),
            args.join(", ")
        );
        match fallthrough {
            Some(ft) => {
                let labels: Vec<String> = asm
                    .goto_labels
                    .iter()
                    .map(|b| format!("label %b{}", b.0))
                    .collect();
                let _ = write!(
                    call,
                    "\n          to label %b{} [{}]",
                    ft.0,
                    labels.join(", ")
                );
            }
            None if !asm.goto_labels.is_empty() => {
                self.line("; asm goto not at the end of its block: goto labels dropped".into());
            }
            None => {}
        }
        match direct.len() {
            0 => self.line(call),
            1 => {
                let dst = match direct[0].1 {
                    Some(v) => self.val(v),
                    None => self.t(),
                };
                self.line(format!("{dst} = {call}"));
                if let Some(p) = direct[0].2 {
                    let lt = LType::from_scalar(direct[0].0);
                    let pv = self.typed_ptr(p, &LType::Ptr(Arc::new(lt.clone())));
                    self.line(format!("store {lt} {dst}, {lt}* {pv}, align 1"));
                }
            }
            _ => {
                let agg = self.t();
                self.line(format!("{agg} = {call}"));
                for (k, (t, v, p)) in direct.iter().enumerate() {
                    let dst = match v {
                        Some(v) => self.val(*v),
                        None => self.t(),
                    };
                    self.line(format!("{dst} = extractvalue {rt} {agg}, {k}"));
                    if let Some(p) = p {
                        let lt = LType::from_scalar(*t);
                        let pv = self.typed_ptr(*p, &LType::Ptr(Arc::new(lt.clone())));
                        self.line(format!("store {lt} {dst}, {lt}* {pv}, align 1"));
                    }
                }
            }
        }
    }
}
