//! The SCCP lattice: one cell per SSA value (Wegman & Zadeck 1991, section 3; 003 "Value
//! Evaluation"; DESIGN.md 4 for the names).
//!
//! ```text
//!                        Unknown                 (top: no evidence yet; "Top" in 003)
//!          /      /      |       \        \
//!   Const(0) Const(1)  ... Const(@g) ... Const(c)   (one constant on every execution)
//!          \      \      |       /        /
//!                      Overdefined               (bottom: may vary; "Bottom" in 003)
//! ```
//!
//! A cell only moves down, at most twice: `Unknown -> Const(c) -> Overdefined`, or straight
//! to `Overdefined`. [`LatticeValue::meet`] is the greatest lower bound; [`LatticeValue::rank`]
//! numbers the levels so that the solver's debug check "a cell never moves up" is one
//! comparison (plus "a constant never changes to another constant").
//!
//! Constants ([`Constant`]) are either scalars with exactly the interpreter's representation
//! ([`Val`]: integers masked to their width, floats as IEEE bit patterns, pointers as 64-bit
//! addresses, `null` as pointer 0) so that folding calls [`crate::interp::ops`] directly and
//! can never disagree with execution, or link-time addresses: a module symbol plus a byte
//! offset (`@g` is offset 0; a `gep` of it by constants moves the offset), or a
//! `blockaddress(...)` constant of the pool, kept by handle. Two constants are equal when
//! they are bit-identical: `+0.0` and `-0.0` differ, a NaN equals itself only with the same
//! payload. `undef` is the zero of its type, as in the interpreter (so SCCP does not exploit
//! `undef` the way LLVM does; doing so would make folding and the oracle disagree).
//!
//! Aggregates (struct and array values) are lattice values too: a `Const` cell of an
//! aggregate type is [`Constant::Aggregate`], a member list in the analysis' hash-consed
//! [`AggConsts`] table, every member itself a known constant. An aggregate some of whose
//! members are known and others overdefined is [`LatticeValue::Partial`]: a list of member
//! cells in the same table (the product lattice of the members, as in LLVM's SCCP, which
//! keeps one lattice value per struct field). So an `insertvalue` of a known member into an
//! overdefined aggregate (clang's `{ i64, i64 }` returns are built that way from loads) still
//! lets an `extractvalue` of that member fold. `insertvalue` of known parts into a known
//! aggregate is a new known aggregate, `extractvalue` of a known member is the member's
//! constant, so folding goes through chains of both; phis and selects meet aggregates member
//! by member ([`AggConsts::meet`]); a pool aggregate constant (and `undef` of an aggregate
//! type, which is zero as in the interpreter) enters the lattice through
//! [`AggConsts::of_pool`].
//!
//! ```text
//!   Unknown  >  Const(aggregate)  >  Partial([m0, m1, ...])  >  Overdefined
//! ```
//!
//! A `Partial` cell is normalised: its members are `Const`, `Partial` (nested aggregates) or
//! `Overdefined`, never `Unknown`; not all are `Const` (that is a `Const` aggregate) and not
//! all are `Overdefined` (that is `Overdefined`). A `Partial` cell may move to another
//! `Partial` cell whose members are each at or below the old ones, so a cell of an
//! aggregate with n scalar members moves down at most n + 2 times.
//!
//! Invariants: a `Const` cell's value has the type of the SSA value it describes; an
//! `Aggregate` or `Partial` id names a list of the table it was made with, whose members have
//! the aggregate type's member types. Complexity: every operation is O(1) except aggregate
//! construction and meets of aggregates, O(members).

use crate::interp::Val;
use crate::ir::{Const, ConstData, ConstKind, ConstPool, Symbol, Type};
use rustc_hash::FxHashMap;

