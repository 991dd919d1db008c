//! Liveness of virtual registers: exact live-in and live-out sets per block.
//!
//! What: [`compute`] solves the backward dataflow problem over a [`MachineRead`] function
//! (Ion design, "Livein/Liveout Bitsets"): per block, `gen` is the vregs read before any
//! write in the block (operand uses, and the terminator's branch arguments), `kill` the
//! vregs written in it (operand defs and the block's parameters);
//! `liveout(b) = U livein(s) for s in succs(b)` and
//! `livein(b) = gen(b) U (liveout(b) - kill(b))`. Blocks are visited in postorder from the
//! entry (successors before predecessors, so acyclic code converges in one pass) with a
//! worklist of blocks whose live-out grew. The result is exact (the least fixpoint), not an
//! over-approximation. Operands naming no value ([`crate::registers::VReg::NO_VALUE`]) are skipped.
//!
//! Two set representations implement [`LiveSet`]: [`DenseSet`], one bit per vreg; and
//! [`ChunkedSet`], the seed's chunked sparse bitset (a hash map from a 64-vreg chunk index to
//! its `u64` of bits). The live-in update is one pass, `livein |= liveout - kill`
//! ([`LiveSet::union_minus`]).
//!
//! Choice by size ([`compute_lists`], what live-range construction uses): dense below
//! [`CHUNKED_FROM_INSTS`] = 5,000 instructions, chunked from there on. A dense set per block
//! costs O(blocks x vregs) space and time whatever is live (quadratic: 5.0 s for the
//! 50,000-flow fan-in), the chunked one O(live chunks). Measured with
//! `cargo bench --bench regalloc -- liveness_cutoff` on generated functions
//! (`fuzzing::machine_gen::sized`, release build, 2 shared cores; the 10,000 column from
//! the `phases` bench), dense / chunked:
//!
//! | instructions | 300 | 1,000 | 2,000 | 3,000 | 4,000 | 6,000 | 10,000 |
//! |---|---|---|---|---|---|---|---|
//! | dense | 45.7 µs | 119 µs | 215 µs | 509 µs | 748 µs | 1.83 ms | 2.36 ms |
//! | chunked | 78.9 µs | 184 µs | 315 µs | 726 µs | 883 µs | 1.78 ms | 1.43 ms |
//!
//! Dense is 1.2x to 1.7x faster up to 4,000 instructions; they meet near 6,000, and chunked
//! wins above (1.6x at 10,000; there dense also varies with the allocator's state, up to
//! 18 ms in one run, since its 4 x blocks x vregs / 64 words are allocated and faulted in
//! per call).
//! The result is handed on as sorted per-block lists ([`LiveLists`]), whichever set computed
//! it.
//!
//! Invariants: `livein`/`liveout` are indexed by block; a vreg in `livein(entry)` is read
//! before any write on some path (a malformed function; regalloc2 refuses it as
//! `EntryLivein`).
//!
//! Complexity: O(iterations x blocks x set size) set operations (set size: vregs / 64 words
//! for dense, live chunks for chunked); for reducible CFGs visited in postorder the iteration
//! count is bounded by loop nesting depth + 2.

