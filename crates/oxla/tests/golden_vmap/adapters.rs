//! What the JAX programs use and oxla spells otherwise: `jax.lax`'s wrapping of negative
//! start indices, `.at[].add`, `lax.cummax`, `jnp.argsort` and a traced `random.fold_in`;
//! and tuples of a case's inputs.

use oxla::numpy as jnp;
use oxla::prims::{GatherMode, ScatterDims};
use oxla::{lax, DType, Tensor};

/// A start index as `jax.lax`'s Python wrappers take it: a negative index wraps once
/// (`i + dim`) before the primitive clamps. Traced indices get JAX's `lt`/`add`/`select_n`;
/// concrete scalars are wrapped here, as JAX wraps Python integers.
pub fn wrap_index(i: &Tensor, dim: usize) -> Tensor {
    if i.is_tracer() || i.ndim() > 0 {
        jnp::where_(jnp::less(i, 0), i + dim as i32, i)
    } else {
        let v = i.item() as i64;
        let v = if v < 0 { v + dim as i64 } else { v };
        Tensor::scalar(v as i32)
    }
}

/// `jax.lax.dynamic_slice`: negative starts wrap, then the primitive clamps.
pub fn dynamic_slice(x: &Tensor, start: &[Tensor], sizes: &[usize]) -> Tensor {
    let start: Vec<Tensor> = start
        .iter()
        .zip(x.shape())
        .map(|(i, &d)| wrap_index(i, d))
        .collect();
    lax::dynamic_slice(x, &start, sizes)
}

/// `jax.lax.dynamic_update_slice`: negative starts wrap, then the primitive clamps.
pub fn dynamic_update_slice(x: &Tensor, u: &Tensor, start: &[Tensor]) -> Tensor {
    let start: Vec<Tensor> = start
        .iter()
        .zip(x.shape())
        .map(|(i, &d)| wrap_index(i, d))
        .collect();
    lax::dynamic_update_slice(x, u, &start)
}

/// `x.at[idx].add(upd)` for an integer array `idx` into axis 0, as JAX stages it: negative
/// indices wrap, the updates are broadcast to `idx.shape + x.shape[1:]`, and out-of-bounds
/// updates are dropped.
pub fn at_add(x: &Tensor, idx: &Tensor, upd: &Tensor) -> Tensor {
    let r = idx.ndim();
    let idx = wrap_index(idx, x.shape()[0]);
    let mut ishape = idx.shape().to_vec();
    ishape.push(1);
    let dims: Vec<usize> = (0..r).collect();
    let idx = lax::broadcast_in_dim(&idx, &ishape, &dims);
    let mut ushape = ishape[..r].to_vec();
    ushape.extend_from_slice(&x.shape()[1..]);
    let upd = jnp::broadcast_to(upd, &ushape);
    let sd = ScatterDims {
        update_window_dims: (r..ushape.len()).collect(),
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        ..ScatterDims::default()
    };
    lax::scatter_add(x, &idx, &upd, sd, GatherMode::FillOrDrop)
}

/// `jax.lax.cummax(x, axis=0)` of a 1-d `i32` `x`, as a masked maximum (oxla has no `cummax`):
/// `out[i] = max(x[j] for j <= i)`.
pub fn cummax_1d(x: &Tensor) -> Tensor {
    let n = x.shape()[0];
    let i = lax::iota(DType::I32, &[n, n], 0);
    let j = lax::iota(DType::I32, &[n, n], 1);
    jnp::where_(jnp::less_equal(&j, &i), x.index((None, ..)), i32::MIN).max(1)
}

/// `jnp.argsort(x, axis)` as JAX builds it: a stable sort of `(x, iota)` by `x`.
pub fn argsort(x: &Tensor, axis: usize) -> Tensor {
    let iota = lax::iota(DType::I32, x.shape(), axis);
    lax::sort(&[x.clone(), iota], axis, 1).remove(1)
}

/// `jax.random.fold_in(key, data)` with `data` an integer tensor (oxla's `fold_in` takes a
/// Rust `u32`): threefry of the counter `(0, data)`, as JAX's `threefry_fold_in`.
pub fn fold_in(key: &Tensor, data: &Tensor) -> Tensor {
    let w = |i: usize| lax::reshape(&lax::slice(key, &[i], &[i + 1], None), &[]);
    let x1 = lax::convert_element_type(data, DType::U32);
    let x0 = jnp::zeros_like(&x1);
    let (y0, y1) = lax::threefry2x32(&w(0), &w(1), &x0, &x1);
    let one = |y: &Tensor| lax::broadcast_in_dim(y, &[1], &[]);
    lax::concatenate(&[one(&y0), one(&y1)], 0)
}

pub type T2 = (Tensor, Tensor);
pub type T3 = (Tensor, Tensor, Tensor);
pub type T4 = (Tensor, Tensor, Tensor, Tensor);

pub fn a2(a: &[Tensor]) -> T2 {
    (a[0].clone(), a[1].clone())
}

pub fn a3(a: &[Tensor]) -> T3 {
    (a[0].clone(), a[1].clone(), a[2].clone())
}
