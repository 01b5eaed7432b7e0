//! A front end's source hook (`set_source_hook`): equations traced while it names a line
//! record that line, in jaxprs, memory plans and errors; replayed equations keep theirs.
//! Its own process, since the hook is the process's.

use std::cell::Cell;

use oxla::{jit, make_jaxpr, numpy as jnp, set_source_hook, vmap, Source, Tensor};

thread_local! {
    /// The line the "front end" is running, if any.
    static LINE: Cell<Option<u32>> = const { Cell::new(None) };
}

fn model_line() -> Option<Source> {
    LINE.with(Cell::get).map(|l| Source::named("model.py", l))
}

/// Runs `f` as the front end's line `l`.
fn at<R>(l: u32, f: impl FnOnce() -> R) -> R {
    let before = LINE.with(|c| c.replace(Some(l)));
    let r = f();
    LINE.with(|c| c.set(before));
    r
}

fn outer(x: Tensor) -> Tensor {
    let big = at(3, || x.index((.., None)) * x.index((None, ..)));
    at(4, || jnp::sin(&big).sum(0))
}

#[test]
fn equations_record_the_front_ends_line_and_replays_keep_theirs() {
    set_source_hook(model_line);
    let x = jnp::ones(&[300]);
    let j = make_jaxpr(outer, x.clone());
    let lines: Vec<String> = j.jaxpr.eqns.iter().map(|e| e.source.to_string()).collect();
    assert!(
        lines.iter().all(|l| l == "model.py:3" || l == "model.py:4"),
        "{lines:?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("model.py:4"));

    // The plan names the front end's line for the largest buffer.
    let plan = jit(outer).lower(&x).compile().memory_analysis().to_string();
    assert!(
        plan.contains("model.py:4") && !plan.contains(".rs:"),
        "{plan}"
    );

    // A transform replaying the traced equations keeps each one's line, although the
    // front end is at another line when it replays them.
    let batched = at(9, || {
        make_jaxpr(|xs: Tensor| vmap(outer).call(xs), jnp::ones(&[2, 300]))
    });
    let lines: Vec<String> = batched
        .jaxpr
        .eqns
        .iter()
        .map(|e| e.source.to_string())
        .collect();
    assert!(lines.contains(&"model.py:3".to_string()), "{lines:?}");
    assert!(lines.contains(&"model.py:4".to_string()), "{lines:?}");

    // Outside the front end's lines, the Rust caller's line as before.
    let j = make_jaxpr(|x: Tensor| jnp::sin(&x), x);
    assert!(j.jaxpr.eqns[0].source.file().ends_with("source_hook.rs"));
}
