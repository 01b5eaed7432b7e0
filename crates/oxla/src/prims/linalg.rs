//! `dot_general`: contraction with batch dimensions, on the `gemm` crate for floats.

use super::arity;
use super::view::{new_array, signed_strides, strided};
use crate::array::{Array, DType, Elem};
use crate::core::Aval;

type Dims = (Vec<usize>, Vec<usize>);

fn free_dims(rank: usize, contract: &[usize], batch: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|d| !contract.contains(d) && !batch.contains(d))
        .collect()
}

pub(super) fn dot_general_rule(
    contracting: &Dims,
    batch: &Dims,
    preferred: Option<DType>,
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 2)?;
    let (l, r) = (&inputs[0], &inputs[1]);
    if l.dtype != r.dtype || !l.dtype.is_numeric() {
        return Err(format!(
            "operands must share a numeric dtype, got {l} and {r}"
        ));
    }
    let pairs = |(a, b): &Dims, what: &str| -> Result<(), String> {
        if a.len() != b.len() {
            return Err(format!(
                "{what} dimensions {a:?} and {b:?} differ in number"
            ));
        }
        for (&i, &j) in a.iter().zip(b) {
            if i >= l.ndim() || j >= r.ndim() || l.shape[i] != r.shape[j] {
                return Err(format!(
                    "{what} dimensions {a:?} of {l} and {b:?} of {r} do not match"
                ));
            }
        }
        Ok(())
    };
    pairs(contracting, "contracting")?;
    pairs(batch, "batch")?;
    let mut shape: Vec<usize> = batch.0.iter().map(|&d| l.shape[d]).collect();
    shape.extend(
        free_dims(l.ndim(), &contracting.0, &batch.0)
            .iter()
            .map(|&d| l.shape[d]),
    );
    shape.extend(
        free_dims(r.ndim(), &contracting.1, &batch.1)
            .iter()
            .map(|&d| r.shape[d]),
    );
    Ok(vec![Aval::new(preferred.unwrap_or(l.dtype), &shape)])
}

/// `a` permuted to `[batch..., first..., second...]` and made contiguous, with the products
/// of the three groups' sizes.
fn arrange(a: &Array, batch: &[usize], first: &[usize], second: &[usize]) -> (Array, [usize; 3]) {
    let perm: Vec<usize> = batch.iter().chain(first).chain(second).copied().collect();
    let size = |ds: &[usize]| ds.iter().map(|&d| a.shape()[d]).product::<usize>();
    let sizes = [size(batch), size(first), size(second)];
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return (a.clone(), sizes);
    }
    let src = signed_strides(a.shape());
    let shape: Vec<usize> = perm.iter().map(|&p| a.shape()[p]).collect();
    let strides: Vec<isize> = perm.iter().map(|&p| src[p]).collect();
    (strided(a, 0, &shape, &strides), sizes)
}

pub(super) fn dot_general(
    lhs: &Array,
    rhs: &Array,
    contracting: &Dims,
    batch: &Dims,
    preferred: Option<DType>,
) -> Array {
    let lfree = free_dims(lhs.ndim(), &contracting.0, &batch.0);
    let rfree = free_dims(rhs.ndim(), &contracting.1, &batch.1);
    let (l, [b, m, k]) = arrange(lhs, &batch.0, &lfree, &contracting.0);
    let (r, [_, n, _]) = arrange(rhs, &batch.1, &rfree, &contracting.1);
    // r is [b, n, k]: read it as the column-major k x n matrix it is.
    let mut shape: Vec<usize> = batch.0.iter().map(|&d| lhs.shape()[d]).collect();
    shape.extend(lfree.iter().map(|&d| lhs.shape()[d]));
    shape.extend(rfree.iter().map(|&d| rhs.shape()[d]));
    let out = with_dtype!(lhs.dtype(), T, [I32, U32, F32, F64], {
        new_array::<T>(&shape, |out| {
            matmul_batched::<T>(l.as_slice(), r.as_slice(), out, [b, m, k, n])
        })
    });
    match preferred {
        Some(d) if d != lhs.dtype() => super::elementwise::convert(&out, d),
        _ => out,
    }
}

/// Multiply-accumulate with the element type's own arithmetic (wrapping for integers).
trait Mac: Elem {
    fn mac(acc: Self, a: Self, b: Self) -> Self;
}

macro_rules! mac {
    ($t:ty, float) => {
        impl Mac for $t {
            fn mac(acc: Self, a: Self, b: Self) -> Self {
                acc + a * b
            }
        }
    };
    ($t:ty, int) => {
        impl Mac for $t {
            fn mac(acc: Self, a: Self, b: Self) -> Self {
                acc.wrapping_add(a.wrapping_mul(b))
            }
        }
    };
}
mac!(f32, float);
mac!(f64, float);
mac!(i32, int);
mac!(u32, int);

/// `out[b] = l[b] (m x k, row-major) @ r[b]^T (r[b] is n x k, row-major)`.
fn matmul_batched<T: Mac>(l: &[T], r: &[T], out: &mut [T], [b, m, k, n]: [usize; 4]) {
    for i in 0..b {
        let (lb, rb) = (
            &l[i * m * k..(i + 1) * m * k],
            &r[i * n * k..(i + 1) * n * k],
        );
        let ob = &mut out[i * m * n..(i + 1) * m * n];
        if !gemm_float(lb, rb, ob, m, k, n) {
            for p in 0..m {
                for q in 0..n {
                    let mut acc = T::default();
                    for t in 0..k {
                        acc = T::mac(acc, lb[p * k + t], rb[q * k + t]);
                    }
                    ob[p * n + q] = acc;
                }
            }
        }
    }
}

/// Threads for a product of this size: all of them once it is worth a fork.
fn parallelism(m: usize, n: usize, k: usize) -> gemm::Parallelism {
    if m * n * k >= 1 << 21 && rayon::current_num_threads() > 1 {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    }
}

/// Runs one f32/f64 matrix product on `gemm`; returns false for other element types.
fn gemm_float<T: Elem>(l: &[T], r: &[T], out: &mut [T], m: usize, k: usize, n: usize) -> bool {
    if !T::DTYPE.is_float() {
        return false;
    }
    if m == 0 || n == 0 {
        return true;
    }
    if k == 0 {
        out.fill(T::from_f64(0.0));
        return true;
    }
    let one = T::from_f64(1.0);
    let zero = T::from_f64(0.0);
    // SAFETY: l is m x k row-major (column stride 1, row stride k); r is n x k row-major,
    // i.e. the k x n right operand with column stride k and row stride 1; out is m x n
    // row-major. All three slices hold exactly those many elements, and T is f32 or f64,
    // which gemm supports.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            out.as_mut_ptr(),
            1,
            n as isize,
            false,
            l.as_ptr(),
            1,
            k as isize,
            r.as_ptr(),
            k as isize,
            1,
            zero,
            one,
            false,
            false,
            false,
            parallelism(m, n, k),
        )
    }
    true
}
