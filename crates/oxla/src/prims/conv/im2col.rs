//! The patch matrix of one example, group and class (im2col): row `r` is the class's
//! result position `r`, and holds for each of the class's window taps the `c_group`
//! features of the input element it reads, or zeros where it reads padding.

use super::classes::Class;
use crate::array::Elem;

/// The input in its own layout: element (example `n`, spatial index `x...`, feature `c`)
/// is `data[n * batch + sum(x[i] * spatial[i]) + c * feature]`.
pub(super) struct Source<'a, T> {
    pub(super) data: &'a [T],
    pub(super) batch: usize,
    pub(super) spatial: Vec<usize>,
    pub(super) feature: usize,
}

/// Steps `idx` to the next index of `shape` in row-major order (wrapping to zeros).
pub(super) fn advance(idx: &mut [usize], shape: &[usize]) {
    for d in (0..shape.len()).rev() {
        idx[d] += 1;
        if idx[d] < shape[d] {
            return;
        }
        idx[d] = 0;
    }
}

/// Copies `dst.len()` elements from `src`, starting at `at`, `step` apart (runs of a few
/// elements, copied in place rather than by a call to `memcpy`).
#[inline(always)]
fn gather<T: Copy>(dst: &mut [T], src: &[T], at: usize, step: usize) {
    if step == 1 {
        let src = &src[at..at + dst.len()];
        let (blocks, rest) = dst.as_chunks_mut::<4>();
        let (from, from_rest) = src.as_chunks::<4>();
        for (d, s) in blocks.iter_mut().zip(from) {
            *d = *s;
        }
        for (d, s) in rest.iter_mut().zip(from_rest) {
            *d = *s;
        }
    } else {
        for (j, d) in dst.iter_mut().enumerate() {
            *d = src[at + j * step];
        }
    }
}

/// The taps of one position of the innermost dimension that read input elements, where
/// they are consecutive and read evenly spaced elements: taps `lo..hi` read elements
/// `first`, `first + step`, ... (the others read padding).
#[derive(Clone, Copy)]
struct Span {
    lo: usize,
    hi: usize,
    first: usize,
    step: usize,
}

impl Span {
    /// The span of the taps reading `t` (input indices, `-1` for padding), if they form one.
    fn of(t: &[i64]) -> Option<Span> {
        let lo = t.iter().position(|&s| s >= 0)?;
        let hi = t.iter().rposition(|&s| s >= 0)? + 1;
        let step = if hi - lo > 1 { t[lo + 1] - t[lo] } else { 1 };
        let even = t[lo..hi]
            .iter()
            .enumerate()
            .all(|(j, &s)| s == t[lo] + j as i64 * step);
        (even && step > 0).then(|| Span {
            lo,
            hi,
            first: t[lo] as usize,
            step: step as usize,
        })
    }
}

/// How the innermost dimension's taps are read: the input's steps, and whether the
/// features of adjacent positions lie side by side (`dense`).
struct Inner<'a, T> {
    src: &'a [T],
    step: usize,
    feature: usize,
    cg: usize,
    dense: bool,
}

impl<T: Elem> Inner<'_, T> {
    /// Fills one run of cells (the innermost taps, `cg` features each) whose outer taps
    /// read at `base`: `t` holds the innermost taps' input indices, `span` their span.
    #[inline(always)]
    fn fill(&self, cells: &mut [T], base: usize, t: &[i64], span: Option<Span>) {
        let zero = T::from_f64(0.0);
        let cg = self.cg;
        let Some(sp) = span else {
            for (cell, &s) in cells.chunks_exact_mut(cg).zip(t) {
                if s < 0 {
                    cell.fill(zero);
                } else {
                    gather(cell, self.src, base + s as usize * self.step, self.feature);
                }
            }
            return;
        };
        cells[..sp.lo * cg].fill(zero);
        cells[sp.hi * cg..].fill(zero);
        let mid = &mut cells[sp.lo * cg..sp.hi * cg];
        let at = base + sp.first * self.step;
        let stride = sp.step * self.step;
        if self.dense && sp.step == 1 {
            gather(mid, self.src, at, 1);
        } else if cg == 1 {
            for (cell, x) in mid.iter_mut().zip(self.src[at..].iter().step_by(stride)) {
                *cell = *x;
            }
        } else {
            for (j, cell) in mid.chunks_exact_mut(cg).enumerate() {
                gather(cell, self.src, at + j * stride, self.feature);
            }
        }
    }
}

/// Fills `patches` (the class's rows, each as long as its kernel rows) from example `n` of
/// `src`, features `c0..c0 + c_group`. The innermost taps of a position are copied by
/// their span: as one run where they read adjacent positions whose features lie side by
/// side, else at a constant stride, and one by one only where they read no span.
pub(super) fn im2col<T: Elem>(
    src: &Source<T>,
    n: usize,
    c0: usize,
    cg: usize,
    class: &Class,
    patches: &mut [T],
) {
    let zero = T::from_f64(0.0);
    let origin = n * src.batch + c0 * src.feature;
    let nd = class.taps.len();
    let row_len = class.kernel_rows.len();
    if row_len == 0 {
        return;
    }
    if nd == 0 {
        gather(&mut patches[..cg], src.data, origin, src.feature);
        return;
    }
    let last = nd - 1;
    let (k_last, step) = (class.taps[last], src.spatial[last]);
    let run = k_last * cg;
    let inner = Inner {
        src: src.data,
        step,
        feature: src.feature,
        cg,
        dense: src.feature == 1 && step == cg,
    };
    let lasts = &class.tables[last];
    let spans: Vec<Option<Span>> = lasts.chunks(k_last).map(Span::of).collect();
    let taps_of = |o: usize| &lasts[o * k_last..(o + 1) * k_last];
    if nd == 2 {
        // The common case, without the general walk's index arithmetic.
        let (firsts, k0) = (&class.tables[0], class.taps[0]);
        let mut rows = patches.chunks_exact_mut(row_len);
        for o0 in 0..class.outs[0] {
            let outer = &firsts[o0 * k0..(o0 + 1) * k0];
            for (o1, dst_row) in (0..class.outs[1]).zip(&mut rows) {
                for (cells, &s) in dst_row.chunks_exact_mut(run).zip(outer) {
                    if s < 0 {
                        cells.fill(zero);
                    } else {
                        let base = origin + s as usize * src.spatial[0];
                        inner.fill(cells, base, taps_of(o1), spans[o1]);
                    }
                }
            }
        }
        return;
    }
    let outer_taps = &class.taps[..last];
    let mut o = vec![0usize; nd];
    let mut kk = vec![0usize; last];
    for dst_row in patches.chunks_exact_mut(row_len) {
        kk.fill(0);
        for cells in dst_row.chunks_exact_mut(run) {
            let mut base = origin;
            let mut valid = true;
            for i in 0..last {
                let s = class.tables[i][o[i] * class.taps[i] + kk[i]];
                if s < 0 {
                    valid = false;
                    break;
                }
                base += s as usize * src.spatial[i];
            }
            advance(&mut kk, outer_taps);
            if valid {
                inner.fill(cells, base, taps_of(o[last]), spans[o[last]]);
            } else {
                cells.fill(zero);
            }
        }
        advance(&mut o, &class.outs);
    }
}
