//! An eager outer product holds its result and nothing of its size besides: the size-1
//! operands are read in place, not materialised. One test in its own process, so that the
//! peak resident memory is its own.

mod rss;

use oxla::{memory, numpy as jnp};
use rss::{peak_rss, reset_peak_rss};

#[test]
fn eager_outer_product_grows_the_peak_by_its_result_only() {
    const MIB: usize = 1 << 20;
    let n = 4096;
    let x = jnp::linspace(0.0, 1.0, n);
    let y = jnp::linspace(-1.0, 2.0, n);
    memory::release_held();
    let before = reset_peak_rss();
    let r = x.index((.., None)) * y.index((None, ..));
    let grew = peak_rss().saturating_sub(before);
    let result = r.array().nbytes();
    assert_eq!(result, 64 * MIB);
    // Materialising both operands at the result's shape took three times the result.
    assert!(
        grew <= result + 16 * MIB,
        "the peak grew by {} MiB for a {} MiB result",
        grew / MIB,
        result / MIB
    );
    let v = r.to_vec::<f32>();
    let (xs, ys) = (x.to_vec::<f32>(), y.to_vec::<f32>());
    assert_eq!(v[5 * n + 7], xs[5] * ys[7]);
    assert_eq!(v[n * n - 1], xs[n - 1] * ys[n - 1]);
}
