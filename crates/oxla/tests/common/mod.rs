//! Shared by the conformance tests against JAX (`golden/`, `golden_ad/`, `golden_vmap/`):
//! reading a case's committed `.npy` inputs and outputs, comparing leaves, running a program
//! eagerly and through `make_jaxpr` + `eval_jaxpr`, and normalising jaxpr text.
//!
//! Comparison (`check_leaf`): same shape, same dtype, then values — exact for bool and integer
//! leaves, bit-exact for float leaves compared with `Cmp::Bits` (PRNG outputs), and
//! `|got - want| <= atol + rtol * |want|` for other floats (f32: rtol 1e-5, atol 1e-6; f64:
//! rtol 1e-12, atol 1e-12).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use oxla::{eval_jaxpr, jit, make_jaxpr, DType, Tensor};

/// A case's program: its inputs in, its output leaves out.
pub type Program = fn(&[Tensor]) -> Vec<Tensor>;

/// A directory of golden cases (`<dir>/<case>/in_*.npy`, `out_*.npy`, `jaxpr.txt`) with a
/// `MANIFEST.md`.
pub struct Goldens {
    /// The directory, ending in `/`.
    pub dir: &'static str,
}

/// A golden leaf: an array oxla can read, or an `int64` array (x64 cases), kept as values.
pub enum Golden {
    Array(Tensor),
    I64 { shape: Vec<usize>, data: Vec<i64> },
}

pub fn read_golden(path: &Path) -> Golden {
    match Tensor::read_npy(path) {
        Ok(t) => Golden::Array(t),
        Err(e) => {
            let bytes = std::fs::read(path).unwrap_or_else(|_| panic!("{}: {e}", path.display()));
            if let Some(t) = read_fortran(&bytes) {
                return Golden::Array(t);
            }
            // oxla has no 64-bit integers; read those with npyz directly.
            let npy = npyz::NpyFile::new(&bytes[..]).expect("a .npy file");
            let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
            let ok = matches!(npy.dtype(), npyz::DType::Plain(ts)
                if ts.type_char() == npyz::TypeChar::Int && ts.size_field() == 8);
            assert!(ok, "{}: {e}", path.display());
            let data = npy.into_vec::<i64>().expect("int64 data");
            Golden::I64 { shape, data }
        }
    }
}

/// A Fortran-ordered `.npy` (numpy writes a transposed array that way), which oxla's reader
/// refuses: its data is the row-major data of the reversed shape, so read that and transpose.
fn read_fortran(bytes: &[u8]) -> Option<Tensor> {
    use npyz::{DType as D, TypeChar as C};
    let npy = npyz::NpyFile::new(bytes).ok()?;
    if npy.order() != npyz::Order::Fortran {
        return None;
    }
    let shape: Vec<usize> = npy.shape().iter().rev().map(|&d| d as usize).collect();
    let D::Plain(ts) = npy.dtype() else {
        return None;
    };
    let t = match (ts.type_char(), ts.size_field()) {
        (C::Float, 4) => Tensor::from_vec(npy.into_vec::<f32>().ok()?, &shape),
        (C::Float, 8) => Tensor::from_vec(npy.into_vec::<f64>().ok()?, &shape),
        (C::Int, 4) => Tensor::from_vec(npy.into_vec::<i32>().ok()?, &shape),
        (C::Uint, 4) => Tensor::from_vec(npy.into_vec::<u32>().ok()?, &shape),
        (C::Bool, 1) => Tensor::from_vec(npy.into_vec::<bool>().ok()?, &shape),
        _ => return None,
    };
    Some(oxla::numpy::transpose(&t, None))
}

/// How float leaves are compared.
#[derive(Clone, Copy, Debug)]
pub enum Cmp {
    /// Within the default tolerance.
    Close,
    /// Bit for bit (PRNG outputs).
    Bits,
    /// Within a case-specific tolerance.
    Within { rtol: f64, atol: f64 },
}

