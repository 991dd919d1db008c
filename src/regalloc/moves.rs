//! The parallel-move resolver (Ion design, "Move Resolution", "Parallel-Move Resolver" and
//! "Stack-to-Stack Moves").
//!
//! What: [`MoveResolver::resolve`] turns a set of moves that semantically happen at once
//! (each destination written at most once; every source read before any destination is
//! written) into a sequence of ordinary moves with the same effect on every destination.
//!
//! Algorithm:
//! 1. Validate (no `none` location, register classes agree with the move's class, no
//!    destination written twice, the dedicated scratch registers unmentioned) and drop
//!    self-moves.
//! 2. If no move reads a location another move writes (the common case), the moves are
//!    already a valid sequence.
//! 3. Otherwise each move gets its one "must come before" edge: the move that overwrites its
//!    source (unique, since each destination is written once). A depth-first walk over these
//!    edges builds the sequence in reverse: when the top of the stack has no edge, or its edge
//!    leads to an emitted move, the whole stack is emitted in popped order; when the edge
//!    leads to a move on the stack, that suffix of the stack is a simple cycle (every node has
//!    one out-edge, so every strongly connected component is a simple cycle and no Tarjan
//!    bookkeeping is needed); it is emitted with its first move redirected to the scratch
//!    location, plus a move from the scratch to that move's destination.
//! 4. Forward pass over the sequence: each stack-to-stack move becomes slot -> register ->
//!    slot through the class's stack register; when that register is busy (holding a cycle's
//!    value, or borrowed from a live value) it is saved to an extra spill slot first and
//!    reloaded after. No stack-to-stack move is ever emitted.
//!
//! Scratch locations per class, in order of preference (see [`ScratchEnv`]): the dedicated
//! scratch register; a free register no move mentions; for cycles, a fresh spill slot, and
//! for stack-to-stack moves a borrowed (saved and restored) register. Fresh slots come from
//! the caller's allocator, at most two per class per call (cycle scratch, extra slot).
//!
//! Invariants of the output: executing it from any initial contents leaves every
//! destination holding its source's initial value; every other location keeps its value
//! except the dedicated scratch registers, the free registers and the fresh slots; no move
//! is stack to stack. The fuzz check `fuzzing::moves` checks these with an abstract
//! interpreter.
//!
//! Complexity: O(n log n) for n moves (sorting destinations for the edge lookup), O(n) for
//! the walk; all working vectors live in the [`MoveResolver`] and are reused between calls.

use super::location::{Allocation, PReg, RegClass, SpillSlot};

/// One move of a value of class `class` from `src` to `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The location read.
    pub src: Allocation,
    /// The location written.
    pub dst: Allocation,
    /// The class of the value moved (selects the scratch register; a register operand must
    /// be of this class).
    pub class: RegClass,
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} <- {} ({})", self.dst, self.src, self.class)
    }
}

/// The scratch resources available at the program point of one parallel move.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScratchEnv<'a> {
    /// Per class ([`RegClass::index`]): a register reserved for the resolver, never
    /// allocated, so it holds no live value and no move may mention it.
    pub scratch: [Option<PReg>; 3],
    /// Registers (any class) holding no live value at this point. Those a move mentions are
    /// ignored. The resolver may overwrite the others.
    pub free: &'a [PReg],
    /// Per class: a register that may hold a live value (and may appear in moves), borrowed
    /// for stack-to-stack moves when the class has neither scratch nor free register: it is
    /// saved to an extra slot and restored around each use.
    pub borrow: [Option<PReg>; 3],
}

/// Why a parallel move could not be resolved. Indices are positions in the input slice.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// A move reads or writes `none`.
    #[error("move {index} ({mv}): a location is `none`")]
    NoneLocation {
        /// The move's index.
        index: usize,
        /// The move.
        mv: Move,
    },
    /// A register operand is not of the move's class.
    #[error("move {index} ({mv}): register {reg} is not of class {}", mv.class)]
    ClassMismatch {
        /// The move's index.
        index: usize,
        /// The move.
        mv: Move,
        /// The register of the wrong class.
        reg: PReg,
    },
    /// Two moves write the same location.
    #[error("moves {first} and {second} both write {dst}")]
    DuplicateDestination {
        /// The earlier move's index.
        first: usize,
        /// The later move's index.
        second: usize,
        /// The location written twice.
        dst: Allocation,
    },
    /// A move mentions a dedicated scratch register.
    #[error("move {index} ({mv}) mentions {reg}, the dedicated scratch register")]
    ScratchMentioned {
        /// The move's index.
        index: usize,
        /// The move.
        mv: Move,
        /// The scratch register.
        reg: PReg,
    },
    /// A scratch or borrowable register given for a class is of another class.
    #[error(
        "register {reg} given as the {class} scratch or borrowable register is of another class"
    )]
    EnvClassMismatch {
        /// The class slot of [`ScratchEnv`].
        class: RegClass,
        /// The register given.
        reg: PReg,
    },
    /// A stack-to-stack move of `class` needs a register and the environment has none.
    #[error("a {class} stack-to-stack move needs a register, but the class has no scratch, free or borrowable register")]
    NoRegister {
        /// The class.
        class: RegClass,
    },
}

