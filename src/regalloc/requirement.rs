//! The requirements lattice of a bundle (Ion design, "Properties: Weight, Priority, and
//! Requirements").
//!
//! What: a bundle's requirement is the meet of the requirements of all its uses. The lattice,
//! exactly as the seed draws it (parameterized nodes with different parameters are unordered):
//!
//! ```text
//!         ___Unknown_____
//!         |      |      |
//!         |      |      |
//!         | ____Any(rc) |
//!         |/     |      |
//!    Stack(rc)  FixedReg(reg)
//!          \    /
//!         Conflict
//! ```
//!
//! `Unknown` is top (the identity of [`Requirement::meet`]), `Conflict` is bottom (absorbing).
//! `Any(rc)` (any location of class `rc`, register or slot) lies above both `Stack(rc)` and
//! `FixedReg(reg)` for every `reg` of class `rc`; every other pair of different values meets
//! at `Conflict`. The seed's prose ("any register can degrade to a particular register, any
//! other pair of different requirements meets to Conflict") omits the `Any -> Stack` edge
//! that its diagram draws; the diagram is followed here.
//!
//! [`RequirementMerge`] folds requirements of uses one at a time and records the program
//! point of the first use that made the meet `Conflict`, so a failed bundle merge or a
//! split decision can name where the conflict starts.
//!
//! Invariants: `meet` is commutative, associative and idempotent (the lattice has a greatest
//! lower bound for every pair); the unit tests check every pair and triple against a
//! brute-force greatest lower bound over the diagram's order.
//!
//! Complexity: O(1) per meet.

use super::location::{PReg, RegClass};

/// What a bundle's uses demand of the location it gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Requirement {
    /// Nothing is known yet (top).
    Unknown,
    /// Any location of the class: a register or a spill slot.
    Any(RegClass),
    /// A spill slot holding a value of the class.
    Stack(RegClass),
    /// Exactly this register.
    FixedReg(PReg),
    /// No single location satisfies every use (bottom).
    Conflict,
}

impl Requirement {
    /// The greatest lower bound of `self` and `other` in the lattice.
    pub fn meet(self, other: Requirement) -> Requirement {
        use Requirement::*;
        match (self, other) {
            (Unknown, x) | (x, Unknown) => x,
            (Conflict, _) | (_, Conflict) => Conflict,
            (a, b) if a == b => a,
            (Any(c), Stack(d)) | (Stack(d), Any(c)) if c == d => Stack(d),
            (Any(c), FixedReg(r)) | (FixedReg(r), Any(c)) if r.class() == c => FixedReg(r),
            _ => Conflict,
        }
    }

    /// Whether this is the bottom, `Conflict`.
    pub fn is_conflict(self) -> bool {
        self == Requirement::Conflict
    }

    /// The register class the requirement implies, if any (`None` for `Unknown` and
    /// `Conflict`).
    pub fn class(self) -> Option<RegClass> {
        match self {
            Requirement::Any(c) | Requirement::Stack(c) => Some(c),
            Requirement::FixedReg(r) => Some(r.class()),
            Requirement::Unknown | Requirement::Conflict => None,
        }
    }
}

/// The first point where folding requirements reached `Conflict`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConflictPoint<P> {
    /// The program point (of the use) whose requirement made the meet `Conflict`.
    pub at: P,
    /// The accumulated requirement just before that use.
    pub before: Requirement,
    /// The requirement of that use.
    pub with: Requirement,
}

/// Folds requirements with [`Requirement::meet`], recording the first conflict point.
///
/// `P` is the program-point type of the caller (a packed `u32` in live-range construction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequirementMerge<P> {
    current: Requirement,
    first_conflict: Option<ConflictPoint<P>>,
}

impl<P: Copy> Default for RequirementMerge<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Copy> RequirementMerge<P> {
    /// An empty fold: `Unknown`, no conflict.
    pub const fn new() -> Self {
        RequirementMerge {
            current: Requirement::Unknown,
            first_conflict: None,
        }
    }

    /// Meets the fold with the requirement `req` of a use at `at`; returns the new value.
    /// The first time the value becomes `Conflict`, `at` is recorded.
    pub fn add(&mut self, req: Requirement, at: P) -> Requirement {
        let next = self.current.meet(req);
        if next.is_conflict() && self.first_conflict.is_none() {
            self.first_conflict = Some(ConflictPoint {
                at,
                before: self.current,
                with: req,
            });
        }
        self.current = next;
        next
    }

