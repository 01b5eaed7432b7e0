//! Reductions over pairs of rows: `out[i, j] = sum_k f(a[i, k], b[j, k])`, the kernel of
//! seed 000's affinities (`f` an absolute or squared difference, or a product).
//!
//! The block interpreter would read a row of `a` and a row of `b` for every pair. Here a
//! register-blocked micro-kernel (as a matrix multiply has) computes 4 x 4 pairs at a
//! time, 16 lanes of `k` per step, so each loaded vector serves four pairs; tiles of `a`
//! rows stay in cache while the rows of `b` stream past them.

use super::kernel::ir::{Kernel, NodeOp};
use crate::array::{Array, DType, Values, ValuesMut};
use crate::core::Prim;
use crate::prims::isa::multiversion;
#[cfg(target_arch = "x86_64")]
use crate::prims::isa::{isa, Isa};
use crate::prims::{BinaryOp, ReduceOp, UnaryOp};

/// The elementwise function of a pairwise reduction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PairOp {
    AbsDiff,
    SquaredDiff,
    Product,
}

/// Where an operand's rows are: input slot, offset of row 0, distance between rows.
type Rows = (usize, i64, i64);

/// A kernel recognised as a pairwise sum: where its two operands' rows are.
#[derive(Clone, Debug)]
pub(crate) struct Pairwise {
    op: PairOp,
    a: Rows,
    b: Rows,
    /// Rows of `a`, rows of `b`, and the length of a row.
    shape: (usize, usize, usize),
}

/// Lanes of `k` per step of the micro-kernel: one AVX-512 register of f32.
const W: usize = 16;

/// Bytes of `a` rows a tile keeps in cache.
const TILE_BYTES: usize = 1 << 20;

impl Pairwise {
    /// `k` as a pairwise sum over loops (i, j, k) of f32 values, if it is one.
    pub(crate) fn detect(k: &Kernel) -> Option<Pairwise> {
        let (ReduceOp::Sum, flags) = k.reduce.as_ref()? else {
            return None;
        };
        let all_f32 = k.nodes.iter().all(|n| n.dtype == DType::F32);
        if flags[..] != [false, false, true] || !all_f32 || k.out.aval.dtype != DType::F32 {
            return None;
        }
        let row = |n: usize, deps: u64| {
            let NodeOp::Load { slot, offset, .. } = &k.nodes[n].op else {
                return None;
            };
            (k.nodes[n].deps == deps && offset.coef[2] == 1).then(|| {
                let stride = offset.coef[if deps == 0b101 { 0 } else { 1 }];
                (*slot, offset.base, stride)
            })
        };
        // The two loads, whichever order the operation takes them in.
        let operands = |x: usize, y: usize| {
            row(x, 0b101)
                .zip(row(y, 0b110))
                .or_else(|| row(y, 0b101).zip(row(x, 0b110)))
        };
        let NodeOp::Apply { prim, args } = &k.nodes[k.nodes.len() - 1].op else {
            return None;
        };
        // The root: `x * y`, `d * d`, `d ** 2` or `|d|` of a difference `d` of the rows.
        let (op, (a, b)) = if let (Prim::Binary(BinaryOp::Mul), &[x, y]) = (prim, &args[..]) {
            if x != y {
                (PairOp::Product, operands(x, y)?)
            } else {
                (PairOp::SquaredDiff, difference(k, x, &operands)?)
            }
        } else if let (Prim::IntegerPow { y: 2 }, &[d]) = (prim, &args[..]) {
            (PairOp::SquaredDiff, difference(k, d, &operands)?)
        } else if let (Prim::Unary(UnaryOp::Abs), &[d]) = (prim, &args[..]) {
            (PairOp::AbsDiff, difference(k, d, &operands)?)
        } else {
            return None;
        };
        // Nothing else may be computed: two loads, the difference, the root.
        let expected = if op == PairOp::Product { 3 } else { 4 };
        let literals = k
            .nodes
            .iter()
            .filter(|n| matches!(n.op, NodeOp::Lit(_)))
            .count();
        if k.nodes.len() - literals != expected {
            return None;
        }
        Some(Pairwise {
            op,
            a,
            b,
            shape: (k.loops[0], k.loops[1], k.loops[2]),
        })
    }

