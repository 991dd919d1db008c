//! Aggregate types of the strata IR: structs and arrays of scalars (and of aggregates), as
//! first-class values (DESIGN.md 3.1).
//!
//! An aggregate type is [`Type::Agg`] holding an [`AggId`], a handle into one process-wide
//! interner, so that [`Type`] stays a small `Copy` value (4 bytes) and equality of types is
//! equality of handles: the interner hash-conses shapes, so two equal shapes always get the
//! same handle. Each shape's x86-64 layout (size, alignment, member offsets) is computed once
//! when it is interned, with the rules of LLVM 14's x86-64 data layout: `i1`/`i8` 1/1, `i16`
//! 2/2, `i32` 4/4, `i64` and `ptr` 8/8, `i128` 16/8, other integer widths take the alignment
//! of the next larger legal integer and round their allocation size up to it; `f32` 4/4, `f64`
//! 8/8. A struct places each member at the next multiple of its alignment (a packed struct:
//! no padding, alignment 1) and rounds its size up to its alignment; an array is `len` times
//! its element's allocation size.
//!
//! Invariants: interned shapes are never freed (they are leaked into `'static`, bounded by the
//! number of distinct shapes); a handle only exists for an interned shape. Limits, so that a
//! hostile input cannot make one value arbitrarily large: at most [`MAX_MEMBERS`] members
//! per level, at most [`MAX_BYTES`] bytes per aggregate, at most 2^24 distinct shapes per
//! process; [`Type::aggregate`] returns an error naming the limit instead.
//! Complexity: interning is O(members) plus one hash lookup under a lock; reading a shape
//! ([`AggId::info`]) takes a read lock and is O(1).

use super::Type;
use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

/// Most members one struct or array value may have.
pub const MAX_MEMBERS: u64 = 4096;
/// Most bytes one aggregate value may occupy.
pub const MAX_BYTES: u64 = 1 << 16;

/// Handle of an interned aggregate shape: a 24-bit index stored as three bytes, so that
/// [`Type`] stays 4 bytes with alignment 1 (it sits in every instruction).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct AggId([u8; 3]);

impl serde::Serialize for AggId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Type::Agg(*self))
    }
}

/// The shape of an aggregate type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AggShape {
    /// `{ T0, T1, ... }`, or `<{ ... }>` when packed (no padding, alignment 1).
    Struct {
        /// Member types in order.
        fields: Box<[Type]>,
        /// Packed: members at consecutive offsets, alignment 1.
        packed: bool,
    },
    /// `[len x elem]`.
    Array {
        /// Number of elements.
        len: u32,
        /// Element type.
        elem: Type,
    },
    /// `<len x elem>`: a vector ([`Type::Vec`], not an aggregate value) of `len >= 1` lanes
    /// of an integer, float or pointer type. Its lanes are packed: the store size is
    /// `len * bits(elem)` rounded up to bytes, the alignment that size rounded up to a power
    /// of two (LLVM 14's x86-64 rule for vectors), the allocation size the store size
    /// rounded up to the alignment (`<3 x i32>`: 12 bytes stored, 16 allocated).
    Vector {
        /// Number of lanes.
        len: u32,
        /// Lane type.
        elem: Type,
    },
}

/// An interned aggregate: its shape and x86-64 layout.
#[derive(Debug)]
pub struct AggInfo {
    /// The shape.
    pub shape: AggShape,
    /// Allocation size in bytes (padding included).
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// Byte offset of each member (arrays: `i * element allocation size`).
    pub offsets: Box<[u64]>,
}

impl AggInfo {
    /// Number of members.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// True for an empty struct or a zero-length array.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Type of member `i`, or `None` if out of range.
    pub fn member(&self, i: usize) -> Option<Type> {
        match &self.shape {
            AggShape::Struct { fields, .. } => fields.get(i).copied(),
            AggShape::Array { len, elem } | AggShape::Vector { len, elem } => {
                (i < *len as usize).then_some(*elem)
            }
        }
    }
}

#[derive(Default)]
struct Table {
    infos: Vec<&'static AggInfo>,
    index: HashMap<AggShape, AggId>,
}

fn table() -> &'static RwLock<Table> {
    static TABLE: OnceLock<RwLock<Table>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

impl AggId {
    /// The low byte of the index (for [`Type::code`]).
    pub(super) fn low_byte(self) -> u8 {
        self.0[0]
    }

