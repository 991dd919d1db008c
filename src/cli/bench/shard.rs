//! Sharding a `strata bench` corpus by function, and the output hash that survives it.
//!
//! Split ([`assign`]): every function of every module (in input order: module, then function
//! index) has a weight, its live instruction count. Functions are taken by weight descending,
//! ties by input position, and each goes to the shard with the least weight so far, ties to
//! the lowest shard (greedy "longest processing time first", Graham 1969: the heaviest shard
//! is at most 4/3 of the optimum). The split depends on the inputs only, so `N` processes
//! given `--shard 0/N` .. `--shard N-1/N` on the same corpus run each function exactly once.
//!
//! Hash: a function's printed result is hashed with 64-bit FNV-1a ([`fnv1a`]); a module's
//! hash is the wrapping sum over its functions of `mix(index, hash)` (a SplitMix64 finaliser
//! of the hash and the function's index in its module, [`function_hash`]). The sum makes the
//! module hash independent of which shard or worker ran which function, and the index makes
//! it depend on the order of the functions; the report's hash is FNV-1a over the module
//! hashes in input order (`report::output_hash`). A merge adds the shards' module hashes.
//!
//! Complexity: the split is O(F log F + F log N) for F functions and N shards; hashing is
//! linear in the printed text.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `--shard K/N`: run only shard `K` (from 0) of `N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0 <= index < count`.
    pub index: usize,
    /// The number of shards, at least 1.
    pub count: usize,
}

/// A `--shard` value that is not `K/N` with `0 <= K < N`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    /// Not two numbers around a slash.
    #[error("`{0}` is not K/N (for example 0/8)")]
    Syntax(String),
    /// `K` is not below `N`, or `N` is 0.
    #[error("shard {index} of {count}: K must be below N (shards count from 0)")]
    Range {
        /// K.
        index: usize,
        /// N.
        count: usize,
    },
}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, ShardError> {
        let syntax = || ShardError::Syntax(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(syntax)?;
        let index: usize = k.trim().parse().map_err(|_| syntax())?;
        let count: usize = n.trim().parse().map_err(|_| syntax())?;
        if index >= count {
            return Err(ShardError::Range { index, count });
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard of every function: `weights[m][i]` is function `i` of module `m`'s weight; the
/// result has the same shape, each entry a shard in `0..count` (see the module doc).
pub fn assign(weights: &[Vec<usize>], count: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<(usize, usize, usize)> = weights
        .iter()
        .enumerate()
        .flat_map(|(m, ws)| ws.iter().enumerate().map(move |(i, &w)| (w, m, i)))
        .collect();
    // Heaviest first; among equals, input order.
    order.sort_by_key(|&(w, m, i)| (Reverse(w), m, i));
    let mut loads: BinaryHeap<Reverse<(usize, usize)>> =
        (0..count.max(1)).map(|s| Reverse((0, s))).collect();
    let mut shard_of: Vec<Vec<usize>> = weights.iter().map(|ws| vec![0; ws.len()]).collect();
    for (w, m, i) in order {
        let Reverse((load, s)) = loads.pop().expect("at least one shard");
        shard_of[m][i] = s;
        loads.push(Reverse((load + w, s)));
    }
    shard_of
}

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The term function `index` of a module adds to the module's hash, from `text_hash`, the
/// FNV-1a of its printed result (a SplitMix64 finaliser of both).
pub fn function_hash(index: usize, text_hash: u64) -> u64 {
    let mut z = text_hash ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n() {
        assert_eq!("3/8".parse(), Ok(Shard { index: 3, count: 8 }));
        assert_eq!(
            "8/8".parse::<Shard>(),
            Err(ShardError::Range { index: 8, count: 8 })
        );
        assert!(matches!(
            "0/0".parse::<Shard>(),
            Err(ShardError::Range { .. })
        ));
        assert!(matches!("3".parse::<Shard>(), Err(ShardError::Syntax(_))));
        assert!(matches!("a/2".parse::<Shard>(), Err(ShardError::Syntax(_))));
    }

    #[test]
    fn split_is_greedy_and_balanced() {
        let weights = vec![vec![5, 1, 4], vec![3, 3]];
        let shards = assign(&weights, 2);
        // 5 -> 0, 4 -> 1, 3 (m1 i0) -> 1 (4 < 5), 3 (m1 i1) -> 0 (5 < 7), 1 -> 1 (7 < 8).
        assert_eq!(shards, vec![vec![0, 1, 1], vec![1, 0]]);
        let load = |s: usize| -> usize {
            weights
                .iter()
                .zip(&shards)
                .flat_map(|(w, a)| w.iter().zip(a))
                .filter(|(_, &a)| a == s)
                .map(|(w, _)| w)
                .sum()
        };
        assert_eq!((load(0), load(1)), (8, 8));
        assert_eq!(assign(&weights, 1), vec![vec![0, 0, 0], vec![0, 0]]);
    }

    #[test]
    fn fnv1a_matches_the_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(function_hash(0, 7), function_hash(1, 7));
    }
}