    /// Computes the sums into `out` (row-major `[rows of a, rows of b]`), then the kernel's
    /// epilogue.
    pub(crate) fn run(&self, k: &Kernel, inputs: &[Array], out: &mut [f32]) {
        let (ni, nj, len) = self.shape;
        let rows = |(slot, base, stride): Rows, n: usize| {
            let s = inputs[slot].as_slice::<f32>();
            let last = base + stride * (n as i64 - 1) + len as i64;
            assert!(
                base >= 0 && stride >= 0 && last as usize <= s.len(),
                "rows in bounds"
            );
            (s, base as usize, stride as usize)
        };
        let a = rows(self.a, ni);
        let b = rows(self.b, nj);
        let parts = crate::env::parts();
        let per = ni.div_ceil(parts).div_ceil(4) * 4;
        let tile = (TILE_BYTES / (4 * len).max(1)).max(4) / 4 * 4;
        rayon::scope(|s| {
            for (c, chunk) in out.chunks_mut((per * nj).max(1)).enumerate() {
                let i0 = c * per;
                s.spawn(move |_| {
                    let i1 = (i0 + per).min(ni);
                    let mut t0 = i0;
                    while t0 < i1 {
                        let t1 = (t0 + tile).min(i1);
                        for j0 in (0..nj).step_by(4) {
                            for r0 in (t0..t1).step_by(4) {
                                let block = self.block(a, b, r0, j0, (t1, nj));
                                for (r, row) in block.iter().enumerate().take(t1 - r0) {
                                    let at = (r0 + r - i0) * nj + j0;
                                    let n = (nj - j0).min(4);
                                    chunk[at..at + n].copy_from_slice(&row[..n]);
                                }
                            }
                        }
                        t0 = t1;
                    }
                });
            }
        });
        if k.epilogue.is_some() {
            let mut scratch = vec![0f32; 1024];
            for c in out.chunks_mut(1024) {
                let s = &mut scratch[..c.len()];
                k.apply_epilogue(Values::F32(c), ValuesMut::F32(s));
                c.copy_from_slice(s);
            }
        }
    }

    /// The 4 x 4 sums of rows `r0..r0 + 4` of `a` with rows `j0..j0 + 4` of `b` (rows past
    /// `ends` repeat the last one; their sums are not stored).
    fn block(
        &self,
        (a, a0, sa): (&[f32], usize, usize),
        (b, b0, sb): (&[f32], usize, usize),
        r0: usize,
        j0: usize,
        (ri, rj): (usize, usize),
    ) -> [[f32; 4]; 4] {
        let len = self.shape.2;
        let a: [&[f32]; 4] = std::array::from_fn(|r| {
            let i = (r0 + r).min(ri - 1);
            &a[a0 + i * sa..][..len]
        });
        let b: [&[f32]; 4] = std::array::from_fn(|c| {
            let j = (j0 + c).min(rj - 1);
            &b[b0 + j * sb..][..len]
        });
        #[cfg(target_arch = "x86_64")]
        if isa() == Isa::V4 {
            // SAFETY: `isa` chose V4 only on a processor with AVX-512F.
            return unsafe { block512(self.op, a, b) };
        }
        micro(self.op, a, b)
    }
}

/// The difference node `d` (`a - b`, in either order) of a kernel's two rows.
fn difference(
    k: &Kernel,
    d: usize,
    operands: &dyn Fn(usize, usize) -> Option<(Rows, Rows)>,
) -> Option<(Rows, Rows)> {
    let NodeOp::Apply {
        prim: Prim::Binary(BinaryOp::Sub),
        args,
    } = &k.nodes[d].op
    else {
        return None;
    };
    operands(args[0], args[1])
}

