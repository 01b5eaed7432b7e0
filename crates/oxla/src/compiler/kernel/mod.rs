//! The block interpreter that runs a fused kernel.
//!
//! One loop of the nest is vectorised: the interpreter walks it in blocks of up to
//! [`LANES`] lanes, and every node is a typed vector of lanes, kept in a buffer of its own
//! that every block reuses. The other loops run one index at a time, and each node is
//! evaluated at the innermost loop its value depends on — an index computation that
//! depends only on the site is computed once per block of sites, not once per neighbour.
//! A node that does not depend on the vector loop holds a single value.

mod folds;
pub(crate) mod ir;
mod lanes;
mod run;
mod schedule;
mod scratch;

use super::pairwise::Pairwise;
use ir::Kernel;

use crate::array::{strides_of, with_dtype, Array, Buffer, DType};
use crate::prims::Monoid;

use folds::epilogue;
use lanes::{Out, Src};
use run::Run;
use schedule::{order, rows, Order, LANES};
use scratch::{Kept, Scratch, KEPT_MOST};

/// Where a kernel writes its result.
pub(crate) enum Target {
    /// A new buffer.
    Fresh,
    /// A buffer of the result's size that an earlier value no longer needs.
    Reuse(Buffer),
    /// The buffer of this input slot, which dies here (see [`Kernel::in_place_slots`]).
    InPlace(usize),
}

/// What a kernel's runs share, worked out when its program is compiled (the memory plan
/// asks for its scratch bytes): the loop order (tiled or not), the loop split over threads
/// and the result's layout.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    order: Order,
    /// The tile size of the outermost loop and the tiled walk (the two outermost loops
    /// swapped), when tiling pays.
    tiled: Option<(usize, Order)>,
    /// The loop position split over threads.
    split: Option<usize>,
    out_len: usize,
    out_strides: Vec<i64>,
    /// The kernel as a pairwise sum, run by its micro-kernel instead of the interpreter.
    pairwise: Option<Pairwise>,
    /// Lane buffers kept between runs on the calling thread, when they are small.
    kept: Option<Kept>,
}

/// The least work (loop iterations times nodes) of a kernel split over threads.
const PARALLEL_WORK: usize = 1 << 18;

fn prepare(k: &Kernel) -> Prepared {
    let mut order = order(k);
    order.rows = rows(k, &order);
    let n = k.loops.len();
    let out_shape: Vec<usize> = (0..n)
        .filter(|&d| !k.reduced(d))
        .map(|d| k.loops[d])
        .collect();
    let compact = strides_of(&out_shape);
    let mut it = compact.iter();
    let out_strides: Vec<i64> = (0..n)
        .map(|d| {
            if k.reduced(d) {
                0
            } else {
                *it.next().expect("stride") as i64
            }
        })
        .collect();
    // A small kernel runs on the calling thread: waking another costs more than it saves.
    let work = k
        .loops
        .iter()
        .fold(k.nodes.len(), |w, &d| w.saturating_mul(d));
    let parallel = work >= PARALLEL_WORK;
    let tiled = order.tile(k).filter(|_| parallel).map(|t| {
        let mut loops = order.loops.clone();
        loops.swap(0, 1);
        (t, Order::new(k, order.vector, loops))
    });
    // The outermost loop is split over threads, unless it has fewer steps than there are
    // threads and a loop inside it (not reduced) has more.
    let parts = crate::env::parts();
    let steps_at = |p: usize| {
        let d = order.loops[p];
        k.loops[d].div_ceil(order.step(d))
    };
    let open: Vec<usize> = (0..n).take_while(|&p| !k.reduced(order.loops[p])).collect();
    let split = open
        .iter()
        .copied()
        .find(|&p| steps_at(p) >= parts)
        .or_else(|| open.iter().copied().max_by_key(|&p| steps_at(p)))
        .filter(|&p| parallel && parts > 1 && steps_at(p) >= 2);
    let kept = (run_bytes(k, &order) <= KEPT_MOST).then(Kept::default);
    Prepared {
        order,
        tiled,
        split,
        out_len: out_shape.iter().product(),
        out_strides,
        kept,
        pairwise: Pairwise::detect(k),
    }
}

