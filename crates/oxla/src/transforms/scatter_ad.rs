//! The JVP and VJP rules of `scatter`, `scatter-mul`, `scatter-min` and `scatter-max`, as
//! JAX defines them (`_scatter_jvp`, `_scatter_mul_jvp_rhs`, `_scatter_extremal_jvp`); the
//! VJPs are the transposes of those linear maps. `scatter-add` is linear, and its rules stay
//! with the other linear primitives'.

use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode, ScatterDims, ScatterOp};
use crate::transforms::jvp_rules::{gather_or_zero, zeros_of_aval};

/// A scatter equation: its operand, indices, updates and output.
pub(crate) struct Scatter<'a> {
    pub(crate) op: ScatterOp,
    pub(crate) dims: &'a ScatterDims,
    pub(crate) mode: GatherMode,
    pub(crate) x: &'a Tensor,
    pub(crate) idx: &'a Tensor,
    pub(crate) upd: &'a Tensor,
    pub(crate) out: &'a Tensor,
}

/// The gather that reads back the windows a scatter writes: its dimension numbers and
/// slice sizes, for an operand of rank `rank` and updates of shape `upd`.
pub(crate) fn inverse_gather(
    dims: &ScatterDims,
    rank: usize,
    upd: &[usize],
) -> (GatherDims, Vec<usize>) {
    let gd = GatherDims {
        offset_dims: dims.update_window_dims.clone(),
        collapsed_slice_dims: dims.inserted_window_dims.clone(),
        start_index_map: dims.scatter_dims_to_operand_dims.clone(),
        operand_batching_dims: dims.operand_batching_dims.clone(),
        start_indices_batching_dims: dims.scatter_indices_batching_dims.clone(),
    };
    let mut window = dims.update_window_dims.iter();
    let sizes = (0..rank)
        .map(|d| {
            if dims.inserted_window_dims.contains(&d) || dims.operand_batching_dims.contains(&d) {
                1
            } else {
                upd[*window.next().expect("one window dim per operand dim")]
            }
        })
        .collect();
    (gd, sizes)
}

fn ones(t: &Tensor) -> Tensor {
    lax::broadcast_in_dim(&crate::numpy::scalar_tensor(1.0, t.dtype()), t.shape(), &[])
}

/// `t` where `keep`, else 0.
fn mask(keep: &Tensor, t: &Tensor) -> Tensor {
    lax::select_n(keep, &[zeros_of_aval(t), t.clone()])
}

