//! Deliberate corruptions of an allocation, to show that a checker catches them (the
//! issue's five: two allocations swapped, a move dropped, a live register clobbered, an edit
//! after a terminator, a stack-to-stack move).
//!
//! What: [`corrupt`] applies one [`Corruption`] to a copy of an [`AllocOutput`] for a
//! [`MachineRead`] function, at a site chosen by an index. Used by the fuzz check of the
//! checker (`fuzzing::checker`) and by `strata compile --corrupt-allocation` (a test hook
//! that shows `--check` rejecting a bad allocation).
//!
//! A corruption can be harmless (dropping a move whose destination already holds the
//! value): callers judge "caught" against a reference checker or pick a site that matters.
//!
//! Complexity: O(operands^2 per instruction + edits) for one corruption.

use super::output::{AllocOutput, Edit};
use super::point::ProgPoint;
use super::{Allocation, SpillSlot};
use crate::machine::MInst;
use crate::machine::{MachineRead, OperandKind};

/// The corruptions [`corrupt`] can apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Corruption {
    /// Two use operands of one instruction, of different vregs in different locations,
    /// exchange their allocations.
    Swap,
    /// One edit is removed.
    DropMove,
    /// Before an instruction (after the edits there), a use's register is overwritten from
    /// the location of another use of that instruction holding a different vreg.
    Clobber,
    /// An edit before a terminator is moved to just after it.
    EditAfterTerminator,
    /// A move from a slot to another slot is inserted.
    StackToStack,
}

impl Corruption {
    /// Every corruption.
    pub const ALL: [Corruption; 5] = [
        Corruption::Swap,
        Corruption::DropMove,
        Corruption::Clobber,
        Corruption::EditAfterTerminator,
        Corruption::StackToStack,
    ];
}

/// Applies `c` to a copy of `out`, choosing the site with `pick` (an index reduced modulo
/// the candidates); `None` when the function has no site for it.
pub fn corrupt<F: MachineRead + ?Sized>(
    f: &F,
    out: &AllocOutput,
    c: Corruption,
    pick: usize,
) -> Option<AllocOutput> {
    let mut o = out.clone();
    match c {
        Corruption::Swap | Corruption::Clobber => {
            let mut sites = Vec::new();
            for i in f.insts() {
                let ops = f.inst_operands(i);
                let allocs = out.inst_allocs(i.0);
                for a in 0..ops.len() {
                    for b in a + 1..ops.len() {
                        // A reused input is left alone: regalloc2 0.15.2's checker does not
                        // verify the reuse constraint after a swap (ours does), so the verdicts
                        // would differ for a reason other than values.
                        let reused = |x: usize| {
                            ops.iter().any(|o| {
                                o.constraint == crate::machine::OperandConstraint::Reuse(x as u8)
                            })
                        };
                        let ok = !reused(a)
                            && !reused(b)
                            && ops[a].kind == OperandKind::Use
                            && ops[b].kind == OperandKind::Use
                            && ops[a].vreg != ops[b].vreg
                            && allocs[a] != allocs[b]
                            && ops[a].vreg.is_value()
                            && ops[b].vreg.is_value();
                        let clobber_ok = c == Corruption::Swap
                            || (allocs[a].as_reg().is_some()
                                && ops[a].vreg.class() == ops[b].vreg.class());
                        if ok && clobber_ok {
                            sites.push((i, a, b));
                        }
                    }
                }
            }
            if sites.is_empty() {
                return None;
            }
            let (i, a, b) = sites[pick % sites.len()];
            let base = out.inst_alloc_offsets[i.index()] as usize;
            if c == Corruption::Swap {
                o.allocs.swap(base + a, base + b);
            } else {
                let at = ProgPoint::before(i);
                let pos = o.edits.partition_point(|e| e.0 <= at);
                let edit = Edit::mov(out.allocs[base + b], out.allocs[base + a]);
                o.edits.insert(pos, (at, edit));
            }
        }
        Corruption::DropMove => {
            if o.edits.is_empty() {
                return None;
            }
            let k = pick % o.edits.len();
            o.edits.remove(k);
        }
        Corruption::EditAfterTerminator => {
            let sites: Vec<usize> = (0..o.edits.len())
                .filter(|&k| {
                    let p = o.edits[k].0;
                    !p.is_after() && (f.is_branch(p.inst()) || f.is_ret(p.inst()))
                })
                .collect();
            if sites.is_empty() {
                return None;
            }
            let k = sites[pick % sites.len()];
            let (p, e) = o.edits.remove(k);
            let at = ProgPoint::after(p.inst());
            let pos = o.edits.partition_point(|x| x.0 <= at);
            o.edits.insert(pos, (at, e));
        }
        Corruption::StackToStack => {
            let at = ProgPoint::before(MInst::new(pick % f.num_insts()));
            let n = out.num_spillslots as u32;
            let pos = o.edits.partition_point(|x| x.0 <= at);
            o.edits.insert(
                pos,
                (
                    at,
                    Edit::mov(
                        Allocation::Stack(SpillSlot(n)),
                        Allocation::Stack(SpillSlot(n + 1)),
                    ),
                ),
            );
            o.num_spillslots += 2;
        }
    }
    Some(o)
}
