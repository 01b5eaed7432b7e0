//! How a row of a surface table is checked: its golden files, and the four checks.

use oxla::numpy as jnp;
use oxla::{config, eval_jaxpr, jit, make_jaxpr, vjp, vmap, DType, Tensor};

use crate::common::{check_leaf, Cmp, Golden, Goldens};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden_surface/");

/// A row's program: its inputs in, its output leaves out.
pub type Program = fn(&[Tensor]) -> Vec<Tensor>;

/// One row of a table: where its golden files are, its program and its options.
pub struct Case {
    table: &'static str,
    name: &'static str,
    program: Program,
    value: Cmp,
    cotangent: Cmp,
    nograd: bool,
    novmap: bool,
    nofd: bool,
    signs: bool,
}

/// The table and case of a row's module path (`surface::<table>::<case>`).
fn split_path(path: &'static str) -> (&'static str, &'static str) {
    let mut parts = path.split("::").skip(1);
    let table = parts.next().expect("a table module");
    (table, parts.next().unwrap_or(""))
}

/// The golden directory of a table.
fn suite(table: &str) -> Goldens {
    Goldens {
        dir: Box::leak(format!("{ROOT}{table}/").into_boxed_str()),
    }
}

fn arrays(goldens: Vec<Golden>, what: &str) -> Vec<Tensor> {
    goldens
        .into_iter()
        .map(|g| match g {
            Golden::Array(t) => t,
            Golden::I64 { .. } => panic!("{what}: int64 arrays are read only as outputs"),
        })
        .collect()
}