    /// The shape and layout behind the handle.
    pub fn info(self) -> &'static AggInfo {
        let [a, b, c] = self.0;
        let i = u32::from_le_bytes([a, b, c, 0]) as usize;
        // A poisoned lock only means another thread panicked while holding it; the table is
        // append-only, so its contents are still consistent.
        let t = table().read().unwrap_or_else(|e| e.into_inner());
        t.infos[i]
    }
}

/// Alignment in bytes of a type in x86-64 memory (see the module doc).
pub fn align_of(ty: Type) -> u64 {
    match ty {
        Type::Agg(id) | Type::Vec(id) => id.info().align,
        Type::Void => 1,
        // LLVM 14's x86-64 data layout: `f80:128`.
        Type::F80 => 16,
        t => match t.bits() {
            0..=8 => 1,
            9..=16 => 2,
            17..=32 => 4,
            _ => 8,
        },
    }
}

/// Allocation size in bytes of a type in x86-64 memory: its store size rounded up to its
/// alignment (`i24` takes 4, `i128` 16, an aggregate its padded size).
pub fn alloc_size(ty: Type) -> u64 {
    match ty {
        Type::Agg(id) | Type::Vec(id) => id.info().size,
        Type::I128 | Type::F80 => 16,
        t => (t.bytes() as u64).next_multiple_of(align_of(t)),
    }
}

/// Why an aggregate shape cannot be a type: the limit it exceeds. A shape has no source
/// position; the `.sir` parser and the LLVM importer report it at the type's line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AggregateError {
    /// A `void` field or element.
    #[error("an aggregate member cannot be void")]
    VoidMember,
    /// More than [`MAX_MEMBERS`] struct fields.
    #[error("a struct value has more than {MAX_MEMBERS} members")]
    TooManyMembers,
    /// More than [`MAX_MEMBERS`] array elements.
    #[error("an array value has more than {MAX_MEMBERS} elements")]
    TooManyElements,
    /// An allocation size beyond [`MAX_BYTES`].
    #[error("an aggregate value larger than {MAX_BYTES} bytes")]
    TooLarge,
    /// A vector of no lanes, or of lanes that are not integers, floats or pointers.
    #[error("a vector needs at least one lane of an integer, float or pointer type")]
    BadVector,
    /// The process already interned 2^24 distinct shapes.
    #[error("more than 2^24 distinct aggregate types")]
    TooManyTypes,
}