impl Scatter<'_> {
    /// The windows of `t` (shaped as the operand) the updates land on; 0 out of bounds.
    fn gather(&self, t: &Tensor) -> Tensor {
        let (gd, sizes) = inverse_gather(self.dims, self.x.ndim(), self.upd.shape());
        gather_or_zero(t, self.idx, &gd, &sizes, self.mode)
    }

    fn scatter(&self, op: ScatterOp, base: &Tensor, upd: &Tensor) -> Tensor {
        lax::scatter(op, base, self.idx, upd, self.dims.clone(), self.mode)
    }

    /// JAX's masks for `scatter` with overlapping updates: which operand elements no update
    /// overwrote, and which updates are the ones written (each update's id is scattered and
    /// read back).
    fn replace_masks(&self) -> (Tensor, Tensor) {
        let upd = self.upd.shape();
        let batch: Vec<usize> = (0..upd.len())
            .filter(|d| !self.dims.update_window_dims.contains(d))
            .collect();
        let batch_shape: Vec<usize> = batch.iter().map(|&d| upd[d]).collect();
        let n: usize = batch_shape.iter().product();
        let ids = lax::reshape(&lax::iota(DType::I32, &[n], 0), &batch_shape);
        let ids = lax::broadcast_in_dim(&ids, upd, &batch);
        let ids = lax::add(&ids, &ones(&ids));
        let zeros = zeros_of_aval(&lax::convert_element_type(self.x, DType::I32));
        let scattered = self.scatter(ScatterOp::Replace, &zeros, &ids);
        let (gd, sizes) = inverse_gather(self.dims, self.x.ndim(), upd);
        let gathered = lax::gather(&scattered, self.idx, gd, &sizes, self.mode);
        let kept = lax::eq(&scattered, &zeros_of_aval(&scattered));
        (kept, lax::eq(&ids, &gathered))
    }

    /// `scatter-min`/`-max`: the coefficients of the operand's tangent (read at the updated
    /// windows) and of the updates' tangents; ties share the tangent equally.
    fn extremal_coefs(&self) -> (Tensor, Tensor) {
        let (x, upd) = (self.x, self.upd);
        let target = self.gather(self.out);
        let won = lax::eq(upd, &target);
        let retained = lax::eq(&self.gather(x), &target);
        let (one, zero) = (ones(upd), zeros_of_aval(upd));
        let count = |u: &Tensor| self.gather(&self.scatter(ScatterOp::Add, &zeros_of_aval(x), u));
        let num_updates = count(&lax::select_n(&won, &[zero.clone(), one.clone()]));
        let num_refs = count(&one);
        let shared = lax::div(&one, &lax::add(&num_updates, &one));
        let alone = lax::div(&one, &num_updates);
        let upd_coef = lax::select_n(
            &won,
            &[
                zero.clone(),
                lax::select_n(&retained, &[alone, shared.clone()]),
            ],
        );
        let op_norm = lax::select_n(&retained, &[zero, shared]);
        let op_coef = lax::div(&lax::sub(&op_norm, &one), &num_refs);
        (op_coef, upd_coef)
    }

    /// The output's tangent from the operand's and the updates' (`None`: zero).
    pub(crate) fn jvp(&self, tx: Option<Tensor>, tu: Option<Tensor>) -> Option<Tensor> {
        if tx.is_none() && tu.is_none() {
            return None;
        }
        let tx = tx.unwrap_or_else(|| zeros_of_aval(self.x));
        Some(match self.op {
            ScatterOp::Replace => {
                let tu = tu.unwrap_or_else(|| zeros_of_aval(self.upd));
                let (kept, won) = self.replace_masks();
                self.scatter(ScatterOp::Add, &mask(&kept, &tx), &mask(&won, &tu))
            }
            ScatterOp::Mul => {
                if tu.is_some() {
                    mul_updates_unsupported();
                }
                self.scatter(ScatterOp::Mul, &tx, self.upd)
            }
            ScatterOp::Min | ScatterOp::Max => {
                let tu = tu.unwrap_or_else(|| zeros_of_aval(self.upd));
                let (op_coef, upd_coef) = self.extremal_coefs();
                let t = lax::add(
                    &lax::mul(&self.gather(&tx), &op_coef),
                    &lax::mul(&tu, &upd_coef),
                );
                self.scatter(ScatterOp::Add, &tx, &t)
            }
            ScatterOp::Add => unreachable!("scatter-add's rule is the linear primitives'"),
        })
    }

    /// The operand's and the updates' cotangents (for the active ones) from the output's.
    pub(crate) fn vjp(&self, ct: &Tensor, active: [bool; 2]) -> [Option<Tensor>; 2] {
        let (ct_x, ct_u) = match self.op {
            ScatterOp::Replace => {
                let (kept, won) = self.replace_masks();
                (mask(&kept, ct), mask(&won, &self.gather(ct)))
            }
            ScatterOp::Mul => {
                if active[1] {
                    mul_updates_unsupported();
                }
                (
                    self.scatter(ScatterOp::Mul, ct, self.upd),
                    zeros_of_aval(self.upd),
                )
            }
            ScatterOp::Min | ScatterOp::Max => {
                let (op_coef, upd_coef) = self.extremal_coefs();
                let g = self.gather(ct);
                let back = self.scatter(
                    ScatterOp::Add,
                    &zeros_of_aval(self.x),
                    &lax::mul(&g, &op_coef),
                );
                (lax::add(ct, &back), lax::mul(&g, &upd_coef))
            }
            ScatterOp::Add => unreachable!("scatter-add's rule is the linear primitives'"),
        };
        [active[0].then_some(ct_x), active[1].then_some(ct_u)]
    }
}

/// JAX's refusal, for the same reason: with overlapping updates the product's derivative by
/// one update is not a scatter.
fn mul_updates_unsupported() -> ! {
    panic!(
        "scatter-mul: gradients with respect to the updates are only implemented if \
         `unique_indices=True` (as in JAX); differentiate with respect to the operand only"
    )
}
