//! LLVM types and their x86-64 memory layout.
//!
//! [`LType`] is the parsed form of an LLVM 14 type (typed pointers, named and literal
//! structs, packed structs, arrays, vectors, function types); its parts are shared (`Arc`),
//! so cloning a type never allocates. [`Layouts`] computes sizes,
//! alignments and struct field offsets with the fixed x86-64 System V data layout that clang
//! 14 emits (`e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128`):
//! pointers 8/8, `i1`/`i8` 1/1, `i16` 2/2, `i32` 4/4, `i64` 8/8, other integers take the
//! alignment of the next larger legal integer (`i128` is 16 bytes with alignment 8 in LLVM
//! 14), `half` 2/2, `float` 4/4, `double` 8/8, `x86_fp80` 16/16, `fp128` 16/16.
//! A struct places each field at the next multiple of its alignment (packed structs: no
//! padding, alignment 1) and rounds its size up to its alignment; an array is `n` times its
//! element's allocation size; a vector is its element size times `n` rounded up to a power
//! of two.
//!
//! Invariants: named struct layouts are computed once, after all type definitions are read,
//! and cached; a struct that contains itself by value, an opaque struct, or a size that
//! overflows `u64` is an error, never a panic or a loop. Complexity: O(total type size) for
//! the named structs, O(type size) per literal type.

use super::hash::FastMap;
use crate::ir::Type;
use std::fmt;
use std::sync::Arc;

/// An LLVM type as written in the source.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum LType {
    /// `void`.
    Void,
    /// `iN`.
    Int(u32),
    /// `half`.
    Half,
    /// `bfloat`.
    BFloat,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `x86_fp80`.
    X86Fp80,
    /// `fp128`.
    Fp128,
    /// `label`, `metadata`, `token`, `x86_mmx`, ... (not first-class for us).
    Other(&'static str),
    /// `T*`.
    Ptr(Arc<LType>),
    /// `ptr` (opaque pointer).
    OpaquePtr,
    /// `%name`.
    Named(Arc<str>),
    /// `{ ... }` or `<{ ... }>`.
    Struct {
        /// Field types.
        fields: Arc<[LType]>,
        /// `<{ }>`: no padding, alignment 1.
        packed: bool,
    },
    /// `[n x T]`.
    Array(u64, Arc<LType>),
    /// `<n x T>`.
    Vector(u64, Arc<LType>),
    /// `R (P, ...)`.
    Func {
        /// Result type.
        ret: Arc<LType>,
        /// Parameter types.
        params: Arc<[LType]>,
        /// Trailing `...`.
        varargs: bool,
    },
}

impl LType {
    /// The `i8*` type.
    pub fn i8_ptr() -> LType {
        LType::Ptr(Arc::new(LType::Int(8)))
    }

    /// True for `T*` and `ptr`.
    pub fn is_ptr(&self) -> bool {
        matches!(self, LType::Ptr(_) | LType::OpaquePtr)
    }

    /// The strata value type for this LLVM type, if it has one (`void` maps to `Void`;
    /// literal structs and arrays of representable members map to aggregates; a named
    /// struct needs [`Layouts::value_type`]).
    pub fn scalar(&self) -> Option<Type> {
        self.value_type_in(None, 0)
    }

