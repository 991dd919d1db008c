//! Terminators of the strata IR (DESIGN.md 3.1): the [`Terminator`] that ends each block
//! and its control-flow [`Target`]s. Successors are named in successor-index order, and a
//! block may name the same successor twice (the CFG counts edges, not blocks); in
//! block-parameter form a target carries the arguments of its block's parameters.
//! Complexity: every visitor is linear in the terminator's successors and operands.

use super::{Block, Operand, Type};

/// A control-flow target: a block and, in block-parameter form, the arguments passed to
/// its parameters (empty otherwise).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Target {
    /// Destination block.
    pub block: Block,
    /// Branch arguments (block-parameter form only).
    pub args: Vec<Operand>,
}

impl Target {
    /// A target without arguments.
    pub fn new(block: Block) -> Self {
        Target {
            block,
            args: Vec::new(),
        }
    }
}

/// The instruction that ends a block.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Terminator {
    /// `jump blockN`.
    Jump(Target),
    /// `br cond, blockT, blockF`: successor 0 when `cond` (`i1`) is 1, successor 1 otherwise.
    /// Both may name the same block (two distinct edges).
    Br {
        /// Condition (`i1`).
        cond: Operand,
        /// Successor 0.
        then_dest: Target,
        /// Successor 1.
        else_dest: Target,
    },
    /// `switch ty value, default blockD [, C: blockN]...`: successor 0 is the default,
    /// successor `i + 1` is case `i`. Case values are zero-extended bit patterns of `ty`.
    Switch {
        /// Type of the scrutinee and cases (an integer type).
        ty: Type,
        /// The scrutinee.
        value: Operand,
        /// Successor 0.
        default: Target,
        /// (case value, destination) pairs; values are distinct.
        cases: Vec<(u128, Target)>,
    },
    /// `indirect_br addr, [blockN...]`: jumps to the block whose address is `addr`, which
    /// must be one of `dests`.
    IndirectBr {
        /// Block address (`ptr`, from a `blockaddress` constant).
        addr: Operand,
        /// Possible destinations, in successor order.
        dests: Vec<Block>,
    },
    /// `ret [ty value]`.
    Ret(Option<Operand>),
    /// `unreachable`: executing it is an error.
    Unreachable,
}

impl Terminator {
    /// `*self = source.clone()`, building the usual argument-free `jump`, `br`, `ret` and
    /// `unreachable` directly (the derived `clone_from` drops `self` and clones each
    /// target's argument list); the engine copies every block's terminator into the World
    /// this way (`FunctionLoader::load_copies`).
    #[inline]
    pub fn copy_from(&mut self, source: &Terminator) {
        let bare = |t: &Target| t.args.is_empty();
        *self = match source {
            Terminator::Jump(t) if bare(t) => Terminator::Jump(Target::new(t.block)),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } if bare(then_dest) && bare(else_dest) => Terminator::Br {
                cond: *cond,
                then_dest: Target::new(then_dest.block),
                else_dest: Target::new(else_dest.block),
            },
            Terminator::Ret(v) => Terminator::Ret(*v),
            Terminator::Unreachable => Terminator::Unreachable,
            _ => return self.clone_from(source),
        };
    }

    /// Number of successor edges (duplicates counted).
    pub fn num_successors(&self) -> usize {
        match self {
            Terminator::Jump(_) => 1,
            Terminator::Br { .. } => 2,
            Terminator::Switch { cases, .. } => 1 + cases.len(),
            Terminator::IndirectBr { dests, .. } => dests.len(),
            Terminator::Ret(_) | Terminator::Unreachable => 0,
        }
    }

    /// Calls `f` on every successor block in successor-index order (duplicates included).
    pub fn for_each_successor(&self, mut f: impl FnMut(Block)) {
        match self {
            Terminator::Jump(t) => f(t.block),
            Terminator::Br {
                then_dest,
                else_dest,
                ..
            } => {
                f(then_dest.block);
                f(else_dest.block);
            }
            Terminator::Switch { default, cases, .. } => {
                f(default.block);
                cases.iter().for_each(|(_, t)| f(t.block));
            }
            Terminator::IndirectBr { dests, .. } => dests.iter().for_each(|b| f(*b)),
            Terminator::Ret(_) | Terminator::Unreachable => {}
        }
    }

    /// Calls `f` on every successor block slot, mutably, in successor-index order.
    pub fn for_each_successor_mut(&mut self, mut f: impl FnMut(&mut Block)) {
        match self {
            Terminator::Jump(t) => f(&mut t.block),
            Terminator::Br {
                then_dest,
                else_dest,
                ..
            } => {
                f(&mut then_dest.block);
                f(&mut else_dest.block);
            }
            Terminator::Switch { default, cases, .. } => {
                f(&mut default.block);
                cases.iter_mut().for_each(|(_, t)| f(&mut t.block));
            }
            Terminator::IndirectBr { dests, .. } => dests.iter_mut().for_each(f),
            Terminator::Ret(_) | Terminator::Unreachable => {}
        }
    }

    /// Calls `f` on every operand (condition, scrutinee, address, return value, branch
    /// arguments) in a fixed order.
    pub fn for_each_operand(&self, mut f: impl FnMut(Operand)) {
        let target = |t: &Target, f: &mut dyn FnMut(Operand)| t.args.iter().for_each(|a| f(*a));
        match self {
            Terminator::Jump(t) => target(t, &mut f),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                f(*cond);
                target(then_dest, &mut f);
                target(else_dest, &mut f);
            }
            Terminator::Switch {
                value,
                default,
                cases,
                ..
            } => {
                f(*value);
                target(default, &mut f);
                cases.iter().for_each(|(_, t)| target(t, &mut f));
            }
            Terminator::IndirectBr { addr, .. } => f(*addr),
            Terminator::Ret(v) => {
                if let Some(v) = v {
                    f(*v)
                }
            }
            Terminator::Unreachable => {}
        }
    }

    /// Calls `f` on a mutable reference to every operand, in the order of
    /// [`Terminator::for_each_operand`].
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Operand)) {
        let target =
            |t: &mut Target, f: &mut dyn FnMut(&mut Operand)| t.args.iter_mut().for_each(f);
        match self {
            Terminator::Jump(t) => target(t, &mut f),
            Terminator::Br {
                cond,
                then_dest,
                else_dest,
            } => {
                f(cond);
                target(then_dest, &mut f);
                target(else_dest, &mut f);
            }
            Terminator::Switch {
                value,
                default,
                cases,
                ..
            } => {
                f(value);
                target(default, &mut f);
                cases.iter_mut().for_each(|(_, t)| target(t, &mut f));
            }
            Terminator::IndirectBr { addr, .. } => f(addr),
            Terminator::Ret(v) => {
                if let Some(v) = v {
                    f(v)
                }
            }
            Terminator::Unreachable => {}
        }
    }

    /// The keyword used in text.
    pub fn name(&self) -> &'static str {
        match self {
            Terminator::Jump(_) => "jump",
            Terminator::Br { .. } => "br",
            Terminator::Switch { .. } => "switch",
            Terminator::IndirectBr { .. } => "indirect_br",
            Terminator::Ret(_) => "ret",
            Terminator::Unreachable => "unreachable",
        }
    }
}
