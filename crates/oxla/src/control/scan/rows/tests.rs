//! The layout along the batch of steps whose rows never mix, and of steps whose rows do.

use super::{band, layout, Layout};
use crate::core::{make_jaxpr, Jaxpr};
use crate::{numpy as jnp, Tensor};

const B: usize = 8;

fn zeros(shape: &[usize]) -> Tensor {
    jnp::zeros(shape)
}

/// The operands `(h [8, 4], x [8, 3], wh [4, 4], wx [3, 4], b [4])`.
fn operands() -> (Tensor, Tensor, Tensor, Tensor, Tensor) {
    (
        zeros(&[B, 4]),
        zeros(&[B, 3]),
        zeros(&[4, 4]),
        zeros(&[3, 4]),
        zeros(&[4]),
    )
}

/// The layout of `f` over the operands `(h [8, 4], x [8, 3], wh [4, 4], wx [3, 4], b [4])`,
/// one carry and one slice.
fn rnn_like(
    f: impl FnOnce((Tensor, Tensor, Tensor, Tensor, Tensor)) -> Vec<Tensor>,
) -> Option<Layout> {
    layout(&make_jaxpr(f, operands()).jaxpr, 1, 1)
}

fn rnn((h, x, wh, wx, b): (Tensor, Tensor, Tensor, Tensor, Tensor)) -> Tensor {
    jnp::tanh(jnp::matmul(&h, &wh) + jnp::matmul(&x, &wx) + &b)
}

#[test]
fn an_rnn_step_splits_its_carry_slice_and_results_but_not_its_weights() {
    let l = rnn_like(|a| {
        let h = rnn(a);
        vec![h.clone(), jnp::sum(&h * &h, 1)]
    })
    .expect("rows never mix");
    assert_eq!(l.rows, B);
    assert_eq!(l.inputs, vec![true, true, false, false, false]);
    assert_eq!(l.outputs, vec![true, true]);
}

#[test]
fn a_sum_over_the_batch_a_product_of_rows_or_a_transposed_result_mixes_rows() {
    assert!(rnn_like(|a| {
        let h = rnn(a);
        vec![h.clone(), jnp::sum(&h * &h, None)]
    })
    .is_none());
    assert!(rnn_like(|a| {
        let h = rnn(a);
        vec![h.clone(), jnp::matmul(&h, h.t())]
    })
    .is_none());
    assert!(rnn_like(|a| {
        let h = rnn(a);
        vec![h.clone(), h.t()]
    })
    .is_none());
    // A reshape that keeps the batch axis keeps the rows; one that moves it does not.
    assert!(rnn_like(|a| {
        let h = rnn(a);
        vec![h.clone(), jnp::sum(h.reshape(&[B, 2, 2]), [1, 2])]
    })
    .is_some());
    assert!(rnn_like(|a| {
        let h = rnn(a);
        vec![h.clone(), h.reshape(&[4, B])]
    })
    .is_none());
}

#[test]
fn a_broadcast_splits_where_a_split_value_meets_it_unless_used_whole_first() {
    let spread = |(h, _, _, _, b): (Tensor, Tensor, Tensor, Tensor, Tensor)| {
        vec![&h + jnp::broadcast_to(&b, &[B, 4]), jnp::sum(&h, 1)]
    };
    assert!(rnn_like(spread).is_some());
    // Summed whole first, the broadcast is a whole [8, 4] value that the rows cannot split.
    let whole_first = |(h, _, _, _, b): (Tensor, Tensor, Tensor, Tensor, Tensor)| {
        let bb = jnp::broadcast_to(&b, &[B, 4]);
        let s = jnp::sum(&bb, None);
        vec![&h + &bb * &s, h]
    };
    assert!(rnn_like(whole_first).is_none());
}

#[test]
fn a_scalar_slice_and_a_counter_stay_whole() {
    let args = (zeros(&[B, 4]), Tensor::scalar(0i32), zeros(&[]));
    let j = make_jaxpr(
        |(h, i, c): (Tensor, Tensor, Tensor)| vec![&h * &c, &i + 1i32, jnp::sum(&h, 1), i],
        args,
    );
    let l = layout(&j.jaxpr, 2, 1).expect("rows never mix");
    assert_eq!(l.inputs, vec![true, false, false]);
    assert_eq!(l.outputs, vec![true, false, true, false]);
}

/// The retyped step's inputs and outputs.
fn shapes(j: &Jaxpr) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let ins = j.invars.iter().map(|v| v.aval.shape.to_vec()).collect();
    let outs = j.out_avals().iter().map(|a| a.shape.to_vec()).collect();
    (ins, outs)
}

#[test]
fn a_band_retypes_the_split_values_and_the_broadcasts_that_meet_them() {
    let j = make_jaxpr(
        |a| {
            let h = rnn(a);
            vec![h.clone(), jnp::sum(&h * &h, 1)]
        },
        operands(),
    )
    .jaxpr;
    let l = layout(&j, 1, 1).expect("rows never mix");
    let third = band(&j, &l, 3).expect("the shape rules hold");
    assert_eq!(
        shapes(&third),
        (
            vec![vec![3, 4], vec![3, 3], vec![4, 4], vec![3, 4], vec![4]],
            vec![vec![3, 4], vec![3]]
        )
    );
    let c = zeros(&[]);
    let j = make_jaxpr(
        |(h, c): (Tensor, Tensor)| vec![&h * jnp::broadcast_to(&c, &[B, 4])],
        (zeros(&[B, 4]), c),
    )
    .jaxpr;
    let l = layout(&j, 1, 1).expect("rows never mix");
    let (ins, outs) = shapes(&band(&j, &l, 5).expect("the shape rules hold"));
    assert_eq!((ins, outs), (vec![vec![5, 4], vec![]], vec![vec![5, 4]]));
}

#[test]
fn a_step_with_an_empty_value_runs_whole() {
    let j = make_jaxpr(
        |(h, x): (Tensor, Tensor)| vec![&h + &x, jnp::sum(&h, 1)],
        (zeros(&[B, 0]), zeros(&[B, 0])),
    );
    assert!(layout(&j.jaxpr, 1, 1).is_none());
}
