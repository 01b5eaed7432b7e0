//! The patch matrix of one example and group (im2col): row `r` is a result position, and
//! holds for each window position the `c_group` features of the input element it reads,
//! or zeros where it reads padding or a hole of the input's dilation.

use super::kernel::Geometry;
use crate::array::Elem;

/// Steps `idx` to the next index of `shape` in row-major order (wrapping to zeros).
fn advance(idx: &mut [usize], shape: &[usize]) {
    for d in (0..shape.len()).rev() {
        idx[d] += 1;
        if idx[d] < shape[d] {
            return;
        }
        idx[d] = 0;
    }
}

/// Fills `patches` (`rows x windows * c_group`, row-major) from one example's input `src`
/// (`[spatial..., c_in]`), reading features `c0..c0 + c_group`. `tables[i]` holds, per
/// (result position, window position) of spatial dimension `i`, the input index read or
/// `-1`. The innermost window dimension is copied as one run where its reads are
/// contiguous.
pub(super) fn im2col<T: Elem>(
    src: &[T],
    g: &Geometry,
    tables: &[Vec<i64>],
    in_strides: &[usize],
    c0: usize,
    patches: &mut [T],
) {
    let zero = T::from_f64(0.0);
    let (cg, c_in) = (g.c_group, g.c_in);
    let nd = g.in_sp.len();
    if nd == 0 {
        patches[..cg].copy_from_slice(&src[c0..c0 + cg]);
        return;
    }
    let last = nd - 1;
    let k_last = g.k_sp[last];
    let run = k_last * cg;
    let row_len: usize = g.k_sp.iter().product::<usize>() * cg;
    if row_len == 0 {
        return;
    }
    // Per result position of the innermost dimension: whether its window reads one
    // contiguous run of input positions.
    let contiguous: Vec<bool> = tables[last]
        .chunks(k_last.max(1))
        .map(|t| t[0] >= 0 && t.iter().enumerate().all(|(j, &s)| s == t[0] + j as i64))
        .collect();
    let outer_k = &g.k_sp[..last];
    let outer_windows: usize = outer_k.iter().product();
    let mut o = vec![0usize; nd];
    let mut kk = vec![0usize; last];
    for dst_row in patches.chunks_mut(row_len) {
        kk.fill(0);
        for cells in dst_row.chunks_mut(run).take(outer_windows) {
            let mut base = 0usize;
            let mut valid = true;
            for i in 0..last {
                let s = tables[i][o[i] * g.k_sp[i] + kk[i]];
                if s < 0 {
                    valid = false;
                    break;
                }
                base += s as usize * in_strides[i];
            }
            advance(&mut kk, outer_k);
            if !valid {
                cells.fill(zero);
                continue;
            }
            let t = &tables[last][o[last] * k_last..(o[last] + 1) * k_last];
            if contiguous[o[last]] && cg == c_in {
                let b = (base + t[0] as usize) * c_in;
                cells.copy_from_slice(&src[b..b + run]);
            } else if cg == 1 {
                for (cell, &s) in cells.iter_mut().zip(t) {
                    *cell = if s < 0 {
                        zero
                    } else {
                        src[(base + s as usize) * c_in + c0]
                    };
                }
            } else {
                for (cell, &s) in cells.chunks_mut(cg).zip(t) {
                    if s < 0 {
                        cell.fill(zero);
                    } else {
                        let b = (base + s as usize) * c_in + c0;
                        cell.copy_from_slice(&src[b..b + cg]);
                    }
                }
            }
        }
        advance(&mut o, &g.out_sp);
    }
}