/// Counts from one [`MoveResolver::resolve`] call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResolveStats {
    /// Parallel moves after dropping self-moves.
    pub moves: usize,
    /// Cycles broken through a scratch location.
    pub cycles: usize,
    /// Stack-to-stack moves rewritten through a register.
    pub stack_to_stack: usize,
    /// Of those, how many saved and restored the register through the extra slot.
    pub saved: usize,
    /// Sequential moves appended.
    pub emitted: usize,
}

const NO_MOVE: u32 = u32::MAX;

/// An integer naming a location uniquely: a tag above bit 32, the register or slot below.
fn location_key(loc: Allocation) -> u64 {
    match loc {
        Allocation::None => 0,
        Allocation::Reg(r) => 1 << 32 | r.dense_index() as u64,
        Allocation::Stack(s) => 2 << 32 | u64::from(s.0),
    }
}
const UNVISITED: u8 = 0;
const ON_STACK: u8 = 1;
const DONE: u8 = 2;

/// The resolver with its reusable working vectors (dense, cleared per call, never shrunk).
#[derive(Debug, Default)]
pub struct MoveResolver {
    /// The moves kept (self-moves dropped).
    moves: Vec<Move>,
    /// ([`location_key`] of the destination, input index, kept index or `NO_MOVE` for a
    /// self-move), sorted: integer keys sort and search faster than `Allocation`'s derived
    /// order.
    dsts: Vec<(u64, u32, u32)>,
    /// Per kept move: the kept move that overwrites its source, or `NO_MOVE`.
    before: Vec<u32>,
    state: Vec<u8>,
    stack: Vec<u32>,
    reversed: Vec<Move>,
}

/// Per-call choices of scratch locations, made lazily.
struct Scratch<'e, 'a, F> {
    env: &'e ScratchEnv<'a>,
    /// Registers mentioned by any input move (dense over [`PReg::dense_index`]).
    mentioned: [u64; 3],
    alloc_slot: F,
    cycle: [Option<Allocation>; 3],
    extra: [Option<SpillSlot>; 3],
}

impl<F: FnMut(RegClass) -> SpillSlot> Scratch<'_, '_, F> {
    fn is_mentioned(&self, r: PReg) -> bool {
        let i = r.dense_index();
        self.mentioned[i / 64] & (1 << (i % 64)) != 0
    }

    /// The dedicated scratch register of `class`, else a free register no move mentions.
    fn register(&self, class: RegClass) -> Option<PReg> {
        self.env.scratch[class.index()].or_else(|| {
            self.env
                .free
                .iter()
                .copied()
                .find(|&r| r.class() == class && !self.is_mentioned(r))
        })
    }

    /// The location cycles of `class` are broken through: a register, else a fresh slot.
    fn cycle_location(&mut self, class: RegClass) -> Allocation {
        if let Some(a) = self.cycle[class.index()] {
            return a;
        }
        let a = match self.register(class) {
            Some(r) => Allocation::Reg(r),
            None => Allocation::Stack((self.alloc_slot)(class)),
        };
        self.cycle[class.index()] = Some(a);
        a
    }

    fn extra_slot(&mut self, class: RegClass) -> SpillSlot {
        *self.extra[class.index()].get_or_insert_with(|| (self.alloc_slot)(class))
    }
}

impl MoveResolver {
    /// A resolver with empty working vectors.
    pub fn new() -> Self {
        Self::default()
    }