/// A constant known to the solver. Equality is structural (bit-identical), as derived; it
/// is written out so that it inlines into the solver's meet (see [`LatticeValue`]'s).
#[derive(Clone, Copy, Eq, Hash, Debug)]
#[allow(clippy::derived_hash_with_manual_eq)] // `eq` is the structural equality `Hash` assumes
pub enum Constant {
    /// A scalar with the interpreter's representation.
    Scalar(Val),
    /// The address of a module symbol plus a wrapping byte offset (`@g` is offset 0). Only
    /// `gep` by constant indices computes on it; a load from it folds when the symbol is a
    /// read-only global with definitive contents ([`crate::ir::SymbolTable::read_only`]).
    Symbol {
        /// The symbol.
        symbol: Symbol,
        /// Byte offset from its address.
        offset: i64,
    },
    /// A `blockaddress` constant of the function's pool; it takes part in phis, selects,
    /// copies and `indirect_br` but nothing computes on it.
    Address(Const),
    /// A struct or array value whose members are all known: list `id` of the analysis'
    /// [`AggConsts`].
    Aggregate {
        /// The aggregate type.
        ty: Type,
        /// Index of the member list in the [`AggConsts`] table.
        id: u32,
    },
}

/// Most aggregate constants one analysis builds; past it, new aggregates are `Overdefined`
/// (bounds the table like the solver's memory limit bounds its state).
pub const MAX_AGG_CONSTS: usize = 1 << 16;

/// The hash-consed member lists of the aggregate constants of one analysis (cleared per
/// function).
#[derive(Clone, Default, Debug)]
pub struct AggConsts {
    lists: Vec<Box<[Constant]>>,
    index: FxHashMap<Box<[Constant]>, u32>,
    /// Member cells of the `Partial` aggregates.
    partials: Vec<Box<[LatticeValue]>>,
    partial_index: FxHashMap<Box<[LatticeValue]>, u32>,
}

impl AggConsts {
    /// Empties the table (keeping capacity). O(1) when it is already empty (most functions
    /// have no aggregate constant; clearing a hash map that once grew rewrites all its
    /// control bytes).
    pub fn clear(&mut self) {
        if !self.lists.is_empty() {
            self.lists.clear();
            self.index.clear();
        }
        if !self.partials.is_empty() {
            self.partials.clear();
            self.partial_index.clear();
        }
    }

    /// The cell of an aggregate of type `ty` with these member cells, normalised (see the
    /// module doc): `Unknown` if a member is, `Const` if all are constants, `Overdefined` if
    /// all are overdefined (or past [`MAX_AGG_CONSTS`]), otherwise `Partial`.
    pub fn build(&mut self, ty: Type, members: &[LatticeValue]) -> LatticeValue {
        if members.contains(&LatticeValue::Unknown) {
            return LatticeValue::Unknown;
        }
        if members.iter().all(|m| matches!(m, LatticeValue::Const(_))) {
            let ks: Vec<Constant> = members.iter().filter_map(|m| m.constant()).collect();
            return self
                .make(ty, &ks)
                .map_or(LatticeValue::Overdefined, LatticeValue::Const);
        }
        if members.iter().all(|m| *m == LatticeValue::Overdefined) {
            return LatticeValue::Overdefined;
        }
        let id = match self.partial_index.get(members) {
            Some(&id) => id,
            None => {
                if self.partials.len() >= MAX_AGG_CONSTS {
                    return LatticeValue::Overdefined;
                }
                let id = self.partials.len() as u32;
                self.partials.push(members.into());
                self.partial_index.insert(members.into(), id);
                id
            }
        };
        LatticeValue::Partial { ty, id }
    }

    /// The member cells of an aggregate cell with `n` members: a `Const` aggregate's
    /// constants, a `Partial`'s cells, all `Overdefined` for `Overdefined`; `None` for
    /// `Unknown`, a scalar or a list of another length.
    pub fn member_cells(&self, cell: LatticeValue, n: usize) -> Option<Vec<LatticeValue>> {
        let v: Vec<LatticeValue> = match cell {
            LatticeValue::Const(k) => self
                .members(k)?
                .iter()
                .map(|&m| LatticeValue::Const(m))
                .collect(),
            LatticeValue::Partial { id, .. } => self.partials.get(id as usize)?.to_vec(),
            LatticeValue::Overdefined => vec![LatticeValue::Overdefined; n],
            LatticeValue::Unknown => return None,
        };
        (v.len() == n).then_some(v)
    }

