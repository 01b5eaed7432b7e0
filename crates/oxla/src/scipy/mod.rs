//! `jax.scipy`: the submodules oxla has, [`special`].

pub mod special;
