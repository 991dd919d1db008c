//! Scalar parts of IR values that do not fit one register: aggregates, `i128` (and other
//! integers wider than 64 bits) and `x86_fp80`, with the conventions lowering uses for them.
//!
//! What: [`layout`] splits a type into its scalar parts, in order, each with its register
//! class, the type a load or store of it touches and its byte offset in memory. Lowering
//! ([`super::lower`]) gives a value one vreg per part, so every rule below is a rule per part.
//!
//! - **Aggregates** are scalarized: one part per scalar member, depth first, at the member's
//!   offset in the IR's x86-64 layout ([`crate::ir::aggregate`]). `extractvalue` and
//!   `insertvalue` become one `mov` per part of the result; loads, stores, selects and copies
//!   act per part; constants are materialised per part.
//! - **Wide integers** (`iN`, 64 < N <= 128) are a register pair: the low 64 bits, then the
//!   high bits (an `i64`, or the narrowest of `i8`/`i16`/`i32` that holds them, for memory).
//!   `add`/`sub` are `add`+`adc` / `sub`+`sbb`; `and`/`or`/`xor` act per part; `icmp` is
//!   one `icmp2` on both pairs; `mul`, `sdiv`, `udiv`, `srem`, `urem`, `shl`, `lshr`, `ashr`
//!   and conversions to and from floats are calls of the compiler-rt helpers named in
//!   [`LIBCALLS`] (`__multi3`, `__divti3`, `__ashlti3` with the count's low part, ...).
//! - **`x86_fp80`** is a pair of integer registers on both targets: the 64-bit significand
//!   (with its explicit integer bit), then the 16 bits of sign and exponent; in memory the
//!   same 10 bytes at offsets 0 and 8. Arithmetic, comparison (`__cmpxf2(a, b, predicate)`
//!   returning 0/1, our own helper: compiler-rt has none for x87 values) and conversions are
//!   soft-float calls (`__addxf3`, `__extenddfxf2`, `__fixxfdi`, ..., `fmodl` for `frem`);
//!   `fneg` flips bit 15 of the high part. This is our convention, not the x87 one: emission
//!   would bridge to the x87 stack (SysV passes `long double` in memory) inside the helpers.
//! - **Vectors** `<N x T>` ([`vector_form`]) live in the float class (xmm on x86-64, v on
//!   aarch64: the same registers as `f32`/`f64`, see [`super::targets`]), one 128-bit part
//!   per 128 bits of register form: `<4 x i32>` is one part, `<8 x i32>` two (lanes 0-3,
//!   4-7), `<2 x i128>` two (one lane each); a narrower vector (`<2 x i32>`, `<4 x i8>`)
//!   is one part holding its lanes in the low bits. `i1` lanes are lane masks of
//!   `128 / N` bits (at least 8, at most 64). In memory the part is at its lanes' packed
//!   offset and a load or store touches the part's bytes (`load.v16`, `store.v8`, ...; for
//!   `i1` lanes it stands for the expansion of bits to masks or the reverse).
//!   Operations are [`super::lower`]'s vector rules.
//!
//! Calling convention of parts (ours, consistent between caller and callee): the parts of
//! every argument take the next argument register of their class in order (integer parts
//! rdi rsi rdx rcx r8 r9 / x0-x7, float parts xmm0-7 / v0-7), the rest go to the stack area
//! one 8-byte slot each; results take `int_rets` and `float_rets` of the target in order
//! (rax rdx rdi rsi rcx r8 r9 / x0-x7; xmm0-7 / v0-7). For the `{ i64, i64 }`-like literal
//! structs clang returns and the `i128` values of both ABIs this is exactly SysV's and
//! AAPCS64's classification (rax:rdx, xmm0:xmm1, x0:x1); it differs for an `i128` argument
//! that SysV would move to the stack whole, for AAPCS64's even-register rule of `i128`
//! arguments, and for `long double`, which SysV passes in memory. A vector of one part
//! (`__m128`, `<2 x i32>`, NEON's 64- and 128-bit vectors) takes one float argument register,
//! as SysV and AAPCS64 pass it; a wider vector takes one per part, where SysV without AVX and
//! AAPCS64 pass it in memory; a vector part wider than 8 bytes takes 16 stack bytes, 16-aligned.
//!
//! Limits: at most [`MAX_PARTS`] parts per value (an error names the type otherwise).
//!
//! Complexity: O(parts) per type.

use crate::ir::Type;
use crate::registers::RegClass;
use smallvec::SmallVec;

/// Most scalar parts one value may have.
pub const MAX_PARTS: usize = 256;

/// One scalar part of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Register class of the part's vreg.
    pub class: RegClass,
    /// The scalar type a load or store of the part touches.
    pub mem: Type,
    /// Byte offset of the part from the value's address.
    pub offset: u64,
}

