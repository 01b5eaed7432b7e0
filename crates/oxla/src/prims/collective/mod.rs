//! The collectives of `jax.lax` as primitives: `psum`, `pmax`, `pmin`, `all_gather`,
//! `reduce_scatter` (what `psum_scatter` binds), `ppermute`, `all_to_all` and
//! `axis_index`, with their parameters as JAX prints them and their shape rules.
//!
//! A collective names the mapped axes it reduces or exchanges over. Batching over a named
//! axis turns the name into a position (JAX's `psum[axes=(0,)]`), and a sum, maximum or
//! minimum over positions alone is the reduction of those axes: that is its eager kernel,
//! and the compiler rewrites it into one. A collective that still names an axis has a
//! value only inside a function mapped over that axis.

#[cfg(feature = "mpi")]
mod across;
mod exchange;

use std::fmt;
use std::sync::Arc;

use super::{arity, pyfmt, reduce, ReduceOp};
use crate::array::{Array, Aval, DType};

/// One axis a collective runs over: a name bound by a mapped function, or (once batched
/// over that name) a position in the operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AxisName {
    /// An axis name, as `vmap(f).axis_name("i")` binds it.
    Named(Arc<str>),
    /// A positional axis of the operand.
    Pos(usize),
}

impl fmt::Display for AxisName {
    /// Python's repr, as a jaxpr prints it: `'i'` or `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisName::Named(n) => write!(f, "'{n}'"),
            AxisName::Pos(p) => write!(f, "{p}"),
        }
    }
}

/// Which collective, with the parameters of its own.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CollectiveOp {
    /// The sum over the axes, the same on every member (`psum`).
    Psum,
    /// The maximum over the axes (`pmax`).
    Pmax,
    /// The minimum over the axes (`pmin`).
    Pmin,
    /// Every member's operand stacked along a new axis `dimension`, or concatenated along
    /// it when `tiled` (`all_gather`).
    AllGather {
        /// Where the members' axis goes in the result.
        dimension: usize,
        /// Members along the axis.
        axis_size: usize,
        /// Concatenate along `dimension` instead of stacking.
        tiled: bool,
        /// Per member, the length of its operand along `dimension` (tiled), for blocks of
        /// uneven length (`vmap(f).devices`); `None`: every member's is the operand's.
        sizes: Option<Vec<usize>>,
    },
    /// The sum over the axis, each member keeping its own slice along `scatter_dimension`
    /// (`reduce_scatter`, which `psum_scatter` binds).
    ReduceScatter {
        /// The dimension split among the members.
        scatter_dimension: usize,
        /// Members along the axis.
        axis_size: usize,
        /// Keep a block of the dimension instead of removing it.
        tiled: bool,
    },
    /// Member `src` sends its operand to member `dst` for each `(src, dst)`; a member no
    /// one sends to receives zeros (`ppermute`).
    Ppermute {
        /// `(source, destination)` pairs.
        perm: Vec<(usize, usize)>,
        /// Members along the axis (not printed, as in JAX).
        axis_size: usize,
    },
    /// Member `j`'s block `k` along `split_axis` goes to member `k`, which concatenates the
    /// blocks it receives along `concat_axis` in member order (`all_to_all`).
    AllToAll {
        /// The dimension cut into one block per member.
        split_axis: usize,
        /// The dimension the received blocks are joined along.
        concat_axis: usize,
        /// Members along the axis (not printed, as in JAX).
        axis_size: usize,
        /// Whether the user's call was tiled (the primitive always works on blocks).
        tiled: bool,
    },
    /// The member's index along the axis, an `int32` scalar (`axis_index`).
    AxisIndex,
}

/// A collective primitive: the operation and the axes it runs over.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Collective {
    /// The operation.
    pub op: CollectiveOp,
    /// The axes, in the user's order. Only `psum`, `pmax` and `pmin` take more than one, or
    /// positions.
    pub axes: Vec<AxisName>,
}

