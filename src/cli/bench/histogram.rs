//! Per-function times as a mergeable histogram, and the percentiles read from it.
//!
//! A time `t` in nanoseconds (at least 1) falls in bucket `8 * e + m`, where `e` is the
//! position of its highest set bit and `m` the next three bits: eight buckets per power of
//! two, so a bucket's width is at most 1/8 of its lower bound and a percentile read from the
//! histogram is within 12.5% of the exact one (below 8 ns, exact). Histograms of shards add
//! bucket by bucket, so the merged percentiles are those of the whole run, which a merge of
//! percentiles could not give.
//!
//! Invariant: the counts sum to the functions timed. Complexity: O(1) per time; a percentile
//! is linear in the (at most 512) occupied buckets.

use std::collections::BTreeMap;

/// Bucket of `ns` (see the module doc).
pub(super) fn bucket(ns: u64) -> u32 {
    let ns = ns.max(1);
    let e = 63 - ns.leading_zeros();
    let m = if e >= 3 {
        (ns >> (e - 3)) & 7
    } else {
        (ns << (3 - e)) & 7
    };
    8 * e + m as u32
}

/// The lower bound of bucket `b`, in nanoseconds.
pub(super) fn lower_bound(b: u32) -> f64 {
    let (e, m) = (b / 8, b % 8);
    (1u64 << e) as f64 * (1.0 + m as f64 / 8.0)
}

/// The `q`-quantile (0..=1) of the histogram, in seconds (the lower bound of its bucket);
/// `None` when empty.
pub(super) fn quantile(histogram: &BTreeMap<u32, u64>, q: f64) -> Option<f64> {
    let total: u64 = histogram.values().sum();
    if total == 0 {
        return None;
    }
    let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    for (&b, &n) in histogram {
        seen += n;
        if seen >= rank {
            return Some(lower_bound(b) * 1e-9);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_within_an_eighth() {
        for ns in [1u64, 2, 7, 8, 9, 15, 16, 1000, 123_456, 9_999_999_999] {
            let lo = lower_bound(bucket(ns));
            assert!(
                lo <= ns as f64 && ns as f64 <= lo * 1.125 + 1.0,
                "{ns}: {lo}"
            );
        }
        assert!(bucket(1000) < bucket(1200));
    }

    #[test]
    fn quantiles_of_a_merged_histogram() {
        let mut h = BTreeMap::new();
        for ns in 1..=100u64 {
            *h.entry(bucket(ns * 1000)).or_insert(0) += 1;
        }
        let p50 = quantile(&h, 0.5).unwrap();
        assert!((44e-6..=50e-6).contains(&p50), "{p50}");
        let max = quantile(&h, 1.0).unwrap();
        assert!((88e-6..=100e-6).contains(&max), "{max}");
        assert_eq!(quantile(&BTreeMap::new(), 0.5), None);
    }
}
