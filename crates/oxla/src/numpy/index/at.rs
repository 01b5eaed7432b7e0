//! `x.at(idx)`: JAX's `x.at[idx]`, the functional forms of `x[idx] = v` (`set`, `add`, `mul`,
//! `min`, `max`) and of `x[idx]` with a chosen out-of-bounds behaviour (`get`).
//!
//! Every index form `Tensor::index` takes is accepted: the index is applied, with numpy's
//! semantics, to the flat positions of `x` (an `iota` with one extra slot past the end of
//! each dimension, holding -1, where out-of-bounds integers point), and the updates go
//! through one scatter over the flattened `x` in `FILL_OR_DROP` mode (position -1 is
//! dropped). The values are JAX's; the jaxpr differs from JAX's, which builds the scatter's
//! dimension numbers from the index directly.

use super::basic::resolve_slice;
use super::items::{s, Index, IndexItem};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{astype, broadcast_to, scalar_tensor, Operand};
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode, ScatterDims, ScatterOp};

/// Out-of-bounds behaviour of [`At`], as JAX's `mode` (negative indices count from the end
/// first, once, in every mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AtMode {
    /// `"promise_in_bounds"`: the caller promises the indices are in bounds; `get` clamps
    /// and updates out of bounds are dropped, as XLA does. `get`'s default.
    PromiseInBounds,
    /// `"clip"`: indices are clamped into bounds.
    Clip,
    /// `"drop"`: updates out of bounds are dropped; `get` gives the dtype's fill value (NaN,
    /// the smallest signed or largest unsigned integer, `true`). The updates' default.
    Drop,
    /// `"fill"` with `fill_value`: as `Drop`, `get` giving this value out of bounds.
    Fill(f64),
}

/// `x.at[idx]`: made by [`Tensor::at`].
#[derive(Clone, Debug)]
pub struct At {
    x: Tensor,
    items: Vec<IndexItem>,
    mode: Option<AtMode>,
}

impl Tensor {
    /// JAX's `x.at[idx]`: `x.at(idx).set(v)` is `x` with `x[idx] = v` (a new tensor), and
    /// `add`, `mul`, `min`, `max` combine instead; repeated indices apply every update in
    /// order (`set`: the last one wins, as on JAX's CPU backend).
    ///
    /// ```
    /// use oxla::numpy as jnp;
    /// let x = jnp::zeros(&[5]);
    /// let i = jnp::array(&[1i32, 3, 1, 7], &[4]);
    /// assert_eq!(x.at(&i).add(1.0).to_vec::<f32>(), vec![0.0, 2.0, 0.0, 1.0, 0.0]);
    /// assert_eq!(x.at((jnp::s(None, None, 2),)).set(4.0).to_vec::<f32>(), vec![4.0, 0.0, 4.0, 0.0, 4.0]);
    /// ```
    pub fn at(&self, idx: impl Index) -> At {
        At {
            x: self.clone(),
            items: idx.items(),
            mode: None,
        }
    }
}