/// The parts of a type, in order.
pub type Layout = SmallVec<[Part; 2]>;

/// Library helpers lowering calls: `call -1-k` names `LIBCALLS[k]` (they are not module
/// symbols).
pub const LIBCALLS: &[&str] = &[
    "fmod",
    "fmodf",
    "fmodl",
    "__multi3",
    "__divti3",
    "__udivti3",
    "__modti3",
    "__umodti3",
    "__ashlti3",
    "__lshrti3",
    "__ashrti3",
    "__addxf3",
    "__subxf3",
    "__mulxf3",
    "__divxf3",
    "__cmpxf2",
    "__extendsfxf2",
    "__extenddfxf2",
    "__truncxfsf2",
    "__truncxfdf2",
    "__floatdixf",
    "__floatundixf",
    "__floattixf",
    "__floatuntixf",
    "__fixxfdi",
    "__fixunsxfdi",
    "__fixxfti",
    "__fixunsxfti",
    "__floattisf",
    "__floattidf",
    "__floatuntisf",
    "__floatuntidf",
    "__fixsfti",
    "__fixdfti",
    "__fixunssfti",
    "__fixunsdfti",
];

/// The immediate of a `call` of library helper `name` (`-1 - index`); `None` if unknown.
pub fn libcall_imm(name: &str) -> Option<i64> {
    LIBCALLS
        .iter()
        .position(|n| *n == name)
        .map(|k| -1 - k as i64)
}

/// True if values of `ty` take more than one part, or a part of a different shape than a
/// plain scalar (wide integers, `x86_fp80`, aggregates, vectors wider than 128 bits in
/// their register form).
pub fn is_split(ty: Type) -> bool {
    matches!(ty, Type::I128 | Type::F80 | Type::Agg(_))
        || matches!(ty, Type::Int(n) if n > 64)
        || vector_form(ty).is_some_and(|v| v.parts > 1)
}

/// Bits of a vector register (xmm on x86-64 with SSE2, q registers on aarch64 with NEON).
pub const VECTOR_BITS: u32 = 128;

/// The register form of a vector type (see the module doc): lanes in containers of
/// `width` bits, `per_part` lanes to a 128-bit part, the low lanes of a part first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorForm {
    /// Lane count of the type.
    pub lanes: u32,
    /// Lane type.
    pub elem: Type,
    /// Bits of a lane's container in a register (8, 16, 32, 64 or 128).
    pub width: u32,
    /// Lanes per 128-bit part.
    pub per_part: u32,
    /// Number of parts.
    pub parts: u32,
}

impl VectorForm {
    /// Lanes of part `k` (the last part may be partial).
    pub fn part_lanes(self, k: u32) -> u32 {
        self.per_part.min(self.lanes - k * self.per_part)
    }
}

/// The register form of vector type `ty`; `None` for any other type. An `i1` lane (a lane
/// mask, the result of a lane-wise compare) takes `128 / N` bits for `N` lanes (between 8
/// and 64, as LLVM's type legalizer promotes `<4 x i1>` to `<4 x i32>`) and holds all ones
/// or zero; other lanes take their width rounded up to 8, 16, 32, 64 or 128 bits.
pub fn vector_form(ty: Type) -> Option<VectorForm> {
    let (lanes, elem) = ty.vector_shape()?;
    let width = if elem == Type::I1 {
        (VECTOR_BITS / lanes.next_power_of_two()).clamp(8, 64)
    } else {
        elem.bits().next_power_of_two().clamp(8, 128)
    };
    let per_part = VECTOR_BITS / width;
    Some(VectorForm {
        lanes,
        elem,
        width,
        per_part,
        parts: lanes.div_ceil(per_part),
    })
}

/// Why a type has no register parts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PartsError {
    /// A `void` value.
    #[error("a void value has no parts")]
    Void,
    /// An aggregate of more scalars than lowering passes in registers.
    #[error("a value of type {0} has more than {MAX_PARTS} scalar parts")]
    TooMany(Type),
}

/// The parts of `ty`.
///
/// # Errors
/// [`PartsError`]: `void`, or more than [`MAX_PARTS`] parts.
pub fn layout(ty: Type) -> Result<Layout, PartsError> {
    let mut out = Layout::new();
    push_parts(ty, 0, &mut out)?;
    Ok(out)
}

fn high_type(bits: u32) -> Type {
    match bits {
        0..=8 => Type::I8,
        9..=16 => Type::I16,
        17..=32 => Type::I32,
        _ => Type::I64,
    }
}

