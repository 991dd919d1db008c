//! Dense typed handles: `Block`, `Inst`, `Value`, `Const`, `Symbol`.
//!
//! Every handle is a `u32` index into a dense table of its function (or module, for
//! `Symbol`). Cross references in the IR and in every side table use these indices, never
//! `bevy_ecs::entity::Entity` (DESIGN.md 2, rule 3). Handles print with a prefix
//! (`block3`, `inst7`, `v12`, `const4`, `sym2`). `Block` and `Inst` are also the dense index
//! components carried by block and instruction entities in the World.

use bevy_ecs::component::Component;
use std::fmt;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
        pub struct $name(pub u32);

        impl $name {
            /// The text prefix of this handle kind.
            pub const PREFIX: &'static str = $prefix;

            /// Handle for dense index `index`. Panics if `index` does not fit in `u32`
            /// (tables are bounded far below that by the parser and builders).
            #[inline]
            pub fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("handle index overflows u32"))
            }

            /// The dense index.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

handle!(
    /// A basic block of a function; block 0 is the entry block.
    Block,
    "block"
);
handle!(
    /// An instruction of a function (terminators are not instructions; they belong to blocks).
    Inst,
    "inst"
);
handle!(
    /// An SSA value: a function parameter, an instruction result or a block parameter.
    Value,
    "v"
);
handle!(
    /// An interned constant of a function's constant pool.
    Const,
    "const"
);
handle!(
    /// A module-level symbol: a global variable, a defined function or an external declaration.
    Symbol,
    "sym"
);

impl Component for Block {
    const STORAGE_TYPE: bevy_ecs::component::StorageType = bevy_ecs::component::StorageType::Table;
    type Mutability = bevy_ecs::component::Immutable;
}

impl Component for Inst {
    const STORAGE_TYPE: bevy_ecs::component::StorageType = bevy_ecs::component::StorageType::Table;
    type Mutability = bevy_ecs::component::Immutable;
}