impl At {
    /// The out-of-bounds behaviour (`mode=`) of the updates and of `get`.
    pub fn mode(mut self, mode: AtMode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// `x[idx] = v`.
    #[track_caller]
    pub fn set(&self, v: impl Into<Operand>) -> Tensor {
        self.update(ScatterOp::Replace, v.into())
    }

    /// `x[idx] += v`.
    #[track_caller]
    pub fn add(&self, v: impl Into<Operand>) -> Tensor {
        self.update(ScatterOp::Add, v.into())
    }

    /// `x[idx] *= v`.
    #[track_caller]
    pub fn mul(&self, v: impl Into<Operand>) -> Tensor {
        self.update(ScatterOp::Mul, v.into())
    }

    /// `x[idx] = minimum(x[idx], v)`.
    #[track_caller]
    pub fn min(&self, v: impl Into<Operand>) -> Tensor {
        self.update(ScatterOp::Min, v.into())
    }

    /// `x[idx] = maximum(x[idx], v)`.
    #[track_caller]
    pub fn max(&self, v: impl Into<Operand>) -> Tensor {
        self.update(ScatterOp::Max, v.into())
    }

    /// `x[idx]` with out-of-bounds indices handled by `mode` (`None`: this `At`'s mode, or
    /// `PromiseInBounds`).
    #[track_caller]
    pub fn get(&self, mode: impl Into<Option<AtMode>>) -> Tensor {
        let _line = crate::core::user_line();
        let mode = mode.into().or(self.mode).unwrap_or(AtMode::PromiseInBounds);
        let clip = matches!(mode, AtMode::Clip | AtMode::PromiseInBounds);
        let pos = self.positions(clip);
        let (m, shape) = (pos.size(), pos.shape().to_vec());
        let flat = lax::reshape(&self.x, &[self.x.size()]);
        let gd = GatherDims {
            offset_dims: vec![],
            collapsed_slice_dims: vec![0],
            start_index_map: vec![0],
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
        };
        let idx = lax::reshape(&pos, &[m, 1]);
        let got = lax::gather(&flat, &idx, gd, &[1], GatherMode::FillOrDrop);
        let got = match mode {
            AtMode::Fill(v) => {
                let out = lax::lt(&idx, &scalar_tensor(0.0, DType::I32));
                let fill = lax::broadcast_in_dim(&scalar_tensor(v, got.dtype()), &[m], &[]);
                lax::select_n(&lax::reshape(&out, &[m]), &[got, fill])
            }
            _ => got,
        };
        lax::reshape(&got, &shape)
    }

    #[track_caller]
    fn update(&self, op: ScatterOp, v: Operand) -> Tensor {
        let _line = crate::core::user_line();
        let clip = self.mode == Some(AtMode::Clip);
        let pos = self.positions(clip);
        let (m, shape) = (pos.size(), pos.shape().to_vec());
        let v = broadcast_to(v.to_tensor_in("at", self.x.dtype()), &shape);
        let flat = lax::reshape(&self.x, &[self.x.size()]);
        let sd = ScatterDims {
            update_window_dims: vec![],
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            operand_batching_dims: vec![],
            scatter_indices_batching_dims: vec![],
        };
        let out = lax::scatter(
            op,
            &flat,
            &lax::reshape(&pos, &[m, 1]),
            &lax::reshape(&v, &[m]),
            sd,
            GatherMode::FillOrDrop,
        );
        lax::reshape(&out, self.x.shape())
    }

    /// The flat position in `x` of each element `x[idx]` selects (numpy's result shape), -1
    /// where an index is out of bounds (`clip`: clamped into bounds instead).
    #[track_caller]
    fn positions(&self, clip: bool) -> Tensor {
        let shape = self.x.shape();
        let ids = lax::reshape(&lax::iota(DType::I32, &[self.x.size()], 0), shape);
        let pad: Vec<(i64, i64, i64)> = shape.iter().map(|_| (0, 1, 0)).collect();
        let ids = lax::pad(&ids, &scalar_tensor(-1.0, DType::I32), &pad);
        // The items refer to `x`'s dimensions, in order, skipping new axes; `...` stands for
        // the dimensions no other item takes.
        let named = self
            .items
            .iter()
            .filter(|i| !matches!(i, IndexItem::NewAxis | IndexItem::Ellipsis))
            .count();
        // `...` and the dimensions no item names become whole slices of `x`'s dimensions
        // (without the padding), so that the positions have the shape of the selection.
        let ellipses = self
            .items
            .iter()
            .filter(|i| matches!(i, IndexItem::Ellipsis))
            .count();
        assert!(
            ellipses <= 1,
            "at: an index can only have one ellipsis ('...'), got {ellipses}"
        );
        let whole = |d: usize| IndexItem::Slice(s(Some(0), Some(shape[d] as isize), 1));
        let mut explicit = Vec::with_capacity(shape.len() + self.items.len());
        let mut d = 0;
        for it in &self.items {
            match it {
                IndexItem::Ellipsis => {
                    let covered = shape.len().saturating_sub(named);
                    if covered == 0 {
                        // Still a separator between advanced indices (numpy's rule).
                        explicit.push(IndexItem::Ellipsis);
                    }
                    for _ in 0..covered {
                        explicit.push(whole(d));
                        d += 1;
                    }
                }
                IndexItem::NewAxis => explicit.push(IndexItem::NewAxis),
                IndexItem::Int(_) | IndexItem::Slice(_) | IndexItem::Array(_) => {
                    explicit.push(it.clone());
                    d += 1;
                }
            }
        }
        while d < shape.len() {
            explicit.push(whole(d));
            d += 1;
        }
        let mut d = 0;
        let mut items = Vec::with_capacity(explicit.len());
        for it in &explicit {
            let n = || shape.get(d).copied().unwrap_or(0);
            items.push(match it {
                IndexItem::NewAxis => IndexItem::NewAxis,
                IndexItem::Ellipsis => {
                    d += shape.len().saturating_sub(named);
                    IndexItem::Ellipsis
                }
                IndexItem::Int(i) => {
                    let n = n() as isize;
                    let j = if *i < 0 { i + n } else { *i };
                    d += 1;
                    IndexItem::Int(match (clip, (0..n).contains(&j)) {
                        (_, true) => j,
                        (true, false) => j.clamp(0, (n - 1).max(0)),
                        (false, false) => n,
                    })
                }
                IndexItem::Slice(sl) => {
                    let (first, count, step, stop) = resolve_slice(*sl, n());
                    d += 1;
                    IndexItem::Slice(if count == 0 {
                        s(Some(0), Some(0), 1)
                    } else if step > 0 {
                        s(Some(first), Some(stop), step)
                    } else {
                        s(Some(first), (stop >= 0).then_some(stop), step)
                    })
                }
                IndexItem::Array(t) => {
                    let n = n() as f64;
                    d += 1;
                    IndexItem::Array(bounded(t, n, clip))
                }
            });
        }
        super::index(&ids, items)
    }
}

/// Integer index array `t` into a dimension of size `n`: negative entries counted from the
/// end, then out-of-bounds ones clamped (`clip`) or sent to position `n`.
#[track_caller]
fn bounded(t: &Tensor, n: f64, clip: bool) -> Tensor {
    let t = match t.dtype() {
        DType::I32 => t.clone(),
        d if d.is_int() => astype(t, DType::I32),
        d => panic!(
            "at: index arrays must be integers, got {d}\n  at {}",
            std::panic::Location::caller()
        ),
    };
    let c = |v: f64| scalar_tensor(v, DType::I32);
    let negative = lax::lt(&t, &c(0.0));
    let j = lax::select_n(&negative, &[t.clone(), lax::add(&t, &c(n))]);
    if clip {
        return lax::max(&lax::min(&j, &c((n - 1.0).max(0.0))), &c(0.0));
    }
    let out = lax::or(&lax::lt(&j, &c(0.0)), &lax::ge(&j, &c(n)));
    lax::select_n(&out, &[j, lax::broadcast_in_dim(&c(n), t.shape(), &[])])
}
