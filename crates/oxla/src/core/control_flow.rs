//! The interface of a control-flow primitive: a primitive holding bodies (closed jaxprs)
//! whose rules are defined beside it, in `control` and `transforms`, rather than in the
//! tables of [`Prim`](super::Prim). `core` names the rules; the modules above implement
//! them, so the program representation never depends on the compiler or the transforms.

use crate::source::Source;
use std::fmt;
use std::hash::{Hash, Hasher};

use super::{ClosedJaxpr, Tensor};
use crate::array::{Array, Aval};
use crate::memory::{BufferInfo, ChunkPlan, DevicePlan};

/// The backward half of [`ControlFlow::linearize`]: cotangents of the operands (`None`
/// where inactive) from the results' cotangents.
pub type Pullback = Box<dyn Fn(&[Option<Tensor>]) -> Vec<Option<Tensor>> + Send + Sync>;

/// A primitive holding bodies: the chunked map, `scan`, `cond`, `while`, the map over
/// devices, or a `jit` call.
///
/// Two are one primitive only if they are one object: equality and hashing are by
/// identity, so the compiler never merges two loops because their parameters print alike.
pub trait ControlFlow: fmt::Debug + Send + Sync {
    /// The primitive's name as JAX prints it.
    fn name(&self) -> &'static str;

    /// The parameters as JAX prints them (bodies included), unsorted.
    fn params(&self) -> Vec<(&'static str, String)>;

    /// The shape rule: result avals for operand avals, or what is wrong.
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String>;

    /// Runs the primitive on concrete operands.
    fn eval(&self, inputs: &[Array]) -> Vec<Array>;

    /// The batching rule: results and their batch axes, for operands `args` batched along
    /// `dims` with `n` examples, over the mapped axis called `name` if it has one. Every
    /// `dims` may be `None` when a body holds a collective over `name`.
    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
        name: Option<&str>,
    ) -> (Vec<Tensor>, Vec<Option<usize>>);

    /// Forward mode: primal results and their tangents (`None` is a zero) from one loop.
    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>);

    /// Reverse mode: cotangents of the `active` operands from the results' `cts`; `src` is
    /// the user's line of the equation, named when the primitive cannot be reversed.
    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        src: Source,
    ) -> Vec<Option<Tensor>>;

    /// The bytes the primitive holds while it runs beyond its operands and results (one
    /// step's or branch's working memory), with its bodies' largest buffers.
    fn working_bytes(&self) -> (usize, Vec<BufferInfo>);

    /// The bodies the primitive runs: what makes it effectful (a body holding a host
    /// callback keeps the loop, unmerged and unfolded, as the callback itself is kept) and
    /// which mapped axes its collectives name.
    fn bodies(&self) -> Vec<&ClosedJaxpr>;

    /// The mapped axis the primitive binds for its bodies (a map over devices), which
    /// shadows an enclosing axis of the same name.
    fn binds_axis(&self) -> Option<&str> {
        None
    }

    /// Reverse mode in two halves, for a primitive that keeps what its backward pass
    /// needs: the results of a forward pass that differentiates the `active` operands, and
    /// the pullback from the results' cotangents (`None` is a zero) to those operands'.
    /// `None` where the primitive has no such pass: [`vjp`](Self::vjp) recomputes then.
    fn linearize(&self, _ins: &[Tensor], _active: &[bool]) -> Option<(Vec<Tensor>, Pullback)> {
        None
    }

    /// For a call (`jit`), the body it applies to its operands, which a program being
    /// compiled inlines.
    fn call_body(&self) -> Option<&ClosedJaxpr> {
        None
    }

    /// The chunk plan, for a chunked map staged at `source`.
    fn chunk_plan(&self, _source: Source) -> Option<ChunkPlan> {
        None
    }

    /// Each device's plan, for a map over devices staged at `source`.
    fn device_plans(&self, _source: Source) -> Vec<DevicePlan> {
        vec![]
    }
}

impl PartialEq for dyn ControlFlow {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::addr_eq(self, other)
    }
}

impl Eq for dyn ControlFlow {}

impl Hash for dyn ControlFlow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self as *const Self).cast::<()>().hash(state);
    }
}

/// A `Debug` text for a control-flow primitive's parameters that starts with its identity
/// (its address) and names the listed fields, bodies left out.
macro_rules! debug_by_identity {
    ($t:ty, $($field:ident),*) => {
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t))
                    .field("at", &(self as *const Self))
                    $(.field(stringify!($field), &self.$field))*
                    .finish()
            }
        }
    };
}
pub(crate) use debug_by_identity;
