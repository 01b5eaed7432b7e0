//! Eager draws as compiled programs: a sampler called with no trace open runs the program
//! `jit` makes of it, so eagerly it is the same fused kernel as under `jit` (the cipher,
//! the conversion to floats and the transformation in one pass, no bits stored), compiled
//! once per sampler, shape, dtype and bounds.

use crate::source::Source;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::array::DType;
use crate::compiler::Compiled;
use crate::core::Tensor;

/// What an eager draw's program is specific to: the sampler, the shape, the dtype, the
/// bounds' bits, the x64 switch, and the user's line its equations are recorded at (which
/// its memory plan names).
type Draw = (&'static str, Vec<usize>, DType, Vec<u64>, bool, Source);

/// Programs kept at most; past this the cache starts again.
const KEPT: usize = 256;

/// The compiled programs of eager draws.
fn programs() -> &'static Mutex<HashMap<Draw, Arc<Compiled<Tensor>>>> {
    static PROGRAMS: OnceLock<Mutex<HashMap<Draw, Arc<Compiled<Tensor>>>>> = OnceLock::new();
    PROGRAMS.get_or_init(Default::default)
}

/// `draw(key)` as one compiled program, when a call made now runs compiled (no trace
/// open, `jit` not disabled); `None` otherwise, and the caller composes the draw where it
/// is. `sampler`, `shape`, `dtype` and `bounds` (as bits) are everything `draw` depends on
/// besides the key. The program's equations are recorded at the caller's line.
///
/// # Panics
/// Panics if `key` is not a key, and as an eager operation does when the draw's memory is
/// over `OXLA_MEMORY_LIMIT`, naming the caller's line.
#[track_caller]
pub(super) fn compiled(
    sampler: &'static str,
    key: &Tensor,
    shape: &[usize],
    dtype: DType,
    bounds: &[u64],
    draw: impl Fn(&Tensor) -> Tensor,
) -> Option<Tensor> {
    if !crate::compiler::runs_compiled(std::slice::from_ref(key)) {
        return None;
    }
    super::check_key(key);
    let at = Source::caller();
    let id: Draw = (
        sampler,
        shape.to_vec(),
        dtype,
        bounds.to_vec(),
        crate::config::x64_enabled(),
        at,
    );
    let cached = programs().lock().expect("draws").get(&id).cloned();
    let program = cached.unwrap_or_else(|| {
        let traced = crate::jit(|k: Tensor| crate::core::with_line(at, || draw(&k)));
        let program = Arc::new(traced.lower(key).compile());
        let mut programs = programs().lock().expect("draws");
        if programs.len() >= KEPT {
            programs.clear();
        }
        programs.insert(id, program.clone());
        program
    });
    Some(
        program
            .call(key.clone())
            .unwrap_or_else(|e| panic!("{e}\n  at {at}")),
    )
}