/// For long f32 sums whose terms cancel (the seed 004 programs: 10^4 products, or 513 and 1026
/// lattice values, with `sum(|terms|)` up to about 3000 and results of order 0.1 to 100). oxla
/// adds the terms in order, XLA in another order (more accurate here); each result is within
/// about 1e-7 * `sum(|terms|)` of the exact sum, so the two differ by up to ~2e-4 absolute
/// (measured: 1.6e-4), more than the default tolerance allows near small results.
pub const SUM: Cmp = Cmp::Within {
    rtol: 1e-5,
    atol: 2.5e-4,
};

/// Whether `got` is within tolerance of `want` (NaNs equal NaNs, infinities themselves).
pub fn close(got: f64, want: f64, rtol: f64, atol: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    if got.is_infinite() || want.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= atol + rtol * want.abs()
}

/// Compares one leaf; returns a description of the first difference.
pub fn check_leaf(got: &Tensor, want: &Golden, cmp: Cmp) -> Result<(), String> {
    let want = match want {
        Golden::Array(t) => t,
        Golden::I64 { shape, data } => {
            // int64 in JAX (x64), read as values: oxla's must be i64 too.
            if got.shape() != shape.as_slice() || got.dtype() != DType::I64 {
                return Err(format!("got {} for JAX's i64{shape:?}", got.aval()));
            }
            let g: Vec<i64> = got.to_vec::<i64>();
            return if &g == data {
                Ok(())
            } else {
                Err(format!("values differ: got {g:?}, want {data:?}"))
            };
        }
    };
    if got.shape() != want.shape() || got.dtype() != want.dtype() {
        return Err(format!("got {}, want {}", got.aval(), want.aval()));
    }
    let mismatch = |i: usize, g: String, w: String| {
        Err(format!(
            "element {i} (of {}) differs: got {g}, want {w}",
            want.size()
        ))
    };
    match want.dtype() {
        DType::Bool => {
            let (g, w) = (got.to_vec::<bool>(), want.to_vec::<bool>());
            match (0..g.len()).find(|&i| g[i] != w[i]) {
                Some(i) => mismatch(i, g[i].to_string(), w[i].to_string()),
                None => Ok(()),
            }
        }
        DType::I32 => {
            let (g, w) = (got.to_vec::<i32>(), want.to_vec::<i32>());
            match (0..g.len()).find(|&i| g[i] != w[i]) {
                Some(i) => mismatch(i, g[i].to_string(), w[i].to_string()),
                None => Ok(()),
            }
        }
        DType::U32 => {
            let (g, w) = (got.to_vec::<u32>(), want.to_vec::<u32>());
            match (0..g.len()).find(|&i| g[i] != w[i]) {
                Some(i) => mismatch(i, g[i].to_string(), w[i].to_string()),
                None => Ok(()),
            }
        }
        DType::F32 => {
            let (g, w) = (got.to_vec::<f32>(), want.to_vec::<f32>());
            let bad = |i: usize| match cmp {
                Cmp::Bits => g[i].to_bits() != w[i].to_bits(),
                Cmp::Close => !close(g[i] as f64, w[i] as f64, 1e-5, 1e-6),
                Cmp::Within { rtol, atol } => !close(g[i] as f64, w[i] as f64, rtol, atol),
            };
            match (0..g.len()).find(|&i| bad(i)) {
                Some(i) => mismatch(
                    i,
                    format!("{:e} ({:#010x})", g[i], g[i].to_bits()),
                    format!("{:e} ({:#010x})", w[i], w[i].to_bits()),
                ),
                None => Ok(()),
            }
        }
        DType::F64 => {
            let (g, w) = (got.to_vec::<f64>(), want.to_vec::<f64>());
            let bad = |i: usize| match cmp {
                Cmp::Bits => g[i].to_bits() != w[i].to_bits(),
                Cmp::Close => !close(g[i], w[i], 1e-12, 1e-12),
                Cmp::Within { rtol, atol } => !close(g[i], w[i], rtol, atol),
            };
            match (0..g.len()).find(|&i| bad(i)) {
                Some(i) => mismatch(
                    i,
                    format!("{:e} ({:#018x})", g[i], g[i].to_bits()),
                    format!("{:e} ({:#018x})", w[i], w[i].to_bits()),
                ),
                None => Ok(()),
            }
        }
        // The other dtypes (no golden of the npy suites holds them yet): exact values.
        _ => {
            let (g, w) = (got.array().to_f64_vec(), want.array().to_f64_vec());
            match (0..g.len()).find(|&i| g[i].to_bits() != w[i].to_bits()) {
                Some(i) => mismatch(i, g[i].to_string(), w[i].to_string()),
                None => Ok(()),
            }
        }
    }
}

