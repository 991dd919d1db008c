//! Criterion benchmarks of the register allocator's pieces (issue 13).
//!
//! `moves`: the parallel-move resolver on three deterministic shapes, throughput per
//! parallel move: `disjoint` (no move reads another's destination: the common case the
//! seed says needs no ordering), `permutation` (registers permuted in cycles of 2 to 5,
//! through the dedicated scratch register) and `stack` (cycles and chains over spill slots
//! with no scratch register: cycle scratch slot, borrowed register, extra slot).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use strata::regalloc::{Allocation, Move, MoveResolver, PReg, RegClass, ScratchEnv, SpillSlot};

fn reg(i: u8) -> Allocation {
    Allocation::Reg(PReg::new(RegClass::Int, i).unwrap())
}

/// Moves over `n` locations (`n` at most 30 for registers) in cycles of 2 to 5.
fn cycles(n: usize, loc: impl Fn(usize) -> Allocation) -> Vec<Move> {
    let mut moves = Vec::new();
    let (mut start, mut k) = (0, 2);
    while start < n {
        let len = k.min(n - start);
        for i in 0..len {
            moves.push(Move {
                src: loc(start + i),
                dst: loc(start + (i + 1) % len),
                class: RegClass::Int,
            });
        }
        start += len;
        k = if k == 5 { 2 } else { k + 1 };
    }
    moves
}

fn bench_moves(c: &mut Criterion) {
    let mut g = c.benchmark_group("moves");
    let disjoint: Vec<Move> = (0..15)
        .map(|i| Move {
            src: reg(i),
            dst: reg(i + 15),
            class: RegClass::Int,
        })
        .collect();
    let permutation = cycles(30, |i| reg(i as u8));
    let stack = cycles(64, |i| Allocation::Stack(SpillSlot(i as u32)));
    let scratch_env = ScratchEnv {
        scratch: [PReg::new(RegClass::Int, 31), None, None],
        ..Default::default()
    };
    let borrow_env = ScratchEnv {
        borrow: [PReg::new(RegClass::Int, 0), None, None],
        ..Default::default()
    };
    let cases = [
        ("disjoint", &disjoint, &scratch_env),
        ("permutation", &permutation, &scratch_env),
        ("stack", &stack, &borrow_env),
    ];
    let mut resolver = MoveResolver::new();
    let mut out = Vec::new();
    for (name, moves, env) in cases {
        g.throughput(Throughput::Elements(moves.len() as u64));
        g.bench_with_input(BenchmarkId::new(name, moves.len()), moves, |b, moves| {
            b.iter(|| {
                out.clear();
                let mut next = 1000;
                let fresh = |_| {
                    next += 1;
                    SpillSlot(next)
                };
                let stats = resolver
                    .resolve(black_box(moves), env, fresh, &mut out)
                    .unwrap();
                black_box((stats, out.len()))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_moves);
criterion_main!(benches);