fn report(errors: Vec<String>) {
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// Compares leaves pairwise, naming `how` and the leaf in each difference.
fn compare(how: &str, got: &[Tensor], want: &[Golden], cmp: Cmp) -> Vec<String> {
    if got.len() != want.len() {
        return vec![format!(
            "{how}: {} leaves, expected {}",
            got.len(),
            want.len()
        )];
    }
    got.iter()
        .zip(want)
        .enumerate()
        .filter_map(|(i, (g, w))| {
            check_leaf(g, w, cmp)
                .err()
                .map(|e| format!("{how} {i}: {e}"))
        })
        .collect()
}

fn as_golden(ts: &[Tensor]) -> Vec<Golden> {
    ts.iter().cloned().map(Golden::Array).collect()
}

/// A fixed direction for finite differences, of `x`'s shape in f64: values in [-1, 1]
/// that differ from element to element.
fn direction(x: &Tensor, salt: usize) -> Tensor {
    let v: Vec<f64> = (0..x.size())
        .map(|i| ((i * 7 + salt * 13 + 1) as f64 * 0.618_033_988_749_895).fract() * 2.0 - 1.0)
        .collect();
    Tensor::from_vec(v, x.shape())
}

fn dot(a: &Tensor, b: &Tensor) -> f64 {
    let a = a.astype(DType::F64).to_vec::<f64>();
    let b = b.astype(DType::F64).to_vec::<f64>();
    a.iter().zip(&b).map(|(x, y)| x * y).sum()
}

impl Case {
    /// The row of module `path` (`module_path!()` of the row's module), running `program`.
    pub fn new(path: &'static str, program: Program) -> Case {
        let (table, name) = split_path(path);
        Case {
            table,
            name,
            program,
            value: Cmp::Close,
            cotangent: Cmp::Within {
                rtol: 1e-4,
                atol: 1e-5,
            },
            nograd: false,
            novmap: false,
            nofd: false,
            signs: false,
        }
    }

    /// Values within `rtol`/`atol` (default: f32 1e-5/1e-6, f64 1e-12/1e-12).
    pub fn tol(mut self, rtol: f64, atol: f64) -> Case {
        self.value = Cmp::Within { rtol, atol };
        self
    }

    /// Values bit for bit (samplers).
    pub fn bits(mut self) -> Case {
        self.value = Cmp::Bits;
        self
    }

    /// JAX does not differentiate the function (its golden case has no cotangents).
    pub fn nograd(mut self) -> Case {
        self.nograd = true;
        self
    }

    /// The case has no batch (its golden case says why).
    pub fn novmap(mut self) -> Case {
        self.novmap = true;
        self
    }

    /// Finite differences do not apply (the table's doc says why); JAX's cotangents still do.
    pub fn nofd(mut self) -> Case {
        self.nofd = true;
        self
    }

    /// The values depend on eigenvector signs, which LAPACK (JAX) and faer (oxla) choose
    /// differently: `golden` checks the outputs' shapes and dtypes against JAX's, and `vmap`
    /// and `jit` check the values against eager (the table's doc says why).
    pub fn signs(mut self) -> Case {
        self.signs = true;
        self
    }

    fn what(&self) -> String {
        format!("{}::{}", self.table, self.name)
    }

    fn suite(&self) -> Goldens {
        suite(self.table)
    }

    fn read(&self, prefix: &str) -> Vec<Golden> {
        self.suite().read_numbered(self.name, prefix)
    }

    fn inputs(&self) -> Vec<Tensor> {
        arrays(self.read("in"), &self.what())
    }

    fn run(&self, args: &[Tensor]) -> Vec<Tensor> {
        (self.program)(args)
    }

    /// Eager values against JAX's, and the batched values against JAX's `vmap`.
    pub fn golden(&self) {
        let want = self.read("out");
        assert!(!want.is_empty(), "{}: no golden outputs", self.what());
        if self.signs {
            let got = self.run(&self.inputs());
            let avals = |ts: Vec<Tensor>| ts.iter().map(|t| t.aval()).collect::<Vec<_>>();
            assert_eq!(
                avals(got),
                avals(arrays(want, &self.what())),
                "{}: shapes and dtypes",
                self.what()
            );
            return;
        }
        let mut errors = compare("eager out", &self.run(&self.inputs()), &want, self.value);
        let batch = arrays(self.read("batch_in"), &self.what());
        if !batch.is_empty() {
            let got = vmap(|a: Vec<Tensor>| self.run(&a)).call(batch);
            errors.extend(compare(
                "vmap out",
                &got,
                &self.read("batch_out"),
                self.value,
            ));
        }
        report(
            errors
                .into_iter()
                .map(|e| format!("{}: {e}", self.what()))
                .collect(),
        );
    }

    /// `vmap` over the batch against a loop over it.
    pub fn vmap(&self) {
        let batch = arrays(self.read("batch_in"), &self.what());
        if self.novmap || batch.is_empty() {
            assert!(
                self.novmap == batch.is_empty(),
                "{}: the row says novmap={} but the golden case {} a batch",
                self.what(),
                self.novmap,
                if batch.is_empty() { "has no" } else { "has" }
            );
            assert!(
                self.novmap || self.inputs().is_empty(),
                "{}: a case with inputs has no batch; regenerate the goldens",
                self.what()
            );
            return;
        }
        let got = vmap(|a: Vec<Tensor>| self.run(&a)).call(batch.clone());
        let n = batch[0].shape()[0];
        let rows: Vec<Vec<Tensor>> = (0..n)
            .map(|b| {
                self.run(
                    &batch
                        .iter()
                        .map(|x| x.index(b as isize))
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let looped: Vec<Tensor> = (0..got.len())
            .map(|j| {
                let parts: Vec<Tensor> = rows.iter().map(|r| r[j].clone()).collect();
                jnp::stack(&parts, 0)
            })
            .collect();
        let errors = compare("vmap vs loop, out", &got, &as_golden(&looped), self.value);
        report(
            errors
                .into_iter()
                .map(|e| format!("{}: {e}", self.what()))
                .collect(),
        );
    }

    /// The cotangents of every input for JAX's output cotangents (zeros for integer
    /// outputs), by oxla's `vjp`.
    fn pullback(&self, args: &[Tensor], cots: &[Option<Tensor>]) -> Vec<Tensor> {
        let (outs, pb) = vjp(|a: Vec<Tensor>| self.run(&a), args.to_vec());
        let cts: Vec<Tensor> = outs
            .iter()
            .zip(cots)
            .map(|(o, c)| match c {
                Some(c) => c.astype(o.dtype()),
                None => jnp::zeros(o.shape()).astype(o.dtype()),
            })
            .collect();
        pb.call(cts)
    }

    /// oxla's `vjp` against JAX's, and against finite differences in f64.
    pub fn grad(&self) {
        let args = self.inputs();
        let outs = self.run(&args);
        let dir = self.suite().case_dir(self.name);
        let has_jax = (0..args.len()).any(|i| dir.join(format!("vjp_{i}.npy")).exists());
        let float_in = args.iter().any(|a| a.dtype().is_float());
        let float_out = outs.iter().any(|o| o.dtype().is_float());
        if !has_jax {
            assert!(
                self.nograd || !(float_in && float_out),
                "{}: JAX's golden case has no cotangents, but a float input may reach a float \
                 output: mark the row `nograd` (JAX does not differentiate it) or regenerate",
                self.what()
            );
            return;
        }
        assert!(
            !self.nograd,
            "{}: the row says nograd, but JAX differentiates it",
            self.what()
        );
        let cots: Vec<Option<Tensor>> = (0..outs.len())
            .map(|j| {
                let p = dir.join(format!("cot_{j}.npy"));
                p.exists()
                    .then(|| Tensor::read_npy(&p).expect("a cotangent"))
            })
            .collect();
        let got = self.pullback(&args, &cots);
        let mut errors = Vec::new();
        for (i, g) in got.iter().enumerate() {
            let p = dir.join(format!("vjp_{i}.npy"));
            if args[i].dtype().is_float() {
                assert!(
                    p.exists(),
                    "{}: no vjp_{i}.npy for a float input",
                    self.what()
                );
                let w = Golden::Array(Tensor::read_npy(&p).expect("a cotangent"));
                if let Err(e) = check_leaf(g, &w, self.cotangent) {
                    errors.push(format!("{}: vjp {i}: {e}", self.what()));
                }
            }
        }
        if !self.nofd {
            errors.extend(self.finite_differences(&args, &cots));
        }
        report(errors);
    }

    /// Central differences of `sum(cot * f(x + h v))` in f64 along a fixed direction `v`
    /// of the float inputs, against `sum(v * vjp(cot))`.
    fn finite_differences(&self, args: &[Tensor], cots: &[Option<Tensor>]) -> Vec<String> {
        config::with_x64(true, || {
            let wide = |t: &Tensor| {
                if t.dtype().is_float() {
                    t.astype(DType::F64)
                } else {
                    t.clone()
                }
            };
            let x: Vec<Tensor> = args.iter().map(wide).collect();
            let cots: Vec<Option<Tensor>> = cots.iter().map(|c| c.as_ref().map(wide)).collect();
            let dirs: Vec<Option<Tensor>> = x
                .iter()
                .enumerate()
                .map(|(i, a)| a.dtype().is_float().then(|| direction(a, i)))
                .collect();
            let g = self.pullback(&x, &cots);
            let analytic: f64 = g
                .iter()
                .zip(&dirs)
                .filter_map(|(g, d)| d.as_ref().map(|d| dot(g, d)))
                .sum();
            let objective = |h: f64| -> f64 {
                let moved: Vec<Tensor> = x
                    .iter()
                    .zip(&dirs)
                    .map(|(a, d)| match d {
                        Some(d) => a + &(d * h),
                        None => a.clone(),
                    })
                    .collect();
                self.run(&moved)
                    .iter()
                    .zip(&cots)
                    .filter_map(|(o, c)| c.as_ref().map(|c| dot(o, c)))
                    .sum()
            };
            let h = 1e-6;
            let numeric = (objective(h) - objective(-h)) / (2.0 * h);
            let scale = 1.0 + analytic.abs().max(numeric.abs());
            if (analytic - numeric).abs() <= 1e-5 * scale || (analytic.is_nan() && numeric.is_nan())
            {
                vec![]
            } else {
                vec![format!(
                    "{}: finite differences: vjp gives {analytic}, differences {numeric}",
                    self.what()
                )]
            }
        })
    }

    /// `jit` and `eval_jaxpr(make_jaxpr)` against eager.
    pub fn jit(&self) {
        let args = self.inputs();
        let eager = as_golden(&self.run(&args));
        let compiled = jit(|a: Vec<Tensor>| self.run(&a))
            .call(args.clone())
            .unwrap_or_else(|e| panic!("{}: jit: {e}", self.what()));
        let mut errors = compare("jit vs eager, out", &compiled, &eager, self.value);
        let jaxpr = make_jaxpr(|a: Vec<Tensor>| self.run(&a), args.clone());
        let traced = eval_jaxpr(&jaxpr, &args);
        errors.extend(compare(
            "eval_jaxpr vs eager, out",
            &traced,
            &eager,
            self.value,
        ));
        report(
            errors
                .into_iter()
                .map(|e| format!("{}: {e}", self.what()))
                .collect(),
        );
    }
}

/// Every case directory of `path`'s table has a row in `rows`, and every row a directory.
pub fn accounted_for(path: &'static str, rows: &[&str]) {
    let (table, _) = split_path(path);
    let dir = format!("{ROOT}{table}");
    // A table without cases has no directory (git keeps no empty folders).
    let entries = std::fs::read_dir(&dir).into_iter().flatten();
    let mut on_disk: Vec<String> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir())
        .map(|p| {
            p.file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "{table}: golden cases (left) and rows (right) differ"
    );
}