impl Goldens {
    pub fn case_dir(&self, case: &str) -> PathBuf {
        PathBuf::from(self.dir).join(case)
    }

    /// The numbered files `<prefix>_0.npy`, `<prefix>_1.npy`, ... of a case, in order.
    pub fn read_numbered(&self, case: &str, prefix: &str) -> Vec<Golden> {
        let mut out = Vec::new();
        loop {
            let p = self
                .case_dir(case)
                .join(format!("{prefix}_{}.npy", out.len()));
            if !p.exists() {
                return out;
            }
            out.push(read_golden(&p));
        }
    }

    pub fn inputs(&self, case: &str) -> Vec<Tensor> {
        self.read_numbered(case, "in")
            .into_iter()
            .map(|g| match g {
                Golden::Array(t) => t,
                Golden::I64 { .. } => panic!("{case}: int64 inputs are not supported"),
            })
            .collect()
    }

    /// Compares a program's outputs with the golden ones, leaf by leaf; returns every
    /// difference.
    pub fn check_outputs(&self, case: &str, how: &str, got: &[Tensor], cmp: Cmp) -> Vec<String> {
        let want = self.read_numbered(case, "out");
        assert!(!want.is_empty(), "{case}: no golden outputs found");
        if got.len() != want.len() {
            return vec![format!(
                "{case} ({how}): {} outputs, JAX has {}",
                got.len(),
                want.len()
            )];
        }
        got.iter()
            .zip(&want)
            .enumerate()
            .filter_map(|(i, (g, w))| {
                check_leaf(g, w, cmp)
                    .err()
                    .map(|e| format!("{case} ({how}) out_{i}: {e}"))
            })
            .collect()
    }

