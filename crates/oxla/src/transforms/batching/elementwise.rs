//! Batching rules of the elementwise family: operands combine with lax's size-1
//! broadcasting, so an unmapped operand gains a size-1 axis rather than a copy; `select_n`
//! and `threefry2x32`, whose operands must match exactly, are brought to one shape.

use super::{front, front_full, moveaxis, one, Batched};
use crate::core::{Prim, Tensor};
use crate::ops as lax;

/// Elementwise primitives: operands of one per-example rank (or rank 0) combine with lax's
/// size-1 broadcasting, so an unmapped operand only gains a size-1 axis.
pub(super) fn elementwise(prim: &Prim, args: &[Tensor], dims: &[Option<usize>]) -> Batched {
    let mapped: Vec<(usize, usize)> = args
        .iter()
        .zip(dims)
        .filter_map(|(x, d)| d.map(|d| (d, x.ndim())))
        .collect();
    let aligned = mapped.windows(2).all(|w| w[0] == w[1])
        && args
            .iter()
            .zip(dims)
            .all(|(x, d)| d.is_some() || x.ndim() == 0);
    if aligned {
        let outs = crate::core::bind(prim.clone(), args, std::panic::Location::caller());
        let k = outs.len();
        return (outs, vec![Some(mapped[0].0); k]);
    }
    // As JAX's `broadcast_batcher`: first every operand of rank > 0 gets its mapped axis in
    // front (an unmapped one a size-1 axis there), then mapped operands of lower rank gain
    // trailing size-1 axes.
    let fronted: Vec<Tensor> = args
        .iter()
        .zip(dims)
        .map(|(x, d)| match d {
            Some(d) => moveaxis(x, *d, 0),
            None if x.ndim() == 0 => x.clone(),
            None => {
                let mut shape = vec![1];
                shape.extend_from_slice(x.shape());
                let dims: Vec<usize> = (1..shape.len()).collect();
                lax::broadcast_in_dim(x, &shape, &dims)
            }
        })
        .collect();
    let rank = fronted.iter().map(Tensor::ndim).max().unwrap_or(0);
    let moved: Vec<Tensor> = fronted
        .into_iter()
        .zip(dims)
        .map(|(x, d)| {
            if d.is_some() && x.ndim() < rank {
                let mut shape = x.shape().to_vec();
                shape.resize(rank, 1);
                let dims: Vec<usize> = (0..x.ndim()).collect();
                lax::broadcast_in_dim(&x, &shape, &dims)
            } else {
                x
            }
        })
        .collect();
    let outs = crate::core::bind(prim.clone(), &moved, std::panic::Location::caller());
    let k = outs.len();
    (outs, vec![Some(0); k])
}

/// Elementwise primitives whose operands must match exactly (`select_n`, `threefry2x32`):
/// everything is brought to `[n] + shape`, except unmapped scalars.
pub(super) fn elementwise_full(
    prim: &Prim,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
) -> Batched {
    let shape: Vec<usize> = args
        .iter()
        .zip(dims)
        .map(|(x, d)| {
            let mut s = x.shape().to_vec();
            if let Some(d) = d {
                s.remove(*d);
            }
            s
        })
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let moved: Vec<Tensor> = args
        .iter()
        .zip(dims)
        .map(|(x, d)| {
            if d.is_none() && x.ndim() == 0 {
                x.clone()
            } else {
                front_full(x, *d, n, &shape)
            }
        })
        .collect();
    let outs = crate::core::bind(prim.clone(), &moved, std::panic::Location::caller());
    let k = outs.len();
    (outs, vec![Some(0); k])
}

/// `select_n` as JAX batches it: with the predicate and the cases mapped alike, or an
/// unmapped scalar predicate, no axis moves; otherwise everything is brought to the front.
pub(super) fn select_n(args: &[Tensor], dims: &[Option<usize>], n: usize) -> Batched {
    let bind = |which: &Tensor, cases: &[Tensor]| lax::select_n(which, cases);
    let (which, cases) = (&args[0], &args[1..]);
    let (wd, cds) = (dims[0], &dims[1..]);
    if cds.iter().all(|&d| d == wd) {
        let which = if which.shape() == cases[0].shape() {
            which.clone()
        } else {
            // A per-example scalar predicate with array cases.
            let b = wd.expect("a mapped operand");
            lax::broadcast_in_dim(which, cases[0].shape(), &[b])
        };
        return one(bind(&which, cases), wd.expect("a mapped operand"));
    }
    if which.ndim() == 0 && cds.iter().all(Option::is_some) {
        let b = cds[0].expect("mapped");
        if cds.iter().all(|&d| d == Some(b)) {
            return one(bind(which, cases), b);
        }
        if cases.iter().all(|c| c.shape() == cases[0].shape()) {
            let moved: Vec<Tensor> = cases
                .iter()
                .zip(cds)
                .map(|(c, d)| moveaxis(c, d.expect("mapped"), b))
                .collect();
            return one(bind(which, &moved), b);
        }
    }
    let mut which = if which.ndim() > 0 {
        front(which, wd, n)
    } else {
        which.clone()
    };
    let mut cases: Vec<Tensor> = if cases.iter().all(|c| c.ndim() == 0) {
        cases.to_vec()
    } else {
        cases
            .iter()
            .zip(cds)
            .map(|(c, d)| front(c, *d, n))
            .collect()
    };
    if which.ndim() > 0 && which.ndim() < cases[0].ndim() {
        which = lax::broadcast_in_dim(&which, cases[0].shape(), &[0]);
    }
    if which.ndim() > cases[0].ndim() {
        cases = cases
            .iter()
            .map(|c| lax::broadcast_in_dim(c, which.shape(), &[]))
            .collect();
    }
    one(bind(&which, &cases), 0)
}
