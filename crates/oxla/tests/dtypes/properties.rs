//! Random values of the narrow and wide integer types against Rust's wrapping arithmetic,
//! and the structural primitives (sort, cumsum, argmax, transpose, concatenate, gather,
//! matmul) on every new dtype, eager against jit.

use oxla::{jit, jnp, DType, Tensor};
use proptest::prelude::*;

use crate::{new_dtypes, NEW_INTS as INTS};

/// `v` wrapped into `d` and back to i64 (as `astype` converts integers).
fn wrap(v: i128, d: DType) -> i64 {
    let bits = 8 * d.size() as u32;
    let m = v.rem_euclid(1i128 << bits);
    let signed = d.is_signed_int() && m >= 1i128 << (bits - 1);
    (if signed { m - (1i128 << bits) } else { m }) as i64
}

fn as_i64(t: &Tensor) -> Vec<i64> {
    t.astype(DType::I64).to_vec::<i64>()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn integer_arithmetic_wraps_as_rust_does(
        which in 0..INTS.len(),
        pairs in prop::collection::vec((any::<i64>(), any::<i64>()), 1..20),
    ) {
        let d = INTS[which];
        let (xs, ys): (Vec<i64>, Vec<i64>) = pairs.iter().copied().unzip();
        let n = xs.len();
        let x = Tensor::from_vec(xs.clone(), &[n]).astype(d);
        let y = Tensor::from_vec(ys.clone(), &[n]).astype(d);
        let (xw, yw): (Vec<i64>, Vec<i64>) =
            (xs.iter().map(|&v| wrap(v.into(), d)).collect(), ys.iter().map(|&v| wrap(v.into(), d)).collect());
        // Unsigned 64-bit values are compared through their i64 bits; order them as u64.
        let key = |v: i64| if d == DType::U64 { (v as u64) as i128 } else { v as i128 };
        let f = |x: Tensor, y: Tensor| {
            (&x + &y, &x * &y, &x - &y, jnp::maximum(&x, &y), jnp::less(&x, &y))
        };
        for (sum, prod, diff, max, lt) in [f(x.clone(), y.clone()), jit(|(x, y)| f(x, y)).call((x, y)).unwrap()] {
            for i in 0..n {
                let (a, b) = (key(xw[i]), key(yw[i]));
                prop_assert_eq!(as_i64(&sum)[i], wrap(a + b, d));
                prop_assert_eq!(as_i64(&prod)[i], wrap(a.wrapping_mul(b), d));
                prop_assert_eq!(as_i64(&diff)[i], wrap(a - b, d));
                prop_assert_eq!(as_i64(&max)[i], wrap(a.max(b), d));
                prop_assert_eq!(lt.to_vec::<bool>()[i], a < b);
            }
        }
    }

    #[test]
    fn half_arithmetic_rounds_each_f32_result(
        half in any::<bool>(),
        pairs in prop::collection::vec((-300.0f32..300.0, -300.0f32..300.0), 1..20),
    ) {
        let d = if half { DType::F16 } else { DType::BF16 };
        let (xs, ys): (Vec<f32>, Vec<f32>) = pairs.iter().copied().unzip();
        let n = xs.len();
        let x = Tensor::from_vec(xs, &[n]).astype(d);
        let y = Tensor::from_vec(ys, &[n]).astype(d);
        let (xf, yf) = (x.astype(DType::F32).to_vec::<f32>(), y.astype(DType::F32).to_vec::<f32>());
        let round = |v: f32| Tensor::from_vec(vec![v], &[1]).astype(d).astype(DType::F32).to_vec::<f32>()[0];
        let f = |x: Tensor, y: Tensor| (&x * &y + &x).astype(DType::F32);
        let eager = f(x.clone(), y.clone()).to_vec::<f32>();
        let jitted = jit(|(x, y)| f(x, y)).call((x, y)).unwrap().to_vec::<f32>();
        for i in 0..n {
            let want = round(round(xf[i] * yf[i]) + xf[i]);
            prop_assert_eq!(eager[i].to_bits(), want.to_bits());
            prop_assert_eq!(jitted[i].to_bits(), want.to_bits());
        }
    }
}

#[test]
fn structural_primitives_on_every_new_dtype() {
    let program = |x: Tensor| {
        let m = x.reshape(&[3, 4]);
        let idx = Tensor::from_vec(vec![2i32, 0], &[2]);
        vec![
            jnp::sort(&x, None),
            jnp::cumsum(&x, None),
            x.argmax(None),
            m.transpose([1, 0]),
            jnp::concatenate(&[x.clone(), x.clone()], 0),
            m.index(&idx),
            m.matmul(m.transpose([1, 0])),
        ]
    };
    let v: Vec<f32> = (0..12).map(|i| ((i * 5) % 12) as f32).collect();
    for d in new_dtypes() {
        let x = Tensor::from_vec(v.clone(), &[12]).astype(d);
        let eager = program(x.clone());
        let jitted = jit(program).call(x).unwrap();
        // The same program in f32 (exact on these small integers), then converted: the
        // products past 127 wrap into the 8-bit types and round into bf16.
        let reference = program(Tensor::from_vec(v.clone(), &[12]));
        for ((e, j), r) in eager.iter().zip(&jitted).zip(&reference) {
            assert_eq!(e.dtype(), j.dtype(), "{d}");
            // Integers wrap through i64 (a float converts to an integer by saturating).
            let r = match e.dtype() {
                t if t.is_int() => r.astype(DType::I64).astype(t),
                t => r.astype(t),
            };
            let [e, j, r] = [e, j, &r].map(|t| t.astype(DType::F64).to_vec::<f64>());
            assert_eq!(e, j, "{d}: eager vs jit");
            assert_eq!(e, r, "{d}: against f32");
        }
    }
}