/// The schedule of `k` in words, for the fusion report: its loops and which are reduced,
/// the order they are walked in, the vector loop and its block of lanes, tiling and the
/// split over threads.
pub(crate) fn schedule(k: &Kernel) -> String {
    let p = k.prepared.get_or_init(|| prepare(k));
    if p.pairwise.is_some() {
        return format!(
            "loops {:?}, a pairwise sum run by its micro-kernel",
            k.loops
        );
    }
    let mut s = p.order.describe(k);
    if let Some((t, _)) = p.tiled {
        s += &format!(", loop {} in tiles of {t}", p.order.loops[0]);
    }
    match p.split {
        Some(q) => s += &format!(", loop {} split over threads", p.order.loops[q]),
        None => s += ", on one thread",
    }
    s
}

/// The most bytes a run of `k` holds beyond its inputs and result: the lane buffers of
/// every thread that runs a part of it (a block of lanes for each node, the running
/// reduction, the epilogue and the load offsets), or the pairwise micro-kernel's.
pub(crate) fn scratch_bytes(k: &Kernel) -> usize {
    let p = k.prepared.get_or_init(|| prepare(k));
    let threads = rayon::current_num_threads();
    if p.pairwise.is_some() {
        return threads * 1024 * std::mem::size_of::<f32>();
    }
    let runs = if p.split.is_some() || p.tiled.is_some() {
        threads
    } else {
        1
    };
    runs * run_bytes(k, &p.order)
}

/// The bytes of one run's lane buffers: a block of lanes for each node, a reduction's
/// running values and epilogue, and the load offsets.
fn run_bytes(k: &Kernel, order: &Order) -> usize {
    let lanes = k.loops.get(order.vector).map_or(1, |&e| e.min(LANES)) * order.rows;
    let root = k.nodes.last().map_or(k.out.aval.dtype, |n| n.dtype);
    let folded = if k.reduce.is_some() {
        root.size() + k.out.aval.dtype.size()
    } else {
        0
    };
    let per_lane: usize =
        k.nodes.iter().map(|n| n.dtype.size()).sum::<usize>() + folded + std::mem::size_of::<i64>();
    lanes.max(1) * per_lane
}