    /// The cell of member `index` of an aggregate cell: `Unknown` for `Unknown`,
    /// `Overdefined` for `Overdefined`, a scalar cell or an index out of range.
    pub fn member(&self, cell: LatticeValue, index: usize) -> LatticeValue {
        match cell {
            LatticeValue::Unknown => LatticeValue::Unknown,
            LatticeValue::Const(k) => self
                .members(k)
                .and_then(|ms| ms.get(index))
                .map_or(LatticeValue::Overdefined, |&m| LatticeValue::Const(m)),
            LatticeValue::Partial { id, .. } => self
                .partials
                .get(id as usize)
                .and_then(|ms| ms.get(index))
                .copied()
                .unwrap_or(LatticeValue::Overdefined),
            LatticeValue::Overdefined => LatticeValue::Overdefined,
        }
    }

    /// The greatest lower bound of two cells, member by member for two aggregate cells of
    /// one type (`Const` aggregates or `Partial`s); otherwise [`LatticeValue::meet`].
    #[inline]
    pub fn meet(&mut self, a: LatticeValue, b: LatticeValue) -> LatticeValue {
        match (a.aggregate_type(), b.aggregate_type()) {
            (Some(x), Some(y)) if x == y && a != b => self.meet_aggregates(x, a, b),
            _ => a.meet(b),
        }
    }

    /// [`AggConsts::meet`] of two different aggregate cells of type `ty`, member by member
    /// (out of line: the solver's phi loop meets scalars almost always).
    #[inline(never)]
    fn meet_aggregates(&mut self, ty: Type, a: LatticeValue, b: LatticeValue) -> LatticeValue {
        let Some(n) = ty.shape_info().map(|i| i.len()) else {
            return LatticeValue::Overdefined;
        };
        let (Some(xs), Some(ys)) = (self.member_cells(a, n), self.member_cells(b, n)) else {
            return LatticeValue::Overdefined;
        };
        let ms: Vec<LatticeValue> = xs
            .into_iter()
            .zip(ys)
            .map(|(x, y)| self.meet(x, y))
            .collect();
        self.build(ty, &ms)
    }

    /// The aggregate of type `ty` with these members; `None` past [`MAX_AGG_CONSTS`].
    pub fn make(&mut self, ty: Type, members: &[Constant]) -> Option<Constant> {
        let id = match self.index.get(members) {
            Some(&id) => id,
            None => {
                if self.lists.len() >= MAX_AGG_CONSTS {
                    return None;
                }
                let id = self.lists.len() as u32;
                self.lists.push(members.into());
                self.index.insert(members.into(), id);
                id
            }
        };
        Some(Constant::Aggregate { ty, id })
    }

    /// The members of an aggregate constant of this table.
    pub fn members(&self, k: Constant) -> Option<&[Constant]> {
        match k {
            Constant::Aggregate { id, .. } => self.lists.get(id as usize).map(|l| &**l),
            _ => None,
        }
    }

    /// The constant of a pool entry, aggregates included (see [`Constant::of_pool`]).
    #[inline]
    pub fn of_pool(&mut self, pool: &ConstPool, c: Const) -> Option<Constant> {
        let data = pool.try_get(c)?;
        if matches!(data.ty, Type::Agg(_) | Type::Vec(_)) {
            self.aggregate_of_pool(pool, c, data)
        } else {
            Constant::of_pool(c, data)
        }
    }

    /// [`AggConsts::of_pool`] of a pool entry of an aggregate type (out of line: most pool
    /// constants are scalars).
    #[inline(never)]
    fn aggregate_of_pool(
        &mut self,
        pool: &ConstPool,
        c: Const,
        data: ConstData,
    ) -> Option<Constant> {
        let info = data.ty.shape_info()?;
        let mut members = Vec::with_capacity(info.len());
        match data.kind {
            ConstKind::Aggregate(_) => {
                let ms = pool.members(c)?;
                if ms.len() != info.len() {
                    return None;
                }
                for &m in ms {
                    members.push(self.of_pool(pool, m)?);
                }
            }
            ConstKind::Undef => {
                for i in 0..info.len() {
                    members.push(self.zero(info.member(i)?)?);
                }
            }
            _ => return None,
        }
        self.make(data.ty, &members)
    }

    /// The zero of a value type (`undef` is zero, as in the interpreter).
    fn zero(&mut self, ty: Type) -> Option<Constant> {
        match ty.shape_info() {
            None => Val::zero(ty).map(Constant::Scalar),
            Some(info) => {
                let mut members = Vec::with_capacity(info.len());
                for i in 0..info.len() {
                    members.push(self.zero(info.member(i)?)?);
                }
                self.make(ty, &members)
            }
        }
    }

