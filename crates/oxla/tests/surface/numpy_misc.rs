//! `jax.numpy`: polynomials (`polyval` ... `vander`), windows, `trapezoid`, `gradient`,
//! `unwrap`, `array_equal`/`array_equiv`. One row a golden case of
//! `scripts/surface/tables/numpy_misc.py`.

use oxla::numpy as jnp;
use oxla::Tensor;

fn first(x: &Tensor, n: usize) -> Tensor {
    x.index(0..n as isize)
}

surface! {
    polyval_vec: |a| vec![jnp::polyval(&a[0], &a[1])];
    polyval_int: |a| vec![jnp::polyval(&a[0], &a[1])];
    polyadd_sub: |a| vec![
        jnp::polyadd(&a[0], &a[1]),
        jnp::polyadd(&a[1], &a[0]),
        jnp::polysub(&a[0], &a[1]),
        jnp::polysub(&a[1], &a[0]),
    ];
    polymul: |a| vec![jnp::polymul(&a[0], &a[1])];
    polyder: |a| vec![
        jnp::polyder(&a[0], 1),
        jnp::polyder(&a[0], 2),
        jnp::polyder(&a[0], 0),
        jnp::polyder(&a[0], 5),
    ];
    polyint: |a| vec![
        jnp::polyint(&a[0], 1, None),
        jnp::polyint(&a[0], 2, None),
        jnp::polyint(&a[0], 2, Some(&[1.5, -2.0])),
        jnp::polyint(&a[0], 1, Some(&[3.0])),
    ];
    poly_roots: |a| vec![jnp::poly(&a[0])];
    vander: |a| vec![
        jnp::vander(&a[0], None, false),
        jnp::vander(&a[0], Some(2), false),
        jnp::vander(&a[0], Some(5), true),
    ];
    windows [novmap]: |a| {
        let fs: [fn(usize) -> Tensor; 4] = [jnp::bartlett, jnp::blackman, jnp::hamming, jnp::hanning];
        fs.iter().flat_map(|f| [0, 1, 2, 7].map(f)).collect()
    };
    trapezoid_dx: |a| vec![
        jnp::trapezoid(&a[0], None, 1.0, -1),
        jnp::trapezoid(&a[0], None, 0.5, 0),
    ];
    trapezoid_x: |a| vec![
        jnp::trapezoid(&a[0], Some(&a[1]), 1.0, -1),
        jnp::trapezoid(a[0].t(), Some(&a[1]), 1.0, 0),
    ];
    gradient: |a| {
        let mut out = jnp::gradient(&a[0], &[], None);
        out.extend(jnp::gradient(&a[0], &[0.5], Some(&[1])));
        out.extend(jnp::gradient(&a[0], &[2.0, 0.25], None));
        out
    };
    unwrap: |a| {
        let tau = 2.0 * std::f64::consts::PI;
        vec![
            jnp::unwrap(&a[0], None, -1, tau),
            jnp::unwrap(&a[0], None, 0, tau),
            jnp::unwrap(&a[0], Some(4.0), -1, tau),
            jnp::unwrap(&a[0], None, -1, 4.0),
        ]
    };
    array_equal [nograd]: |a| {
        let n = jnp::array(&[f32::NAN, 1.0], &[2]);
        vec![
            jnp::array_equal(&a[0], &a[1], false),
            jnp::array_equal(&a[0], &a[0], false),
            jnp::array_equal(&a[0], first(&a[1], 2), false),
            jnp::array_equal(&n, &n, false),
            jnp::array_equal(&n, &n, true),
            jnp::array_equiv(&a[0], &a[1]),
            jnp::array_equiv(&a[0], first(&a[0], 1)),
        ]
    };
}