    /// The accumulated requirement.
    pub fn requirement(&self) -> Requirement {
        self.current
    }

    /// The first conflict, if the fold has reached `Conflict`.
    pub fn first_conflict(&self) -> Option<ConflictPoint<P>> {
        self.first_conflict
    }
}

#[cfg(test)]
mod tests {
    use super::Requirement::*;
    use super::*;

    fn reg(class: RegClass, i: u8) -> PReg {
        PReg::new(class, i).unwrap()
    }

    /// Every lattice value over all three classes and two registers of each class.
    fn elements() -> Vec<Requirement> {
        let mut v = vec![Unknown, Conflict];
        for c in RegClass::ALL {
            v.extend([Any(c), Stack(c), FixedReg(reg(c, 0)), FixedReg(reg(c, 5))]);
        }
        v
    }

    /// The order `a <= b` read off the diagram, written independently of `meet`.
    fn leq(a: Requirement, b: Requirement) -> bool {
        a == b
            || b == Unknown
            || a == Conflict
            || match (a, b) {
                (Stack(c), Any(d)) => c == d,
                (FixedReg(r), Any(d)) => r.class() == d,
                _ => false,
            }
    }

    #[test]
    fn meet_is_the_greatest_lower_bound_of_every_pair() {
        let all = elements();
        for &a in &all {
            for &b in &all {
                let m = a.meet(b);
                assert!(leq(m, a) && leq(m, b), "{a:?} meet {b:?} = {m:?} not below");
                for &l in &all {
                    if leq(l, a) && leq(l, b) {
                        assert!(leq(l, m), "{l:?} below {a:?}, {b:?} but not {m:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn meet_laws() {
        let all = elements();
        for &a in &all {
            assert_eq!(Unknown.meet(a), a, "Unknown identity on {a:?}");
            assert_eq!(a.meet(Unknown), a);
            assert_eq!(Conflict.meet(a), Conflict, "Conflict absorbs {a:?}");
            assert_eq!(a.meet(Conflict), Conflict);
            assert_eq!(a.meet(a), a, "idempotent on {a:?}");
            for &b in &all {
                assert_eq!(a.meet(b), b.meet(a), "commutative on {a:?}, {b:?}");
                for &c in &all {
                    assert_eq!(
                        a.meet(b).meet(c),
                        a.meet(b.meet(c)),
                        "associative on {a:?}, {b:?}, {c:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn explicit_table() {
        let (i, f) = (RegClass::Int, RegClass::Float);
        let r0 = FixedReg(reg(i, 0));
        let cases = [
            (Any(i), Stack(i), Stack(i)),
            (Any(i), r0, r0),
            (Any(f), r0, Conflict),
            (Any(i), Any(f), Conflict),
            (Stack(i), Stack(f), Conflict),
            (Stack(i), r0, Conflict),
            (r0, FixedReg(reg(i, 5)), Conflict),
            (r0, FixedReg(reg(f, 0)), Conflict),
            (Unknown, Stack(f), Stack(f)),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.meet(b), want, "{a:?} meet {b:?}");
        }
        assert_eq!(Any(f).class(), Some(f));
        assert_eq!(r0.class(), Some(i));
        assert_eq!(Conflict.class(), None);
    }

    #[test]
    fn merge_records_the_first_conflict() {
        let i = RegClass::Int;
        let r3 = FixedReg(reg(i, 3));
        let mut m = RequirementMerge::<u32>::new();
        assert_eq!(m.requirement(), Unknown);
        assert_eq!(m.add(Any(i), 2), Any(i));
        assert_eq!(m.add(r3, 4), r3);
        assert_eq!(m.first_conflict(), None);
        assert_eq!(m.add(Stack(i), 6), Conflict);
        assert_eq!(m.add(Any(RegClass::Float), 8), Conflict);
        assert_eq!(
            m.first_conflict(),
            Some(ConflictPoint {
                at: 6,
                before: r3,
                with: Stack(i)
            })
        );
        assert!(m.requirement().is_conflict());
    }
}