    /// The pool entry for `k` (see [`Constant::to_pool`]), aggregates interned member by
    /// member; `None` if some member has no pool form.
    pub fn to_pool(&self, k: Constant, pool: &mut ConstPool) -> Option<Const> {
        match k {
            Constant::Aggregate { ty, .. } => {
                let members = self.members(k)?;
                let mut consts = Vec::with_capacity(members.len());
                for &m in members {
                    consts.push(self.to_pool(m, pool)?);
                }
                Some(pool.aggregate(ty, &consts))
            }
            k => k.to_pool(pool),
        }
    }
}

impl PartialEq for Constant {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Constant::Scalar(a), Constant::Scalar(b)) => a == b,
            (
                Constant::Symbol {
                    symbol: s,
                    offset: o,
                },
                Constant::Symbol {
                    symbol: t,
                    offset: p,
                },
            ) => s == t && o == p,
            (Constant::Address(a), Constant::Address(b)) => a == b,
            (Constant::Aggregate { ty: s, id: i }, Constant::Aggregate { ty: t, id: j }) => {
                i == j && s == t
            }
            _ => false,
        }
    }
}

impl Constant {
    /// The constant of a pool entry: scalars for integers, floats, `null` and `undef` (the
    /// zero of its type), symbols at offset 0, block addresses by handle. `None` for a
    /// constant that fits no value (a `void` constant, a kind that does not match its type).
    /// The scalars are [`Val::from_const`]'s (with no symbol or block address), written out
    /// here because the solver converts every pool entry of every function (a test checks
    /// that the two agree).
    #[inline]
    pub fn of_pool(c: Const, data: ConstData) -> Option<Constant> {
        let v = match (data.kind, data.ty) {
            (_, Type::Void | Type::Agg(_) | Type::Vec(_)) => return None,
            (ConstKind::SymbolAddr(symbol), Type::Ptr) => {
                return Some(Constant::Symbol { symbol, offset: 0 })
            }
            (ConstKind::BlockAddr(_), Type::Ptr) => return Some(Constant::Address(c)),
            (ConstKind::Undef, t) => Val::uint(t, 0),
            (ConstKind::Int(b), t) if t.is_int() || t == Type::Ptr => Val::uint(t, b),
            (ConstKind::Float(b), t) if t.is_float() => Val::uint(t, b),
            (ConstKind::Null, Type::Ptr) => Val::Ptr(0),
            _ => return None,
        };
        Some(Constant::Scalar(v))
    }

    /// The pool entry describing this constant, interned into `pool` (scalars, symbols at
    /// offset 0), or the original handle (block addresses). `None` for a non-null pointer
    /// scalar or a symbol at a non-zero offset, which have no pool form (they stay computed
    /// by their instruction), and for aggregates (use [`AggConsts::to_pool`]).
    pub fn to_pool(self, pool: &mut ConstPool) -> Option<Const> {
        let data = match self {
            Constant::Address(c) => return Some(c),
            Constant::Symbol { symbol, offset: 0 } => ConstData {
                ty: Type::Ptr,
                kind: ConstKind::SymbolAddr(symbol),
            },
            Constant::Symbol { .. } | Constant::Aggregate { .. } => return None,
            Constant::Scalar(Val::Int { ty, bits }) => ConstData::int(ty, bits),
            Constant::Scalar(Val::Float { ty, bits }) => ConstData {
                ty,
                kind: ConstKind::Float(bits),
            },
            Constant::Scalar(Val::Ptr(0)) => ConstData {
                ty: Type::Ptr,
                kind: ConstKind::Null,
            },
            Constant::Scalar(Val::Ptr(_)) | Constant::Scalar(Val::Agg { .. }) => return None,
        };
        Some(pool.intern(data))
    }

    /// The scalar, if this is one.
    pub fn scalar(self) -> Option<Val> {
        match self {
            Constant::Scalar(v) => Some(v),
            Constant::Symbol { .. } | Constant::Address(_) | Constant::Aggregate { .. } => None,
        }
    }
}