impl Type {
    /// Interns an aggregate shape and returns its type. Errors name the limit exceeded: a
    /// `void` member, more than [`MAX_MEMBERS`] members, more than [`MAX_BYTES`] bytes, or
    /// more than 2^24 distinct shapes.
    pub fn aggregate(shape: AggShape) -> Result<Type, AggregateError> {
        let members: &[Type] = match &shape {
            AggShape::Struct { fields, .. } => fields,
            AggShape::Array { elem, .. } => std::slice::from_ref(elem),
            AggShape::Vector { len, elem } => {
                if *len == 0 || !(elem.is_int() || elem.is_float() || *elem == Type::Ptr) {
                    return Err(AggregateError::BadVector);
                }
                &[]
            }
        };
        if members.contains(&Type::Void) {
            return Err(AggregateError::VoidMember);
        }
        let wrap = |id| match shape {
            AggShape::Vector { .. } => Type::Vec(id),
            _ => Type::Agg(id),
        };
        if let Some(&id) = table()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .index
            .get(&shape)
        {
            return Ok(wrap(id));
        }
        let (size, align, offsets) = match &shape {
            AggShape::Struct { fields, packed } => {
                if fields.len() as u64 > MAX_MEMBERS {
                    return Err(AggregateError::TooManyMembers);
                }
                let (mut off, mut align) = (0u64, 1u64);
                let mut offsets = Vec::with_capacity(fields.len());
                for &f in fields.iter() {
                    let a = if *packed { 1 } else { align_of(f) };
                    off = off.next_multiple_of(a);
                    offsets.push(off);
                    off += alloc_size(f);
                    align = align.max(a);
                }
                (off.next_multiple_of(align), align, offsets)
            }
            AggShape::Array { len, elem } => {
                if *len as u64 > MAX_MEMBERS {
                    return Err(AggregateError::TooManyElements);
                }
                let step = alloc_size(*elem);
                let offsets = (0..*len as u64).map(|i| i * step).collect();
                (step * *len as u64, align_of(*elem), offsets)
            }
            AggShape::Vector { len, elem } => {
                if *len as u64 > MAX_MEMBERS {
                    return Err(AggregateError::TooManyElements);
                }
                let bits = elem.bits() as u64;
                let store = (*len as u64 * bits).div_ceil(8);
                let align = store.next_power_of_two().max(1);
                let offsets = (0..*len as u64).map(|i| i * bits / 8).collect();
                (store.next_multiple_of(align), align, offsets)
            }
        };
        if size > MAX_BYTES {
            return Err(AggregateError::TooLarge);
        }
        let mut t = table().write().unwrap_or_else(|e| e.into_inner());
        if let Some(&id) = t.index.get(&shape) {
            return Ok(wrap(id));
        }
        let n = t.infos.len() as u32;
        if n >= 1 << 24 {
            return Err(AggregateError::TooManyTypes);
        }
        let [a, b, c, _] = n.to_le_bytes();
        let id = AggId([a, b, c]);
        let info: &'static AggInfo = Box::leak(Box::new(AggInfo {
            shape: shape.clone(),
            size,
            align,
            offsets: offsets.into(),
        }));
        t.infos.push(info);
        let ty = wrap(id);
        t.index.insert(shape, id);
        Ok(ty)
    }

    /// `<len x elem>`; see [`Type::aggregate`] (a vector needs `len >= 1` lanes of an
    /// integer, float or pointer type).
    pub fn vector_of(len: u32, elem: Type) -> Result<Type, AggregateError> {
        Type::aggregate(AggShape::Vector { len, elem })
    }

    /// True for vector types.
    pub fn is_vector(self) -> bool {
        matches!(self, Type::Vec(_))
    }

    /// Lane count and lane type of a vector type; `None` for any other type.
    pub fn vector_shape(self) -> Option<(u32, Type)> {
        match self {
            Type::Vec(id) => match id.info().shape {
                AggShape::Vector { len, elem } => Some((len, elem)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The lane type of a vector type; the type itself for any other type (so lane-wise
    /// rules read the same for scalars and vectors).
    pub fn lane(self) -> Type {
        self.vector_shape().map_or(self, |(_, e)| e)
    }

    /// The number of lanes: a vector's lane count, 1 for any other type.
    pub fn lanes(self) -> u32 {
        self.vector_shape().map_or(1, |(n, _)| n)
    }

    /// The type with the same shape as `self` and lanes of type `elem`: `<N x elem>` for a
    /// vector `self` of `N` lanes, `elem` itself for a scalar `self` (the result type of a
    /// lane-wise `icmp` is `i1.same_shape_as(operand)` seen from the other side).
    pub fn with_lane(self, elem: Type) -> Type {
        match self.vector_shape() {
            Some((n, e)) if e != elem => Type::vector_of(n, elem).unwrap_or(Type::Void),
            Some(_) => self,
            None => elem,
        }
    }

    /// `{ fields... }` (not packed); see [`Type::aggregate`].
    pub fn struct_of(fields: &[Type]) -> Result<Type, AggregateError> {
        Type::aggregate(AggShape::Struct {
            fields: fields.into(),
            packed: false,
        })
    }

    /// `[len x elem]`; see [`Type::aggregate`].
    pub fn array_of(len: u32, elem: Type) -> Result<Type, AggregateError> {
        Type::aggregate(AggShape::Array { len, elem })
    }

    /// True for struct and array types.
    pub fn is_aggregate(self) -> bool {
        matches!(self, Type::Agg(_))
    }

    /// The shape and layout of an aggregate type; `None` for a scalar.
    pub fn agg_info(self) -> Option<&'static AggInfo> {
        match self {
            Type::Agg(id) => Some(id.info()),
            _ => None,
        }
    }

    /// The members of an aggregate type or the lanes of a vector type (with their layout);
    /// `None` for a scalar type.
    pub fn shape_info(self) -> Option<&'static AggInfo> {
        match self {
            Type::Agg(id) | Type::Vec(id) => Some(id.info()),
            _ => None,
        }
    }

    /// Type and byte offset of member `i` of an aggregate type; `None` for a scalar or an
    /// index out of range.
    pub fn member(self, i: usize) -> Option<(Type, u64)> {
        let info = self.agg_info()?;
        Some((info.member(i)?, info.offsets[i]))
    }
}

/// Writes a struct type from its field types in LLVM's notation, shared by `.sir`, the IR's
/// aggregate types and the LLVM importer's types: `{ i64, i64 }`, `<{ i8, i32 }>` (packed),
/// `{}`.
pub fn write_struct<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    fields: &[T],
    packed: bool,
) -> fmt::Result {
    if packed {
        f.write_str("<")?;
    }
    if fields.is_empty() {
        f.write_str("{}")?;
    } else {
        f.write_str("{ ")?;
        for (i, t) in fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{t}")?;
        }
        f.write_str(" }")?;
    }
    if packed {
        f.write_str(">")?;
    }
    Ok(())
}

