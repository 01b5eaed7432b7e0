//! The unblocked LU factorisation of small matrices, row-major, as LAPACK's `getf2`
//! computes it. For a batch of small matrices (a `vmap` of 64 x 64 solves) the per-call
//! set-up of a blocked library costs more than the arithmetic; this loop works on each
//! matrix in place, contiguous rows at a time, compiled for the processor's vector width
//! (`isa`).

use std::ops::{Add, Div, Mul, Sub};

use crate::prims::isa::multiversion;

/// The largest dimension factored here; larger matrices go to `faer`'s blocked kernel.
pub(super) const SMALL: usize = 128;

/// The arithmetic the kernel needs, for `f32` and `f64`.
pub(super) trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    const ZERO: Self;
    fn abs(self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
        }
    };
}
real!(f32);
real!(f64);

multiversion! {
    /// The LU factorisation with partial pivoting of the `m x n` matrix `a`: the packed
    /// factors (unit-lower `L` below the diagonal, `U` on and above it), LAPACK's row swaps
    /// (step `k` swapped rows `k` and `pivots[k]`) and the permutation they make. The pivot is
    /// the first entry of largest magnitude; a zero pivot leaves its column unscaled.
    pub(super) fn lu[T: Real](a: &[T], m: usize, n: usize) -> (Vec<T>, Vec<i32>, Vec<i32>) {
        let mut a = a.to_vec();
        let k = m.min(n);
        let mut perm: Vec<i32> = (0..m as i32).collect();
        let mut pivots = Vec::with_capacity(k);
        for c in 0..k {
            let mut p = c;
            let mut best = a[c * n + c].abs();
            for i in c + 1..m {
                let v = a[i * n + c].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            pivots.push(p as i32);
            if p != c {
                let (top, bottom) = a.split_at_mut(p * n);
                top[c * n..c * n + n].swap_with_slice(&mut bottom[..n]);
                perm.swap(c, p);
            }
            let pivot = a[c * n + c];
            for i in c + 1..m {
                if pivot != T::ZERO {
                    a[i * n + c] = a[i * n + c] / pivot;
                }
                let f = a[i * n + c];
                let (top, bottom) = a.split_at_mut(i * n);
                let src = &top[c * n + c + 1..c * n + n];
                for (d, &s) in bottom[c + 1..n].iter_mut().zip(src) {
                    *d = *d - f * s;
                }
            }
        }
        (a, pivots, perm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_records_lapacks_swaps_and_reconstructs_the_matrix() {
        let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        let (f, pivots, perm) = lu(&a, 3, 3);
        // numpy/scipy (LAPACK getrf) of this matrix: pivots [2, 2, 2], perm [2, 0, 1].
        assert_eq!((pivots, perm.clone()), (vec![2, 2, 2], vec![2, 0, 1]));
        for i in 0..3 {
            for j in 0..3 {
                let lu: f64 = (0..3)
                    .map(|t| {
                        let l = if t < i {
                            f[i * 3 + t]
                        } else if t == i {
                            1.0
                        } else {
                            0.0
                        };
                        let u = if t <= j { f[t * 3 + j] } else { 0.0 };
                        l * u
                    })
                    .sum();
                let want = a[perm[i] as usize * 3 + j];
                assert!((lu - want).abs() < 1e-12, "({i}, {j}): {lu} vs {want}");
            }
        }
    }
}
