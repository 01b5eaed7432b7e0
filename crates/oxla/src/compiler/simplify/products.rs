//! Reductions of products: `reduce_sum(abs(dot_general(a, b)))` over free dimensions of
//! the product (and the identity or a square in place of `abs`, a maximum or minimum in
//! place of the sum) becomes one `dot_reduce`, which reduces the product's tiles while
//! they are in cache and never stores the product.
//!
//! This runs once, after [`simplify`](super::simplify), on the program the compiler plans:
//! it needs each value's uses (the product and its map must be read by the reduction
//! alone), and `dot_reduce` has no transformation rules, so it must not reach a program
//! that is transformed afterwards.

use crate::array::DType;
use crate::core::{Atom, ClosedJaxpr, Eqn, Prim};
use crate::prims::{BinaryOp, DotMap, DotReduce, ReduceOp, UnaryOp};

/// The smallest product worth reducing as it is made: past a core's L2 cache, writing it
/// out and reading it back costs more than the product's own tiles. Smaller ones are
/// multiplied whole.
const FROM_BYTES: usize = 1 << 20;

/// Rewrites every reduction of a product that only the reduction reads into a
/// `dot_reduce`.
pub(crate) fn reduce_products(cj: ClosedJaxpr) -> ClosedJaxpr {
    let j = &cj.jaxpr;
    let uses = super::reads(j);
    let producer = super::producers(j);
    let read_times = |a: &Atom, n: usize| a.var().is_some_and(|v| uses.get(&v.id) == Some(&n));
    let made_by = |a: &Atom| a.var().and_then(|v| producer.get(&v.id).copied());
    let mut changed = false;
    let eqns = j
        .eqns
        .iter()
        .map(|e| {
            let fused = reduced_product(e, &made_by, &read_times);
            changed |= fused.is_some();
            fused.unwrap_or_else(|| e.clone())
        })
        .collect();
    if !changed {
        return cj;
    }
    super::with_eqns(cj, eqns)
}

/// `e` as a `dot_reduce`, when it reduces (a map of) a large real product over free
/// dimensions and nothing else reads the product or its map.
fn reduced_product<'a>(
    e: &Eqn,
    made_by: &impl Fn(&Atom) -> Option<&'a Eqn>,
    read_times: &impl Fn(&Atom, usize) -> bool,
) -> Option<Eqn> {
    let Prim::Reduce {
        op: op @ (ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min),
        axes,
    } = &e.prim
    else {
        return None;
    };
    let x = &e.inputs[0];
    let mx = made_by(x)?;
    let square = matches!(
        mx.prim,
        Prim::Unary(UnaryOp::Square) | Prim::IntegerPow { y: 2 }
    ) || (mx.prim == Prim::Binary(BinaryOp::Mul)
        && same_var(&mx.inputs[0], &mx.inputs[1]));
    let (map, product) = if matches!(mx.prim, Prim::DotGeneral { .. }) {
        (DotMap::Identity, x)
    } else if mx.prim == Prim::Unary(UnaryOp::Abs) {
        (DotMap::Abs, &mx.inputs[0])
    } else if square {
        (DotMap::Square, &mx.inputs[0])
    } else {
        return None;
    };
    let dot = made_by(product)?;
    let Prim::DotGeneral {
        contracting,
        batch,
        preferred_element_type,
    } = &dot.prim
    else {
        return None;
    };
    let aval = product.aval();
    let real = matches!(aval.dtype, DType::F32 | DType::F64)
        && dot.inputs[0].aval().dtype == aval.dtype
        && preferred_element_type.is_none_or(|d| d == aval.dtype);
    let free = !axes.is_empty() && axes.iter().all(|&a| a >= batch.0.len());
    // Read by the map alone (`mul(p, p)` reads it twice), and the map by the reduction.
    let by_map = mx.inputs.iter().filter(|a| same_var(a, product)).count();
    let read_once = if map == DotMap::Identity {
        read_times(product, 1)
    } else {
        read_times(product, by_map) && read_times(x, 1)
    };
    // A sum of the product itself is a product of sums (`sum(a @ b, 1)` is `a @ sum(b,
    // 1)`), far less work than any tiling of it; a product of no terms is zeros; a result
    // of few elements is too few runs to share between the threads.
    let identity_sum = map == DotMap::Identity && *op == ReduceOp::Sum;
    let terms: usize = contracting
        .0
        .iter()
        .map(|&d| dot.inputs[0].aval().shape[d])
        .product();
    let results = aval.size()
        / axes
            .iter()
            .map(|&a| aval.shape[a])
            .product::<usize>()
            .max(1);
    if !real
        || !free
        || !read_once
        || identity_sum
        || terms == 0
        || results < crate::prims::dot_reduce::TASKS
        || aval.nbytes() < FROM_BYTES
    {
        return None;
    }
    let mut axes = axes.clone();
    axes.sort_unstable();
    Some(Eqn {
        prim: Prim::DotReduce(DotReduce {
            contracting: contracting.clone(),
            batch: batch.clone(),
            map,
            op: *op,
            axes,
        }),
        inputs: dot.inputs.clone(),
        outputs: e.outputs.clone(),
        source: e.source,
    })
}

