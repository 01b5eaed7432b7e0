//! The collectives the tests draw, each with what it gives member `k`, computed from the
//! members' slices.

use oxla::numpy as jnp;
use oxla::{lax, Tensor};

type T = Tensor;

/// One collective over `"i"` of a per-example operand, with its parameters.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    Psum,
    Pmean,
    Pmax,
    Pmin,
    AllGather {
        axis: usize,
        tiled: bool,
    },
    PsumScatter {
        dim: usize,
        tiled: bool,
    },
    Ppermute {
        perm: Vec<(usize, usize)>,
    },
    AllToAll {
        split: usize,
        concat: usize,
        tiled: bool,
    },
    AxisIndex,
    Pbroadcast {
        source: usize,
    },
}

impl Op {
    pub(crate) fn apply(&self, v: &T) -> T {
        match self {
            Op::Psum => lax::psum(v, "i"),
            Op::Pmean => lax::pmean(v, "i"),
            Op::Pmax => lax::pmax(v, "i"),
            Op::Pmin => lax::pmin(v, "i"),
            Op::AllGather { axis, tiled } => lax::all_gather(v, "i", *axis, *tiled),
            Op::PsumScatter { dim, tiled } => lax::psum_scatter(v, "i", *dim, *tiled),
            Op::Ppermute { perm } => lax::ppermute(v, "i", perm),
            Op::AllToAll {
                split,
                concat,
                tiled,
            } => lax::all_to_all(v, "i", *split, *concat, *tiled),
            Op::AxisIndex => v * lax::axis_index("i").astype(v.dtype()),
            Op::Pbroadcast { source } => lax::pbroadcast(v, "i", *source),
        }
    }

    /// What member `k` of `xs` (the members' operands) gets, computed from slices.
    pub(crate) fn reference(&self, xs: &[T], k: usize) -> T {
        let n = xs.len();
        let sum = || xs.iter().skip(1).fold(xs[0].clone(), |a, b| a + b);
        let block = |x: &T, axis: usize, j: usize| {
            let m = (x.shape()[axis] / n) as isize;
            lax::slice_in_dim(x, Some(j as isize * m), Some((j as isize + 1) * m), 1, axis)
        };
        match self {
            Op::Psum => sum(),
            Op::Pmean => sum() / n as f64,
            Op::Pmax => xs
                .iter()
                .skip(1)
                .fold(xs[0].clone(), |a, b| jnp::maximum(&a, b)),
            Op::Pmin => xs
                .iter()
                .skip(1)
                .fold(xs[0].clone(), |a, b| jnp::minimum(&a, b)),
            Op::AllGather { axis, tiled: false } => jnp::stack(xs, *axis as isize),
            Op::AllGather { axis, tiled: true } => jnp::concatenate(xs, *axis as isize),
            Op::PsumScatter { dim, tiled: false } => {
                lax::index_in_dim(&sum(), k as isize, *dim, false)
            }
            Op::PsumScatter { dim, tiled: true } => block(&sum(), *dim, k),
            Op::Ppermute { perm } => match perm.iter().find(|p| p.1 == k) {
                Some(&(src, _)) => xs[src].clone(),
                None => jnp::zeros_like(&xs[0]),
            },
            Op::AllToAll {
                split,
                concat,
                tiled: false,
            } => {
                let parts: Vec<T> = xs
                    .iter()
                    .map(|x| lax::index_in_dim(x, k as isize, *split, false))
                    .collect();
                jnp::stack(&parts, *concat as isize)
            }
            Op::AllToAll {
                split,
                concat,
                tiled: true,
            } => {
                let parts: Vec<T> = xs.iter().map(|x| block(x, *split, k)).collect();
                jnp::concatenate(&parts, *concat as isize)
            }
            Op::AxisIndex => &xs[k] * k as f64,
            Op::Pbroadcast { source } => xs[*source].clone(),
        }
    }
}

/// A collective that fits `n` members and a per-example shape `shape`, drawn from `pick`.
pub(crate) fn op_for(pick: u32, n: usize, shape: &mut [usize]) -> Op {
    let rank = shape.len();
    let d = (pick as usize / 14) % rank;
    match pick % 14 {
        0 => Op::Psum,
        1 => Op::Pmean,
        2 => Op::Pmax,
        3 => Op::Pmin,
        4 => Op::AllGather {
            axis: (pick as usize / 7) % (rank + 1),
            tiled: false,
        },
        5 => Op::AllGather {
            axis: d,
            tiled: true,
        },
        6 => {
            shape[d] = n;
            Op::PsumScatter {
                dim: d,
                tiled: false,
            }
        }
        7 => {
            shape[d] *= n;
            Op::PsumScatter {
                dim: d,
                tiled: true,
            }
        }
        8 => Op::Ppermute {
            perm: (0..n).map(|j| (j, (j + 1) % n)).collect(),
        },
        9 => Op::Ppermute {
            // Member 0 sends to no one; member 1 receives nothing.
            perm: (1..n)
                .map(|j| (j, (j + 1) % n))
                .filter(|p| p.1 != 1)
                .collect(),
        },
        10 => {
            shape[d] = n;
            Op::AllToAll {
                split: d,
                concat: (pick as usize / 7) % rank,
                tiled: false,
            }
        }
        11 => {
            shape[d] *= n;
            Op::AllToAll {
                split: d,
                concat: (pick as usize / 7) % rank,
                tiled: true,
            }
        }
        12 => Op::AxisIndex,
        _ => Op::Pbroadcast {
            source: (pick as usize / 7) % n,
        },
    }
}