/// The lattice value of one SSA value (see the module doc for the drawing). Equality is
/// structural, as derived, written out to compare the variant first and inline (the solver
/// compares cells on every update).
#[derive(Clone, Copy, Eq, Hash, Debug, Default)]
#[allow(clippy::derived_hash_with_manual_eq)] // `eq` is the structural equality `Hash` assumes
pub enum LatticeValue {
    /// Top: not yet known to have any value (not executed so far).
    #[default]
    Unknown,
    /// The same constant on every execution.
    Const(Constant),
    /// An aggregate with some members known and some overdefined: list `id` of the
    /// analysis' [`AggConsts`] (member cells; see the module doc).
    Partial {
        /// The aggregate type.
        ty: Type,
        /// Index of the member cell list in the [`AggConsts`] table.
        id: u32,
    },
    /// Bottom: may take more than one value.
    Overdefined,
}

impl PartialEq for LatticeValue {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (LatticeValue::Unknown, LatticeValue::Unknown)
            | (LatticeValue::Overdefined, LatticeValue::Overdefined) => true,
            (LatticeValue::Const(a), LatticeValue::Const(b)) => a == b,
            (LatticeValue::Partial { ty: s, id: i }, LatticeValue::Partial { ty: t, id: j }) => {
                i == j && s == t
            }
            _ => false,
        }
    }
}

impl LatticeValue {
    /// A scalar constant cell.
    pub fn scalar(v: Val) -> Self {
        LatticeValue::Const(Constant::Scalar(v))
    }

    /// The greatest lower bound: `Unknown` is the identity, `Overdefined` absorbs, two
    /// different constants meet at `Overdefined` (also two aggregates: meeting them member
    /// by member needs the table, [`AggConsts::meet`]).
    #[inline]
    pub fn meet(self, other: LatticeValue) -> LatticeValue {
        match (self, other) {
            (LatticeValue::Unknown, x) | (x, LatticeValue::Unknown) => x,
            (LatticeValue::Const(a), LatticeValue::Const(b)) if a == b => self,
            (LatticeValue::Partial { ty: s, id: i }, LatticeValue::Partial { ty: t, id: j })
                if s == t && i == j =>
            {
                self
            }
            _ => LatticeValue::Overdefined,
        }
    }

    /// Height from the top: `Unknown` 0, `Const` 1, `Partial` 2, `Overdefined` 3.
    #[inline]
    pub fn rank(self) -> u8 {
        match self {
            LatticeValue::Unknown => 0,
            LatticeValue::Const(_) => 1,
            LatticeValue::Partial { .. } => 2,
            LatticeValue::Overdefined => 3,
        }
    }

    /// True if moving from `self` to `new` goes down the lattice or stays (the monotonicity
    /// the solver checks in debug builds). A `Partial` may move to another `Partial` of its
    /// type (whose members the table would have to compare).
    #[inline]
    pub fn allows(self, new: LatticeValue) -> bool {
        match (self, new) {
            (LatticeValue::Partial { ty: a, .. }, LatticeValue::Partial { ty: b, .. }) => a == b,
            _ => self.rank() < new.rank() || self == new,
        }
    }

    /// The aggregate type of a `Const` aggregate or `Partial` cell.
    #[inline]
    pub fn aggregate_type(self) -> Option<Type> {
        match self {
            LatticeValue::Const(Constant::Aggregate { ty, .. })
            | LatticeValue::Partial { ty, .. } => Some(ty),
            _ => None,
        }
    }

    /// The constant, if the cell holds one.
    #[inline]
    pub fn constant(self) -> Option<Constant> {
        match self {
            LatticeValue::Const(c) => Some(c),
            _ => None,
        }
    }

    /// The scalar constant, if the cell holds one.
    #[inline]
    pub fn as_scalar(self) -> Option<Val> {
        self.constant().and_then(Constant::scalar)
    }
}

