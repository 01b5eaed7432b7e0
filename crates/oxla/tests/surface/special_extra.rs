//! `lax::betainc` and `scipy::special::betainc`. One row a golden case of
//! `scripts/surface/tables/special_extra.py`; `a` and `b` are made inside each row from
//! integer inputs (`ai / 4 + 0.1`), since JAX differentiates `betainc` in `x` only. The
//! edge rows hold `x = 0` and `x = 1`, where central differences step outside the domain
//! (`nofd`).

use oxla::numpy as jnp;
use oxla::scipy::special;
use oxla::{lax, Tensor};

fn params(a: &[Tensor]) -> (Tensor, Tensor) {
    let dtype = a[2].dtype();
    let p = |t: &Tensor| jnp::add(jnp::divide(jnp::astype(t, dtype), 4.0), 0.1);
    (p(&a[0]), p(&a[1]))
}

surface! {
    betainc_f32: |a| {
        let (p, q) = params(a);
        vec![lax::betainc(&p, &q, &a[2]), special::betainc(&p, &q, &a[2])]
    };
    betainc_f64: |a| {
        let (p, q) = params(a);
        vec![lax::betainc(&p, &q, &a[2]), special::betainc(&p, &q, &a[2])]
    };
    betainc_edges [nofd]: |a| {
        let (p, q) = params(a);
        vec![
            special::betainc(&p, &q, &a[2]),
            special::betainc(&p, &q, 0.25),
            special::betainc(2, 3, &a[2]),
        ]
    };
    betainc_edges_f64 [nofd]: |a| {
        let (p, q) = params(a);
        vec![special::betainc(&p, &q, &a[2])]
    };
}
