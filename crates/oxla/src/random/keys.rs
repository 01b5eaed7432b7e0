//! Key handling: oxla's keys are JAX's raw key data, `u32[2]` (the default threefry
//! implementation), so `key_data` and `wrap_key_data` check and pass them through.

use super::check_key;
use crate::core::Tensor;

/// A key from an integer seed (`jax.random.PRNGKey`): the same as [`key`](super::key).
#[track_caller]
pub fn prng_key(seed: i64) -> Tensor {
    super::key(seed)
}

/// The raw `u32[2]` data of a key (`jax.random.key_data`).
#[track_caller]
pub fn key_data(key: &Tensor) -> Tensor {
    check_key(key);
    key.clone()
}

/// A key from raw `u32[2]` data (`jax.random.wrap_key_data` with the default threefry
/// implementation).
#[track_caller]
pub fn wrap_key_data(data: &Tensor) -> Tensor {
    check_key(data);
    data.clone()
}

/// The same key, for a second use (`jax.random.clone`; keys are values, so a copy).
#[track_caller]
pub fn clone(key: &Tensor) -> Tensor {
    check_key(key);
    key.clone()
}