/// `sum_k f(a[r][k], b[c][k])` for 4 x 4 rows, `f` given by `op`: the portable form,
/// for processors without AVX-512.
fn micro(op: PairOp, a: [&[f32]; 4], b: [&[f32]; 4]) -> [[f32; 4]; 4] {
    match op {
        PairOp::AbsDiff => micro_by(a, b, |x, y| (x - y).abs()),
        PairOp::SquaredDiff => micro_by(a, b, |x, y| (x - y) * (x - y)),
        PairOp::Product => micro_by(a, b, |x, y| x * y),
    }
}

multiversion! {
    /// [`micro`] with the function `f`, [`W`] lanes at a time, each lane's partial sums
    /// kept apart.
    fn micro_by(
        a: [&[f32]; 4],
        b: [&[f32]; 4],
        f: impl Fn(f32, f32) -> f32 + Copy,
    ) -> [[f32; 4]; 4] {
        let len = a[0].len();
        let full = len / W * W;
        let mut acc = [[[0f32; W]; 4]; 4];
        for k in (0..full).step_by(W) {
            for r in 0..4 {
                for c in 0..4 {
                    for l in 0..W {
                        acc[r][c][l] += f(a[r][k + l], b[c][k + l]);
                    }
                }
            }
        }
        let mut out = [[0f32; 4]; 4];
        for r in 0..4 {
            for c in 0..4 {
                let tail: f32 = (full..len).map(|k| f(a[r][k], b[c][k])).sum();
                out[r][c] = acc[r][c].iter().sum::<f32>() + tail;
            }
        }
        out
    }
}

/// [`micro`] with AVX-512 registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn block512(op: PairOp, a: [&[f32]; 4], b: [&[f32]; 4]) -> [[f32; 4]; 4] {
    match op {
        PairOp::AbsDiff => micro512::<ABS_DIFF>(a, b),
        PairOp::SquaredDiff => micro512::<SQUARED_DIFF>(a, b),
        PairOp::Product => micro512::<PRODUCT>(a, b),
    }
}

/// [`PairOp`]s as the constant parameter of [`micro512`] and [`step512`].
#[cfg(target_arch = "x86_64")]
const ABS_DIFF: u8 = 0;
#[cfg(target_arch = "x86_64")]
const SQUARED_DIFF: u8 = 1;
#[cfg(target_arch = "x86_64")]
const PRODUCT: u8 = 2;

/// `acc + f(x, y)` on 16 lanes, `f` the [`PairOp`] numbered `OP`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn step512<const OP: u8>(
    acc: std::arch::x86_64::__m512,
    x: std::arch::x86_64::__m512,
    y: std::arch::x86_64::__m512,
) -> std::arch::x86_64::__m512 {
    use std::arch::x86_64::{_mm512_abs_ps, _mm512_add_ps, _mm512_fmadd_ps, _mm512_sub_ps};
    match OP {
        ABS_DIFF => _mm512_add_ps(acc, _mm512_abs_ps(_mm512_sub_ps(x, y))),
        SQUARED_DIFF => {
            let d = _mm512_sub_ps(x, y);
            _mm512_fmadd_ps(d, d, acc)
        }
        _ => _mm512_fmadd_ps(x, y, acc),
    }
}