impl std::fmt::Display for LatticeValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LatticeValue::Unknown => f.write_str("unknown"),
            LatticeValue::Const(Constant::Scalar(v)) => write!(f, "const {v}"),
            LatticeValue::Const(Constant::Symbol { symbol, offset }) => {
                write!(f, "const address {symbol}{offset:+}")
            }
            LatticeValue::Const(Constant::Address(c)) => write!(f, "const address {c}"),
            LatticeValue::Const(Constant::Aggregate { ty, id }) => {
                write!(f, "const {ty} aggregate #{id}")
            }
            LatticeValue::Partial { ty, id } => write!(f, "partial {ty} aggregate #{id}"),
            LatticeValue::Overdefined => f.write_str("overdefined"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meet_table() {
        let one = LatticeValue::scalar(Val::int(Type::I32, 1));
        let two = LatticeValue::scalar(Val::int(Type::I32, 2));
        let (u, o) = (LatticeValue::Unknown, LatticeValue::Overdefined);
        assert_eq!(u.meet(one), one);
        assert_eq!(one.meet(u), one);
        assert_eq!(one.meet(one), one);
        assert_eq!(one.meet(two), o);
        assert_eq!(o.meet(one), o);
        assert_eq!(u.meet(u), u);
        assert_eq!(u.meet(o), o);
        let pz = LatticeValue::scalar(Val::f64(0.0));
        let nz = LatticeValue::scalar(Val::f64(-0.0));
        assert_eq!(pz.meet(nz), o, "+0.0 and -0.0 are different constants");
        let nan = LatticeValue::scalar(Val::f64(f64::NAN));
        assert_eq!(nan.meet(nan), nan);
    }

    #[test]
    fn monotonicity_check() {
        let one = LatticeValue::scalar(Val::int(Type::I32, 1));
        let two = LatticeValue::scalar(Val::int(Type::I32, 2));
        assert!(LatticeValue::Unknown.allows(one));
        assert!(one.allows(LatticeValue::Overdefined));
        assert!(!one.allows(two));
        assert!(!one.allows(LatticeValue::Unknown));
        assert!(!LatticeValue::Overdefined.allows(one));
    }

    /// [`Constant::of_pool`] gives the interpreter's value ([`Val::from_const`]) for every
    /// scalar kind and type, and `None` where the interpreter rejects the constant.
    #[test]
    fn of_pool_matches_the_interpreter() {
        // Every type with a name, and a bitfield width.
        let types = Type::ALL.into_iter().chain([Type::Int(24)]);
        let kinds = [
            ConstKind::Undef,
            ConstKind::Null,
            ConstKind::Int(u128::MAX),
            ConstKind::Int(5),
            ConstKind::Float(0x4000_0000_0000_0000),
            ConstKind::Float(u128::MAX),
            ConstKind::SymbolAddr(Symbol::new(1)),
            ConstKind::BlockAddr(crate::ir::Block::new(1)),
            ConstKind::Aggregate(0),
        ];
        for ty in types {
            for kind in kinds {
                let data = ConstData { ty, kind };
                let expected = match kind {
                    ConstKind::SymbolAddr(symbol) if ty == Type::Ptr => {
                        Some(Constant::Symbol { symbol, offset: 0 })
                    }
                    ConstKind::BlockAddr(_) if ty == Type::Ptr => {
                        Some(Constant::Address(Const::new(0)))
                    }
                    _ => Val::from_const(data, |_| None, |_| None)
                        .ok()
                        .map(Constant::Scalar),
                };
                assert_eq!(Constant::of_pool(Const::new(0), data), expected, "{data:?}");
            }
        }
    }

    #[test]
    fn pool_round_trip() {
        let mut pool = ConstPool::default();
        let c = pool.intern(ConstData::int(Type::I8, 0xff));
        let k = Constant::of_pool(c, pool.get(c)).unwrap();
        assert_eq!(k, Constant::Scalar(Val::int(Type::I8, -1)));
        assert_eq!(k.to_pool(&mut pool), Some(c));
        let undef = ConstData {
            ty: Type::F64,
            kind: ConstKind::Undef,
        };
        let u = pool.intern(undef);
        assert_eq!(
            Constant::of_pool(u, undef),
            Some(Constant::Scalar(Val::f64(0.0)))
        );
        assert_eq!(Constant::Scalar(Val::Ptr(8)).to_pool(&mut pool), None);
        let g = ConstData {
            ty: Type::Ptr,
            kind: ConstKind::SymbolAddr(Symbol::new(3)),
        };
        let gc = pool.intern(g);
        let k = Constant::of_pool(gc, g).unwrap();
        assert_eq!(
            k,
            Constant::Symbol {
                symbol: Symbol::new(3),
                offset: 0
            }
        );
        assert_eq!(k.to_pool(&mut pool), Some(gc));
        let moved = Constant::Symbol {
            symbol: Symbol::new(3),
            offset: 8,
        };
        assert_eq!(moved.to_pool(&mut pool), None);
    }
}