    /// Resolves the parallel moves `parallel` into sequential moves appended to `out`.
    ///
    /// `alloc_slot(class)` must return a spill slot that no move mentions and that holds no
    /// live value (it is called at most twice per class per call). On error nothing is
    /// appended to `out`.
    pub fn resolve(
        &mut self,
        parallel: &[Move],
        env: &ScratchEnv<'_>,
        alloc_slot: impl FnMut(RegClass) -> SpillSlot,
        out: &mut Vec<Move>,
    ) -> Result<ResolveStats, MoveError> {
        let mut scratch = Scratch {
            env,
            mentioned: [0; 3],
            alloc_slot,
            cycle: [None; 3],
            extra: [None; 3],
        };
        self.validate(parallel, &mut scratch)?;
        let mut stats = ResolveStats {
            moves: self.moves.len(),
            ..ResolveStats::default()
        };
        self.order(&mut scratch, &mut stats);
        let start = out.len();
        if let Err(e) = Self::expand_stack_moves(&self.reversed, &mut scratch, &mut stats, out) {
            out.truncate(start);
            return Err(e);
        }
        stats.emitted = out.len() - start;
        Ok(stats)
    }

    /// Step 1: checks the input, fills `moves`, `dsts` and the mentioned-register set.
    fn validate<F: FnMut(RegClass) -> SpillSlot>(
        &mut self,
        parallel: &[Move],
        scratch: &mut Scratch<'_, '_, F>,
    ) -> Result<(), MoveError> {
        for class in RegClass::ALL {
            let env = scratch.env;
            for reg in [env.scratch[class.index()], env.borrow[class.index()]]
                .into_iter()
                .flatten()
            {
                if reg.class() != class {
                    return Err(MoveError::EnvClassMismatch { class, reg });
                }
            }
        }
        self.moves.clear();
        self.dsts.clear();
        for (index, &mv) in parallel.iter().enumerate() {
            for loc in [mv.src, mv.dst] {
                match loc {
                    Allocation::None => return Err(MoveError::NoneLocation { index, mv }),
                    Allocation::Reg(reg) => {
                        if reg.class() != mv.class {
                            return Err(MoveError::ClassMismatch { index, mv, reg });
                        }
                        if scratch.env.scratch[mv.class.index()] == Some(reg) {
                            return Err(MoveError::ScratchMentioned { index, mv, reg });
                        }
                        let i = reg.dense_index();
                        scratch.mentioned[i / 64] |= 1 << (i % 64);
                    }
                    Allocation::Stack(_) => {}
                }
            }
            let kept = if mv.src == mv.dst {
                NO_MOVE
            } else {
                self.moves.push(mv);
                (self.moves.len() - 1) as u32
            };
            self.dsts.push((location_key(mv.dst), index as u32, kept));
        }
        self.dsts.sort_unstable();
        if let Some(w) = self.dsts.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(MoveError::DuplicateDestination {
                first: w[0].1 as usize,
                second: w[1].1 as usize,
                dst: parallel[w[0].1 as usize].dst,
            });
        }
        Ok(())
    }

    /// The kept move writing `loc`, or `NO_MOVE`.
    fn writer(&self, loc: Allocation) -> u32 {
        match self
            .dsts
            .binary_search_by_key(&location_key(loc), |&(key, _, _)| key)
        {
            Ok(i) => self.dsts[i].2,
            Err(_) => NO_MOVE,
        }
    }

    /// Steps 2 and 3: fills `reversed` with a valid sequence, in reverse order.
    fn order<F: FnMut(RegClass) -> SpillSlot>(
        &mut self,
        scratch: &mut Scratch<'_, '_, F>,
        stats: &mut ResolveStats,
    ) {
        self.reversed.clear();
        self.before.clear();
        for i in 0..self.moves.len() {
            let w = self.writer(self.moves[i].src);
            self.before.push(w);
        }
        if self.before.iter().all(|&b| b == NO_MOVE) {
            self.reversed.extend(self.moves.iter().rev());
            return;
        }
        let n = self.moves.len();
        self.state.clear();
        self.state.resize(n, UNVISITED);
        self.stack.clear();
        for start in 0..n {
            if self.state[start] != UNVISITED {
                continue;
            }
            self.stack.push(start as u32);
            self.state[start] = ON_STACK;
            while let Some(&top) = self.stack.last() {
                let next = self.before[top as usize];
                if next == NO_MOVE || self.state[next as usize] == DONE {
                    // Emit the whole stack in popped order.
                    while let Some(m) = self.stack.pop() {
                        self.reversed.push(self.moves[m as usize]);
                        self.state[m as usize] = DONE;
                    }
                } else if self.state[next as usize] == UNVISITED {
                    self.stack.push(next);
                    self.state[next as usize] = ON_STACK;
                } else {
                    // A cycle from `next` (on the stack) to the top.
                    stats.cycles += 1;
                    let first = self.moves[next as usize];
                    let via = scratch.cycle_location(first.class);
                    self.reversed.push(Move {
                        src: via,
                        dst: first.dst,
                        class: first.class,
                    });
                    while let Some(m) = self.stack.pop() {
                        self.state[m as usize] = DONE;
                        if m == next {
                            self.reversed.push(Move {
                                src: first.src,
                                dst: via,
                                class: first.class,
                            });
                            break;
                        }
                        self.reversed.push(self.moves[m as usize]);
                    }
                    // The rest of the stack leads to `next`, now emitted: the next
                    // iteration emits it.
                }
            }
        }
    }

    /// Step 4: appends `reversed` forwards to `out`, rewriting stack-to-stack moves.
    fn expand_stack_moves<F: FnMut(RegClass) -> SpillSlot>(
        reversed: &[Move],
        scratch: &mut Scratch<'_, '_, F>,
        stats: &mut ResolveStats,
        out: &mut Vec<Move>,
    ) -> Result<(), MoveError> {
        // Per class: whether the cycle scratch register holds a value still to be read.
        let mut busy = [false; 3];
        for &mv in reversed.iter().rev() {
            let c = mv.class;
            if !(mv.src.is_stack() && mv.dst.is_stack()) {
                if let Some(Allocation::Reg(r)) = scratch.cycle[c.index()] {
                    if mv.dst == Allocation::Reg(r) {
                        busy[c.index()] = true;
                    } else if mv.src == Allocation::Reg(r) {
                        busy[c.index()] = false;
                    }
                }
                out.push(mv);
                continue;
            }
            stats.stack_to_stack += 1;
            let (reg, save) = match scratch.register(c) {
                Some(r) => {
                    let holds_cycle = scratch.cycle[c.index()] == Some(Allocation::Reg(r));
                    (r, holds_cycle && busy[c.index()])
                }
                None => match scratch.env.borrow[c.index()] {
                    Some(r) => (r, true),
                    None => return Err(MoveError::NoRegister { class: c }),
                },
            };
            let reg = Allocation::Reg(reg);
            let extra = if save {
                stats.saved += 1;
                let slot = Allocation::Stack(scratch.extra_slot(c));
                out.push(Move {
                    src: reg,
                    dst: slot,
                    class: c,
                });
                Some(slot)
            } else {
                None
            };
            out.push(Move {
                src: mv.src,
                dst: reg,
                class: c,
            });
            out.push(Move {
                src: reg,
                dst: mv.dst,
                class: c,
            });
            if let Some(slot) = extra {
                out.push(Move {
                    src: slot,
                    dst: reg,
                    class: c,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(i: u8) -> Allocation {
        Allocation::Reg(PReg::new(RegClass::Int, i).unwrap())
    }
    fn s(i: u32) -> Allocation {
        Allocation::Stack(SpillSlot(i))
    }
    fn mv(src: Allocation, dst: Allocation) -> Move {
        Move {
            src,
            dst,
            class: RegClass::Int,
        }
    }

    /// Runs `moves` with `env`, slots from 100 on; returns the sequence.
    fn run(moves: &[Move], env: &ScratchEnv<'_>) -> Result<(Vec<Move>, ResolveStats), MoveError> {
        let mut next = 100;
        let mut out = Vec::new();
        let stats = MoveResolver::new().resolve(
            moves,
            env,
            |_| {
                next += 1;
                SpillSlot(next - 1)
            },
            &mut out,
        )?;
        Ok((out, stats))
    }

    fn scratch_env() -> ScratchEnv<'static> {
        ScratchEnv {
            scratch: [PReg::new(RegClass::Int, 15), None, None],
            ..Default::default()
        }
    }

    #[test]
    fn no_overlap_is_emitted_as_given() {
        let moves = [mv(r(0), r(1)), mv(s(0), r(2)), mv(r(3), r(3))];
        let (out, stats) = run(&moves, &scratch_env()).unwrap();
        assert_eq!(out, [mv(r(0), r(1)), mv(s(0), r(2))]);
        assert_eq!((stats.moves, stats.cycles), (2, 0));
    }

    #[test]
    fn chain_is_ordered_and_swap_uses_scratch() {
        let (out, _) = run(&[mv(r(1), r(2)), mv(r(0), r(1))], &scratch_env()).unwrap();
        assert_eq!(out, [mv(r(1), r(2)), mv(r(0), r(1))]);
        let (out, stats) = run(&[mv(r(0), r(1)), mv(r(1), r(0))], &scratch_env()).unwrap();
        assert_eq!(stats.cycles, 1);
        assert_eq!(out, [mv(r(0), r(15)), mv(r(1), r(0)), mv(r(15), r(1))]);
    }

    #[test]
    fn stack_swap_without_registers_borrows_one() {
        let env = ScratchEnv {
            borrow: [PReg::new(RegClass::Int, 4), None, None],
            ..Default::default()
        };
        let (out, stats) = run(&[mv(s(0), s(1)), mv(s(1), s(0))], &env).unwrap();
        assert!(out.iter().all(|m| !(m.src.is_stack() && m.dst.is_stack())));
        assert_eq!((stats.cycles, stats.stack_to_stack), (1, 3));
        // Cycle scratch slot100, extra slot101 saving the borrowed r4.
        assert_eq!(out[0], mv(r(4), s(101)));
        assert_eq!(stats.saved, 3);
        let none = ScratchEnv::default();
        assert_eq!(
            run(&[mv(s(0), s(1))], &none).unwrap_err(),
            MoveError::NoRegister {
                class: RegClass::Int
            }
        );
    }

    #[test]
    fn busy_scratch_is_saved_around_a_stack_move() {
        // r0 -> s0 -> s1 -> r0: the cycle holds r15 while s0 -> s1 needs it.
        let moves = [mv(r(0), s(0)), mv(s(0), s(1)), mv(s(1), r(0))];
        let (out, stats) = run(&moves, &scratch_env()).unwrap();
        assert_eq!((stats.cycles, stats.stack_to_stack, stats.saved), (1, 1, 1));
        assert_eq!(
            out,
            [
                mv(r(0), r(15)),
                mv(s(1), r(0)),
                mv(r(15), s(100)),
                mv(s(0), r(15)),
                mv(r(15), s(1)),
                mv(s(100), r(15)),
                mv(r(15), s(0)),
            ]
        );
    }

    #[test]
    fn free_registers_mentioned_by_moves_are_skipped() {
        let free = [
            PReg::new(RegClass::Int, 1).unwrap(),
            PReg::new(RegClass::Int, 7).unwrap(),
        ];
        let env = ScratchEnv {
            free: &free,
            ..Default::default()
        };
        let (out, _) = run(&[mv(r(0), r(1)), mv(r(1), r(0))], &env).unwrap();
        assert_eq!(out, [mv(r(0), r(7)), mv(r(1), r(0)), mv(r(7), r(1))]);
        // No register at all: the cycle goes through a fresh slot.
        let (out, _) = run(&[mv(r(0), r(1)), mv(r(1), r(0))], &ScratchEnv::default()).unwrap();
        assert_eq!(out, [mv(r(0), s(100)), mv(r(1), r(0)), mv(s(100), r(1))]);
    }

    #[test]
    fn bad_input_is_an_error_naming_the_move() {
        let env = scratch_env();
        let e = run(&[mv(r(0), r(1)), mv(r(2), r(1))], &env).unwrap_err();
        assert_eq!(
            e,
            MoveError::DuplicateDestination {
                first: 0,
                second: 1,
                dst: r(1)
            }
        );
        assert!(e.to_string().contains("moves 0 and 1 both write r1"));
        assert!(matches!(
            run(&[mv(Allocation::None, r(1))], &env),
            Err(MoveError::NoneLocation { index: 0, .. })
        ));
        assert!(matches!(
            run(&[mv(r(0), r(1)), mv(r(15), r(2))], &env),
            Err(MoveError::ScratchMentioned { index: 1, .. })
        ));
        let f = Allocation::Reg(PReg::new(RegClass::Float, 0).unwrap());
        assert!(matches!(
            run(&[mv(f, r(1))], &env),
            Err(MoveError::ClassMismatch { index: 0, .. })
        ));
        let wrong = ScratchEnv {
            scratch: [PReg::new(RegClass::Float, 1), None, None],
            ..Default::default()
        };
        assert!(matches!(
            run(&[], &wrong),
            Err(MoveError::EnvClassMismatch { .. })
        ));
    }
}
