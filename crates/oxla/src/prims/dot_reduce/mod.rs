//! Products reduced as they are made: `reduce(map(dot_general(l, r)), axes)`, where the
//! reduction runs over some of the product's free dimensions and `map` is the identity, an
//! absolute value or a square (seed 000's `-sum(abs(a @ b))` per pair of images).
//!
//! The product is made in tiles on `gemm`, each small enough to stay in cache, and each
//! tile is mapped and reduced into the result before the next is made: the product is
//! never stored. Rows of the product that reduce into the same results are grouped into
//! runs (and so are columns), so that the threads share out whole runs and never write
//! the same result.

use std::ops::{Add, Mul};

use rayon::prelude::*;

use super::linalg::{free_dims, gemm_call, matrix, Matrix};
use super::symmetric::Shared;
use super::view::{new_array, signed_strides};
use super::ReduceOp;
use crate::array::{aval_of, checked_nbytes, Array, Aval, Buffer, DType, Elem};

type Dims = (Vec<usize>, Vec<usize>);

/// What each element of the product becomes before it is reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DotMap {
    /// The element itself.
    Identity,
    /// Its absolute value.
    Abs,
    /// Its square.
    Square,
}

impl DotMap {
    /// The name printed in the primitive's parameters.
    pub fn name(self) -> &'static str {
        match self {
            DotMap::Identity => "identity",
            DotMap::Abs => "abs",
            DotMap::Square => "square",
        }
    }
}

/// The parameters of a reduced product: `dot_general`'s dimension numbers, then the map
/// and the reduction over `axes` of the product (free dimensions only, ascending).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotReduce {
    /// `(lhs_contracting, rhs_contracting)`.
    pub contracting: Dims,
    /// `(lhs_batch, rhs_batch)`.
    pub batch: Dims,
    /// What each element of the product becomes.
    pub map: DotMap,
    /// The reduction: a sum, maximum or minimum.
    pub op: ReduceOp,
    /// Dimensions of the product reduced away.
    pub axes: Vec<usize>,
}

/// Rows (and columns) of the product per tile: a tile of `f32` is 256 KiB, in a core's L2
/// cache while it is reduced.
const TILE: usize = 256;

/// Tasks a product is split into, about, where it has the runs to: enough for the threads
/// of any machine, and not a number that depends on them, so that the tiles (and so the
/// order the terms are summed in) do not depend on the thread count.
pub(crate) const TASKS: usize = 64;

/// The fewest rows of a task: fewer make `gemm` calls too small to pay for themselves.
const MIN_ROWS: usize = 16;

/// The result's aval: the product's without `axes`, for real operands of one dtype.
pub(crate) fn dot_reduce_rule(p: &DotReduce, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    let product = super::linalg::dot_general_rule(&p.contracting, &p.batch, None, inputs)?;
    let product = &product[0];
    if !matches!(product.dtype, DType::F32 | DType::F64) {
        return Err(format!("operands must be f32 or f64, got {product}"));
    }
    if !matches!(p.op, ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min) {
        return Err(format!(
            "reduces by a sum, maximum or minimum, not {:?}",
            p.op
        ));
    }
    let nb = p.batch.0.len();
    let ascending = p.axes.windows(2).all(|w| w[0] < w[1]);
    if !ascending || p.axes.iter().any(|&a| a < nb || a >= product.ndim()) {
        return Err(format!(
            "axes {:?} must be ascending free dimensions of the product {product}",
            p.axes
        ));
    }
    let shape: Vec<usize> = (0..product.ndim())
        .filter(|d| !p.axes.contains(d))
        .map(|d| product.shape[d])
        .collect();
    Ok(vec![Aval::new(product.dtype, &shape)])
}

/// The arithmetic a reduced product needs of its element type.
trait Real: Elem + Add<Output = Self> + Mul<Output = Self> + PartialOrd {
    fn abs(self) -> Self;
    fn is_nan(self) -> bool;
}

