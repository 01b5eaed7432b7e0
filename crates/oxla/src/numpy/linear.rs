//! Matrix products: `matmul` (numpy's `@`) and `dot`.

use super::promote_dtypes;
use super::shape::broadcast_to;
use crate::core::Tensor;
use crate::lax;

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
#[track_caller]
pub fn matmul(a: &Tensor, b: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes(&[a.into(), b.into()]);
    let (a, b) = (&t[0], &t[1]);
    let (na, nb) = (a.ndim(), b.ndim());
    assert!(na > 0 && nb > 0, "matmul: operands must not be scalars");
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
    match (na, nb) {
        (1, 1) => lax::dot_general(a, b, (&[0], &[0]), (&[], &[]), pref),
        (_, 1) => lax::dot_general(a, b, (&[na - 1], &[0]), (&[], &[]), pref),
        (1, 2) => lax::dot_general(a, b, (&[0], &[0]), (&[], &[]), pref),
        (2, 2) => lax::dot_general(a, b, (&[1], &[0]), (&[], &[]), pref),
        (1, _) => {
            let a2 = lax::broadcast_in_dim(a, &[1, ka], &[1]);
            let r = matmul(&a2, b);
            let n = r.ndim();
            lax::squeeze(&r, &[n - 2])
        }
        _ => {
            // Broadcast the batch dimensions, then contract with them as dot_general batch
            // dimensions.
            let (ba, bb) = (&a.shape()[..na - 2], &b.shape()[..nb - 2]);
            let nbatch = ba.len().max(bb.len());
            let mut batch = vec![1usize; nbatch];
            for (i, d) in batch.iter_mut().enumerate() {
                let get = |s: &[usize]| (i + s.len()).checked_sub(nbatch).map_or(1, |j| s[j]);
                let (x, y) = (get(ba), get(bb));
                if x != y && x != 1 && y != 1 {
                    mismatch("matmul", a, b);
                }
                *d = x.max(y);
            }
            let full = |t: &Tensor, m: usize, n: usize| {
                let mut s = batch.clone();
                s.extend([m, n]);
                broadcast_to(t, &s)
            };
            let a3 = full(a, a.shape()[na - 2], ka);
            let b3 = full(b, kb, b.shape()[nb - 1]);
            let bd: Vec<usize> = (0..nbatch).collect();
            lax::dot_general(&a3, &b3, (&[nbatch + 1], &[nbatch]), (&bd, &bd), pref)
        }
    }
}

/// `np.dot`: matrix product for rank ≤ 2; for higher ranks, a sum product over the last
/// axis of `a` and the second-to-last of `b`.
#[track_caller]
pub fn dot(a: &Tensor, b: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes(&[a.into(), b.into()]);
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
