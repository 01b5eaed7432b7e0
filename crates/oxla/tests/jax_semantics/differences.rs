//! Other places where oxla once differed from JAX: `relu`'s derivative at 0, integer
//! division by zero, integer powers, `integer_pow`'s derivative at `i32::MIN`, slice steps
//! at the ends of `isize`, reductions without an identity over empty axes, tangent and
//! cotangent dtypes, and gradients and scatters through out-of-bounds indices.

use oxla::numpy::{self as jnp, s};
use oxla::prims::{GatherDims, GatherMode, ReduceOp, ScatterDims};
use oxla::{grad, jit, jvp, lax, nn, vjp, vmap, DType, Tensor};

use crate::panics::{assert_mentions, message};
use crate::{i32s, u32s};

#[test]
fn relu_has_zero_derivative_at_zero() {
    // JAX: grad(relu)(0.0) == 0 and grad(relu)(nan) == 0; relu(nan) is nan.
    let d = |x: f32| -> f32 {
        let g: Tensor = grad(|x: Tensor| nn::relu(&x)).call(Tensor::scalar(x));
        g.item() as f32
    };
    assert_eq!(d(0.0), 0.0);
    assert_eq!(d(-0.0), 0.0);
    assert_eq!(d(f32::NAN), 0.0);
    assert_eq!(d(2.0), 1.0);
    assert_eq!(d(-2.0), 0.0);
    let x = Tensor::from_vec(vec![-1.0f32, 0.0, 2.0, f32::NAN], &[4]);
    let y = nn::relu(&x).to_vec::<f32>();
    assert_eq!(&y[..3], &[0.0, 0.0, 2.0]);
    assert!(y[3].is_nan());
    let g: Tensor = jit(|x: Tensor| -> Tensor { grad(|x: Tensor| nn::relu(&x).sum(None)).call(x) })
        .call(x)
        .unwrap();
    assert_eq!(g.to_vec::<f32>(), vec![0.0, 0.0, 1.0, 0.0]);
    let ints = Tensor::from_vec(vec![-1i32, 2], &[2]);
    assert_eq!(nn::relu(&ints).to_vec::<i32>(), vec![0, 2]);
}

#[test]
fn integer_floor_division_by_zero_follows_xla() {
    // JAX: u32 // 0 is u32::MAX (XLA's all-bits-set quotient); i32 // 0 is -2, or -1 for 0.
    let zero_u = Tensor::from_vec(vec![0u32; 3], &[3]);
    let zero_i = Tensor::from_vec(vec![0i32; 3], &[3]);
    assert_eq!(
        jnp::floor_divide(u32s(), &zero_u).to_vec::<u32>(),
        vec![u32::MAX; 3]
    );
    assert_eq!(
        jnp::floor_divide(u32s(), 0).to_vec::<u32>(),
        vec![u32::MAX; 3]
    );
    assert_eq!(
        jnp::floor_divide(i32s(), &zero_i).to_vec::<i32>(),
        vec![-2, -2, -1]
    );
    assert_eq!(
        jnp::floor_divide(i32s(), 0).to_vec::<i32>(),
        vec![-2, -2, -1]
    );
    let f = jit(|(x, y): (Tensor, Tensor)| jnp::floor_divide(x, y));
    let q: Tensor = f.call((u32s(), zero_u)).unwrap();
    assert_eq!(q.to_vec::<u32>(), vec![u32::MAX; 3]);
    let q: Tensor = f.call((i32s(), zero_i)).unwrap();
    assert_eq!(q.to_vec::<i32>(), vec![-2, -2, -1]);
    // Ordinary unsigned floor division is the quotient.
    let y = Tensor::from_vec(vec![2u32, 3, 7], &[3]);
    assert_eq!(jnp::floor_divide(u32s(), &y).to_vec::<u32>(), vec![2, 0, 1]);
}

