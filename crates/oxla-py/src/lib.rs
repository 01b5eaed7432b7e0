//! `oxla._oxla`: the extension module behind the `oxla` Python package.
//!
//! Python owns pytrees (`oxla.tree_util`) and JAX's keyword arguments; this module owns
//! arrays and runs oxla's transforms on flat lists of them. A Python function under a
//! transform is called with a list of `oxla.Array`s whose tensors are tracers,
//! exactly as oxla calls a Rust closure.

mod array;
mod axes;
mod control;
mod convert;
mod creation;
mod debug;
mod errors;
mod fft;
mod lax_conv;
mod lax_cumulative;
mod lax_nn;
mod lax_ops;
mod lax_random;
mod lax_structural;
mod library;
mod linalg;
mod linalg_lax;
mod linalg_norms;
mod linalg_products;
mod ops;
mod parallel;
mod plain;
mod shape;
mod shape_diag;
mod shape_extra;
mod shape_join;
mod shape_misc;
mod shape_poly;
mod source;
mod special;
mod special_lax;
mod stats;
mod stats_index;
mod stats_reduce;
mod stats_sets;
mod stats_sort;
mod stats_take;
mod transforms;

use pyo3::prelude::*;

#[pymodule]
fn _oxla(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::install_panic_hook();
    source::install();
    m.add_class::<array::Array>()?;
    m.add_class::<transforms::Jitted>()?;
    errors::register(m)?;
    array::register(m)?;
    ops::register(m)?;
    creation::register(m)?;
    library::register(m)?;
    axes::register(m)?;
    control::register(m)?;
    transforms::register(m)?;
    plain::register(m)?;
    parallel::register(m)?;
    debug::register(m)?;
    special::register(m)?;
    linalg::register(m)?;
    stats::register(m)?;
    shape::register(m)?;
    lax_ops::register(m)?;
    Ok(())
}
