//! Typed handles of the allocator's entities: live ranges, bundles and spill sets.
//!
//! What: each is a row index into its table of the World (row = dense index, see
//! [`super::ranges`] and [`super::bundles`]) wrapped in its own type, so a bundle cannot be
//! passed where a live range is meant. `NONE` (all ones) marks "no such entity" where a
//! column needs a value (a range not yet in a bundle, a bundle without a spill set).
//! Display prints the bare index (the annotations say `range 5, bundle 3`).
//!
//! Invariants: a handle other than `NONE` is below its table's row count in use
//! ([`super::ranges::RangeCounts`]).
//!
//! Complexity: every operation is O(1); each handle is a `u32`.

use std::fmt;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The marker of "none".
            pub const NONE: $name = $name(u32::MAX);

            /// The handle of row `index`.
            pub const fn new(index: usize) -> $name {
                $name(index as u32)
            }

            /// The row index.
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// Whether this is [`Self::NONE`].
            pub const fn is_none(self) -> bool {
                self.0 == u32::MAX
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

handle! {
    /// A live range: a row of the live-range table.
    LiveRangeIndex
}

handle! {
    /// A bundle: a row of the bundle table.
    BundleIndex
}

handle! {
    /// A spill set: a row of the spill-set table.
    SpillSetIndex
}
