//! Matrix and vector products (numpy's section of that name): `matmul` (numpy's `@`) and `dot`.

use super::{promote_dtypes, Operand};
use crate::core::Tensor;
use crate::ops as lax;

#[track_caller]
fn mismatch(what: &str, a: &Tensor, b: &Tensor) -> ! {
    panic!(
        "{what}: shapes {:?} and {:?} are not aligned for a matrix product\n  at {}",
        a.shape(),
        b.shape(),
        std::panic::Location::caller()
    )
}

/// Matrix product with numpy's rules: vectors are promoted to matrices and the promoted
/// dimension removed afterwards; leading (batch) dimensions broadcast.
///
/// Staged as JAX stages it: one `dot_general` whose batch dimensions are the batch
/// dimensions both operands have (size-1 ones squeezed away, missing ones left to the other
/// operand's free dimensions, so nothing is broadcast), then a `transpose` if the result's
/// dimensions need reordering.
#[track_caller]
pub fn matmul(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("matmul", &[a.into(), b.into()]);
    let (a, b) = (&t[0], &t[1]);
    let (na, nb) = (a.ndim(), b.ndim());
    if na == 0 || nb == 0 {
        panic!(
            "matmul: operands must not be scalars, got shapes {:?} and {:?}\n  at {}",
            a.shape(),
            b.shape(),
            std::panic::Location::caller()
        );
    }
    let pref = Some(a.dtype());
    let ka = a.shape()[na - 1];
    let kb = if nb == 1 {
        b.shape()[0]
    } else {
        b.shape()[nb - 2]
    };
    if ka != kb {
        mismatch("matmul", a, b);
    }
    let (a_is_mat, b_is_mat) = (na > 1, nb > 1);
    let ba = if a_is_mat { &a.shape()[..na - 2] } else { &[] };
    let bb = if b_is_mat { &b.shape()[..nb - 2] } else { &[] };
    let nbatch = ba.len().max(bb.len());
    let get = |s: &[usize], i: usize| (i + s.len()).checked_sub(nbatch).map(|j| s[j]);
    let (mut a_squeeze, mut b_squeeze) = (Vec::new(), Vec::new());
    let (mut a_batch, mut b_batch) = (Vec::new(), Vec::new());
    // Where each kind of result dimension goes, in the order dot_general emits them.
    let (mut idx_batch, mut idx_a_other, mut idx_b_other) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..nbatch {
        match (get(ba, i), get(bb, i)) {
            (None, _) => idx_b_other.push(i),
            (_, None) => idx_a_other.push(i),
            (Some(1), _) => {
                idx_b_other.push(i);
                a_squeeze.push(idx_batch.len() + idx_a_other.len() + a_squeeze.len());
            }
            (_, Some(1)) => {
                idx_a_other.push(i);
                b_squeeze.push(idx_batch.len() + idx_b_other.len() + b_squeeze.len());
            }
            (Some(x), Some(y)) if x == y => {
                a_batch.push(idx_batch.len() + idx_a_other.len());
                b_batch.push(idx_batch.len() + idx_b_other.len());
                idx_batch.push(i);
            }
            _ => mismatch("matmul", a, b),
        }
    }
    if a_is_mat {
        idx_a_other.push(nbatch);
    }
    if b_is_mat {
        idx_b_other.push(nbatch + usize::from(a_is_mat));
    }
    let order: Vec<usize> = [idx_batch, idx_a_other, idx_b_other].concat();
    let mut perm: Vec<usize> = (0..order.len()).collect();
    perm.sort_by_key(|&i| order[i]);
    let a = if a_squeeze.is_empty() {
        a.clone()
    } else {
        lax::squeeze(a, &a_squeeze)
    };
    let b = if b_squeeze.is_empty() {
        b.clone()
    } else {
        lax::squeeze(b, &b_squeeze)
    };
    let ca = a.ndim() - 1;
    let cb = b.ndim() - 1 - usize::from(b_is_mat);
    let out = lax::dot_general(&a, &b, (&[ca], &[cb]), (&a_batch, &b_batch), pref);
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        out
    } else {
        lax::transpose(&out, &perm)
    }
}

/// `np.dot`: matrix product for rank ≤ 2; for higher ranks, a sum product over the last
/// axis of `a` and the second-to-last of `b`.
#[track_caller]
pub fn dot(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("dot", &[a.into(), b.into()]);
    let (a, b) = (&t[0], &t[1]);
    let (na, nb) = (a.ndim(), b.ndim());
    if na == 0 || nb == 0 {
        return lax::mul(a, b);
    }
    if na <= 2 && nb <= 2 {
        return matmul(a, b);
    }
    let cb = if nb == 1 { 0 } else { nb - 2 };
    if a.shape()[na - 1] != b.shape()[cb] {
        mismatch("dot", a, b);
    }
    lax::dot_general(a, b, (&[na - 1], &[cb]), (&[], &[]), Some(a.dtype()))
}