/// [`micro`] of the [`PairOp`] numbered `OP` with AVX-512 registers: sixteen accumulators
/// of 16 lanes, eight loads per step.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn micro512<const OP: u8>(a: [&[f32]; 4], b: [&[f32]; 4]) -> [[f32; 4]; 4] {
    use std::arch::x86_64::{
        __mmask16, _mm512_loadu_ps, _mm512_maskz_loadu_ps, _mm512_reduce_add_ps, _mm512_setzero_ps,
    };
    let len = a[0].len();
    let full = len / W * W;
    // SAFETY: every load reads lanes `k..k + W` of a row of at
    // least `full >= k + W` elements (the rows are sliced to `len` by the caller), and the
    // masked tail load reads only the row's last `len - full` elements.
    unsafe {
        let mut acc = [[_mm512_setzero_ps(); 4]; 4];
        for k in (0..full).step_by(W) {
            let av: [_; 4] = std::array::from_fn(|r| _mm512_loadu_ps(a[r][k..k + W].as_ptr()));
            let bv: [_; 4] = std::array::from_fn(|c| _mm512_loadu_ps(b[c][k..k + W].as_ptr()));
            for r in 0..4 {
                for c in 0..4 {
                    acc[r][c] = step512::<OP>(acc[r][c], av[r], bv[c]);
                }
            }
        }
        if full < len {
            // The last lanes, the others loaded as zeros (f(0, 0) = 0 for every PairOp).
            let mask: __mmask16 = (1u16 << (len - full)) - 1;
            let av: [_; 4] =
                std::array::from_fn(|r| _mm512_maskz_loadu_ps(mask, a[r][full..].as_ptr()));
            let bv: [_; 4] =
                std::array::from_fn(|c| _mm512_maskz_loadu_ps(mask, b[c][full..].as_ptr()));
            for r in 0..4 {
                for c in 0..4 {
                    acc[r][c] = step512::<OP>(acc[r][c], av[r], bv[c]);
                }
            }
        }
        let mut out = [[0f32; 4]; 4];
        for r in 0..4 {
            for c in 0..4 {
                out[r][c] = _mm512_reduce_add_ps(acc[r][c]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of length `len` with values that make every kind of sum differ.
    fn rows(len: usize, seed: f32) -> Vec<Vec<f32>> {
        (0..4)
            .map(|r| {
                (0..len)
                    .map(|k| (k as f32 * 0.37 + r as f32 * 1.3 + seed).sin() * 3.0)
                    .collect()
            })
            .collect()
    }

    fn naive(a: &[Vec<f32>], b: &[Vec<f32>], f: fn(f32, f32) -> f32) -> [[f32; 4]; 4] {
        std::array::from_fn(|r| {
            std::array::from_fn(|c| a[r].iter().zip(&b[c]).map(|(&x, &y)| f(x, y)).sum())
        })
    }

    #[test]
    fn both_micro_kernels_match_a_plain_loop() {
        let kinds: [fn(f32, f32) -> f32; 3] =
            [|x, y| (x - y).abs(), |x, y| (x - y) * (x - y), |x, y| x * y];
        for len in [1, 15, 16, 17, 100, 1000] {
            let (a, b) = (rows(len, 0.1), rows(len, 2.7));
            let ar: [&[f32]; 4] = std::array::from_fn(|r| &a[r][..]);
            let br: [&[f32]; 4] = std::array::from_fn(|c| &b[c][..]);
            for (i, f) in kinds.into_iter().enumerate() {
                let want = naive(&a, &b, f);
                let op = [PairOp::AbsDiff, PairOp::SquaredDiff, PairOp::Product][i];
                let portable = micro(op, ar, br);
                // The AVX-512 form where the processor has it (the one `block` takes).
                let p = Pairwise {
                    op,
                    a: (0, 0, 0),
                    b: (0, 0, 0),
                    shape: (4, 4, len),
                };
                let vector = p.block((&a.concat(), 0, len), (&b.concat(), 0, len), 0, 0, (4, 4));
                for r in 0..4 {
                    for c in 0..4 {
                        let w = want[r][c];
                        for got in [portable[r][c], vector[r][c]] {
                            assert!(
                                (got - w).abs() <= 1e-4 * (1.0 + w.abs()),
                                "kind {i}, len {len}, [{r}][{c}]: {got} vs {w}"
                            );
                        }
                    }
                }
            }
        }
    }
}
