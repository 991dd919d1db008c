//! The hash maps of LLVM import: a fast multiplicative hasher for names, types and value
//! handles, and the map type built on it.
//!
//! What: [`NameHasher`] mixes each 64-bit word of the key into its state with a rotate, a
//! xor and a multiplication by an odd constant (the scheme of rustc's FxHash); strings
//! are fed eight bytes at a time. [`FastMap`] is a `HashMap` using it. Import hashes short
//! names very often (every `%name`, `@name` and type text), where SipHash's resistance to
//! flooding is not worth its cost: the input is a file the user compiles, not a network
//! peer. A leaf module (it imports only `std`), so every importer file can use it without
//! importing the function lowering.
//!
//! Complexity: O(key length) per hash.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher (FxHash's scheme) for the per-function name maps: names are
/// short and hashed often, and SipHash's flooding resistance is not worth its cost here.
#[derive(Default, Clone, Copy)]
pub struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Little-endian words of eight bytes, the last one padded with zeros (built byte by
        // byte: a copy of a variable length would be a `memcpy` call per name).
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let w = rest
                .iter()
                .enumerate()
                .fold(0u64, |w, (k, &b)| w | u64::from(b) << (8 * k));
            self.write_u64(w);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// A `HashMap` with [`NameHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<NameHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn hash(s: &str) -> u64 {
        BuildHasherDefault::<NameHasher>::default().hash_one(s)
    }

    /// Keys that differ in their last, partial word hash apart; keys that differ only by
    /// trailing NUL bytes collide (the last word is zero-padded, and LLVM names rarely hold
    /// a NUL), which costs a key comparison, never a wrong lookup.
    #[test]
    fn partial_words_hash_apart_and_collisions_stay_correct() {
        let keys = [
            "a",
            "b",
            "abcdefgh",
            "abcdefghi",
            "abcdefghj",
            "%struct.jv*",
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(hash(a), hash(b), "{a:?} and {b:?}");
            }
        }
        assert_eq!(hash("a"), hash("a\0"));
        let all = keys.iter().chain(&["a\0", "a\0\0"]);
        let map: FastMap<&str, usize> = all.clone().enumerate().map(|(i, k)| (*k, i)).collect();
        for (i, k) in all.enumerate() {
            assert_eq!(map.get(k), Some(&i), "{k:?}");
        }
    }
}