#[test]
fn integer_power_of_integer_arrays_stays_integer() {
    let i = |v: Vec<i32>| {
        let n = v.len();
        Tensor::from_vec(v, &[n])
    };
    // JAX: power(2, [0, 1, 3, -1]) == int32 [1, 2, 8, 0].
    let p = jnp::power(2, i(vec![0, 1, 3, -1]));
    assert_eq!(p.dtype(), DType::I32);
    assert_eq!(p.to_vec::<i32>(), vec![1, 2, 8, 0]);
    let p = jnp::power(i(vec![2, 3, -2, 0]), i(vec![0, 1, 3, -1]));
    assert_eq!(p.to_vec::<i32>(), vec![1, 3, -8, 0]);
    // JAX's binary exponentiation reads six bits of the exponent, and wraps.
    let p = jnp::power(2, i(vec![31, 32, 40, 64, 65]));
    assert_eq!(p.to_vec::<i32>(), vec![i32::MIN, 0, 0, 1, 2]);
    let p = jnp::power(i(vec![3, -1, -2, 1]), i(vec![100, 101, 63, i32::MAX]));
    assert_eq!(p.to_vec::<i32>(), vec![-1953380655, -1, 0, 1]);
    let p = jnp::power(u32s(), Tensor::from_vec(vec![0u32, 1, 3], &[3]));
    assert_eq!(
        (p.dtype(), p.to_vec::<u32>()),
        (DType::U32, vec![1, 0, 343])
    );
    // bool ** bool is int32.
    let b = |v: Vec<bool>| Tensor::from_vec(v, &[2]);
    let p = jnp::power(b(vec![true, false]), b(vec![false, true]));
    assert_eq!((p.dtype(), p.to_vec::<i32>()), (DType::I32, vec![1, 0]));
    // Traced, the same program.
    let f = jit(|(x, y): (Tensor, Tensor)| jnp::power(x, y));
    let p: Tensor = f
        .call((i(vec![2, 3, -2, 0]), i(vec![0, 1, 3, -1])))
        .unwrap();
    assert_eq!(p.to_vec::<i32>(), vec![1, 3, -8, 0]);
    // Float results stay float: power(2.0, int array) is f32.
    let p = jnp::power(2.0, i(vec![0, 1, -1]));
    assert_eq!(
        (p.dtype(), p.to_vec::<f32>()),
        (DType::F32, vec![1.0, 2.0, 0.5])
    );
}

#[test]
fn integer_pow_at_i32_min_has_jaxs_derivative() {
    // JAX: grad(integer_pow(x, -2**31)) = -2**31 * x**(-2**31 - 1).
    let xs = Tensor::from_vec(vec![0.5f32, -0.5, 1.0, -1.0, 2.0, -2.0, 0.0, -0.0], &[8]);
    let want = [
        f32::NEG_INFINITY,
        f32::INFINITY,
        -2147483648.0,
        2147483648.0,
        -0.0,
        0.0,
        f32::NEG_INFINITY,
        f32::INFINITY,
    ];
    let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let want = bits(want.to_vec());
    let f = |x: Tensor| lax::integer_pow(&x, i32::MIN);
    let df = |x: Tensor| -> Tensor { grad(f).call(x) };
    let g: Tensor = vmap(df).call(xs.clone());
    assert_eq!(
        bits(g.to_vec::<f32>()),
        want,
        "grad: {:?}",
        g.to_vec::<f32>()
    );
    let (y, t) = jvp(f, xs.clone(), jnp::ones(&[8]));
    assert_eq!(
        y.to_vec::<f32>(),
        vec![
            f32::INFINITY,
            f32::INFINITY,
            1.0,
            1.0,
            0.0,
            0.0,
            f32::INFINITY,
            f32::INFINITY
        ]
    );
    assert_eq!(
        bits(t.to_vec::<f32>()),
        want,
        "jvp: {:?}",
        t.to_vec::<f32>()
    );
    let g: Tensor = jit(|x: Tensor| -> Tensor { vmap(df).call(x) })
        .call(xs)
        .unwrap();
    assert_eq!(
        bits(g.to_vec::<f32>()),
        want,
        "jit: {:?}",
        g.to_vec::<f32>()
    );
}

#[test]
fn slice_steps_at_the_ends_of_isize_follow_numpy() {
    // numpy: x[::-2**63] == [4.], x[3::-2**63] == [3.], x[::2**63-1] == [0.].
    let x = jnp::arange(5.0);
    let at = |sl| x.index(sl).to_vec::<f32>();
    assert_eq!(at(s(None, None, isize::MIN)), vec![4.0]);
    assert_eq!(at(s(Some(3), None, isize::MIN)), vec![3.0]);
    assert_eq!(at(s(Some(-10), None, isize::MIN)), Vec::<f32>::new());
    assert_eq!(at(s(None, None, isize::MIN + 1)), vec![4.0]);
    assert_eq!(at(s(None, None, isize::MAX)), vec![0.0]);
    assert_eq!(at(s(Some(2), None, isize::MAX)), vec![2.0]);
    let empty = jnp::zeros(&[0]);
    assert_eq!(empty.index(s(None, None, isize::MIN)).shape(), &[0]);
    let traced: Tensor = jit(|x: Tensor| x.index(s(None, None, isize::MIN)))
        .call(x.clone())
        .unwrap();
    assert_eq!(traced.to_vec::<f32>(), vec![4.0]);
}

