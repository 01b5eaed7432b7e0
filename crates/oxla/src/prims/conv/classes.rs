//! Result positions grouped by the window positions that read input elements.
//!
//! Where the input is dilated (the gradient of a strided convolution, a transposed
//! convolution), a result position's window lands on holes at some of its taps: which ones
//! depends only on the position's phase, `(o * stride - low padding) mod dilation`, per
//! spatial dimension. The positions of one phase form a class; its patch matrix holds only
//! the taps that can land on an element, and its product only their kernel rows, so no
//! multiplication is spent on holes (three quarters of them for a stride of 2 in two
//! dimensions). An undilated input has one class: every position, every tap.

use super::kernel::Geometry;
use super::ConvParams;
use crate::array::strides_of;

/// The result positions of one phase and the window taps that read input elements there.
pub(super) struct Class {
    /// Per spatial dimension, the number of the class's positions and of its taps.
    pub(super) outs: Vec<usize>,
    pub(super) taps: Vec<usize>,
    /// Per spatial dimension, per (position, tap) of the class, row-major: the input index
    /// the tap reads, or `-1` where it reads padding.
    pub(super) tables: Vec<Vec<i64>>,
    /// The same without padding: the index the tap would read if the input went on past
    /// its ends (negative before its start).
    pub(super) reach: Vec<Vec<i64>>,
    /// The class's rows of an example's result (`[spatial..., feature]` row-major),
    /// row-major over its positions.
    pub(super) rows: Vec<usize>,
    /// The kernel rows of its product, one per column of its patch matrix: per tap it
    /// reads (row-major over its taps), the tap's window position (flat, row-major over
    /// the window) times `c_group`, plus each input feature of a group.
    pub(super) kernel_rows: Vec<usize>,
}

/// One spatial dimension's phase: its result positions and the taps they read elements
/// with (not holes).
struct Phase {
    outs: Vec<usize>,
    taps: Vec<usize>,
}

/// The phases of spatial dimension `i`, and the input index each (position, tap) of the
/// dimension would read in an input without ends, row-major (for the taps that read no
/// hole).
fn phases(p: &ConvParams, g: &Geometry, i: usize) -> (Vec<Phase>, Vec<i64>) {
    let (s, kd, ld) = (
        p.window_strides[i] as i64,
        p.rhs_dilation[i] as i64,
        p.lhs_dilation[i] as i64,
    );
    let lo = p.padding[i].0;
    let (n_out, n_k) = (g.out_sp[i], g.k_sp[i]);
    let mut reach = Vec::with_capacity(n_out * n_k);
    for o in 0..n_out as i64 {
        for k in 0..n_k as i64 {
            reach.push((o * s + k * kd - lo).div_euclid(ld));
        }
    }
    let mut by_phase: Vec<Phase> = Vec::new();
    let mut keys: Vec<i64> = Vec::new();
    for o in 0..n_out {
        let key = (o as i64 * s - lo).rem_euclid(ld);
        match keys.iter().position(|&k| k == key) {
            Some(j) => by_phase[j].outs.push(o),
            None => {
                keys.push(key);
                by_phase.push(Phase {
                    outs: vec![o],
                    taps: (0..n_k)
                        .filter(|&k| (key + k as i64 * kd) % ld == 0)
                        .collect(),
                });
            }
        }
    }
    (by_phase, reach)
}

/// The classes of a convolution: the product of every spatial dimension's phases.
pub(super) fn classes(p: &ConvParams, g: &Geometry) -> Vec<Class> {
    let nd = g.out_sp.len();
    let out_strides = strides_of(&g.out_sp);
    let k_strides = strides_of(&g.k_sp);
    let dims: Vec<(Vec<Phase>, Vec<i64>)> = (0..nd).map(|i| phases(p, g, i)).collect();
    let counts: Vec<usize> = dims.iter().map(|d| d.0.len()).collect();
    let mut pick = vec![0usize; nd];
    let mut out = Vec::new();
    loop {
        let chosen: Vec<&Phase> = (0..nd).map(|i| &dims[i].0[pick[i]]).collect();
        let reach: Vec<Vec<i64>> = (0..nd)
            .map(|i| {
                let (ph, all) = (chosen[i], &dims[i].1);
                ph.outs
                    .iter()
                    .flat_map(|&o| ph.taps.iter().map(move |&k| all[o * g.k_sp[i] + k]))
                    .collect()
            })
            .collect();
        // The class's taps read no hole: a tap reads its index where the input has it.
        let tables = (0..nd)
            .map(|i| {
                let inside = 0..g.in_sp[i] as i64;
                reach[i]
                    .iter()
                    .map(|&r| if inside.contains(&r) { r } else { -1 })
                    .collect()
            })
            .collect();
        let offsets = |lists: Vec<&[usize]>, strides: &[usize]| {
            lists
                .iter()
                .zip(strides)
                .fold(vec![0usize], |acc, (l, &s)| {
                    acc.iter()
                        .flat_map(|&a| l.iter().map(move |&x| a + x * s))
                        .collect()
                })
        };
        out.push(Class {
            outs: chosen.iter().map(|ph| ph.outs.len()).collect(),
            taps: chosen.iter().map(|ph| ph.taps.len()).collect(),
            tables,
            reach,
            rows: offsets(chosen.iter().map(|ph| &ph.outs[..]).collect(), &out_strides),
            kernel_rows: offsets(chosen.iter().map(|ph| &ph.taps[..]).collect(), &k_strides)
                .into_iter()
                .flat_map(|w| (0..g.c_group).map(move |c| w * g.c_group + c))
                .collect(),
        });
        match (0..nd).rev().find(|&i| pick[i] + 1 < counts[i]) {
            Some(i) => {
                pick[i] += 1;
                pick[i + 1..].fill(0);
            }
            None => return out,
        }
    }
}