impl Collective {
    /// The primitive's name as JAX prints it.
    pub fn name(&self) -> &'static str {
        match self.op {
            CollectiveOp::Psum => "psum",
            CollectiveOp::Pmax => "pmax",
            CollectiveOp::Pmin => "pmin",
            CollectiveOp::AllGather { .. } => "all_gather",
            CollectiveOp::ReduceScatter { .. } => "reduce_scatter",
            CollectiveOp::Ppermute { .. } => "ppermute",
            CollectiveOp::AllToAll { .. } => "all_to_all",
            CollectiveOp::AxisIndex => "axis_index",
        }
    }

    /// The reduction of a `psum`, `pmax` or `pmin`.
    pub fn monoid(&self) -> Option<ReduceOp> {
        match self.op {
            CollectiveOp::Psum => Some(ReduceOp::Sum),
            CollectiveOp::Pmax => Some(ReduceOp::Max),
            CollectiveOp::Pmin => Some(ReduceOp::Min),
            _ => None,
        }
    }

    /// The positional axes, in order.
    pub fn positions(&self) -> Vec<usize> {
        self.axes
            .iter()
            .filter_map(|a| match a {
                AxisName::Pos(p) => Some(*p),
                AxisName::Named(_) => None,
            })
            .collect()
    }

    /// The named axes, in order.
    pub fn names(&self) -> Vec<Arc<str>> {
        self.axes
            .iter()
            .filter_map(|a| match a {
                AxisName::Named(n) => Some(n.clone()),
                AxisName::Pos(_) => None,
            })
            .collect()
    }

    /// Whether the collective runs over the axis called `name`.
    pub fn names_axis(&self, name: &str) -> bool {
        self.axes
            .iter()
            .any(|a| matches!(a, AxisName::Named(n) if &**n == name))
    }

    /// The single named axis of a collective that takes one.
    fn axis(&self) -> String {
        self.names()
            .first()
            .map_or(String::new(), |n| n.to_string())
    }

    /// The parameters as JAX prints them, unsorted.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let groups = ("axis_index_groups", "None".to_string());
        let names = || ("axis_name", format!("('{}',)", self.axis()));
        match &self.op {
            CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => {
                vec![("axes", pyfmt::tuple(&self.axes)), groups]
            }
            CollectiveOp::AllGather {
                dimension,
                axis_size,
                tiled,
                sizes,
            } => {
                let mut p = vec![
                    ("all_gather_dimension", dimension.to_string()),
                    groups,
                    names(),
                    ("axis_size", axis_size.to_string()),
                    ("tiled", pyfmt::py_bool(*tiled)),
                ];
                if let Some(sizes) = sizes {
                    p.push(("sizes", pyfmt::tuple(sizes)));
                }
                p
            }
            CollectiveOp::ReduceScatter {
                scatter_dimension,
                axis_size,
                tiled,
            } => vec![
                groups,
                names(),
                ("axis_size", axis_size.to_string()),
                ("scatter_dimension", scatter_dimension.to_string()),
                ("tiled", pyfmt::py_bool(*tiled)),
            ],
            CollectiveOp::Ppermute { perm, .. } => {
                let pairs: Vec<String> = perm.iter().map(|(s, d)| format!("({s}, {d})")).collect();
                vec![names(), ("perm", pyfmt::tuple_of_strings(&pairs))]
            }
            CollectiveOp::AllToAll {
                split_axis,
                concat_axis,
                tiled,
                ..
            } => vec![
                groups,
                ("axis_name", self.axis()),
                ("concat_axis", concat_axis.to_string()),
                ("split_axis", split_axis.to_string()),
                ("tiled", pyfmt::py_bool(*tiled)),
            ],
            CollectiveOp::AxisIndex => vec![("axis_name", self.axis())],
        }
    }

    /// The shape rule.
    pub(crate) fn rule(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        if let CollectiveOp::AxisIndex = self.op {
            arity(inputs, 0)?;
            return Ok(vec![Aval::new(DType::I32, &[])]);
        }
        arity(inputs, 1)?;
        let x = &inputs[0];
        let mut shape = x.shape.to_vec();
        let rank = shape.len();
        let in_range = |d: usize, limit: usize, what: &str| {
            if d < limit {
                Ok(())
            } else {
                Err(format!(
                    "{what} {d} is out of range for an operand of rank {rank}"
                ))
            }
        };
        match &self.op {
            CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => {
                let pos = self.positions();
                for (i, &p) in pos.iter().enumerate() {
                    in_range(p, rank, "axis")?;
                    if pos[..i].contains(&p) {
                        return Err(format!("axis {p} is listed twice"));
                    }
                }
                let kept: Vec<usize> = (0..rank)
                    .filter(|d| !pos.contains(d))
                    .map(|d| shape[d])
                    .collect();
                Ok(vec![Aval::new(x.dtype, &kept)])
            }
            CollectiveOp::AllGather {
                dimension,
                axis_size,
                tiled,
                sizes,
            } => {
                if let Some(sizes) = sizes {
                    in_range(*dimension, rank, "all_gather_dimension")?;
                    if !*tiled {
                        return Err("an all_gather of uneven blocks (sizes) is tiled".into());
                    }
                    if sizes.len() != *axis_size {
                        return Err(format!(
                            "sizes {sizes:?} lists {} members for an axis of {axis_size}",
                            sizes.len()
                        ));
                    }
                    if !sizes.contains(&shape[*dimension]) {
                        return Err(format!(
                            "a block of length {} along all_gather_dimension {dimension} is \
                             none of the members' lengths {sizes:?}",
                            shape[*dimension]
                        ));
                    }
                    shape[*dimension] = sizes.iter().sum();
                } else if *tiled {
                    in_range(*dimension, rank, "all_gather_dimension")?;
                    shape[*dimension] *= axis_size;
                } else {
                    in_range(*dimension, rank + 1, "all_gather_dimension")?;
                    shape.insert(*dimension, *axis_size);
                }
                Ok(vec![Aval::new(x.dtype, &shape)])
            }
            CollectiveOp::ReduceScatter {
                scatter_dimension: s,
                axis_size: n,
                tiled,
            } => {
                in_range(*s, rank, "scatter_dimension")?;
                match tiled {
                    true if shape[*s].is_multiple_of(*n) => shape[*s] /= n,
                    false if shape[*s] == *n => {
                        shape.remove(*s);
                    }
                    _ => {
                        return Err(format!(
                            "dimension {s} of size {} does not split among {n} members{}",
                            shape[*s],
                            if *tiled {
                                ""
                            } else {
                                " (untiled: it must equal their number)"
                            }
                        ))
                    }
                }
                Ok(vec![Aval::new(x.dtype, &shape)])
            }
            CollectiveOp::Ppermute { perm, axis_size } => {
                check_perm(perm, *axis_size)?;
                Ok(vec![x.clone()])
            }
            CollectiveOp::AllToAll {
                split_axis,
                concat_axis,
                axis_size: n,
                ..
            } => {
                in_range(*split_axis, rank, "split_axis")?;
                in_range(*concat_axis, rank, "concat_axis")?;
                if !shape[*split_axis].is_multiple_of(*n) {
                    return Err(format!(
                        "split_axis {split_axis} of size {} does not split among {n} members",
                        shape[*split_axis]
                    ));
                }
                shape[*split_axis] /= n;
                shape[*concat_axis] *= n;
                Ok(vec![Aval::new(x.dtype, &shape)])
            }
            CollectiveOp::AxisIndex => unreachable!("answered above"),
        }
    }

    /// The bytes the kernel holds beyond its operand and result: a reduction's permuted
    /// operand; on devices, the slices `reduce_scatter` sums and the blocks `all_to_all`
    /// joins.
    pub(crate) fn scratch_bytes(&self, inputs: &[Aval]) -> usize {
        match self.op {
            CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => {
                reduce::permuted_bytes(&inputs[0], &self.positions())
            }
            CollectiveOp::ReduceScatter { .. } | CollectiveOp::AllToAll { .. } => {
                inputs[0].nbytes()
            }
            CollectiveOp::AllGather { .. }
            | CollectiveOp::Ppermute { .. }
            | CollectiveOp::AxisIndex => 0,
        }
    }

    /// The eager kernel. A sum, maximum or minimum over positions alone is the reduction;
    /// a collective over a named axis runs with the other members of the mapped call over
    /// devices the calling thread belongs to (`exchange.rs`), and has no value elsewhere.
    pub(crate) fn eval(&self, inputs: &[Array]) -> Vec<Array> {
        match self.monoid() {
            Some(op) if self.names().is_empty() => {
                vec![reduce::reduce(op, &inputs[0], &self.positions())]
            }
            _ => vec![self.exchange(inputs.first())],
        }
    }
}

/// Checks a `ppermute` permutation: pairs within `n` members, no source or destination
/// twice.
pub(crate) fn check_perm(perm: &[(usize, usize)], n: usize) -> Result<(), String> {
    for (i, &(s, d)) in perm.iter().enumerate() {
        if s >= n || d >= n {
            return Err(format!(
                "perm pair ({s}, {d}) is out of range for an axis of size {n}"
            ));
        }
        if perm[..i].iter().any(|p| p.0 == s) {
            return Err(format!("perm sends from member {s} twice"));
        }
        if perm[..i].iter().any(|p| p.1 == d) {
            return Err(format!("perm sends to member {d} twice"));
        }
    }
    Ok(())
}