/// Whether `a` and `b` are one variable.
fn same_var(a: &Atom, b: &Atom) -> bool {
    matches!((a.var(), b.var()), (Some(x), Some(y)) if x.id == y.id)
}

#[cfg(test)]
mod tests {
    use super::super::testing::arg;
    use super::*;
    use crate::core::{make_jaxpr, Tensor};
    use crate::numpy as jnp;

    /// `f` traced at `args`, simplified and with its reductions of products rewritten.
    fn compiled(f: impl FnOnce((Tensor, Tensor)) -> Tensor, args: (Tensor, Tensor)) -> String {
        reduce_products(super::super::simplify(make_jaxpr(f, args))).to_string()
    }

    #[test]
    fn abs_sums_of_a_large_product_reduce_its_tiles() {
        let text = compiled(
            |(a, b)| -jnp::sum(jnp::abs(a.matmul(&b)), 1),
            (arg(&[512, 64]), arg(&[64, 1024])),
        );
        assert_eq!(
            text,
            "\
{ lambda ; a:f32[512,64] b:f32[64,1024]. let
    c:f32[512] = dot_reduce[
      axes=(1,)
      dimension_numbers=(([1], [0]), ([], []))
      map=abs
      reduce=reduce_sum
    ] a b
    d:f32[512] = neg c
  in (d,) }"
        );
    }

    #[test]
    fn squares_and_maxima_fuse_too() {
        let text = compiled(
            |(a, b)| {
                let p = a.matmul(&b);
                jnp::max(&(&p * &p), 0)
            },
            (arg(&[512, 64]), arg(&[64, 1024])),
        );
        assert!(
            text.contains("map=square\n      reduce=reduce_max"),
            "{text}"
        );
    }

    #[test]
    fn a_product_read_elsewhere_or_small_is_multiplied_whole() {
        let shared = compiled(
            |(a, b)| {
                let p = a.matmul(&b);
                jnp::sum(jnp::abs(&p), None) + jnp::sum(&p, None)
            },
            (arg(&[512, 64]), arg(&[64, 1024])),
        );
        assert!(!shared.contains("dot_reduce"), "{shared}");
        let small = compiled(
            |(a, b)| jnp::sum(jnp::abs(a.matmul(&b)), None),
            (arg(&[32, 8]), arg(&[8, 32])),
        );
        assert!(!small.contains("dot_reduce"), "{small}");
    }

    #[test]
    fn a_compiled_program_evaluated_under_a_transform_binds_what_it_fuses() {
        use crate::{grad, jit};
        let rows = |a: Tensor| jnp::sum(jnp::abs(a.matmul(a.t())), 1);
        let a = crate::random::normal(&crate::random::key(1), &[600, 32]);
        let compiled = jit(rows).lower(&a).compile();
        let cj = compiled.jaxpr().clone();
        assert!(cj.to_string().contains("dot_reduce"), "{cj}");
        let through = grad(move |x: Tensor| {
            let r = crate::core::eval_jaxpr(&cj, &[x]).remove(0);
            jnp::sum(&(&r * &r), None)
        });
        let direct = grad(move |x: Tensor| {
            let r = rows(x);
            jnp::sum(&(&r * &r), None)
        });
        let (got, want) = (through.call(a.clone()), direct.call(a));
        let (got, want) = (got.to_vec::<f32>(), want.to_vec::<f32>());
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-3 * w.abs().max(1.0), "{g} against {w}");
        }
    }
}