#[test]
fn max_and_min_of_an_empty_axis_panic_as_jax_raises() {
    let e = jnp::zeros(&[0, 3]);
    // JAX: ValueError "zero-size array to reduction operation max which has no identity".
    let line = line!() + 1;
    let msg = message(|| e.max(0));
    assert_mentions(
        &msg,
        line,
        &["zero-size array to reduction operation max which has no identity"],
    );
    let line = line!() + 1;
    let msg = message(|| jnp::min(&e, None));
    assert_mentions(
        &msg,
        line,
        &["reduction operation min which has no identity"],
    );
    let line = line!() + 1;
    let msg = message(|| jnp::max_keepdims(&e, [0, 1]));
    assert_mentions(
        &msg,
        line,
        &["reduction operation max which has no identity"],
    );
    let line = line!() + 1;
    let msg = message(|| oxla::make_jaxpr(|x: Tensor| x.min(0), e.clone()));
    assert_mentions(
        &msg,
        line,
        &["reduction operation min which has no identity"],
    );
    // A non-empty reduced axis is fine, even when another axis is empty.
    assert_eq!(e.max(1).shape(), &[0]);
    // JAX: prod has an identity; lax.reduce_max returns its identity, -inf.
    assert_eq!(jnp::prod(&e, 0).to_vec::<f32>(), vec![1.0; 3]);
    assert_eq!(
        lax::reduce(&e, ReduceOp::Max, &[0]).to_vec::<f32>(),
        vec![f32::NEG_INFINITY; 3]
    );
}

#[test]
fn argmax_and_argmin_of_an_empty_axis_panic_as_jax_raises() {
    let e = jnp::zeros(&[0, 3]);
    // JAX: ValueError "attempt to get argmax of an empty sequence".
    let line = line!() + 1;
    let msg = message(|| jnp::argmax(&e, Some(0)));
    assert_mentions(&msg, line, &["attempt to get argmax of an empty sequence"]);
    let line = line!() + 1;
    let msg = message(|| e.argmax(None));
    assert_mentions(&msg, line, &["attempt to get argmax of an empty sequence"]);
    let line = line!() + 1;
    let msg = message(|| jnp::argmin_keepdims(&e, Some(-2)));
    assert_mentions(&msg, line, &["attempt to get argmin of an empty sequence"]);
    assert_eq!(jnp::argmax(&e, Some(1)).shape(), &[0]);
}

#[test]
fn jvp_rejects_a_tangent_of_another_dtype() {
    // JAX: TypeError "primal and tangent arguments to jax.jvp do not match; dtypes must be
    // equal ... Got primal dtype float32 ... tangent dtype float64".
    let x = jnp::ones(&[3]);
    let sin = |x: Tensor| x.sin();
    let t64 = jnp::ones(&[3]).astype(DType::F64);
    let line = line!() + 1;
    let msg = message(|| jvp(sin, x.clone(), t64));
    assert_mentions(
        &msg,
        line,
        &[
            "primal and tangent arguments to jvp do not match",
            "float32",
            "float64",
        ],
    );
    let t32 = jnp::ones(&[3]).astype(DType::I32);
    let line = line!() + 1;
    let msg = message(|| jvp(sin, x.clone(), t32));
    assert_mentions(&msg, line, &["dtypes must be equal", "float32", "int32"]);
    // An integer primal takes a tangent of its own dtype (oxla's stand-in for float0).
    let to_f32 = |x: Tensor| x.astype(DType::F32);
    let zeros_i32 = jnp::zeros(&[3]).astype(DType::I32);
    let (_, t) = jvp(to_f32, jnp::arange(3), zeros_i32);
    assert_eq!(t.to_vec::<f32>(), vec![0.0; 3]);
    let line = line!() + 1;
    let msg = message(|| jvp(to_f32, jnp::arange(3), jnp::zeros(&[3])));
    assert_mentions(&msg, line, &["primal dtype int32", "float32"]);
}

