//! Weakly typed Rust scalars: those that fit the array's dtype are exact, negative ones on
//! `u32` wrap as in JAX, floats promote integer arrays, and those that do not fit panic at
//! the user's line, eagerly and while tracing.

use oxla::numpy as jnp;
use oxla::{jit, DType, Tensor};

use crate::panics::{assert_mentions, message};
use crate::{i32s, u32s};

#[test]
fn negative_scalar_on_u32_wraps_as_jax_does() {
    // JAX: u32 + (-1) and u32 - 1 both give [4, 4294967295, 6].
    let want = vec![4u32, u32::MAX, 6];
    assert_eq!((u32s() + (-1)).to_vec::<u32>(), want);
    assert_eq!((u32s() - 1).to_vec::<u32>(), want);
    assert_eq!(((-1i32) + u32s()).to_vec::<u32>(), want);
    assert_eq!((u32s() - (-1)).to_vec::<u32>(), vec![6, 1, 8]);
    assert_eq!(
        (u32s() * -1).to_vec::<u32>(),
        vec![4294967291, 0, 4294967289]
    );
    // jnp.full_like(u32, -1) and jnp.maximum(u32, -1).
    assert_eq!(
        jnp::full_like(u32s(), -1).to_vec::<u32>(),
        vec![u32::MAX; 3]
    );
    assert_eq!(jnp::maximum(u32s(), -1).to_vec::<u32>(), vec![u32::MAX; 3]);
    let traced: Tensor = jit(|x: Tensor| x + (-1)).call(u32s()).unwrap();
    assert_eq!(traced.to_vec::<u32>(), want);
}

#[test]
fn scalars_that_fit_the_dtype_are_exact() {
    // JAX: i32 + (2**31 - 1) and i32 + (-2**31) wrap in the array's arithmetic.
    assert_eq!(
        (i32s() + i64::from(i32::MAX)).to_vec::<i32>(),
        vec![-2147483644, 2147483644, 2147483647]
    );
    assert_eq!(
        (i32s() + i32::MIN).to_vec::<i32>(),
        vec![-2147483643, 2147483645, i32::MIN]
    );
    // A Rust u32 scalar is a valid u32 element (JAX: u32 + np.uint32(3e9)).
    assert_eq!(
        (u32s() + 3_000_000_000u32).to_vec::<u32>(),
        vec![3_000_000_005, 3_000_000_000, 3_000_000_007]
    );
}

#[test]
fn float_scalar_on_an_int_array_promotes_to_float() {
    // JAX: i32 + 1.5 and u32 + 1.5 are float32.
    let y = i32s() + 1.5;
    assert_eq!(y.dtype(), DType::F32);
    assert_eq!(y.to_vec::<f32>(), vec![6.5, -1.5, 1.5]);
    assert_eq!((u32s() + 1.5).to_vec::<f32>(), vec![6.5, 1.5, 8.5]);
}

#[test]
fn scalar_too_large_for_i32_panics_at_the_users_line() {
    // JAX: OverflowError for i32 + 2**40 (it never gives i32::MIN).
    let line = line!() + 1;
    let msg = message(|| i32s() + (1i64 << 40));
    assert_mentions(
        &msg,
        line,
        &["add", "1099511627776", "int32", "OverflowError"],
    );
    let line = line!() + 1;
    let msg = message(|| i32s() - (1i64 << 31));
    assert_mentions(&msg, line, &["subtract", "2147483648", "int32"]);
    let line = line!() + 1;
    let msg = message(|| i32s() * 3_000_000_000u32);
    assert_mentions(&msg, line, &["multiply", "3000000000", "int32"]);
    let line = line!() + 1;
    let msg = message(|| jnp::add(-2147483649i64, i32s()));
    assert_mentions(&msg, line, &["add", "-2147483649", "int32"]);
    // A bool array with an int scalar computes in int32, so the same bound applies.
    let bools = Tensor::from_vec(vec![true], &[1]);
    let line = line!() + 1;
    let msg = message(|| bools + (1i64 << 40));
    assert_mentions(&msg, line, &["add", "int32"]);
}

#[test]
fn scalar_too_large_for_u32_panics_at_the_users_line() {
    // JAX: OverflowError for u32 + 2**32; u32 - 1 wraps instead.
    let line = line!() + 1;
    let msg = message(|| u32s() + (1i64 << 32));
    assert_mentions(&msg, line, &["add", "4294967296", "uint32"]);
    let line = line!() + 1;
    let msg = message(|| u32s() + (-2147483649i64));
    assert_mentions(&msg, line, &["add", "-2147483649", "uint32"]);
    let line = line!() + 1;
    let msg = message(|| jnp::full_like(u32s(), 1i64 << 33));
    assert_mentions(&msg, line, &["full_like", "8589934592", "uint32"]);
}

#[test]
fn scalar_out_of_range_panics_while_tracing_too() {
    let line = line!() + 1;
    let msg = message(|| oxla::make_jaxpr(|x: Tensor| &x + (1i64 << 40), i32s()));
    assert_mentions(&msg, line, &["add", "1099511627776", "int32"]);
}
