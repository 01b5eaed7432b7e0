//! Long programs: tracing, printing, evaluating, compiling, running and transforming chains
//! of tens of thousands of equations on a thread with a 2 MiB stack (a spawned thread's
//! default), so no pass recurses once per equation.

use oxla::{eval_jaxpr, grad, jit, make_jaxpr, numpy as jnp, vmap, Tensor};

/// Runs `f` on a new thread with a 2 MiB stack. (A stack overflow aborts the process, so
/// the test binary fails.)
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawned")
        .join()
        .expect("the thread finished")
}

/// `x = x * 1.0001 + 0.5`, two equations a step, `eqns` equations: nothing simplifies.
fn chain(x: Tensor, eqns: usize) -> Tensor {
    let mut x = x;
    for _ in 0..eqns / 2 {
        x = x * 1.0001 + 0.5;
    }
    x
}

/// The chain computed one `f32` at a time.
fn chain_scalar(x: &[f32], eqns: usize) -> Vec<f32> {
    x.iter()
        .map(|&v| (0..eqns / 2).fold(v, |v, _| v * 1.0001 + 0.5))
        .collect()
}

const LONG: usize = 100_000;

#[test]
fn a_chain_of_100000_equations_compiles_and_runs_on_a_2_mib_stack() {
    on_small_stack(|| {
        let x = jnp::linspace(-1.0, 1.0, 64);
        let f = jit(|x| chain(x, LONG));
        let compiled = f.lower(&x).compile();
        let y: Tensor = compiled.call(x.clone()).unwrap();
        assert_eq!(y.to_vec::<f32>(), chain_scalar(&x.to_vec::<f32>(), LONG));
        // The chain is split into kernels of bounded size, each storing its result.
        let steps = compiled.fusion();
        assert!(steps.len() > 1, "one kernel of {LONG} equations");
        let longest = steps.iter().map(|s| s.primitives.len()).max().unwrap();
        assert!(longest <= 1000, "a kernel fuses {longest} equations");
        assert_eq!(
            steps.iter().map(|s| s.primitives.len()).sum::<usize>(),
            LONG
        );
        // The jit call path (cache and all) agrees, and everything drops on this stack.
        assert_eq!(f.call(x).unwrap().to_vec::<f32>(), y.to_vec::<f32>());
    });
}

#[test]
fn a_chain_of_100000_equations_traces_prints_and_evaluates_on_a_2_mib_stack() {
    on_small_stack(|| {
        let x = jnp::linspace(-1.0, 1.0, 8);
        let j = make_jaxpr(|x| chain(x, LONG), x.clone());
        assert_eq!(j.jaxpr.eqns.len(), LONG);
        let text = j.to_string();
        assert_eq!(text.lines().count(), LONG + 2);
        assert!(text.starts_with("{ lambda ; a:f32[8]. let\n    b:f32[8] = mul a 1.0001"));
        let y = eval_jaxpr(&j, std::slice::from_ref(&x));
        assert_eq!(y[0].to_vec::<f32>(), chain_scalar(&x.to_vec::<f32>(), LONG));
    });
}

#[test]
fn a_chain_of_100_equations_stays_one_kernel() {
    let x = jnp::linspace(-1.0, 1.0, 64);
    let compiled = jit(|x| chain(x, 100)).lower(&x).compile();
    assert_eq!(compiled.fusion().len(), 1);
    let y: Tensor = compiled.call(x.clone()).unwrap();
    assert_eq!(y.to_vec::<f32>(), chain_scalar(&x.to_vec::<f32>(), 100));
}

const MEDIUM: usize = 10_000;

#[test]
fn grad_and_vmap_of_a_chain_of_10000_equations_run_on_a_2_mib_stack() {
    on_small_stack(|| {
        let x = jnp::linspace(-1.0, 1.0, 16);
        let loss = |x: Tensor| chain(x, MEDIUM).sum(None);
        // d/dx of the chain is 1.0001 to the number of steps, for every element.
        let want = (0..MEDIUM / 2).fold(1.0f32, |g, _| g * 1.0001);
        let close = |g: &Tensor| {
            g.to_vec::<f32>()
                .iter()
                .all(|&v| (v - want).abs() <= 1e-5 * want)
        };
        let eager: Tensor = grad(loss).call(x.clone());
        assert!(close(&eager), "{eager} vs {want}");
        let jitted: Tensor = jit(|x| grad(loss).call(x)).call(x.clone()).unwrap();
        assert!(close(&jitted), "{jitted} vs {want}");

        let xs = jnp::linspace(-1.0, 1.0, 48).reshape(&[3, 16]);
        let want = chain_scalar(&xs.to_vec::<f32>(), MEDIUM);
        let batched: Tensor = vmap(|x| chain(x, MEDIUM)).call(xs.clone());
        assert_eq!(batched.to_vec::<f32>(), want);
        let jitted: Tensor = jit(|x| vmap(|x| chain(x, MEDIUM)).call(x))
            .call(xs)
            .unwrap();
        assert_eq!(jitted.to_vec::<f32>(), want);
    });
}