    /// Runs `program` on the case's inputs eagerly, through `make_jaxpr` + `eval_jaxpr`,
    /// and compiled by `jit` (fused kernels), and compares all three with JAX's outputs.
    pub fn check_case(&self, case: &str, program: Program, cmp: Cmp) {
        let args = self.inputs(case);
        let eager = program(&args);
        let mut errors = self.check_outputs(case, "eager", &eager, cmp);
        let jaxpr = make_jaxpr(|a: Vec<Tensor>| program(&a), args.clone());
        let traced = eval_jaxpr(&jaxpr, &args);
        errors.extend(self.check_outputs(case, "traced", &traced, cmp));
        let compiled = jit(|a: Vec<Tensor>| program(&a))
            .call(args)
            .expect("compiles");
        errors.extend(self.check_outputs(case, "jit", &compiled, cmp));
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    /// Compares oxla's jaxpr of `program` on the case's inputs with JAX's, normalised.
    pub fn check_jaxpr(&self, case: &str, program: Program) {
        let args = self.inputs(case);
        let got = make_jaxpr(|a: Vec<Tensor>| program(&a), args).to_string();
        let want =
            std::fs::read_to_string(self.case_dir(case).join("jaxpr.txt")).expect("jaxpr.txt");
        assert_eq!(
            normalize_jaxpr(&got),
            normalize_jaxpr(&want),
            "{case}: jaxprs differ\n--- oxla:\n{got}\n--- JAX:\n{want}"
        );
    }

    /// Checks that every case directory (one holding a `jaxpr.txt`) is covered or skipped,
    /// that nothing else is listed, nothing twice, and that `MANIFEST.md` counts them all.
    pub fn assert_accounted_for(&self, covered: &[&str], skipped: &[(&str, &str)]) {
        let mut on_disk: Vec<String> = std::fs::read_dir(self.dir)
            .unwrap_or_else(|e| panic!("{}: {e}", self.dir))
            .filter_map(|e| {
                let e = e.expect("a directory entry");
                let p = e.path();
                (p.is_dir() && p.join("jaxpr.txt").exists())
                    .then(|| e.file_name().to_string_lossy().into_owned())
            })
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = covered
            .iter()
            .chain(skipped.iter().map(|(c, _)| c))
            .map(|c| c.to_string())
            .collect();
        listed.sort();
        let n = listed.len();
        listed.dedup();
        assert_eq!(n, listed.len(), "a case is listed twice");
        assert_eq!(on_disk, listed);
        let manifest =
            std::fs::read_to_string(format!("{}MANIFEST.md", self.dir)).expect("manifest");
        assert!(manifest.contains(&format!("\n{} cases.\n", on_disk.len())));
    }
}

/// Removes ` shape=(...)` from every `broadcast_in_dim[...]` (JAX 0.10 hides it), and the
/// brackets when only `broadcast_dimensions=()` is left (JAX 0.10 hides that too).
pub fn strip_broadcast_shape(s: &str) -> String {
    const HEAD: &str = "broadcast_in_dim[";
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(HEAD) {
        out.push_str(&rest[..i]);
        let after = &rest[i + HEAD.len()..];
        let close = after.find(']').expect("closing bracket");
        let params = &after[..close];
        let params = match params.find(" shape=(") {
            Some(j) => {
                let end = j + params[j..].find(')').expect("closing paren") + 1;
                format!("{}{}", &params[..j], &params[end..])
            }
            None => params.to_string(),
        };
        if params.trim() == "broadcast_dimensions=()" {
            out.push_str("broadcast_in_dim");
        } else {
            out.push_str(HEAD);
            out.push_str(&params);
            out.push(']');
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A jaxpr's text with the differences between JAX 0.10's printer and the JAX 0.4-era one
/// oxla follows removed: sharding parameters, `precision=None`, `np.int64(k)`, line layout.
pub fn normalize_jaxpr(s: &str) -> String {
    let mut s = s
        .replace(" out_sharding=None", "")
        .replace(" sharding=None", "")
        .replace(" precision=None", "");
    while let Some(i) = s.find("np.int64(") {
        let end = i + s[i..].find(')').expect("closing paren");
        let inner = s[i + "np.int64(".len()..end].to_string();
        s.replace_range(i..=end, &inner);
    }
    let s = strip_broadcast_shape(&s);
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    s.replace("[ ", "[").replace(" ]", "]")
}

/// One test module per golden case: `name [cmp]: |args| program;` where `cmp` is `bits`,
/// `sum` or omitted (close). The including file defines `check_case` and imports `Cmp`;
/// `COVERED` lists the cases.
#[allow(unused_macros)]
macro_rules! cases {
    ($($name:ident $([$cmp:ident])? : |$a:ident| $body:expr;)*) => {
        $(
            #[allow(non_snake_case)]
            mod $name {
                use super::*;

                #[allow(unused_variables)]
                pub fn program($a: &[Tensor]) -> Vec<Tensor> {
                    $body
                }

                #[test]
                fn value() {
                    check_case(stringify!($name), program, cases!(@cmp $($cmp)?));
                }
            }
        )*

        /// Every covered case.
        const COVERED: &[&str] = &[$(stringify!($name)),*];
    };
    (@cmp) => { Cmp::Close };
    (@cmp bits) => { Cmp::Bits };
    (@cmp sum) => { common::SUM };
}

/// One jaxpr-text test per listed case, in a `jaxpr` module; the including file defines
/// `check_jaxpr` and the cases' `program`s.
#[allow(unused_macros)]
macro_rules! jaxpr_cases {
    ($($name:ident),* $(,)?) => {
        /// oxla's jaxprs against JAX's `jaxpr.txt`, normalised by `normalize_jaxpr`.
        mod jaxpr {
            $(
                #[test]
                #[allow(non_snake_case)]
                fn $name() {
                    super::check_jaxpr(stringify!($name), super::$name::program);
                }
            )*
        }
    };
}