/// Writes an aggregate type in the LLVM-like notation shared by `.sir` and `.ll`:
/// `{ i64, i64 }`, `<{ i8, i32 }>`, `[4 x i32]`, `{}`.
pub(super) fn fmt_agg(id: AggId, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match &id.info().shape {
        AggShape::Struct { fields, packed } => write_struct(f, fields, *packed),
        AggShape::Array { len, elem } => write!(f, "[{len} x {elem}]"),
        AggShape::Vector { len, elem } => write!(f, "<{len} x {elem}>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_interning() {
        let s = Type::struct_of(&[Type::I8, Type::I32, Type::I64]).unwrap();
        assert_eq!(
            s,
            Type::struct_of(&[Type::I8, Type::I32, Type::I64]).unwrap()
        );
        let info = s.agg_info().unwrap();
        assert_eq!(&*info.offsets, &[0, 4, 8]);
        assert_eq!((info.size, info.align), (16, 8));
        let p = Type::aggregate(AggShape::Struct {
            fields: [Type::I8, Type::I32].into(),
            packed: true,
        })
        .unwrap();
        assert_ne!(p, Type::struct_of(&[Type::I8, Type::I32]).unwrap());
        assert_eq!((alloc_size(p), align_of(p)), (5, 1));
        let a = Type::array_of(3, Type::Int(24)).unwrap();
        assert_eq!(alloc_size(a), 12);
        let n = Type::struct_of(&[Type::I8, a]).unwrap();
        assert_eq!(n.member(1), Some((a, 4)));
        assert_eq!(n.to_string(), "{ i8, [3 x i24] }");
        assert_eq!(p.to_string(), "<{ i8, i32 }>");
        assert_eq!(alloc_size(Type::I128), 16);
        assert_eq!(align_of(Type::I128), 8);
        assert!(Type::array_of(1 << 20, Type::I8).is_err());
        assert!(Type::struct_of(&[Type::Void]).is_err());
    }

    #[test]
    fn vector_layout() {
        let v = Type::vector_of(4, Type::I32).unwrap();
        assert!(v.is_vector() && !v.is_aggregate());
        assert_eq!(v, Type::vector_of(4, Type::I32).unwrap());
        assert_ne!(Some(v), Type::array_of(4, Type::I32).ok());
        assert_eq!((v.bits(), alloc_size(v), align_of(v)), (128, 16, 16));
        assert_eq!(v.to_string(), "<4 x i32>");
        let three = Type::vector_of(3, Type::F32).unwrap();
        assert_eq!(
            (three.bytes(), alloc_size(three), align_of(three)),
            (12, 16, 16)
        );
        let bools = Type::vector_of(8, Type::I1).unwrap();
        assert_eq!((bools.bits(), alloc_size(bools)), (8, 1));
        assert_eq!(v.with_lane(Type::I1).vector_shape(), Some((4, Type::I1)));
        assert_eq!(Type::I32.with_lane(Type::I1), Type::I1);
        assert!(Type::vector_of(0, Type::I8).is_err());
        assert!(Type::vector_of(2, v).is_err());
        assert!(Type::vector_of(2, Type::struct_of(&[]).unwrap()).is_err());
    }

    #[test]
    fn sizes_stay_small() {
        assert_eq!(std::mem::size_of::<Type>(), 4);
        assert_eq!(std::mem::align_of::<Type>(), 1);
        // InstKind is stored in a component column; aggregates must not grow it.
        assert!(std::mem::size_of::<crate::ir::InstKind>() <= 64);
    }
}
