//! A few operations per dtype against JAX's results (`ops.txt`): integer arithmetic and
//! wraparound at every width, uint8 image arithmetic, and the 16-bit floats' rounding
//! through `astype`, arithmetic, sums, `exp` and `dot` (computed in f32 and rounded).

use oxla::config::with_x64;
use oxla::{jnp, DType, Tensor};

use super::golden_lines;

fn dtype(name: &str) -> DType {
    DType::from_numpy_name(name).unwrap_or_else(|| panic!("no dtype {name}"))
}

fn of(v: &[f64], d: DType) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()]).astype(d)
}

fn ints(v: &[i64], d: DType) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()]).astype(d)
}

const INTS: [i64; 8] = [-3, -1, 0, 1, 2, 5, 100, 127];
/// The generator's inputs (an approximation of pi among them, whose rounding is tested).
#[allow(clippy::approx_constant)]
const FLOATS: [f32; 8] = [
    0.1,
    1.0 / 3.0,
    1000.7,
    65504.0,
    70000.0,
    1e-8,
    -2.5,
    3.141_592_7,
];

/// The oxla program of golden case `name`, as the JAX code in the generator writes it.
fn program(name: &str) -> Tensor {
    let (op, d) = name.split_once('_').expect("op_dtype");
    let img = || ints(&[0, 64, 128, 192, 250, 255], DType::U8).reshape(&[2, 3]);
    let halfs = |d: DType| Tensor::from_vec(FLOATS.to_vec(), &[8]).astype(d);
    let grid = |d: DType, rows: usize, cols: usize, step: f32| {
        let v: Vec<f32> = (0..rows * cols).map(|i| i as f32 * step).collect();
        Tensor::from_vec(v, &[rows, cols]).astype(d)
    };
    match name {
        "wrap_int8" => ints(&[127, -128, 100], DType::I8) + ints(&[1, -1, 100], DType::I8),
        "wrap_int16" => ints(&[32767, -32768], DType::I16) + ints(&[1, -1], DType::I16),
        "wrap_int64" => ints(&[i64::MAX], DType::I64) + ints(&[1], DType::I64),
        "wrap_uint8" => ints(&[250, 0, 16], DType::U8) + ints(&[10, 0, 16], DType::U8),
        "wrap_uint8_sub" => ints(&[3], DType::U8) - ints(&[5], DType::U8),
        "wrap_uint8_mul" => ints(&[16, 200], DType::U8) * ints(&[16, 2], DType::U8),
        "wrap_uint16" => ints(&[65535], DType::U16) + ints(&[2], DType::U16),
        "wrap_uint64" => ints(&[0], DType::U64) - ints(&[1], DType::U64),
        "img_brighten_u8" => img() + Tensor::from_vec(vec![10u8], &[]),
        "img_mean_f32" => (img().astype(DType::F32) / 255.0).mean(1),
        "img_clip_u8" => jnp::clip(&(img().astype(DType::I32) + 10), 0, 255).astype(DType::U8),
        "img_sum_u8" => img().sum(None).astype(DType::U8),
        "img_max_u8" => img().max(0),
        "astype_f64_f16" => of(&[0.1, 65519.0, 65520.0, 1e-9], DType::F64).astype(DType::F16),
        "astype_f32_i8" => {
            Tensor::from_vec(vec![1.7f32, -1.7, 127.0, -128.0], &[4]).astype(DType::I8)
        }
        "astype_i32_u8" => ints(&[-1, 256, 300, 255], DType::I32).astype(DType::U8),
        "astype_i64_i32" => ints(&[(1 << 40) + 5, -(1 << 33) - 1], DType::I64).astype(DType::I32),
        "astype_u8_f16" => ints(&[0, 255, 128], DType::U8).astype(DType::F16),
        "dot_int8" => grid(DType::I8, 2, 3, 1.0).matmul(grid(DType::I8, 3, 4, 7.0)),
        "dot_uint8" => grid(DType::I8, 2, 3, 1.0)
            .astype(DType::U8)
            .matmul(grid(DType::I8, 3, 4, 7.0).astype(DType::U8)),
        _ if name.starts_with("astype_f32_") => halfs(dtype(d.trim_start_matches("f32_"))),
        _ if name.ends_with("_f32") && op == "astype" => {
            halfs(dtype(d.trim_end_matches("_f32"))).astype(DType::F32)
        }
        _ => {
            let d = dtype(d);
            if d.is_float() {
                let x = halfs(d);
                match op {
                    "add" => &x + &x,
                    "mul" => &x * &Tensor::from_vec(vec![1.1f32], &[]).astype(d),
                    "sum" => oxla::lax::slice(&x, &[0], &[4], None).sum(None),
                    "exp" => of(&[0.5, -1.0, 2.0], d).exp(),
                    "dot" => grid(d, 2, 3, 0.37).matmul(grid(d, 3, 4, 0.21)),
                    _ => panic!("no program for {name}"),
                }
            } else {
                let x = ints(&INTS, d);
                let s = |v: i64| ints(&[v], d).reshape::<usize>(&[]);
                match op {
                    "add" => &x + &x,
                    "mul" => &x * &x,
                    "sum" => x.sum(None).astype(d),
                    "max" => x.max(None),
                    "lt" => jnp::less(&x, s(1)),
                    "div" => oxla::lax::div(&x, &s(2)),
                    _ => panic!("no program for {name}"),
                }
            }
        }
    }
}

/// `got` against JAX's values: exact, but for f32 results (4 ulp: XLA sums in another order) and 16-bit `dot`
/// results, which XLA sums in another order before rounding (1 ulp of the 16-bit type).
fn check(name: &str, got: &Tensor, want_dtype: DType, want: &[String]) {
    assert_eq!(got.dtype(), want_dtype, "{name}: dtype");
    let got64 = got.astype(DType::F64).to_vec::<f64>();
    assert_eq!(got64.len(), want.len(), "{name}: size");
    let ulp = match want_dtype {
        DType::F32 => 4.0 * 2f64.powi(-23),
        DType::F16 if name.starts_with("dot") => 2f64.powi(-10),
        DType::BF16 if name.starts_with("dot") => 2f64.powi(-7),
        _ => 0.0,
    };
    for (i, (g, w)) in got64.iter().zip(want).enumerate() {
        let w: f64 = match w.as_str() {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            w => w.parse().unwrap_or_else(|_| panic!("{name}: value {w}")),
        };
        let ok = g == &w || (g - w).abs() <= ulp * w.abs();
        assert!(ok, "{name}[{i}]: oxla {g}, JAX {w}");
    }
    if want_dtype.is_int() {
        // Exact integers, beyond f64's 53 bits too.
        let got_i: Vec<String> = match want_dtype {
            DType::U64 => got.to_vec::<u64>().iter().map(u64::to_string).collect(),
            _ => got
                .astype(DType::I64)
                .to_vec::<i64>()
                .iter()
                .map(i64::to_string)
                .collect(),
        };
        assert_eq!(got_i, want, "{name}");
    }
}

#[test]
fn ops_match_jax_eagerly_and_under_jit() {
    let lines = golden_lines("ops.txt");
    assert!(lines.len() > 50);
    for line in lines {
        let (name, want_dtype, want) = (&line[0], dtype(&line[1]), &line[2..]);
        with_x64(true, || {
            check(name, &program(name), want_dtype, want);
            let jitted = oxla::jit(|()| program(name)).call(()).unwrap();
            check(&format!("{name} (jit)"), &jitted, want_dtype, want);
        });
    }
}