/// Runs kernel `k` on its input buffers, writing the result into `target`.
pub(crate) fn run(k: &Kernel, mut inputs: Vec<Array>, target: Target) -> Array {
    let Prepared {
        order,
        tiled,
        split,
        out_len,
        out_strides,
        pairwise,
        kept,
    } = k.prepared.get_or_init(|| prepare(k));
    let out_len = *out_len;
    let n = k.loops.len();
    let dtype = k.out.aval.dtype;
    let bytes = k.out.aval.nbytes();
    if let Some(p) = pairwise {
        let mut buffer = Buffer::zeroed(bytes);
        p.run(k, &inputs, buffer.as_mut_slice::<f32>());
        return Array::from_buffer(dtype, &k.out.aval.shape, buffer);
    }
    let fresh = || lanes::result_buffer(bytes);
    let (mut buffer, written) = match target {
        Target::InPlace(slot) => {
            debug_assert!(k.in_place_slots().contains(&slot), "planned in place");
            let placeholder = Array::zeros(DType::U32, &[0]);
            match std::mem::replace(&mut inputs[slot], placeholder).into_buffer() {
                Ok(b) => (b, Some(slot)),
                Err(shared) => {
                    // Another owner still reads it: leave it be.
                    inputs[slot] = shared;
                    (fresh(), None)
                }
            }
        }
        Target::Reuse(b) if b.len_bytes() == bytes => (b, None),
        _ => (fresh(), None),
    };
    let mut srcs: Vec<Src> = inputs.iter().map(Src::of).collect();
    let out = Out {
        buf: buffer.as_mut_ptr(),
        len: out_len,
        dtype,
    };
    if let Some(slot) = written {
        srcs[slot] = Src {
            ptr: out.buf as *const u8,
            bytes,
            written: true,
        };
    }
    let inputs = &srcs[..];
    // A block never has more lanes than the vector loop.
    let lanes = k.loops.get(order.vector).map_or(1, |&e| e.min(LANES)) * order.rows;
    let new_run = |split: (usize, i64, i64), scratch: Option<Box<Scratch>>| Run {
        k,
        inputs,
        order: tiled.as_ref().map_or(order, |(_, o)| o),
        out: &out,
        out_strides,
        width: 1,
        split,
        s: scratch.unwrap_or_else(|| Scratch::new(k, lanes)),
    };
    if k.loops.contains(&0) {
        if let Some((op, _)) = &k.reduce {
            // Reducing an empty loop gives the monoid's identity.
            let mut r = new_run((0, 0, 0), None);
            with_dtype!(r.s.acc.dtype, T, Arith, {
                r.s.acc.typed_mut::<T>(1)[0] = T::identity(*op)
            });
            let v = epilogue(k, &r.s.acc, &mut r.s.epi);
            out.store(v.get(), 0, 1, out_len);
        }
        return Array::from_buffer(dtype, &k.out.aval.shape, buffer);
    }
    let go = |mut r: Run<'_>| -> Box<Scratch> {
        for &i in &order.once {
            r.eval(i);
        }
        if n > 0 {
            r.walk(0);
        } else if k.reduce.is_some() {
            // A reduction over no loops: the value itself.
            r.reset();
            r.innermost();
            r.finish();
        } else {
            r.innermost();
        }
        r.s
    };
    let parts = crate::env::parts() as i64;
    match (tiled, split) {
        (&Some((t, _)), _) => {
            // Each thread walks tiles of its part of the outermost loop, the tile loop
            // inside the second (position 1 of the tiled order).
            let extent = k.loops[order.loops[0]] as i64;
            let per = (extent + parts - 1) / parts;
            rayon::scope(|s| {
                let mut lo = 0;
                while lo < extent {
                    let hi = (lo + per).min(extent);
                    let go = &go;
                    let new_run = &new_run;
                    s.spawn(move |_| {
                        let mut t0 = lo;
                        while t0 < hi {
                            let t1 = (t0 + t as i64).min(hi);
                            go(new_run((1, t0, t1), None));
                            t0 = t1;
                        }
                    });
                    lo = hi;
                }
            });
        }
        (None, &Some(p)) => {
            let d = order.loops[p];
            let extent = k.loops[d] as i64;
            let step = order.step(d) as i64;
            let steps = (extent + step - 1) / step;
            let per = (steps + parts - 1) / parts * step;
            rayon::scope(|s| {
                let mut lo = 0;
                while lo < extent {
                    let hi = (lo + per).min(extent);
                    let run = new_run((p, lo, hi), None);
                    s.spawn(move |_| {
                        go(run);
                    });
                    lo = hi;
                }
            });
        }
        _ => {
            let extent0 = order.loops.first().map_or(1, |&d| k.loops[d] as i64);
            // A small kernel's own buffers, or (never kept by one) the thread's spare set.
            let scratch = match kept {
                Some(kept) => kept.take().unwrap_or_else(|| Scratch::new(k, lanes)),
                None => Scratch::take(k, lanes),
            };
            let scratch = go(new_run((0, 0, extent0), Some(scratch)));
            match kept {
                Some(kept) => kept.put(scratch),
                None => scratch.give_back(),
            }
        }
    }
    // The loops may be coalesced: the result has the shape of the value computed.
    Array::from_buffer(dtype, &k.out.aval.shape, buffer)
}

/// The kernels' baseline versions against the versions the processor runs.
#[cfg(test)]
mod tests {
    use crate::prims::isa::{force, isa, Isa};
    use crate::{jit, nn, numpy as jnp, random, Tensor};

    /// Values of `f32[shape]` that exercise every kind of lane: negatives, fractions, large.
    fn data(seed: i64, shape: &[usize]) -> Tensor {
        random::normal(&random::key(seed), shape) * 3.0
    }

