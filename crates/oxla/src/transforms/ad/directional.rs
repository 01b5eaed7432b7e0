//! Derivatives along directions: [`jvp`] pushes tangents forward and [`vjp`] pulls
//! cotangents back; the Jacobians (`jacobian.rs`) stack either over a basis with `vmap`.

use super::replay::{jvp_jaxpr, Forward};
use crate::core::tree::Tree;
use crate::core::{trace, Tensor};
use crate::transforms::jvp_rules::zeros_of_aval;

/// Forward-mode derivative: `f(primals)` and its directional derivative along `tangents`
/// (`jax.jvp`). `tangents` has the structure and avals (shapes and dtypes) of `primals`;
/// integer leaves' tangents are ignored. Other tangents panic at the caller's line.
///
/// ```
/// use oxla::{jvp, Tensor};
/// let (y, t) = jvp(|x: Tensor| x.sin(), Tensor::scalar(0.0f32), Tensor::scalar(2.0f32));
/// assert_eq!((y.item(), t.item()), (0.0, 2.0));
/// ```
#[track_caller]
pub fn jvp<A: Tree, O: Tree>(f: impl Fn(A) -> O, primals: A, tangents: A) -> (O, O) {
    let (p, t) = (primals.leaves(), tangents.leaves());
    if primals.def() != tangents.def() || p.iter().zip(&t).any(|(p, t)| p.shape() != t.shape()) {
        panic!(
            "jvp: tangents must have the primals' structure and shapes, got {} and {}\n  at {}",
            tangents.def(),
            primals.def(),
            std::panic::Location::caller()
        );
    }
    if let Some((p, t)) = p.iter().zip(&t).find(|(p, t)| p.dtype() != t.dtype()) {
        panic!(
            "jvp: primal and tangent arguments to jvp do not match; dtypes must be equal (an \
             integer or bool primal takes a tangent of its own dtype, oxla's stand-in for \
             JAX's float0). Got primal dtype {} and tangent dtype {}\n  at {}",
            p.dtype(),
            t.dtype(),
            std::panic::Location::caller()
        );
    }
    let (cj, out) = trace(&f, &primals);
    let tangents: Vec<Option<Tensor>> = p
        .iter()
        .zip(t)
        .map(|(p, t)| p.dtype().is_inexact().then_some(t))
        .collect();
    let (outs, touts) = jvp_jaxpr(&cj, &p, tangents);
    let touts: Vec<Tensor> = touts
        .into_iter()
        .zip(&outs)
        .map(|(t, o)| t.unwrap_or_else(|| zeros_of_aval(o)))
        .collect();
    (
        out.rebuild(&mut outs.into_iter()),
        out.rebuild(&mut touts.into_iter()),
    )
}

/// The pullback of a function at a point; see [`vjp`].
pub struct Vjp<A> {
    forward: Forward,
    primals: A,
    outs: Vec<Tensor>,
}

/// Reverse-mode derivative: `f(primals)` and its pullback (`jax.vjp`), which maps output
/// cotangents to cotangents of every primal (zeros for integer leaves).
///
/// ```
/// use oxla::{vjp, Tensor};
/// let (y, pullback) = vjp(|x: Tensor| &x * &x, Tensor::scalar(3.0f32));
/// assert_eq!(y.item(), 9.0);
/// assert_eq!(pullback.call(Tensor::scalar(1.0f32)).item(), 6.0);
/// ```
pub fn vjp<A: Tree, O: Tree>(f: impl Fn(A) -> O, primals: A) -> (O, Vjp<A>) {
    let leaves = primals.leaves();
    let (cj, out) = trace(&f, &primals);
    let active: Vec<bool> = leaves.iter().map(|t| t.dtype().is_inexact()).collect();
    let (forward, outs) = Forward::run(cj, &leaves, &active);
    let o = out.rebuild(&mut outs.clone().into_iter());
    (
        o,
        Vjp {
            forward,
            primals,
            outs,
        },
    )
}

impl<A: Tree> Vjp<A> {
    /// Cotangents of the primals for output cotangents `cts` (of the outputs' structure).
    #[track_caller]
    pub fn call<O: Tree>(&self, cts: O) -> A {
        let cts = cts.leaves();
        if cts.len() == self.outs.len() {
            if let Some((c, o)) = cts
                .iter()
                .zip(&self.outs)
                .find(|(c, o)| c.shape() == o.shape() && c.dtype() != o.dtype())
            {
                panic!(
                    "vjp: unexpected type for a cotangent: got {}, but expected {} because the \
                     corresponding output of the differentiated function has type {}\n  at {}",
                    c.aval(),
                    o.aval(),
                    o.aval(),
                    std::panic::Location::caller()
                );
            }
        }
        if cts.len() != self.outs.len()
            || cts
                .iter()
                .zip(&self.outs)
                .any(|(c, o)| c.shape() != o.shape())
        {
            let shapes = |v: &[Tensor]| -> Vec<Vec<usize>> {
                v.iter().map(|t| t.shape().to_vec()).collect()
            };
            panic!(
                "vjp: cotangent shapes {:?} do not match the outputs' {:?}\n  at {}",
                shapes(&cts),
                shapes(&self.outs),
                std::panic::Location::caller()
            );
        }
        let cts: Vec<Option<Tensor>> = cts
            .into_iter()
            .zip(&self.outs)
            .map(|(c, o)| o.dtype().is_inexact().then_some(c))
            .collect();
        let grads = self.forward.backward(&cts);
        let leaves: Vec<Tensor> = grads
            .into_iter()
            .zip(self.primals.leaves())
            .map(|(g, p)| g.unwrap_or_else(|| zeros_of_aval(&p)))
            .collect();
        self.primals.rebuild(&mut leaves.into_iter())
    }
}
