//! JAX's type-promotion lattice (`jnp.promote_types`), weak typing of Rust scalars, and the
//! default dtypes, which the x64 switch ([`crate::config`]) widens.

use super::dtype::{DType, Kind};
use crate::config::x64_enabled;

/// A node of JAX's lattice: a dtype, or the weakly typed int and float of a Rust scalar.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Node {
    Strong(DType),
    WeakInt,
    WeakFloat,
    WeakComplex,
}

/// The nodes just above `n` in JAX's lattice (`jax._src.dtypes._type_promotion_lattice`).
fn above(n: Node) -> &'static [Node] {
    use DType::*;
    use Node::*;
    match n {
        Strong(Bool) => &[WeakInt],
        WeakInt => &[Strong(U8), Strong(I8)],
        Strong(U8) => &[Strong(I16), Strong(U16)],
        Strong(U16) => &[Strong(I32), Strong(U32)],
        Strong(U32) => &[Strong(I64), Strong(U64)],
        Strong(U64) | Strong(I64) => &[WeakFloat],
        Strong(I8) => &[Strong(I16)],
        Strong(I16) => &[Strong(I32)],
        Strong(I32) => &[Strong(I64)],
        WeakFloat => &[Strong(BF16), Strong(F16), WeakComplex],
        Strong(BF16) | Strong(F16) => &[Strong(F32)],
        Strong(F32) => &[Strong(F64), Strong(C64)],
        Strong(F64) => &[Strong(C128)],
        WeakComplex => &[Strong(C64)],
        Strong(C64) => &[Strong(C128)],
        Strong(C128) => &[],
    }
}

/// Whether `hi` is `lo` or above it.
fn is_above(lo: Node, hi: Node) -> bool {
    lo == hi || above(lo).iter().any(|&n| is_above(n, hi))
}

/// The least node above both `a` and `b` (the lattice has one for every pair).
fn join(a: Node, b: Node) -> Node {
    let mut frontier = vec![a];
    let mut bounds = vec![];
    while let Some(n) = frontier.pop() {
        if is_above(b, n) && !bounds.contains(&n) {
            bounds.push(n);
        }
        frontier.extend_from_slice(above(n));
    }
    let least = bounds
        .iter()
        .find(|&&n| bounds.iter().all(|&m| is_above(n, m)));
    *least.expect("JAX's promotion lattice has a join for every pair")
}

impl DType {
    /// The type both `self` and `other` promote to: `jnp.promote_types(self, other)` under
    /// the current x64 setting. Integers of mixed signedness widen (`u8` with `i8` is
    /// `i16`); `i64` with `u64` is `f64`; `f16` with `bf16` is `f32`. Without x64, `i32`
    /// with `u32` is `i32`, as in JAX, where the join `i64` is not available.
    pub fn promote(self, other: DType) -> DType {
        match join(Node::Strong(self), Node::Strong(other)) {
            Node::Strong(DType::I64)
                if !x64_enabled() && self != DType::I64 && other != DType::I64 =>
            {
                DType::I32
            }
            Node::Strong(d) => d,
            Node::WeakInt => DType::I64,
            Node::WeakFloat => DType::F64,
            Node::WeakComplex => DType::C128,
        }
    }

    /// The dtype a Rust scalar of `kind` takes when combined with a tensor of this dtype:
    /// the tensor's own dtype when the scalar's kind fits in it (weak typing), else the
    /// default dtype of the scalar's kind (`i32`/`f32`, or `i64`/`f64` with x64 on).
    pub fn with_weak(self, kind: Kind) -> DType {
        if kind <= self.kind() {
            self
        } else if kind == Kind::Complex && self.is_float() {
            self.complex_dtype()
        } else {
            kind.default_dtype()
        }
    }

    /// JAX's `dtypes.canonicalize_dtype`: with x64 off, a 64-bit dtype becomes its 32-bit
    /// counterpart; with x64 on, every dtype is itself. oxla canonicalises only the dtypes
    /// it chooses (defaults, sums' accumulators); a dtype the user names explicitly
    /// (`astype(DType::F64)`, `Tensor::from_vec(vec_of_f64, ..)`) is kept as named.
    pub fn canonical(self) -> DType {
        match self {
            DType::I64 if !x64_enabled() => DType::I32,
            DType::U64 if !x64_enabled() => DType::U32,
            DType::F64 if !x64_enabled() => DType::F32,
            DType::C128 if !x64_enabled() => DType::C64,
            d => d,
        }
    }
}

impl Kind {
    /// The default dtype of a kind: `bool`, `i32` or `f32`; `i64` and `f64` with x64 on.
    pub fn default_dtype(self) -> DType {
        match self {
            Kind::Bool => DType::Bool,
            Kind::Int => DType::I64.canonical(),
            Kind::Float => DType::F64.canonical(),
            Kind::Complex => DType::C128.canonical(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DType::*;
    use super::*;

    #[test]
    fn promotion_follows_jax_without_x64() {
        crate::config::with_x64(false, || {
            assert_eq!(F32.promote(I32), F32);
            assert_eq!(Bool.promote(U32), U32);
            assert_eq!(I32.promote(U32), I32);
            assert_eq!(U8.promote(I8), I16);
            assert_eq!(I64.promote(U64), F64);
            assert_eq!(F16.promote(BF16), F32);
            assert_eq!(F32.promote(F64), F64);
            assert_eq!(F32.promote(C64), C64);
            assert_eq!(F64.promote(C64), C128);
            assert_eq!(I32.promote(C64), C64);
            assert_eq!(BF16.promote(C64), C64);
            assert_eq!(C64.with_weak(Kind::Float), C64);
            assert_eq!(F32.with_weak(Kind::Complex), C64);
            assert_eq!(I32.with_weak(Kind::Float), F32);
            assert_eq!(F64.with_weak(Kind::Float), F64);
            assert_eq!(U32.with_weak(Kind::Int), U32);
            assert_eq!(Bool.with_weak(Kind::Int), I32);
        });
    }

    #[test]
    fn x64_widens_defaults_and_the_mixed_sign_join() {
        crate::config::with_x64(true, || {
            assert_eq!(I32.promote(U32), I64);
            assert_eq!(I32.with_weak(Kind::Float), F64);
            assert_eq!(Bool.with_weak(Kind::Int), I64);
            assert_eq!(F16.with_weak(Kind::Float), F16);
        });
    }
}
