//! A product of few columns whose left operand is read in place, at a base per row plus
//! an offset per term: a convolution's windows in its padded input (see
//! the convolution's `direct` module), without a patch matrix.

use super::{fma_scalar, L, ROW_GROUP, V};
use crate::prims::isa::multiversion;

/// Rows of `a @ b` where `a` is read in place: element `(r, t)` of `a` is
/// `data[bases[r] + offsets[t]]` (a convolution's windows in its padded input), `b`'s rows
/// given as padded `coefs` (one per offset). `store(r, row)` receives row `r` (an index
/// into `bases`) in the first lanes of `row`, each sum started from +0, on the calling
/// thread.
///
/// # Panics
/// If an element lies past the end of `data`, or `offsets` and `coefs` differ in length.
pub(in crate::prims) fn rows_at_offsets(
    data: &[f32],
    bases: &[usize],
    offsets: &[usize],
    coefs: &[V],
    mut store: impl FnMut(usize, &V),
) {
    assert_eq!(offsets.len(), coefs.len());
    let (groups, rest) = bases.as_chunks::<ROW_GROUP>();
    for (g, at) in groups.iter().enumerate() {
        let acc = accumulate_at::<ROW_GROUP>(data, at, offsets, coefs);
        for (r, acc) in acc.iter().enumerate() {
            store(g * ROW_GROUP + r, acc);
        }
    }
    let first = groups.len() * ROW_GROUP;
    macro_rules! tail {
        ($($n:literal)*) => {
            match rest.len() {
                0 => {}
                $($n => {
                    let at: &[usize; $n] = rest.try_into().expect("the tail's length");
                    let acc = accumulate_at::<$n>(data, at, offsets, coefs);
                    for (r, acc) in acc.iter().enumerate() {
                        store(first + r, acc);
                    }
                })*
                _ => unreachable!("a tail is shorter than a group"),
            }
        };
    }
    tail!(1 2 3 4 5 6 7);
}

multiversion! {
    /// `R` rows of [`rows_at_offsets`], whose elements start at `bases`.
    #[inline(never)]
    fn accumulate_at[const R: usize](
        data: &[f32],
        bases: &[usize; R],
        offsets: &[usize],
        coefs: &[V],
    ) -> [V; R] {
        let span = offsets.iter().fold(0, |m, &o| m.max(o + 1));
        let rows: [&[f32]; R] = std::array::from_fn(|r| &data[bases[r]..bases[r] + span]);
        let mut acc = [[0f32; L]; R];
        for (&o, w) in offsets.iter().zip(coefs) {
            let w = *w;
            for (acc, row) in acc.iter_mut().zip(&rows) {
                fma_scalar(w, row[o], acc);
            }
        }
        acc
    }
}