    fn value_type_in(&self, layouts: Option<&Layouts>, depth: u32) -> Option<Type> {
        if depth > 32 {
            return None;
        }
        let member = |t: &LType| match t.value_type_in(layouts, depth + 1) {
            Some(Type::Void) | None => None,
            Some(t) => Some(t),
        };
        Some(match self {
            LType::Void => Type::Void,
            LType::Int(n) => return Type::int(*n),
            LType::Float => Type::F32,
            LType::Double => Type::F64,
            LType::X86Fp80 => Type::F80,
            LType::Ptr(_) | LType::OpaquePtr => Type::Ptr,
            LType::Struct { fields, packed } => {
                let fields = fields.iter().map(member).collect::<Option<Box<[Type]>>>()?;
                return Type::aggregate(crate::ir::AggShape::Struct {
                    fields,
                    packed: *packed,
                })
                .ok();
            }
            LType::Array(n, e) => {
                let len = u32::try_from(*n).ok()?;
                return Type::array_of(len, member(e)?).ok();
            }
            LType::Vector(n, e) => {
                let len = u32::try_from(*n).ok()?;
                return Type::vector_of(len, member(e)?).ok();
            }
            LType::Named(n) => match layouts?.bodies.get(&**n) {
                Some(Some(body)) => return body.value_type_in(layouts, depth + 1),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// The LLVM type that export uses for a strata value type (`ptr` becomes `i8*`, also
    /// inside aggregates).
    pub fn from_scalar(t: Type) -> LType {
        match t {
            Type::Void => LType::Void,
            Type::I1 => LType::Int(1),
            Type::I8 => LType::Int(8),
            Type::I16 => LType::Int(16),
            Type::I32 => LType::Int(32),
            Type::I64 => LType::Int(64),
            Type::I128 => LType::Int(128),
            Type::Int(n) => LType::Int(n as u32),
            Type::F32 => LType::Float,
            Type::F64 => LType::Double,
            Type::F80 => LType::X86Fp80,
            Type::Ptr => LType::i8_ptr(),
            Type::Agg(id) => match &id.info().shape {
                crate::ir::AggShape::Struct { fields, packed } => LType::Struct {
                    fields: fields.iter().map(|&f| LType::from_scalar(f)).collect(),
                    packed: *packed,
                },
                crate::ir::AggShape::Array { len, elem } => {
                    LType::Array(*len as u64, Arc::new(LType::from_scalar(*elem)))
                }
                crate::ir::AggShape::Vector { len, elem } => {
                    LType::Vector(*len as u64, Arc::new(LType::from_scalar(*elem)))
                }
            },
            Type::Vec(id) => match &id.info().shape {
                crate::ir::AggShape::Vector { len, elem } => {
                    LType::Vector(*len as u64, Arc::new(LType::from_scalar(*elem)))
                }
                _ => LType::Void,
            },
        }
    }

    /// True for aggregate types (structs, arrays, vectors, named structs).
    pub fn is_aggregate(&self) -> bool {
        matches!(
            self,
            LType::Struct { .. } | LType::Array(..) | LType::Vector(..) | LType::Named(_)
        )
    }

    /// True for LLVM's first-class value types (everything but `void`, function types,
    /// `label`, `metadata` and the like): what an instruction may produce or take.
    pub fn is_first_class(&self) -> bool {
        !matches!(self, LType::Void | LType::Func { .. } | LType::Other(_))
            || matches!(self, LType::Other("x86_mmx" | "x86_amx" | "token"))
    }
}

/// Writes `name` with its sigil, quoting it when it contains characters outside
/// `[-a-zA-Z$._0-9]` (or starts with a digit but is not all digits).
pub fn write_ident(f: &mut impl fmt::Write, sigil: char, name: &str) -> fmt::Result {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_'))
        && (name.bytes().all(|c| c.is_ascii_digit()) || !name.as_bytes()[0].is_ascii_digit());
    if plain {
        write!(f, "{sigil}{name}")
    } else {
        write!(f, "{sigil}\"{}\"", super::lexer::escape(name.as_bytes()))
    }
}

impl fmt::Display for LType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LType::Void => f.write_str("void"),
            LType::Int(n) => write!(f, "i{n}"),
            LType::Half => f.write_str("half"),
            LType::BFloat => f.write_str("bfloat"),
            LType::Float => f.write_str("float"),
            LType::Double => f.write_str("double"),
            LType::X86Fp80 => f.write_str("x86_fp80"),
            LType::Fp128 => f.write_str("fp128"),
            LType::Other(s) => f.write_str(s),
            LType::Ptr(t) => write!(f, "{t}*"),
            LType::OpaquePtr => f.write_str("ptr"),
            LType::Named(n) => write_ident(f, '%', n),
            LType::Struct { fields, packed } => {
                crate::ir::aggregate::write_struct(f, fields, *packed)
            }
            LType::Array(n, t) => write!(f, "[{n} x {t}]"),
            LType::Vector(n, t) => write!(f, "<{n} x {t}>"),
            LType::Func {
                ret,
                params,
                varargs,
            } => {
                write!(f, "{ret} (")?;
                for (i, t) in params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                if *varargs {
                    if !params.is_empty() {
                        f.write_str(", ")?;
                    }
                    f.write_str("...")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Size, alignment and field offsets of a struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructLayout {
    /// Allocation size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// Byte offset of each field.
    pub offsets: Vec<u64>,
}

/// Why a type has no layout. Carries the type's name or text; the importer adds the line and
/// column of the construct that asked (see `parse::PErr`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A named struct contains itself by value (directly or through other structs).
    #[error("type %{0} contains itself")]
    ContainsItself(Arc<str>),
    /// Named structs nest by value more than 64 deep.
    #[error("type %{0} is nested too deeply")]
    TooDeep(Arc<str>),
    /// A named type the module does not define.
    #[error("undefined type %{0}")]
    Undefined(Arc<str>),
    /// An `opaque` named type used by value.
    #[error("opaque type %{0} has no size")]
    Opaque(Arc<str>),
    /// `void`, a function type or an unmodelled type used by value.
    #[error("type {0} has no size")]
    Unsized(LType),
    /// A size that does not fit `u64`; the payload says whose ("struct size", "array
    /// size", "vector size" or plain "size").
    #[error("{0} overflows")]
    Overflow(&'static str),
}

/// A named struct definition: `Some(body)` or `None` for `opaque`.
pub type NamedBody = Option<LType>;

/// Named struct bodies and their cached layouts.
#[derive(Clone, Default, Debug)]
pub struct Layouts {
    bodies: FastMap<String, NamedBody>,
    cache: FastMap<String, Result<StructLayout, LayoutError>>,
}

/// Names of the named structs `t` contains by value (not behind a pointer).
fn by_value_names(t: &LType, out: &mut Vec<String>) {
    match t {
        LType::Named(n) => out.push(n.to_string()),
        LType::Struct { fields, .. } => fields.iter().for_each(|f| by_value_names(f, out)),
        LType::Array(_, e) | LType::Vector(_, e) => by_value_names(e, out),
        _ => {}
    }
}

fn round_up(x: u64, align: u64) -> Option<u64> {
    let a = align.max(1);
    x.checked_add(a - 1).map(|y| y / a * a)
}

impl Layouts {
    /// Records a named type definition (later definitions of the same name replace earlier).
    pub fn define(&mut self, name: &str, body: NamedBody) {
        self.bodies.insert(name.to_string(), body);
    }

    /// The first named type that `t` mentions (at any depth, also behind pointers) but the
    /// module does not define, if any.
    pub fn undefined_name<'t>(&self, t: &'t LType) -> Option<&'t str> {
        match t {
            LType::Named(n) => (!self.bodies.contains_key(&**n)).then_some(&**n),
            LType::Ptr(e) | LType::Array(_, e) | LType::Vector(_, e) => self.undefined_name(e),
            LType::Struct { fields, .. } => fields.iter().find_map(|f| self.undefined_name(f)),
            LType::Func { ret, params, .. } => self
                .undefined_name(ret)
                .or_else(|| params.iter().find_map(|p| self.undefined_name(p))),
            _ => None,
        }
    }

    /// The body of a named type (`None` if undefined, `Some(None)` if opaque).
    pub fn body(&self, name: &str) -> Option<&NamedBody> {
        self.bodies.get(name)
    }

    /// Computes and caches the layout of every named struct, each exactly once: a struct's
    /// by-value named fields are computed (and cached) first, so no layout is recomputed
    /// and a type DAG with shared members costs linear, not exponential, time.
    pub fn compute_all(&mut self) {
        let mut names: Vec<String> = self.bodies.keys().cloned().collect();
        names.sort();
        for n in names {
            self.compute(&n, 0);
        }
    }

    fn compute(&mut self, name: &str, depth: u32) {
        if self.cache.contains_key(name) {
            return;
        }
        if depth > 64 {
            self.cache
                .insert(name.to_string(), Err(LayoutError::TooDeep(name.into())));
            return;
        }
        // Provisional entry: a by-value cycle back to `name` sees this error.
        self.cache.insert(
            name.to_string(),
            Err(LayoutError::ContainsItself(name.into())),
        );
        let mut deps = Vec::new();
        if let Some(Some(body)) = self.bodies.get(name) {
            by_value_names(body, &mut deps);
        }
        for d in deps {
            self.compute(&d, depth + 1);
        }
        self.cache.remove(name);
        let r = self.named_layout_uncached(name, &mut Vec::new());
        self.cache.insert(name.to_string(), r);
    }

    fn named_layout_uncached(
        &self,
        name: &str,
        visiting: &mut Vec<String>,
    ) -> Result<StructLayout, LayoutError> {
        if let Some(r) = self.cache.get(name) {
            return r.clone();
        }
        if visiting.iter().any(|v| v == name) {
            return Err(LayoutError::ContainsItself(name.into()));
        }
        if visiting.len() > 64 {
            return Err(LayoutError::TooDeep(name.into()));
        }
        match self.bodies.get(name) {
            None => Err(LayoutError::Undefined(name.into())),
            Some(None) => Err(LayoutError::Opaque(name.into())),
            Some(Some(LType::Struct { fields, packed })) => {
                visiting.push(name.to_string());
                let r = self.struct_layout_in(fields, *packed, visiting);
                visiting.pop();
                r
            }
            Some(Some(other)) => {
                visiting.push(name.to_string());
                let r = self
                    .size_align_in(other, visiting)
                    .map(|(size, align)| StructLayout {
                        size,
                        align,
                        offsets: Vec::new(),
                    });
                visiting.pop();
                r
            }
        }
    }

    /// Layout of a struct with these fields.
    pub fn struct_layout(
        &self,
        fields: &[LType],
        packed: bool,
    ) -> Result<StructLayout, LayoutError> {
        self.struct_layout_in(fields, packed, &mut Vec::new())
    }

    fn struct_layout_in(
        &self,
        fields: &[LType],
        packed: bool,
        visiting: &mut Vec<String>,
    ) -> Result<StructLayout, LayoutError> {
        let mut offset = 0u64;
        let mut align = 1u64;
        let mut offsets = Vec::with_capacity(fields.len());
        for f in fields {
            let (s, a) = self.size_align_in(f, visiting)?;
            let a = if packed { 1 } else { a };
            offset = round_up(offset, a).ok_or(LayoutError::Overflow("struct size"))?;
            offsets.push(offset);
            offset = offset
                .checked_add(s)
                .ok_or(LayoutError::Overflow("struct size"))?;
            align = align.max(a);
        }
        let size = round_up(offset, align).ok_or(LayoutError::Overflow("struct size"))?;
        Ok(StructLayout {
            size,
            align,
            offsets,
        })
    }

    /// Byte offset of field `k` of a named struct (from the cache of
    /// [`Layouts::compute_all`] without copying the layout; `None` past the last field).
    pub fn named_offset(&self, name: &str, k: usize) -> Result<Option<u64>, LayoutError> {
        match self.cache.get(name) {
            Some(Ok(l)) => Ok(l.offsets.get(k).copied()),
            Some(Err(e)) => Err(e.clone()),
            None => Ok(self.named(name)?.offsets.get(k).copied()),
        }
    }

    /// Layout of a named struct (cached by [`Layouts::compute_all`]).
    pub fn named(&self, name: &str) -> Result<StructLayout, LayoutError> {
        match self.cache.get(name) {
            Some(r) => r.clone(),
            None => self.named_layout_uncached(name, &mut Vec::new()),
        }
    }

    /// Allocation size and ABI alignment of a type, in bytes.
    pub fn size_align(&self, t: &LType) -> Result<(u64, u64), LayoutError> {
        self.size_align_in(t, &mut Vec::new())
    }

    fn size_align_in(
        &self,
        t: &LType,
        visiting: &mut Vec<String>,
    ) -> Result<(u64, u64), LayoutError> {
        Ok(match t {
            LType::Int(n) => {
                let align = match *n {
                    0..=8 => 1,
                    9..=16 => 2,
                    17..=32 => 4,
                    _ => 8,
                };
                let bytes = (*n as u64).div_ceil(8);
                (
                    round_up(bytes, align).ok_or(LayoutError::Overflow("size"))?,
                    align,
                )
            }
            LType::Half | LType::BFloat => (2, 2),
            LType::Float => (4, 4),
            LType::Double => (8, 8),
            LType::X86Fp80 | LType::Fp128 => (16, 16),
            LType::Ptr(_) | LType::OpaquePtr => (8, 8),
            LType::Named(n) => {
                if visiting.iter().any(|v| **v == **n) {
                    return Err(LayoutError::ContainsItself(n.clone()));
                }
                match self.cache.get(&**n) {
                    Some(Ok(l)) => (l.size, l.align),
                    Some(Err(e)) => return Err(e.clone()),
                    None => {
                        let l = self.named_layout_uncached(n, visiting)?;
                        (l.size, l.align)
                    }
                }
            }
            LType::Struct { fields, packed } => {
                let l = self.struct_layout_in(fields, *packed, visiting)?;
                (l.size, l.align)
            }
            LType::Array(n, e) => {
                let (s, a) = self.size_align_in(e, visiting)?;
                (
                    s.checked_mul(*n)
                        .ok_or(LayoutError::Overflow("array size"))?,
                    a,
                )
            }
            LType::Vector(n, e) => {
                let (s, _) = self.size_align_in(e, visiting)?;
                let total = s
                    .checked_mul(*n)
                    .ok_or(LayoutError::Overflow("vector size"))?;
                let align = total
                    .checked_next_power_of_two()
                    .ok_or(LayoutError::Overflow("vector size"))?
                    .max(1);
                (
                    round_up(total, align).ok_or(LayoutError::Overflow("vector size"))?,
                    align,
                )
            }
            LType::Void | LType::Other(_) | LType::Func { .. } => {
                return Err(LayoutError::Unsized(t.clone()));
            }
        })
    }

    /// The strata value type of `t`, resolving named structs (see [`LType::scalar`]).
    pub fn value_type(&self, t: &LType) -> Option<Type> {
        t.value_type_in(Some(self), 0)
    }

    /// The field types of a struct type (resolving a named struct).
    pub fn struct_fields<'a>(&'a self, t: &'a LType) -> Option<(&'a [LType], bool)> {
        match t {
            LType::Struct { fields, packed } => Some((fields, *packed)),
            LType::Named(n) => match self.bodies.get(&**n) {
                Some(Some(LType::Struct { fields, packed })) => Some((fields, *packed)),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(fields: Vec<LType>) -> LType {
        LType::Struct {
            fields: fields.into(),
            packed: false,
        }
    }

    #[test]
    fn scalar_sizes() {
        let l = Layouts::default();
        assert_eq!(l.size_align(&LType::Int(1)).unwrap(), (1, 1));
        assert_eq!(l.size_align(&LType::Int(24)).unwrap(), (4, 4));
        assert_eq!(l.size_align(&LType::Int(128)).unwrap(), (16, 8));
        assert_eq!(l.size_align(&LType::X86Fp80).unwrap(), (16, 16));
        assert_eq!(l.size_align(&LType::i8_ptr()).unwrap(), (8, 8));
    }

    #[test]
    fn struct_padding_and_packing() {
        let mut l = Layouts::default();
        let s = st(vec![
            LType::Int(8),
            LType::Int(32),
            LType::Double,
            LType::Ptr(Arc::new(LType::Named("S".into()))),
        ]);
        l.define("S", Some(s.clone()));
        l.compute_all();
        let sl = l.named("S").unwrap();
        assert_eq!(
            (sl.size, sl.align, sl.offsets.clone()),
            (24, 8, vec![0, 4, 8, 16])
        );
        let p = l
            .struct_layout(&[LType::Int(8), LType::Int(32)], true)
            .unwrap();
        assert_eq!((p.size, p.align, p.offsets), (5, 1, vec![0, 1]));
        let arr = LType::Array(3, Arc::new(st(vec![LType::Int(32), LType::Int(8)])));
        assert_eq!(l.size_align(&arr).unwrap(), (24, 4));
    }

    #[test]
    fn recursive_and_opaque_types_are_errors() {
        let mut l = Layouts::default();
        l.define("R", Some(st(vec![LType::Named("R".into())])));
        l.define("O", None);
        l.compute_all();
        assert!(l.named("R").is_err());
        assert!(l.size_align(&LType::Named("O".into())).is_err());
        assert!(l
            .size_align(&LType::Array(u64::MAX, Arc::new(LType::Int(64))))
            .is_err());
    }

    #[test]
    fn shared_members_are_laid_out_once() {
        // Each level holds the next twice: naive recursion would take 2^40 steps.
        let mut l = Layouts::default();
        for i in 0..40 {
            let next = LType::Named(format!("T{}", i + 1).into());
            l.define(&format!("T{i}"), Some(st(vec![next.clone(), next])));
        }
        l.define("T40", Some(st(vec![LType::Int(8)])));
        l.compute_all();
        assert_eq!(l.named("T0").unwrap().size, 1 << 40);
        assert_eq!(l.named("T30").unwrap().size, 1 << 10);
    }

    #[test]
    fn prints_types() {
        let f = LType::Func {
            ret: Arc::new(LType::Int(32)),
            params: vec![LType::i8_ptr()].into(),
            varargs: true,
        };
        assert_eq!(f.to_string(), "i32 (i8*, ...)");
        assert_eq!(
            LType::Struct {
                fields: vec![LType::Int(8)].into(),
                packed: true
            }
            .to_string(),
            "<{ i8 }>"
        );
        assert_eq!(
            LType::Named("struct.a b".into()).to_string(),
            "%\"struct.a b\""
        );
    }
}