#[test]
fn vjp_rejects_a_cotangent_of_another_dtype() {
    // JAX: ValueError "unexpected JAX type (e.g. shape/dtype) for argument to VJP function:
    // got int32[3], but expected float32[3]".
    let (_, pullback) = vjp(|x: Tensor| x.sin(), jnp::ones(&[3]));
    let line = line!() + 1;
    let msg = message(|| pullback.call(jnp::ones(&[3]).astype(DType::I32)));
    assert_mentions(&msg, line, &["vjp", "got i32[3]", "expected f32[3]"]);
    let line = line!() + 1;
    let msg = message(|| pullback.call(jnp::ones(&[3]).astype(DType::F64)));
    assert_mentions(&msg, line, &["got f64[3]", "expected f32[3]"]);
    assert_eq!(pullback.call(jnp::ones(&[3])).shape(), &[3]);
}

#[test]
fn gradients_through_out_of_bounds_indices_are_dropped() {
    // JAX: y[idx] clamps out-of-bounds indices, and its transpose (a scatter-add with
    // PROMISE_IN_BOUNDS) drops their cotangents: grad == [0, 1, 0, 8].
    let y = jnp::arange(4.0);
    let idx = Tensor::from_vec(vec![1i32, 5, -1, -7, 3], &[5]);
    let w = jnp::arange_step(1.0, 6.0, 1.0);
    assert_eq!(y.index(&idx).to_vec::<f32>(), vec![1.0, 3.0, 3.0, 0.0, 3.0]);
    let f = |y: Tensor| (y.index(&idx) * &w).sum(None);
    let g: Tensor = grad(f).call(y.clone());
    assert_eq!(g.to_vec::<f32>(), vec![0.0, 1.0, 0.0, 8.0]);
    let g: Tensor = jit(|y: Tensor| -> Tensor { grad(f).call(y) })
        .call(y.clone())
        .unwrap();
    assert_eq!(g.to_vec::<f32>(), vec![0.0, 1.0, 0.0, 8.0]);
}

#[test]
fn scatter_modes_and_their_transposes_follow_jax() {
    let x = jnp::zeros(&[4]);
    let idx = Tensor::from_vec(vec![1i32, 9, -2], &[3, 1]);
    let upd = Tensor::from_vec(vec![1.0f32, 2.0, 4.0], &[3]);
    let sd = ScatterDims {
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        ..ScatterDims::default()
    };
    let scatter = |mode| lax::scatter_add(&x, &idx, &upd, sd.clone(), mode);
    // JAX: CLIP clamps the indices; PROMISE_IN_BOUNDS and FILL_OR_DROP drop.
    assert_eq!(
        scatter(GatherMode::Clip).to_vec::<f32>(),
        vec![4.0, 1.0, 0.0, 2.0]
    );
    assert_eq!(
        scatter(GatherMode::PromiseInBounds).to_vec::<f32>(),
        vec![0.0, 1.0, 0.0, 0.0]
    );
    assert_eq!(
        scatter(GatherMode::FillOrDrop).to_vec::<f32>(),
        vec![0.0, 1.0, 0.0, 0.0]
    );
    // The updates' cotangent is a gather in the same mode, filled with 0 (JAX's
    // fill_value=0): [ct[1], ct[3], ct[0]] clamped, or [ct[1], 0, 0] for FILL_OR_DROP.
    let ct = Tensor::from_vec(vec![10.0f32, 20.0, 30.0, 40.0], &[4]);
    let upd_ct = |mode| {
        let (_, pb) = vjp(
            |u: Tensor| lax::scatter_add(&x, &idx, &u, sd.clone(), mode),
            upd.clone(),
        );
        pb.call(ct.clone()).to_vec::<f32>()
    };
    assert_eq!(upd_ct(GatherMode::Clip), vec![20.0, 40.0, 10.0]);
    assert_eq!(upd_ct(GatherMode::PromiseInBounds), vec![20.0, 40.0, 10.0]);
    assert_eq!(upd_ct(GatherMode::FillOrDrop), vec![20.0, 0.0, 0.0]);
    // A FILL_OR_DROP gather's tangent is 0 out of bounds (JAX's jvp uses fill_value=0).
    let gd = GatherDims {
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        ..GatherDims::default()
    };
    let (v, t) = jvp(
        |x: Tensor| lax::gather(&x, &idx, gd.clone(), &[1], GatherMode::FillOrDrop),
        ct.clone(),
        jnp::ones(&[4]),
    );
    assert!(v.to_vec::<f32>()[1].is_nan());
    assert_eq!(t.to_vec::<f32>(), vec![1.0, 0.0, 0.0]);
}
