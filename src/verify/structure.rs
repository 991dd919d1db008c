//! Verifier groups 1–3 and 5 (see the parent module's list): the value and block tables,
//! CFG integrity, terminators and calls. Each check is one pass over its table or its
//! blocks' terminators; errors go through [`Checker::error`] with the current location.
//!
//! Complexity: O(blocks + instructions + values + constants).

use super::*;

impl<R: IrRead> Checker<'_, R> {
    /// Every aggregate constant has one constant per member, each of the member's type.
    fn check_aggregate_consts(&mut self) {
        let pool = self.ir.consts();
        for (k, d) in pool.as_slice().iter().enumerate() {
            if !matches!(d.kind, ConstKind::Aggregate(_)) {
                continue;
            }
            let c = Const::new(k);
            let info = match d.ty {
                Type::Agg(id) | Type::Vec(id) => Some(id.info()),
                _ => None,
            };
            let (Some(info), Some(members)) = (info, pool.members(c)) else {
                self.error(format!(
                    "{c} is an aggregate constant of the scalar type {}",
                    d.ty
                ));
                continue;
            };
            if members.len() != info.len() {
                self.error(format!(
                    "{c} of type {} has {} members, expected {}",
                    d.ty,
                    members.len(),
                    info.len()
                ));
                continue;
            }
            for (n, &m) in members.iter().enumerate() {
                let want = info.member(n).unwrap_or(Type::Void);
                match pool.try_get(m) {
                    Some(md) if md.ty == want => {}
                    _ => self.error(format!(
                        "member {n} of {c} is not a constant of type {want}"
                    )),
                }
            }
        }
    }

    pub(super) fn check_tables(&mut self) {
        let ir = self.ir;
        if ir.num_blocks() == 0 || ir.is_block_dead(Block(0)) {
            self.error("the entry block block0 is missing");
            return;
        }
        for (i, (&v, &ty)) in ir
            .param_values()
            .iter()
            .zip(&ir.signature().params)
            .enumerate()
        {
            match ir.values().get(v.index()) {
                Some(d) if d.def == ValueDef::Param(i as u32) && d.ty == ty => {}
                _ => self.error(format!(
                    "parameter {i} ({v}) is not recorded as a {ty} parameter"
                )),
            }
        }
        if ir.param_values().len() != ir.signature().params.len() {
            self.error("parameter values do not match the signature");
        }
        self.check_aggregate_consts();
        let ssa = ir.phase().single_definition();
        let extra_copy_defs = !ssa;
        let mut scratch = std::mem::take(self.scratch);
        scratch.listed.clear();
        scratch.listed.resize(ir.num_insts(), false);
        // Availability points for `check_dominance` (SSA phases only): parameters at the
        // entry, block parameters (of dead blocks too: a use of one is then not dominated)
        // at their block's entry, a result just after its instruction.
        let def_at = &mut scratch.def_at;
        def_at.clear();
        if ssa {
            def_at.resize(ir.values().len(), NOWHERE);
            for &v in ir.param_values() {
                if let Some(d) = def_at.get_mut(v.index()) {
                    *d = def_point(Block(0), 0);
                }
            }
            for b in (0..ir.num_blocks()).map(Block::new) {
                for &v in ir.block_params(b) {
                    if let Some(d) = def_at.get_mut(v.index()) {
                        *d = def_point(b, 0);
                    }
                }
            }
        }
        let values = ir.values();
        for b in (0..ir.num_blocks()).map(Block::new) {
            if ir.is_block_dead(b) {
                continue;
            }
            self.block = Some(b);
            self.has_block_params |= !ir.block_params(b).is_empty();
            for (n, &v) in ir.block_params(b).iter().enumerate() {
                match values.get(v.index()) {
                    Some(d) if d.def == ValueDef::BlockParam(b, n as u32) => {}
                    _ => self.error(format!("block parameter {n} ({v}) is not recorded as one")),
                }
            }
            self.check_block_tables(b, &mut scratch.listed, def_at, extra_copy_defs);
        }
        self.block = None;
        *self.scratch = scratch;
    }

    /// The table checks of `b`'s instructions (see `check_tables`): each is listed once, by
    /// the block it records, with results recorded as its own, of the types its kind
    /// defines; their availability points go to `def_at` (empty outside SSA phases). A
    /// function of its own, so the loop keeps its state in registers.
    #[inline(never)]
    fn check_block_tables(
        &mut self,
        b: Block,
        listed: &mut [bool],
        def_at: &mut [(u32, u32)],
        extra_copy_defs: bool,
    ) {
        let ir = self.ir;
        // `self.inst` is set only before an error is reported (most instructions have none).
        for (pos, &i) in ir.block_insts(b).iter().enumerate() {
            // `listed` has one entry per instruction, so its bound is the range check.
            let Some(seen) = listed.get_mut(i.index()) else {
                self.inst = Some(i);
                self.error(format!("lists {i}, which is out of range"));
                continue;
            };
            if std::mem::replace(seen, true) {
                self.inst = Some(i);
                self.error(format!("{i} is listed more than once"));
            }
            if ir.inst_block(i) != b {
                self.inst = Some(i);
                self.error(format!(
                    "{i} is listed by {b} but records {}",
                    ir.inst_block(i)
                ));
            }
            let kind = ir.inst_kind(i);
            let results = ir.inst_results(i);
            let at = def_point(b, pos as u32 + 1);
            // Asked only when a result is not recorded as this instruction's own.
            let extra_copy_def = || extra_copy_defs && matches!(kind, InstKind::Copy { .. });
            let count_error = |c: &mut Self, want: usize| {
                c.inst = Some(i);
                c.error(format!(
                    "`{}` defines {} values, expected {want}",
                    kind.opcode_name(),
                    results.len(),
                ))
            };
            // Kinds with at most one result are checked without building a list.
            match kind.single_result_type() {
                Some(None) if results.is_empty() => {}
                Some(Some(ty)) if results.len() == 1 => {
                    self.check_result(i, 0, results[0], ty, extra_copy_def, def_at, at)
                }
                Some(t) => {
                    count_error(self, t.is_some() as usize);
                    if let (Some(ty), Some(&v)) = (t, results.first()) {
                        self.check_result(i, 0, v, ty, extra_copy_def, def_at, at);
                    }
                }
                None => {
                    // `asm` is one of the kinds with several results.
                    self.has_asm |= matches!(kind, InstKind::InlineAsm(_));
                    let types = kind.result_types();
                    if types.len() != results.len() {
                        count_error(self, types.len());
                    }
                    for (n, (&v, &ty)) in results.iter().zip(&types).enumerate() {
                        self.check_result(i, n, v, ty, extra_copy_def, def_at, at);
                    }
                }
            }
        }
        self.inst = None;
    }

    /// Result `n` of `i`, `v`, is recorded as that result, of type `ty` (or, if
    /// `extra_copy_def()`, as a result of some `copy`, of type `ty`); `v` becomes available
    /// at `at` (`def_at` is empty outside SSA phases). Sets `self.inst` to `i` before
    /// reporting. A method, not a closure: the closure, called from three places, was not
    /// inlined.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn check_result(
        &mut self,
        i: Inst,
        n: usize,
        v: Value,
        ty: Type,
        extra_copy_def: impl Fn() -> bool,
        def_at: &mut [(u32, u32)],
        at: (u32, u32),
    ) {
        if let Some(d) = def_at.get_mut(v.index()) {
            *d = at;
        }
        match self.ir.values().get(v.index()) {
            Some(d) if d.def == ValueDef::Result(i, n as u32) && d.ty == ty => {}
            Some(d) if extra_copy_def() && d.ty == ty && matches!(d.def, ValueDef::Result(..)) => {}
            Some(d) => {
                let (def, t) = (d.def, d.ty);
                self.inst = Some(i);
                self.error(format!(
                    "result {n} ({v}) is recorded as {def:?} of type {t}, expected result of {i} with type {ty}",
                ))
            }
            None => {
                self.inst = Some(i);
                self.error(format!("result {n} ({v}) is out of range"))
            }
        }
    }

    pub(super) fn check_cfg(&mut self) {
        let ir = self.ir;
        for b in (0..ir.num_blocks()).map(Block::new) {
            if ir.is_block_dead(b) {
                continue;
            }
            self.block = Some(b);
            let mut all_live = true;
            ir.terminator(b)
                .for_each_successor(|s| all_live &= self.is_live_block(s));
            if !all_live {
                let mut bad = Vec::new();
                ir.terminator(b).for_each_successor(|s| {
                    if !self.is_live_block(s) {
                        bad.push(s);
                    }
                });
                for s in bad {
                    self.error(format!("terminator branches to {s}, which does not exist"));
                }
            }
            if let Terminator::IndirectBr { dests, .. } = ir.terminator(b) {
                if dests.is_empty() {
                    self.error("indirect_br lists no destination");
                }
            }
            if !self.has_asm {
                continue;
            }
            for &i in ir.block_insts(b) {
                if let Some(InstKind::InlineAsm(asm)) =
                    (i.index() < ir.num_insts()).then(|| ir.inst_kind(i))
                {
                    self.inst = Some(i);
                    for &l in &asm.goto_labels {
                        if !self.is_live_block(l) {
                            self.error(format!("asm goto label {l} does not exist"));
                        }
                    }
                    self.inst = None;
                }
            }
        }
        self.block = None;
    }

    #[inline]
    fn check_target(&mut self, t: &Target) {
        if !self.is_live_block(t.block) {
            return;
        }
        let ir = self.ir;
        let params = ir.block_params(t.block);
        if params.len() != t.args.len() {
            self.error(format!(
                "branch to {} passes {} arguments, the block has {} parameters",
                t.block,
                t.args.len(),
                params.len()
            ));
            return;
        }
        for (n, (&a, &p)) in t.args.iter().zip(params).enumerate() {
            let ty = ir.values().get(p.index()).map_or(Type::Void, |d| d.ty);
            self.expect(a, ty, || format!("argument {n} to {}", t.block));
        }
    }

    pub(super) fn check_terminator(&mut self, b: Block) {
        let ir = self.ir;
        self.block = Some(b);
        match ir.terminator(b) {
            Terminator::Jump(t) => self.check_target(t),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                self.expect(*cond, Type::I1, || "br condition".to_string());
                self.check_target(then_dest);
                self.check_target(else_dest);
            }
            Terminator::Switch {
                ty,
                value,
                default,
                cases,
            } => {
                if !ty.is_int() {
                    self.error(format!("switch type {ty} is not an integer type"));
                }
                self.expect(*value, *ty, || "switch scrutinee".to_string());
                self.check_target(default);
                // Sorting a copy of the values finds whether one repeats; only then does a
                // set name each repeat where it occurs (hashing every case cost more than the
                // rest of the switch check).
                let values = &mut self.scratch.case_values;
                values.clear();
                values.extend(cases.iter().map(|&(c, _)| c));
                values.sort_unstable();
                let repeats = values.windows(2).any(|w| w[0] == w[1]);
                let mut seen = repeats.then(std::collections::HashSet::new);
                for (c, t) in cases {
                    if *c & !ty.mask() != 0 {
                        self.error(format!("switch case {c} does not fit {ty}"));
                    }
                    if seen.as_mut().is_some_and(|seen| !seen.insert(*c)) {
                        self.error(format!("switch case {c} appears twice"));
                    }
                    self.check_target(t);
                }
            }
            Terminator::IndirectBr { addr, .. } => {
                self.expect(*addr, Type::Ptr, || "indirect_br address".to_string())
            }
            Terminator::Ret(v) => {
                let ret = ir.signature().ret;
                match (v, ret) {
                    (None, Type::Void) => {}
                    (None, t) => {
                        self.error(format!("ret without a value in a function returning {t}"))
                    }
                    (Some(_), Type::Void) => {
                        self.error("ret with a value in a function returning void")
                    }
                    (Some(v), t) => self.expect(*v, t, || "return value".to_string()),
                }
            }
            Terminator::Unreachable => {}
        }
        self.block = None;
    }

    pub(super) fn check_call(
        &mut self,
        ret: Type,
        callee: &Callee,
        args: &[Operand],
        fixed_args: Option<u32>,
    ) {
        let symbols = self.symbols;
        let sig = match callee {
            Callee::Direct(s) => match symbols.signatures.get(s.index()) {
                None => {
                    self.error(format!("call to {s}, which is not a symbol of the module"));
                    return;
                }
                Some(None) => {
                    let name = self.symbols.name(*s).into_owned();
                    self.error(format!(
                        "call to @{name}, which is a global variable, not a function"
                    ));
                    return;
                }
                Some(Some(sig)) => sig,
            },
            Callee::Indirect(p) => {
                self.expect(*p, Type::Ptr, || "indirect callee".to_string());
                for (n, &a) in args.iter().enumerate() {
                    self.operand(a, || format!("call argument {n}"));
                }
                return;
            }
        };
        if sig.ret != ret {
            self.error(format!(
                "call result type {ret} differs from the callee's {}",
                sig.ret
            ));
        }
        let fixed = sig.params.len();
        if args.len() < fixed || (!sig.varargs && args.len() != fixed) {
            self.error(format!(
                "call passes {} arguments, the callee takes {fixed}{}",
                args.len(),
                if sig.varargs { " or more" } else { "" }
            ));
        }
        if let Some(n) = fixed_args {
            if !sig.varargs || n as usize != fixed {
                self.error(format!(
                    "call says {n} fixed arguments, the callee's signature has {fixed}{}",
                    if sig.varargs {
                        ""
                    } else {
                        " and is not variadic"
                    }
                ));
            }
        }
        for (n, (&a, &ty)) in args.iter().zip(&sig.params).enumerate() {
            self.expect(a, ty, || format!("call argument {n}"));
        }
        for (n, &a) in args.iter().enumerate().skip(fixed) {
            self.operand(a, || format!("variadic argument {n}"));
        }
    }
}