impl Real for f32 {
    fn abs(self) -> Self {
        f32::abs(self)
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}

impl Real for f64 {
    fn abs(self) -> Self {
        f64::abs(self)
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}

/// `reduce(map(dot_general(lhs, rhs)), axes)` without storing the product.
pub(crate) fn dot_reduce(lhs: &Array, rhs: &Array, p: &DotReduce) -> Array {
    crate::env::init_threads();
    match lhs.dtype() {
        DType::F32 => reduced_product::<f32>(lhs, rhs, p),
        DType::F64 => reduced_product::<f64>(lhs, rhs, p),
        d => panic!("dot_reduce multiplies f32 or f64 operands, not {d}"),
    }
}

/// The same value the long way: the product, mapped, then reduced (for products with
/// no rows, columns or batch, and as the reference the tests compare with).
pub(crate) fn unfused(lhs: &Array, rhs: &Array, p: &DotReduce) -> Array {
    let product = super::linalg::dot_general(lhs, rhs, &p.contracting, &p.batch, None);
    let mapped = match p.map {
        DotMap::Identity => product,
        DotMap::Abs => super::elementwise::unary(super::UnaryOp::Abs, &product),
        DotMap::Square => super::elementwise::unary(super::UnaryOp::Square, &product),
    };
    super::reduce::reduce(p.op, &mapped, &p.axes)
}

/// Where each index of a group of dimensions of `sizes` puts its value in the result:
/// the sum of its indices times `strides` (0 for a reduced dimension), in row-major order.
fn offsets(sizes: &[usize], strides: &[usize]) -> Vec<usize> {
    let mut offs = vec![0usize];
    for (&size, &stride) in sizes.iter().zip(strides) {
        offs = offs
            .iter()
            .flat_map(|&o| (0..size).map(move |i| o + i * stride))
            .collect();
    }
    offs
}

/// Rows (or columns) ordered so that those writing the same result are adjacent: the
/// order (`None` where it is already so), and where each run of equal offsets starts,
/// with the end last.
fn runs(offs: &[usize]) -> (Option<Vec<usize>>, Vec<usize>) {
    let grouped = offs.windows(2).all(|w| w[0] <= w[1]);
    let order = (!grouped).then(|| {
        let mut order: Vec<usize> = (0..offs.len()).collect();
        order.sort_by_key(|&i| offs[i]);
        order
    });
    let sorted = |i: usize| order.as_ref().map_or(offs[i], |o| offs[o[i]]);
    let mut starts: Vec<usize> = (0..offs.len())
        .filter(|&i| i == 0 || sorted(i) != sorted(i - 1))
        .collect();
    starts.push(offs.len());
    (order, starts)
}

/// `m` with its rows (`[batch, rows, k]`) in `order`, as a contiguous copy.
fn reordered<T: Elem>(m: &Matrix, order: &[usize]) -> Matrix {
    let [b, rows, k] = m.sizes;
    let src = m.data.as_slice::<T>();
    let data = new_array::<T>(&[b, rows, k], |out| {
        for i in 0..b {
            for (p, &q) in order.iter().enumerate() {
                let from = i as isize * m.strides[0] + q as isize * m.strides[1];
                let to = (i * rows + p) * k;
                for t in 0..k {
                    out[to + t] = src[(from + t as isize * m.strides[2]) as usize];
                }
            }
        }
    });
    Matrix {
        data,
        sizes: m.sizes,
        strides: [(rows * k) as isize, k as isize, 1],
    }
}

/// A task: a batch, its rows `(first, end)` and its columns `(first, end)`.
type Task = (usize, (usize, usize), (usize, usize));

/// Whole runs grouped into chunks of at least `target` rows (the last may be short): each
/// chunk's `(first, end)` in rows.
fn chunks(starts: &[usize], target: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut first = 0;
    for &s in &starts[1..] {
        if s - first >= target || s == *starts.last().expect("the end") {
            out.push((first, s));
            first = s;
        }
    }
    out
}

fn reduced_product<T: Real>(lhs: &Array, rhs: &Array, p: &DotReduce) -> Array {
    let avals = [aval_of(lhs), aval_of(rhs)];
    let shape = dot_reduce_rule(p, &avals).expect("checked when bound")[0]
        .shape
        .to_vec();
    let lfree = free_dims(lhs.ndim(), &p.contracting.0, &p.batch.0);
    let rfree = free_dims(rhs.ndim(), &p.contracting.1, &p.batch.1);
    let l = matrix(lhs, &p.batch.0, &lfree, &p.contracting.0);
    let r = matrix(rhs, &p.batch.1, &rfree, &p.contracting.1);
    let [_, m, k] = l.sizes;
    let n = r.sizes[1];
    let batches = l.sizes[0];
    if m == 0 || n == 0 || batches == 0 {
        return unfused(lhs, rhs, p);
    }
    if k == 0 {
        // Every term of the product is +0, and so is any reduction of them.
        return new_array::<T>(&shape, |out| out.fill(T::from_f64(0.0)));
    }
    // The result's stride for each dimension of the product (0 where it is reduced).
    let nb = p.batch.0.len();
    let product_sizes: Vec<usize> = p
        .batch
        .0
        .iter()
        .map(|&d| lhs.shape()[d])
        .chain(lfree.iter().map(|&d| lhs.shape()[d]))
        .chain(rfree.iter().map(|&d| rhs.shape()[d]))
        .collect();
    let out_strides = signed_strides(&shape);
    let mut kept = out_strides.iter();
    let strides: Vec<usize> = (0..product_sizes.len())
        .map(|d| {
            if p.axes.contains(&d) {
                0
            } else {
                *kept.next().expect("one stride per kept dimension") as usize
            }
        })
        .collect();
    let nl = nb + lfree.len();
    let boff = offsets(&product_sizes[..nb], &strides[..nb]);
    let (orow, ocol) = (
        offsets(&product_sizes[nb..nl], &strides[nb..nl]),
        offsets(&product_sizes[nl..], &strides[nl..]),
    );
    let (row_order, row_starts) = runs(&orow);
    let (col_order, col_starts) = runs(&ocol);
    let sort = |offs: Vec<usize>, order: &Option<Vec<usize>>| match order {
        Some(o) => o.iter().map(|&i| offs[i]).collect(),
        None => offs,
    };
    let (orow, ocol) = (sort(orow, &row_order), sort(ocol, &col_order));
    let l = match &row_order {
        Some(o) => reordered::<T>(&l, o),
        None => l,
    };
    let r = match &col_order {
        Some(o) => reordered::<T>(&r, o),
        None => r,
    };
    let init = match p.op {
        ReduceOp::Max => T::from_f64(f64::NEG_INFINITY),
        ReduceOp::Min => T::from_f64(f64::INFINITY),
        ReduceOp::Sum | ReduceOp::Prod | ReduceOp::And | ReduceOp::Or => T::from_f64(0.0),
    };
    // Tasks: a batch, whole runs of rows and whole runs of columns, so that no two write
    // one result. Rows are taken a tile high; where that leaves fewer than `TASKS` tasks
    // the columns split, down to a tile wide, and only then the rows, down to `MIN_ROWS`:
    // a tile made of fewer rows packs the same columns for less work.
    let mut row_chunks = chunks(&row_starts, TILE);
    let col_parts = TASKS
        .div_ceil(batches * row_chunks.len())
        .min(n.div_ceil(TILE));
    if batches * row_chunks.len() * col_parts < TASKS {
        let rows = (m * batches * col_parts).div_ceil(TASKS);
        row_chunks = chunks(&row_starts, rows.clamp(MIN_ROWS, TILE));
    }
    let col_chunks = chunks(&col_starts, n.div_ceil(col_parts));
    let tasks: Vec<Task> = (0..boff.len())
        .flat_map(|b| {
            let cols = &col_chunks;
            row_chunks
                .iter()
                .flat_map(move |&rows| cols.iter().map(move |&c| (b, rows, c)))
        })
        .collect();
    let bytes = checked_nbytes(&shape, std::mem::size_of::<T>()).expect("checked when bound");
    let mut result = Buffer::zeroed(bytes);
    result.as_mut_slice::<T>().fill(init);
    let dst = Shared(result.as_mut_slice::<T>().as_mut_ptr());
    let (ls, rs) = (l.data.as_slice::<T>(), r.data.as_slice::<T>());
    let (lsd, rsd) = (l.strides, r.strides);
    let (map, op) = (p.map, p.op);
    tasks.par_iter().for_each(|&(b, (r0, r1), (c0, c1))| {
        let mut tile = vec![init; TILE * TILE];
        for q0 in (c0..c1).step_by(TILE) {
            let w = TILE.min(c1 - q0);
            // The tile's columns by run: (first, end, the run's offset in the result).
            let mut segs = Vec::new();
            let mut q = q0;
            while q < q0 + w {
                let end = (q0 + w).min(col_starts[col_starts.partition_point(|&s| s <= q)]);
                segs.push((q - q0, end - q0, ocol[q]));
                q = end;
            }
            for p0 in (r0..r1).step_by(TILE) {
                let h = TILE.min(r1 - p0);
                // SAFETY: element (p, t) of the left operand is at
                // ls[b*lsd[0] + p*lsd[1] + t*lsd[2]] and (t, q) of the right one at
                // rs[b*rsd[0] + q*rsd[1] + t*rsd[2]], in bounds for p < m, q < n, t < k
                // by construction of the operands' views; `tile` holds h x w elements,
                // rows w apart.
                unsafe {
                    gemm_call(
                        [h, w, k],
                        (tile.as_mut_ptr(), w),
                        (
                            ls.as_ptr()
                                .offset(b as isize * lsd[0] + p0 as isize * lsd[1]),
                            [lsd[1], lsd[2]],
                        ),
                        (
                            rs.as_ptr()
                                .offset(b as isize * rsd[0] + q0 as isize * rsd[1]),
                            [rsd[1], rsd[2]],
                        ),
                        gemm::Parallelism::None,
                    )
                }
                let tile = Tile {
                    values: &tile[..h * w],
                    width: w,
                    base: boff[b],
                    rows: &orow[p0..p0 + h],
                    segs: &segs,
                };
                // SAFETY: the tile's results are those of this task's batch, row runs and
                // column runs, which no other task writes, and lie in the result.
                unsafe { reduce_tile(&tile, dst, map, op, init) }
            }
        }
    });
    Array::from_buffer(T::DTYPE, &shape, result)
}

/// A tile of the product as its reduction reads it.
struct Tile<'a, T> {
    /// `rows.len() x width` elements, row-major.
    values: &'a [T],
    width: usize,
    /// The batch's offset in the result.
    base: usize,
    /// Each row's offset in the result, from the batch's.
    rows: &'a [usize],
    /// Columns by run: `(first, end, the run's offset in the result)`.
    segs: &'a [(usize, usize, usize)],
}

/// Reduces `tile` into the results at `dst`, with the map and reduction compiled in.
///
/// # Safety
/// Every `base + row + seg` offset of the tile must be an element of `dst` that no other thread
/// touches meanwhile.
unsafe fn reduce_tile<T: Real>(tile: &Tile<T>, dst: Shared<T>, map: DotMap, op: ReduceOp, init: T) {
    let sum = |a: T, b: T| a + b;
    let max = |a: T, b: T| if a.is_nan() || a > b { a } else { b };
    let min = |a: T, b: T| if a.is_nan() || a < b { a } else { b };
    // A term of the product is never -0 (as `dot_general`'s are not): `gemm` can give -0
    // for products of zeros, which a maximum or minimum would keep.
    let zero = T::from_f64(0.0);
    let (id, abs, square) = (move |x: T| x + zero, |x: T| x.abs(), |x: T| x * x);
    // SAFETY: passed on to our caller.
    unsafe {
        match (map, op) {
            (DotMap::Identity, ReduceOp::Sum) => reduce_with(tile, dst, init, id, sum),
            (DotMap::Abs, ReduceOp::Sum) => reduce_with(tile, dst, init, abs, sum),
            (DotMap::Square, ReduceOp::Sum) => reduce_with(tile, dst, init, square, sum),
            (DotMap::Identity, ReduceOp::Max) => reduce_with(tile, dst, init, id, max),
            (DotMap::Abs, ReduceOp::Max) => reduce_with(tile, dst, init, abs, max),
            (DotMap::Square, ReduceOp::Max) => reduce_with(tile, dst, init, square, max),
            // The shape rule admits a sum, maximum or minimum only.
            (DotMap::Identity, _) => reduce_with(tile, dst, init, id, min),
            (DotMap::Abs, _) => reduce_with(tile, dst, init, abs, min),
            (DotMap::Square, _) => reduce_with(tile, dst, init, square, min),
        }
    }
}

/// Lanes of the partial reductions over a run: independent, so they vectorise.
const LANES: usize = 16;

/// [`reduce_tile`] for one map `f` and reduction `g`: each row's run of columns reduced in
/// [`LANES`] partial results combined pairwise, then into its result.
///
/// # Safety
/// As for [`reduce_tile`].
#[inline(always)]
unsafe fn reduce_with<T: Real>(
    tile: &Tile<T>,
    dst: Shared<T>,
    init: T,
    f: impl Fn(T) -> T,
    g: impl Fn(T, T) -> T,
) {
    for (row, &r) in tile.values.chunks_exact(tile.width).zip(tile.rows) {
        let base = tile.base + r;
        for &(q0, q1, off) in tile.segs {
            let xs = &row[q0..q1];
            let mut acc = [init; LANES];
            let mut it = xs.chunks_exact(LANES);
            for c in &mut it {
                for (a, &x) in acc.iter_mut().zip(c) {
                    *a = g(*a, f(x));
                }
            }
            for (a, &x) in acc.iter_mut().zip(it.remainder()) {
                *a = g(*a, f(x));
            }
            let mut width = LANES;
            while width > 1 {
                width /= 2;
                for i in 0..width {
                    acc[i] = g(acc[i], acc[i + width]);
                }
            }
            // SAFETY: our caller's: `base + off` is this thread's element of `dst`.
            unsafe {
                let at = dst.get().add(base + off);
                *at = g(*at, acc[0]);
            }
        }
    }
}

/// The bytes a reduced product holds beyond its operands and result while it runs, at
/// most: `dot_general`'s copies of operands that are not one strided walk per group of
/// dimensions, copies of operands whose rows must be reordered into runs, the offsets and
/// runs of rows and columns (a few words each), and per thread a tile and `gemm`'s packed
/// panels of it.
pub(crate) fn scratch_bytes(p: &DotReduce, inputs: &[Aval]) -> usize {
    let copies = super::linalg::copy_bytes(&p.contracting, &p.batch, inputs);
    let reorders = inputs[0].nbytes() + inputs[1].nbytes();
    let (l, r) = (&inputs[0], &inputs[1]);
    let size = |a: &Aval, dims: &[usize]| dims.iter().map(|&d| a.shape[d]).product::<usize>();
    let lfree = free_dims(l.ndim(), &p.contracting.0, &p.batch.0);
    let rfree = free_dims(r.ndim(), &p.contracting.1, &p.batch.1);
    let (m, n, k) = (size(l, &lfree), size(r, &rfree), size(l, &p.contracting.0));
    let index = 4 * std::mem::size_of::<usize>() * (m + n + size(l, &p.batch.0));
    let elem = l.dtype.size();
    let per_thread = elem * (TILE * TILE + 2 * TILE * k.min(super::linalg::PANEL_TERMS));
    let threads = rayon::current_num_threads().max(crate::env::parts());
    copies + reorders + index + threads * per_thread
}

#[cfg(test)]
mod tests;