use crate::machine::{MBlock, MachineRead, OperandKind};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A set of vreg indices.
pub trait LiveSet: Clone + Default {
    /// An empty set able to hold indices below `n` (a hint for dense sets).
    fn with_capacity(n: usize) -> Self;
    /// Adds `i`.
    fn insert(&mut self, i: usize);
    /// Removes `i`.
    fn remove(&mut self, i: usize);
    /// Whether `i` is in the set.
    fn contains(&self, i: usize) -> bool;
    /// Adds every element of `other`; returns whether `self` grew.
    fn union_with(&mut self, other: &Self) -> bool;
    /// Empties the set (keeping capacity).
    fn clear(&mut self);
    /// Empties the set and readies it for indices below `n`, keeping its storage (no
    /// allocation when it held as many before).
    fn reset(&mut self, n: usize);
    /// The elements in increasing order.
    fn to_vec(&self) -> Vec<usize>;
    /// Appends the elements, in increasing order, to `out`.
    fn append_to(&self, out: &mut Vec<u32>);
    /// `self |= out - kill`; returns whether `self` grew (the live-in update).
    fn union_minus(&mut self, out: &Self, kill: &Self) -> bool;
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether the set is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A dense bitset: one bit per vreg.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DenseSet {
    words: Vec<u64>,
}

/// ORs `src` into `dst` word by word (over their common length); returns the bits that
/// were new to `dst` (0: `dst` did not change).
fn or_words(dst: &mut [u64], src: &[u64]) -> u64 {
    let mut changed = 0;
    for (a, &b) in dst.iter_mut().zip(src) {
        changed |= b & !*a;
        *a |= b;
    }
    changed
}

impl LiveSet for DenseSet {
    fn with_capacity(n: usize) -> Self {
        DenseSet {
            words: vec![0; n.div_ceil(64)],
        }
    }
    #[inline]
    fn insert(&mut self, i: usize) {
        let w = i / 64;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (i % 64);
    }
    #[inline]
    fn remove(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }
    #[inline]
    fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    fn union_with(&mut self, other: &Self) -> bool {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        or_words(&mut self.words, &other.words) != 0
    }
    fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
    fn reset(&mut self, n: usize) {
        self.words.clear();
        self.words.resize(n.div_ceil(64), 0);
    }
    fn to_vec(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for (k, &w) in self.words.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                out.push(k * 64 + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
        out
    }
    fn append_to(&self, out: &mut Vec<u32>) {
        for (k, &w) in self.words.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                out.push((k * 64) as u32 + w.trailing_zeros());
                w &= w - 1;
            }
        }
    }
    fn union_minus(&mut self, out: &Self, kill: &Self) -> bool {
        if out.words.len() > self.words.len() {
            self.words.resize(out.words.len(), 0);
        }
        // Where `kill` has words, three slices zipped (no bounds check per word, so the
        // loop vectorizes); past its end, `out` alone.
        let n = out.words.len().min(kill.words.len());
        let (out_head, out_tail) = out.words.split_at(n);
        let (head, tail) = self.words.split_at_mut(n);
        let mut changed = 0;
        for ((a, &o), &k) in head.iter_mut().zip(out_head).zip(&kill.words[..n]) {
            let b = o & !k;
            changed |= b & !*a;
            *a |= b;
        }
        changed |= or_words(tail, out_tail);
        changed != 0
    }
    fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// A multiplicative hasher for chunk indices (a `u32` key; SipHash would dominate).
#[derive(Default, Clone, Copy)]
pub struct ChunkHasher(u64);

impl Hasher for ChunkHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The seed's chunked sparse bitset: chunk index (vreg / 64) to the chunk's 64 bits.
/// Chunks that become zero are kept (their bits are cleared, not the key).
#[derive(Clone, Debug, Default)]
pub struct ChunkedSet {
    chunks: HashMap<u32, u64, BuildHasherDefault<ChunkHasher>>,
}

impl LiveSet for ChunkedSet {
    fn with_capacity(_: usize) -> Self {
        ChunkedSet::default()
    }
    fn insert(&mut self, i: usize) {
        *self.chunks.entry((i / 64) as u32).or_insert(0) |= 1 << (i % 64);
    }
    fn remove(&mut self, i: usize) {
        if let Some(w) = self.chunks.get_mut(&((i / 64) as u32)) {
            *w &= !(1 << (i % 64));
        }
    }
    fn contains(&self, i: usize) -> bool {
        self.chunks
            .get(&((i / 64) as u32))
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    fn union_with(&mut self, other: &Self) -> bool {
        let mut changed = 0;
        for (&k, &b) in &other.chunks {
            if b == 0 {
                continue;
            }
            let a = self.chunks.entry(k).or_insert(0);
            changed |= b & !*a;
            *a |= b;
        }
        changed != 0
    }
    fn clear(&mut self) {
        self.chunks.clear();
    }
    fn reset(&mut self, _: usize) {
        self.chunks.clear();
    }
    fn to_vec(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.append_to(&mut out);
        out.into_iter().map(|v| v as usize).collect()
    }
    fn append_to(&self, out: &mut Vec<u32>) {
        let mut keys: SmallVec<[(u32, u64); 8]> = self
            .chunks
            .iter()
            .filter(|(_, &w)| w != 0)
            .map(|(&k, &w)| (k, w))
            .collect();
        keys.sort_unstable_by_key(|&(k, _)| k);
        for (k, mut w) in keys {
            while w != 0 {
                out.push(k * 64 + w.trailing_zeros());
                w &= w - 1;
            }
        }
    }
    fn union_minus(&mut self, out: &Self, kill: &Self) -> bool {
        let mut changed = 0;
        for (&k, &o) in &out.chunks {
            let b = o & !kill.chunks.get(&k).copied().unwrap_or(0);
            if b == 0 {
                continue;
            }
            let a = self.chunks.entry(k).or_insert(0);
            changed |= b & !*a;
            *a |= b;
        }
        changed != 0
    }
    fn len(&self) -> usize {
        self.chunks.values().map(|w| w.count_ones() as usize).sum()
    }
}

/// Live-in and live-out sets per block.
#[derive(Clone, Debug, Default)]
pub struct Liveness<S = DenseSet> {
    /// `livein[b]`: vregs live on entry to block `b`.
    pub livein: Vec<S>,
    /// `liveout[b]`: vregs live on exit from block `b`.
    pub liveout: Vec<S>,
    /// Blocks processed until the fixpoint (a work measure).
    pub visits: usize,
}

/// Blocks in postorder of a depth-first walk from the entry, then unreachable blocks.
pub fn postorder<F: MachineRead + ?Sized>(f: &F) -> Vec<MBlock> {
    let n = f.num_blocks();
    let roots = std::iter::once(f.entry_block()).chain(f.blocks());
    crate::analysis::order::postorder(n, roots, |b| f.block_succs(b))
}

/// Working storage of the liveness fixpoint with set type `S`, reused between functions:
/// the per-block vectors are never shortened (a block's sets keep their storage), and only
/// the first `blocks` entries belong to the current function.
#[derive(Clone, Debug, Default)]
pub struct LiveScratch<S = DenseSet> {
    livein: Vec<S>,
    liveout: Vec<S>,
    kill: Vec<S>,
    queued: Vec<bool>,
    work: Vec<MBlock>,
    order: Vec<MBlock>,
    postorder: crate::analysis::order::PostorderScratch<MBlock>,
    blocks: usize,
    visits: usize,
}

/// Readies the first `nb` sets of `sets` for indices below `nv`, adding sets as needed.
fn reset_sets<S: LiveSet>(sets: &mut Vec<S>, nb: usize, nv: usize) {
    if sets.len() < nb {
        sets.resize_with(nb, S::default);
    }
    for s in &mut sets[..nb] {
        s.reset(nv);
    }
}

/// Computes exact liveness with set type `S` (see the module doc).
pub fn compute<S: LiveSet, F: MachineRead + ?Sized>(f: &F) -> Liveness<S> {
    let mut scratch = LiveScratch::<S>::default();
    compute_into(f, &mut scratch);
    let nb = scratch.blocks;
    scratch.livein.truncate(nb);
    scratch.liveout.truncate(nb);
    Liveness {
        livein: scratch.livein,
        liveout: scratch.liveout,
        visits: scratch.visits,
    }
}

/// [`compute`] into reused working storage (the result in its first `num_blocks` sets).
fn compute_into<S: LiveSet, F: MachineRead + ?Sized>(f: &F, sc: &mut LiveScratch<S>) {
    let (nb, nv) = (f.num_blocks(), f.num_vregs());
    sc.blocks = nb;
    // Live-in starts as gen and only grows.
    reset_sets(&mut sc.livein, nb, nv);
    reset_sets(&mut sc.kill, nb, nv);
    reset_sets(&mut sc.liveout, nb, nv);
    for b in crate::machine::block_range(nb) {
        let (g, k) = (&mut sc.livein[b.index()], &mut sc.kill[b.index()]);
        // Backward over the block: a def kills, a use generates.
        let insts = f.block_insts(b);
        if let Some(last) = insts.iter().next_back() {
            if f.is_branch(last) {
                for s in 0..f.block_succs(b).len() {
                    for &v in f.branch_args(b, s) {
                        g.insert(v.index());
                    }
                }
            }
        }
        for i in insts.rev() {
            let ops = f.inst_operands(i);
            for op in ops.iter().filter(|o| o.kind == OperandKind::Def) {
                if op.vreg.is_value() {
                    g.remove(op.vreg.index());
                    k.insert(op.vreg.index());
                }
            }
            for op in ops.iter().filter(|o| o.kind == OperandKind::Use) {
                if op.vreg.is_value() {
                    g.insert(op.vreg.index());
                }
            }
        }
        for &p in f.block_params(b) {
            g.remove(p.index());
            k.insert(p.index());
        }
    }
    let roots = std::iter::once(f.entry_block()).chain(f.blocks());
    crate::analysis::order::postorder_into(
        nb,
        roots,
        |b| f.block_succs(b),
        &mut sc.postorder,
        &mut sc.order,
    );
    sc.queued.clear();
    sc.queued.resize(nb, true);
    // Worklist as a stack popped from the end: push in reverse postorder so postorder pops.
    sc.work.clear();
    sc.work.extend(sc.order.iter().rev().copied());
    let mut visits = 0;
    while let Some(b) = sc.work.pop() {
        sc.queued[b.index()] = false;
        visits += 1;
        let mut out = std::mem::take(&mut sc.liveout[b.index()]);
        for &s in f.block_succs(b) {
            out.union_with(&sc.livein[s.index()]);
        }
        // livein = gen | (out - kill)
        let grew = sc.livein[b.index()].union_minus(&out, &sc.kill[b.index()]);
        sc.liveout[b.index()] = out;
        if grew {
            for &p in f.block_preds(b) {
                if !sc.queued[p.index()] {
                    sc.queued[p.index()] = true;
                    sc.work.push(p);
                }
            }
        }
    }
    sc.visits = visits;
}

/// Functions with at least this many instructions get [`ChunkedSet`] liveness in
/// [`compute_lists`], smaller ones [`DenseSet`] (measured; see the module doc).
pub const CHUNKED_FROM_INSTS: usize = 5000;

/// Live-in and live-out sets per block as sorted vreg lists, independent of the set
/// representation that computed them (what live-range construction reads). Buffers are
/// reused across functions ([`compute_lists_into`]).
#[derive(Clone, Debug, Default)]
pub struct LiveLists {
    /// `ins[in_start[b]..in_start[b + 1]]`: live-in of block `b`, increasing.
    pub in_start: Vec<u32>,
    /// Concatenated live-in lists.
    pub ins: Vec<u32>,
    /// `outs[out_start[b]..out_start[b + 1]]`: live-out of block `b`, increasing.
    pub out_start: Vec<u32>,
    /// Concatenated live-out lists.
    pub outs: Vec<u32>,
    /// Blocks processed until the fixpoint.
    pub visits: usize,
    /// Whether the chunked representation computed them.
    pub chunked: bool,
    /// Working storage of the dense fixpoint, reused between functions.
    dense: LiveScratch<DenseSet>,
    /// Working storage of the chunked fixpoint, reused between functions.
    chunked_scratch: LiveScratch<ChunkedSet>,
}

/// Equal lists (the working storage is not compared).
impl PartialEq for LiveLists {
    fn eq(&self, other: &Self) -> bool {
        self.in_start == other.in_start
            && self.ins == other.ins
            && self.out_start == other.out_start
            && self.outs == other.outs
            && self.visits == other.visits
            && self.chunked == other.chunked
    }
}

impl Eq for LiveLists {}

impl LiveLists {
    /// Vregs live into block `b`, increasing.
    pub fn livein(&self, b: usize) -> &[u32] {
        &self.ins[self.in_start[b] as usize..self.in_start[b + 1] as usize]
    }
    /// Vregs live out of block `b`, increasing.
    pub fn liveout(&self, b: usize) -> &[u32] {
        &self.outs[self.out_start[b] as usize..self.out_start[b + 1] as usize]
    }
    /// Fills the lists from the per-block sets of a fixpoint's working storage.
    fn fill<S: LiveSet>(
        in_start: &mut Vec<u32>,
        ins: &mut Vec<u32>,
        out_start: &mut Vec<u32>,
        outs: &mut Vec<u32>,
        l: &LiveScratch<S>,
    ) {
        for (start, list, sets) in [
            (in_start, ins, &l.livein[..l.blocks]),
            (out_start, outs, &l.liveout[..l.blocks]),
        ] {
            start.clear();
            list.clear();
            start.push(0);
            for s in sets {
                s.append_to(list);
                start.push(list.len() as u32);
            }
        }
    }
}

/// Exact liveness of `f` as lists, with the set representation chosen by size: dense below
/// [`CHUNKED_FROM_INSTS`] instructions, chunked from there on.
pub fn compute_lists<F: MachineRead + ?Sized>(f: &F) -> LiveLists {
    let mut out = LiveLists::default();
    compute_lists_into(f, &mut out);
    out
}

/// [`compute_lists`] into reused buffers.
pub fn compute_lists_into<F: MachineRead + ?Sized>(f: &F, out: &mut LiveLists) {
    out.chunked = f.num_insts() >= CHUNKED_FROM_INSTS;
    let LiveLists {
        in_start,
        ins,
        out_start,
        outs,
        visits,
        chunked,
        dense,
        chunked_scratch,
    } = out;
    if *chunked {
        compute_into(f, chunked_scratch);
        LiveLists::fill(in_start, ins, out_start, outs, chunked_scratch);
        *visits = chunked_scratch.visits;
    } else {
        compute_into(f, dense);
        LiveLists::fill(in_start, ins, out_start, outs, dense);
        *visits = dense.visits;
    }
}

/// Brute-force liveness (the oracle): `v` is live into block `b` iff some path from `b`'s
/// start reaches a read of `v` before a write of it; found by a search over (block, vreg)
/// per vreg. O(vregs x (blocks + instructions)).
pub fn brute_force<F: MachineRead + ?Sized>(f: &F) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let nb = f.num_blocks();
    // Per block and vreg: what the block does first with v, scanning forward: read, write,
    // or nothing (pass through). Parameters write at the start; branch args read at the end.
    #[derive(Clone, Copy, PartialEq)]
    enum First {
        Read,
        Write,
        Through,
    }
    let first = |b: MBlock, v: usize| -> First {
        if f.block_params(b).iter().any(|p| p.index() == v) {
            return First::Write;
        }
        for i in f.block_insts(b) {
            let ops = f.inst_operands(i);
            if ops
                .iter()
                .any(|o| o.kind == OperandKind::Use && o.vreg.is_value() && o.vreg.index() == v)
            {
                return First::Read;
            }
            if ops
                .iter()
                .any(|o| o.kind == OperandKind::Def && o.vreg.is_value() && o.vreg.index() == v)
            {
                return First::Write;
            }
            if f.is_branch(i)
                && (0..f.block_succs(b).len())
                    .any(|s| f.branch_args(b, s).iter().any(|a| a.index() == v))
            {
                return First::Read;
            }
        }
        First::Through
    };
    let mut livein = vec![Vec::new(); nb];
    for v in 0..f.num_vregs() {
        let firsts: Vec<First> = crate::machine::block_range(nb)
            .map(|b| first(b, v))
            .collect();
        // live(b) iff first(b) == Read, or Through and some successor is live: backward
        // reachability from the reading blocks through pass-through blocks.
        let mut live = vec![false; nb];
        let mut stack: Vec<MBlock> = crate::machine::block_range(nb)
            .filter(|&b| firsts[b.index()] == First::Read)
            .collect();
        for &b in &stack {
            live[b.index()] = true;
        }
        while let Some(b) = stack.pop() {
            for &p in f.block_preds(b) {
                if !live[p.index()] && firsts[p.index()] == First::Through {
                    live[p.index()] = true;
                    stack.push(p);
                }
            }
        }
        for b in 0..nb {
            if live[b] {
                livein[b].push(v);
            }
        }
    }
    let liveout = crate::machine::block_range(nb)
        .map(|b| {
            let mut out: Vec<usize> = f
                .block_succs(b)
                .iter()
                .flat_map(|&s| livein[s.index()].iter().copied())
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    (livein, liveout)
}
