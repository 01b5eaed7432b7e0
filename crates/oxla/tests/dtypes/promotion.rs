//! `DType::promote` and the dtype of `array op scalar` against JAX's `jnp.promote_types`
//! and Python-scalar promotion, for every pair, with x64 off and on.

use oxla::config::with_x64;
use oxla::{jnp, DType, Tensor};

use super::golden_lines;

fn dtype(name: &str) -> DType {
    DType::from_numpy_name(name).unwrap_or_else(|| panic!("no dtype {name}"))
}

/// Three ones of `d`.
fn ones(d: DType) -> Tensor {
    jnp::ones(&[3]).astype(d)
}

#[test]
fn every_pair_promotes_as_jnp_promote_types() {
    let mut checked = 0;
    for line in golden_lines("promotion.txt") {
        let [mode, lhs, rhs, want] = &line[..] else {
            panic!("bad line {line:?}")
        };
        let (x64, a, want) = (mode == "x64", dtype(lhs), dtype(want));
        with_x64(x64, || {
            let got = match rhs.as_str() {
                // JAX made the array under its own setting: a 64-bit request gave 32 bits
                // without x64. oxla keeps an explicit 64-bit dtype (see `oxla::config`), so
                // the array is built with JAX's dtype to compare the scalar's promotion.
                "py_bool" => jnp::maximum(ones(a.canonical()), true).dtype(),
                "py_int" => jnp::maximum(ones(a.canonical()), 2).dtype(),
                "py_float" => jnp::maximum(ones(a.canonical()), 2.5).dtype(),
                b => {
                    let b = dtype(b);
                    let promoted = a.promote(b);
                    // The operation agrees with the rule.
                    assert_eq!(jnp::maximum(ones(a), ones(b)).dtype(), promoted, "{line:?}");
                    promoted
                }
            };
            assert_eq!(got, want, "{line:?}");
        });
        checked += 1;
    }
    assert_eq!(checked, 2 * 13 * (13 + 3));
}

#[test]
fn defaults_follow_the_x64_switch() {
    with_x64(false, || {
        assert_eq!(jnp::zeros(&[2]).dtype(), DType::F32);
        assert_eq!(jnp::arange(3).dtype(), DType::I32);
        assert_eq!((ones(DType::I32) * 2.5).dtype(), DType::F32);
        assert_eq!(jnp::sum(ones(DType::I8), None).dtype(), DType::I32);
        assert_eq!(jnp::sum(ones(DType::U8), None).dtype(), DType::U32);
    });
    with_x64(true, || {
        assert_eq!(jnp::zeros(&[2]).dtype(), DType::F64);
        assert_eq!(jnp::arange(3).dtype(), DType::I64);
        assert_eq!((ones(DType::I32) * 2.5).dtype(), DType::F64);
        assert_eq!((ones(DType::I32) * 2).dtype(), DType::I32);
        assert_eq!(jnp::sum(ones(DType::I8), None).dtype(), DType::I64);
        assert_eq!(jnp::sum(ones(DType::U8), None).dtype(), DType::U64);
        assert_eq!(jnp::argmax(ones(DType::F32), None).dtype(), DType::I64);
        assert_eq!(jnp::arange(3).to_vec::<i64>(), vec![0, 1, 2]);
    });
}

#[test]
fn a_jitted_function_recompiles_when_x64_changes() {
    let f = oxla::jit(|x: Tensor| x * 2.5);
    let x = ones(DType::I32);
    let y32 = with_x64(false, || f.call(x.clone()).unwrap());
    let y64 = with_x64(true, || f.call(x.clone()).unwrap());
    assert_eq!((y32.dtype(), y64.dtype()), (DType::F32, DType::F64));
    assert_eq!(y64.to_vec::<f64>(), vec![2.5; 3]);
}
