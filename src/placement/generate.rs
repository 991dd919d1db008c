//! Generated placement problems for property tests, fuzzing and benchmarks.
//!
//! What: [`problem`] builds a random problem of a given [`Shape`] from a seed: a CFG whose
//! blocks are laid out in order with forward edges (chains, diamonds, switches with
//! parallel edges) and back edges (natural loops, nested loops, irreducible loops entered in
//! the middle, loops through the entry), and costs shaped like the target model's: target 0
//! is an interpreter-like target that is slow but supports most blocks, the others are
//! faster and support fewer blocks; some targets are outgoing-only (no transition into
//! them) or banned on some edges; transitions cost a fixed overhead plus a per-unit cost
//! times the edge's live-out size, same-target transitions are free.
//!
//! Invariants: deterministic in (seed, options); block 0 is the entry; every block is
//! reachable (each block `i > 0` has an edge from some earlier block).
//!
//! Complexity: O(blocks · K² ) per problem.

use super::problem::{Cost, Problem, FORBIDDEN};

/// The CFG family of a generated problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A straight line of blocks.
    Chain,
    /// Nested if/else diamonds.
    Diamond,
    /// Natural loops, possibly nested.
    Loop,
    /// Loops with several entries.
    Irreducible,
    /// Multi-way branches with parallel edges.
    Switch,
    /// The entry block inside a loop.
    EntryScc,
    /// Any of the above mixed, with tighter transition rules (often infeasible).
    Tight,
}

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 7] = [
        Shape::Chain,
        Shape::Diamond,
        Shape::Loop,
        Shape::Irreducible,
        Shape::Switch,
        Shape::EntryScc,
        Shape::Tight,
    ];
}

/// A small deterministic generator (xorshift64*), enough for test data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// True with probability `percent / 100`.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Builds a problem of `blocks` blocks over `targets` targets (see the module doc).
pub fn problem(seed: u64, shape: Shape, blocks: usize, targets: usize) -> Problem {
    let mut rng = Rng::new(seed ^ (blocks as u64) << 32 ^ (targets as u64) << 48);
    let n = blocks.max(1);
    let k = targets.clamp(1, 64);
    let shape = if shape == Shape::Tight {
        Shape::ALL[rng.below(6) as usize]
    } else {
        shape
    };
    let tight = shape != Shape::Tight && seed.is_multiple_of(7) || shape == Shape::Tight;
    // Edges.
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for i in 1..n {
        let from = match shape {
            Shape::Chain => i - 1,
            _ => i - 1 - rng.below(i.min(3) as u64) as usize,
        };
        edges.push((from as u32, i as u32));
    }
    let extra = match shape {
        Shape::Chain => 0,
        Shape::Diamond => n / 3,
        Shape::Switch => n / 2,
        _ => n / 4,
    };
    for _ in 0..extra {
        let a = rng.below(n as u64) as usize;
        let b = match shape {
            Shape::Diamond => (a + 1 + rng.below(3) as usize).min(n - 1),
            Shape::Switch => {
                // Parallel edges: repeat an existing successor or add a near one.
                if rng.chance(50) {
                    if let Some(&(_, t)) = edges.iter().find(|e| e.0 as usize == a) {
                        t as usize
                    } else {
                        (a + 1).min(n - 1)
                    }
                } else {
                    (a + 1 + rng.below(4) as usize).min(n - 1)
                }
            }
            Shape::Loop => a.saturating_sub(rng.below(4) as usize),
            Shape::Irreducible => {
                if rng.chance(50) {
                    a.saturating_sub(1 + rng.below(6) as usize)
                } else {
                    (a + 2 + rng.below(3) as usize).min(n - 1)
                }
            }
            Shape::EntryScc => {
                if rng.chance(40) {
                    0
                } else {
                    a.saturating_sub(rng.below(3) as usize)
                }
            }
            Shape::Chain | Shape::Tight => a,
        };
        if b != a || shape == Shape::Loop {
            edges.push((a as u32, b as u32));
        }
    }
    if shape == Shape::EntryScc && n > 1 {
        edges.push(((n - 1) as u32, 0));
    }
    // Targets: overhead per target pair and outgoing-only targets.
    let names: Vec<String> = (0..k).map(|t| format!("t{t}")).collect();
    let mut p = Problem::new(names);
    let outgoing_only: Vec<bool> = (0..k).map(|t| t > 0 && rng.chance(25)).collect();
    let overhead: Vec<Cost> = (0..k * k).map(|_| 2 + rng.below(20)).collect();
    let per_unit: Vec<Cost> = (0..k * k).map(|_| 1 + rng.below(4)).collect();
    for b in 0..n {
        let mut costs = vec![FORBIDDEN; k];
        let work = 1 + rng.below(12);
        for (t, c) in costs.iter_mut().enumerate() {
            let support = if t == 0 {
                if tight {
                    88
                } else {
                    97
                }
            } else if tight {
                35
            } else {
                55
            };
            if rng.chance(support) {
                let speed = if t == 0 { 4 } else { 1 + rng.below(3) };
                *c = work * speed + rng.below(4);
            }
        }
        p.add_block(format!("b{b}"), &costs);
    }
    for (a, b) in edges {
        let size = rng.below(9);
        let mut m = vec![FORBIDDEN; k * k];
        for s in 0..k {
            for d in 0..k {
                let allowed =
                    s == d || !(outgoing_only[d] || (tight && rng.chance(20)) || rng.chance(4));
                if allowed {
                    m[s * k + d] = if s == d {
                        0
                    } else {
                        overhead[s * k + d] + per_unit[s * k + d] * size
                    };
                }
            }
        }
        p.add_edge(a, b, &m);
    }
    p
}