    /// Programs covering the interpreter (elementwise lanes, strided and gathered loads,
    /// rows per block, reductions of every walk, epilogues), the skinny products and eager
    /// kernels: their results, flattened, and the pairwise kernel's apart.
    fn programs() -> (Vec<Vec<f32>>, Vec<f32>) {
        let x = data(0, &[300, 257]);
        let y = data(1, &[257]);
        let mut out = Vec::new();
        let elementwise = jit(|(x, y): (Tensor, Tensor)| {
            let z = jnp::tanh(&(&x * 0.1)) + jnp::exp(&(&x * 0.2)) * &y;
            nn::sigmoid(&z) + jnp::log1p(jnp::abs(&z)) + jnp::sqrt(jnp::abs(&x))
        });
        out.push(elementwise.call((x.clone(), y.clone())).unwrap());
        // Reductions along each axis and over everything, a row softmax (rows per block) and
        // a transposed, padded operand (strided and clamped loads).
        let reductions = jit(|x: Tensor| {
            let rows = jnp::exp(&(&x * 0.1)).sum(1);
            let cols = x.max(0) + x.min(0) + x.sum(0);
            let all = (&x * &x).sum(None) + rows.sum(None) + cols.sum(None);
            (rows, cols, all)
        });
        let (rows, cols, all) = reductions.call(x.clone()).unwrap();
        out.extend([rows, cols, all]);
        out.push(nn::softmax(data(2, &[500, 10]), 1));
        let moved = jit(|x: Tensor| {
            let t = jnp::pad(x.transpose([1, 0]), &[(1, 2), (0, 3)], 0.5);
            jnp::concatenate(&[t.clone(), &t * 2.0], 0).sum(1)
        });
        out.push(moved.call(x.clone()).unwrap());
        // Skinny products: few columns of either layout, few terms.
        let products = jit(|(x, w, v, p): (Tensor, Tensor, Tensor, Tensor)| {
            let by_rows = jnp::matmul(&x, &w);
            let by_columns = jnp::matmul(x.transpose([1, 0]), &v);
            let few_terms = jnp::matmul(&p, w.transpose([1, 0]));
            (by_rows, by_columns, few_terms)
        });
        let ws = (
            x.clone(),
            data(3, &[257, 10]),
            data(6, &[300, 10]),
            data(7, &[300, 10]),
        );
        let (by_rows, by_columns, few_terms) = products.call(ws).unwrap();
        out.extend([by_rows, by_columns, few_terms]);
        // Eager elementwise kernels.
        out.push(jnp::exp(&(&x * 0.1)) * jnp::sin(&x));
        let flat = out.iter().map(|t| t.to_vec::<f32>()).collect();
        // A pairwise sum of absolute differences (seed 000's L1 affinities).
        let a = data(4, &[40, 100]);
        let b = data(5, &[36, 100]);
        let pairwise = jit(|(a, b): (Tensor, Tensor)| {
            let d = jnp::expand_dims(&a, 1) - jnp::expand_dims(&b, 0);
            -jnp::abs(&d).sum(2)
        });
        (flat, pairwise.call((a, b)).unwrap().to_vec::<f32>())
    }

    #[test]
    fn the_baseline_computes_what_the_fast_versions_do() {
        let fast = programs();
        force(Some(Isa::Baseline));
        assert_eq!(isa(), Isa::Baseline);
        let baseline = programs();
        force(None);
        // The same instructions' results, bit for bit.
        for (i, (f, b)) in fast.0.iter().zip(&baseline.0).enumerate() {
            let same = f.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(
                same && f.len() == b.len(),
                "program {i} differs on the baseline"
            );
        }
        // The pairwise micro-kernel is written per instruction set: its sums are ordered
        // differently.
        for (f, b) in fast.1.iter().zip(&baseline.1) {
            assert!((f - b).abs() <= 1e-4 * (1.0 + f.abs()), "{f} vs {b}");
        }
    }
}
