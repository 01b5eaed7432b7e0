//! Direct convolution: each example's input copied once into a buffer with its padding
//! written out, and the product reading every window in place, at a fixed offset per
//! kernel row from a base per result position. A patch matrix (see
//! [`im2col`](super::im2col)) writes each input element once per tap that reads it; the
//! padded copy writes it once.

use super::classes::Class;
use super::im2col::{advance, Source};
use super::kernel::Geometry;
use crate::array::Elem;

/// An example's input, the features of a group, with its padding written out: per spatial
/// dimension `lo` zeros before the input and as many after as the windows reach, the
/// features of a position contiguous.
pub(super) struct Padded {
    lo: Vec<usize>,
    in_sp: Vec<usize>,
    strides: Vec<usize>,
    cg: usize,
    len: usize,
}

/// One class's windows in the padded input: per row of the class the offset of its first
/// tap's element, per kernel row of the class the offset from there.
pub(super) struct Windows {
    pub(super) bases: Vec<usize>,
    pub(super) offsets: Vec<usize>,
}

/// The padded layout and each class's windows, where the copy is smaller than an example's
/// patch matrices and the convolution has spatial dimensions.
pub(super) fn plan(classes: &[Class], g: &Geometry) -> Option<(Padded, Vec<Windows>)> {
    let nd = g.in_sp.len();
    if nd == 0 {
        return None;
    }
    let reach = |i: usize| classes.iter().flat_map(move |c| c.reach[i].iter().copied());
    let lo: Vec<usize> = (0..nd)
        .map(|i| reach(i).min().map_or(0, |r| (-r).max(0) as usize))
        .collect();
    let hi: Vec<usize> = (0..nd)
        .map(|i| {
            let end = g.in_sp[i] as i64 - 1;
            reach(i).max().map_or(0, |r| (r - end).max(0) as usize)
        })
        .collect();
    let mut strides = vec![g.c_group; nd];
    for i in (0..nd - 1).rev() {
        strides[i] = strides[i + 1] * (lo[i + 1] + g.in_sp[i + 1] + hi[i + 1]);
    }
    let len = strides[0] * (lo[0] + g.in_sp[0] + hi[0]);
    let patches: usize = classes
        .iter()
        .map(|c| c.rows.len() * c.kernel_rows.len())
        .sum();
    if len >= patches {
        return None;
    }
    let padded = Padded {
        lo,
        in_sp: g.in_sp.clone(),
        strides,
        cg: g.c_group,
        len,
    };
    let windows = classes
        .iter()
        .map(|c| padded.windows(c))
        .collect::<Option<_>>()?;
    Some((padded, windows))
}

/// Every combination of one entry per list, row-major, summed.
fn sums(lists: &[Vec<usize>]) -> Vec<usize> {
    lists.iter().fold(vec![0], |acc, l| {
        acc.iter()
            .flat_map(|&a| l.iter().map(move |&x| a + x))
            .collect()
    })
}

impl Padded {
    /// A class's windows, or `None` where a dimension's taps do not read one pattern
    /// shifted per position.
    fn windows(&self, c: &Class) -> Option<Windows> {
        let nd = self.in_sp.len();
        let mut bases = Vec::with_capacity(nd);
        let mut offsets = Vec::with_capacity(nd);
        for i in 0..nd {
            let (outs, taps, reach) = (c.outs[i], c.taps[i], &c.reach[i]);
            if taps == 0 {
                return Some(Windows {
                    bases: Vec::new(),
                    offsets: Vec::new(),
                });
            }
            let shift: Vec<i64> = (0..taps).map(|t| reach[t] - reach[0]).collect();
            let fixed = (0..outs).all(|o| {
                let row = &reach[o * taps..(o + 1) * taps];
                row.iter().zip(&shift).all(|(&r, &s)| r - row[0] == s)
            });
            if !fixed || shift.iter().any(|&s| s < 0) {
                return None;
            }
            let stride = self.strides[i];
            bases.push(
                (0..outs)
                    .map(|o| (reach[o * taps] + self.lo[i] as i64) as usize * stride)
                    .collect(),
            );
            offsets.push(shift.iter().map(|&s| s as usize * stride).collect());
        }
        offsets.push((0..self.cg).collect());
        Some(Windows {
            bases: sums(&bases),
            offsets: sums(&offsets),
        })
    }

    /// Copies example `n`'s features `c0..c0 + cg` of `src` into `buf` ([`len`](Self::len)
    /// elements), padding included.
    pub(super) fn fill<T: Elem>(&self, src: &Source<T>, n: usize, c0: usize, buf: &mut [T]) {
        buf.fill(T::from_f64(0.0));
        let origin = n * src.batch + c0 * src.feature;
        let last = self.in_sp.len() - 1;
        let (width, step) = (self.in_sp[last] * self.cg, src.spatial[last]);
        let contiguous = src.feature == 1 && step == self.cg;
        let outer = &self.in_sp[..last];
        let mut idx = vec![0usize; last];
        for _ in 0..outer.iter().product::<usize>() {
            let (mut from, mut to) = (origin, self.lo[last] * self.strides[last]);
            for (i, &x) in idx.iter().enumerate() {
                from += x * src.spatial[i];
                to += (x + self.lo[i]) * self.strides[i];
            }
            let row = &mut buf[to..to + width];
            if contiguous {
                row.copy_from_slice(&src.data[from..from + width]);
            } else {
                for (x, cell) in row.chunks_exact_mut(self.cg).enumerate() {
                    let at = from + x * step;
                    for (c, v) in cell.iter_mut().enumerate() {
                        *v = src.data[at + c * src.feature];
                    }
                }
            }
            advance(&mut idx, outer);
        }
    }

    /// The elements of the padded copy.
    pub(super) fn len(&self) -> usize {
        self.len
    }
}