fn push_parts(ty: Type, base: u64, out: &mut Layout) -> Result<(), PartsError> {
    let int = |mem, offset| Part {
        class: RegClass::Int,
        mem,
        offset,
    };
    match ty {
        Type::Void => return Err(PartsError::Void),
        Type::F32 | Type::F64 => out.push(Part {
            class: RegClass::Float,
            mem: ty,
            offset: base,
        }),
        Type::I128 => {
            out.push(int(Type::I64, base));
            out.push(int(Type::I64, base + 8));
        }
        Type::F80 => {
            out.push(int(Type::I64, base));
            out.push(int(Type::I16, base + 8));
        }
        Type::Int(n) if n > 64 => {
            out.push(int(Type::I64, base));
            out.push(int(high_type(n as u32 - 64), base + 8));
        }
        Type::Vec(_) => {
            let form = vector_form(ty).expect("a vector type has a register form");
            if form.parts as usize + out.len() > MAX_PARTS {
                return Err(PartsError::TooMany(ty));
            }
            for k in 0..form.parts {
                let lanes = form.part_lanes(k);
                // Lanes are packed in memory (`i1` lanes are bits).
                let offset = (k * form.per_part * form.elem.bits()) as u64 / 8;
                out.push(Part {
                    class: RegClass::Float,
                    mem: Type::vector_of(lanes, form.elem).map_err(|_| PartsError::TooMany(ty))?,
                    offset: base + offset,
                });
            }
        }
        Type::Agg(id) => {
            let info = id.info();
            for k in 0..info.len() {
                let member = info.member(k).expect("member index in range");
                push_parts(member, base + info.offsets[k], out)?;
                if out.len() > MAX_PARTS {
                    return Err(PartsError::TooMany(ty));
                }
            }
        }
        _ => out.push(int(ty, base)),
    }
    Ok(())
}

/// The range of `agg`'s parts that member `index` occupies (`None` for a scalar type or an
/// index out of range).
pub fn member_parts(agg: Type, index: usize) -> Option<std::ops::Range<usize>> {
    let info = agg.agg_info()?;
    if index >= info.len() {
        return None;
    }
    let mut start = 0;
    for k in 0..index {
        start += layout(info.member(k)?).ok()?.len();
    }
    let len = layout(info.member(index)?).ok()?.len();
    Some(start..start + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_members_and_offsets() {
        let pair = Type::struct_of(&[Type::I64, Type::Ptr]).unwrap();
        let l = layout(pair).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!((l[0].offset, l[1].offset), (0, 8));
        let nested = Type::struct_of(&[Type::I8, Type::F64, pair, Type::I128]).unwrap();
        let l = layout(nested).unwrap();
        let offsets: Vec<u64> = l.iter().map(|p| p.offset).collect();
        assert_eq!(offsets, [0, 8, 16, 24, 32, 40]);
        assert_eq!(l[1].class, RegClass::Float);
        assert_eq!(member_parts(nested, 2), Some(2..4));
        assert_eq!(member_parts(nested, 3), Some(4..6));
        assert_eq!(member_parts(nested, 4), None);
        let f80 = layout(Type::F80).unwrap();
        assert_eq!((f80[1].mem, f80[1].offset), (Type::I16, 8));
        assert_eq!(layout(Type::Int(80)).unwrap(), f80);
        assert!(layout(Type::array_of(300, Type::I8).unwrap()).is_err());
        assert!(layout(Type::Void).is_err());
        assert_eq!(libcall_imm("fmod"), Some(-1));
        // Vectors: 128-bit parts of packed lanes; masks in 128 / N bit containers.
        let v8 = Type::vector_of(8, Type::I32).unwrap();
        let l = layout(v8).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!((l[0].class, l[1].offset), (RegClass::Float, 16));
        assert!(is_split(v8) && !is_split(Type::vector_of(4, Type::F32).unwrap()));
        let narrow = vector_form(Type::vector_of(2, Type::I32).unwrap()).unwrap();
        assert_eq!((narrow.width, narrow.per_part, narrow.parts), (32, 4, 1));
        let mask = vector_form(Type::vector_of(4, Type::I1).unwrap()).unwrap();
        assert_eq!((mask.width, mask.parts), (32, 1));
        let wide_mask = vector_form(Type::vector_of(32, Type::I1).unwrap()).unwrap();
        assert_eq!((wide_mask.width, wide_mask.parts), (8, 2));
        let lanes128 = layout(Type::vector_of(2, Type::I128).unwrap()).unwrap();
        assert_eq!((lanes128.len(), lanes128[1].offset), (2, 16));
        let odd = vector_form(Type::vector_of(3, Type::I64).unwrap()).unwrap();
        assert_eq!((odd.parts, odd.part_lanes(1)), (2, 1));
        assert_eq!(libcall_imm("__multi3"), Some(-4));
    }
}
