//! The convolution kernel: the input read in its own layout, the kernel in
//! `[spatial..., in, out]` order, and per task (a few examples of one group) and class of
//! result positions (see [`classes`](super::classes)) the window's elements gathered into
//! rows (im2col) and multiplied by the kernel's rows (see [`product`](super::product)),
//! the tasks in parallel. `f32` results of few features skip the patch matrix: each
//! example's input is copied once with its padding, and the product reads the windows in
//! place (see [`direct`](super::direct)).

use rayon::prelude::*;

use super::classes::{classes, Class};
use super::direct;
use super::im2col::{im2col, Source};
use super::product::{ConvElem, KernelRows};
use super::{conv_rule, ConvParams};
use crate::array::{aval_of, Array, Aval, Buffer, DType, Elem};
use crate::prims::elementwise::convert;
use crate::prims::shape::transpose;

/// The sizes of one convolution in canonical order.
pub(super) struct Geometry {
    /// Examples in the result, and batch groups.
    pub(super) n_out: usize,
    /// Input features a group reads.
    pub(super) c_group: usize,
    /// Result features and features a group writes.
    pub(super) c_out: usize,
    pub(super) o_group: usize,
    /// Feature groups times batch groups (one of them is 1).
    pub(super) groups: usize,
    pub(super) batch_grouped: bool,
    /// Input, window and result spatial sizes.
    pub(super) in_sp: Vec<usize>,
    pub(super) k_sp: Vec<usize>,
    pub(super) out_sp: Vec<usize>,
}

impl Geometry {
    fn new(p: &ConvParams, l: &[usize], r: &[usize], o: &[usize]) -> Geometry {
        let dn = &p.dimension_numbers;
        let nd = l.len() - 2;
        let c_out = r[dn.rhs_spec[0]];
        let groups = p.feature_group_count * p.batch_group_count;
        Geometry {
            n_out: o[dn.out_spec[0]],
            c_group: r[dn.rhs_spec[1]],
            c_out,
            o_group: c_out / groups,
            groups,
            batch_grouped: p.batch_group_count > 1,
            in_sp: (0..nd).map(|i| l[dn.lhs_spec[2 + i]]).collect(),
            k_sp: (0..nd).map(|i| r[dn.rhs_spec[2 + i]]).collect(),
            out_sp: (0..nd).map(|i| o[dn.out_spec[2 + i]]).collect(),
        }
    }

    /// Rows of an example's patch matrix (result positions) and its columns.
    fn rows(&self) -> usize {
        self.out_sp.iter().product()
    }

    fn cols(&self) -> usize {
        self.k_sp.iter().product::<usize>() * self.c_group
    }
}

/// The result's buffer, written by several threads at disjoint rows and columns.
struct Dst<T>(*mut T);

// SAFETY: each task writes only its own examples' rows at its own group's columns of the
// result, and the buffer outlives the parallel loop.
unsafe impl<T> Sync for Dst<T> {}

impl<T> Dst<T> {
    /// Writes element `at` of the result.
    ///
    /// # Safety
    /// `at` must be in the calling task's block of the result.
    unsafe fn write(&self, at: usize, x: T) {
        // SAFETY: passed on to our caller.
        unsafe { self.0.add(at).write(x) }
    }
}

/// The bytes of patch matrix a task aims at: a few examples of one group when one
/// example's is small (a per-example gradient's kernel, grouped by example), so that
/// their product is one call of many rows.
const PATCH_BYTES: usize = 1 << 18;

/// How the work is split: tasks of `chunk` examples of one group, their patch matrices
/// one after another.
struct Split {
    chunk: usize,
    tasks: usize,
    workers: usize,
}

impl Split {
    fn new(g: &Geometry, elem: usize) -> Split {
        let parts = crate::env::parts();
        let per_example = (g.rows() * g.cols() * elem).max(1);
        let mut chunk = (PATCH_BYTES / per_example).clamp(1, g.n_out.max(1));
        while chunk > 1 && g.groups * g.n_out.div_ceil(chunk) < parts {
            chunk = chunk.div_ceil(2);
        }
        let tasks = g.groups * g.n_out.div_ceil(chunk);
        Split {
            chunk,
            tasks,
            workers: tasks.min(parts).max(1),
        }
    }
}

/// Whether permuting `shape` by `perm` keeps its elements in order: only dimensions of
/// size 1 move, so the permutation is a reshape.
fn keeps_order(perm: &[usize], shape: &[usize]) -> bool {
    perm.iter().filter(|&&d| shape[d] != 1).is_sorted()
}

/// The permutations to canonical order: kernel `[spatial..., I, O]`, and from the
/// canonical result `[N, spatial..., O]` back.
fn perms(p: &ConvParams) -> [Vec<usize>; 2] {
    let dn = &p.dimension_numbers;
    let nd = dn.lhs_spec.len() - 2;
    let mut rp: Vec<usize> = dn.rhs_spec[2..].to_vec();
    rp.extend([dn.rhs_spec[1], dn.rhs_spec[0]]);
    let mut op = vec![0; nd + 2];
    op[dn.out_spec[0]] = 0;
    op[dn.out_spec[1]] = nd + 1;
    for i in 0..nd {
        op[dn.out_spec[2 + i]] = 1 + i;
    }
    [rp, op]
}

/// The canonical result's shape, `[N, spatial..., O]`.
fn canonical_shape(g: &Geometry) -> Vec<usize> {
    let mut shape = vec![g.n_out];
    shape.extend(&g.out_sp);
    shape.push(g.c_out);
    shape
}

/// `conv_general_dilated` on concrete operands whose avals passed [`conv_rule`].
pub(crate) fn conv_general_dilated(lhs: &Array, rhs: &Array, p: &ConvParams) -> Array {
    let dtype = lhs.dtype();
    if dtype.is_half() {
        // As XLA's CPU backend: in f32, rounded once at the end.
        let f = |a: &Array| convert(a, DType::F32);
        let inner = ConvParams {
            preferred_element_type: None,
            ..p.clone()
        };
        let out = conv_general_dilated(&f(lhs), &f(rhs), &inner);
        return convert(&out, p.preferred_element_type.unwrap_or(dtype));
    }
    crate::env::init_threads();
    let out_aval = &conv_rule(p, &[aval_of(lhs), aval_of(rhs)]).expect("checked when bound")[0];
    let g = Geometry::new(p, lhs.shape(), rhs.shape(), &out_aval.shape);
    let [rp, op] = perms(p);
    let r = if keeps_order(&rp, rhs.shape()) {
        rhs.clone()
    } else {
        transpose(rhs, &rp)
    };
    let shape = canonical_shape(&g);
    let out = match dtype {
        DType::F32 => run::<f32>(lhs, &r, p, &g, &shape),
        DType::F64 => run::<f64>(lhs, &r, p, &g, &shape),
        d => unreachable!("conv_general_dilated on {d}, which the shape rule refuses"),
    };
    let out = if keeps_order(&op, &shape) {
        out.reshaped(&out_aval.shape)
    } else {
        transpose(&out, &op)
    };
    match p.preferred_element_type {
        Some(d) if d != dtype => convert(&out, d),
        _ => out,
    }
}

/// The input's layout as strides: example, spatial dimensions, feature.
fn source<'a, T: Elem>(l: &'a Array, p: &ConvParams) -> Source<'a, T> {
    let dn = &p.dimension_numbers;
    let strides = crate::array::strides_of(l.shape());
    Source {
        data: l.as_slice::<T>(),
        batch: strides[dn.lhs_spec[0]],
        spatial: dn.lhs_spec[2..].iter().map(|&d| strides[d]).collect(),
        feature: strides[dn.lhs_spec[1]],
    }
}

/// The convolution into a canonical result of `shape`: per task (a chunk of examples of
/// one group) and class, the patch matrix of the chunk's examples one after another, its
/// product with the class's kernel rows, and the product's rows scattered to the class's
/// result rows.
fn run<T: ConvElem>(l: &Array, r: &Array, p: &ConvParams, g: &Geometry, shape: &[usize]) -> Array {
    let zero = T::from_f64(0.0);
    let bytes = crate::array::checked_nbytes(shape, std::mem::size_of::<T>())
        .expect("results are checked when bound");
    let m = g.rows();
    let per_example = m * g.c_out;
    if per_example == 0 || g.cols() == 0 {
        return Array::from_buffer(T::DTYPE, shape, Buffer::zeroed(bytes));
    }
    // SAFETY: the tasks' (examples, group) blocks tile the result, and each task writes
    // every row of every class of its block.
    let mut buf = unsafe { Buffer::uninit(bytes) };
    let classes = classes(p, g);
    let src = source::<T>(l, p);
    let rs = r.as_slice::<T>();
    let split = Split::new(g, std::mem::size_of::<T>());
    let dst = Dst(buf.as_mut_slice::<T>().as_mut_ptr());
    let threads = if split.tasks == 1 && m * g.cols() * g.o_group >= 1 << 21 {
        gemm::Parallelism::Rayon(crate::env::parts())
    } else {
        gemm::Parallelism::None
    };
    let per_group = g.n_out.div_ceil(split.chunk);
    let direct = T::windows(g.o_group, threads)
        .then(|| direct::plan(&classes, g))
        .flatten();
    // The row of a class that reads no input element.
    let zeros = vec![zero; g.o_group];
    let task = |t: usize, s: &mut Scratch<T>| {
        let gi = t / per_group;
        let n0 = (t % per_group) * split.chunk;
        let examples = n0..(n0 + split.chunk).min(g.n_out);
        let col0 = gi * g.o_group;
        let cols = [g.c_out, col0, g.o_group];
        // The input example and first feature that result example `n` reads.
        let origin = |n: usize| {
            if g.batch_grouped {
                (gi * g.n_out + n, 0)
            } else {
                (n, gi * g.c_group)
            }
        };
        let store = |n: usize, within: usize, v: &[T]| {
            let at = (n * m + within) * g.c_out + col0;
            for (c, &x) in v.iter().enumerate() {
                // SAFETY: `at + c` is in this task's block of the result (see `Dst`).
                // Adding +0 turns a -0 sum into +0, as a sum of products from +0.
                unsafe { dst.write(at + c, x + zero) };
            }
        };
        // Row `r` of a class's product over the task's examples, one after another.
        let by_row = |class: &Class, r: usize, v: &[T]| {
            let rows = class.rows.len();
            store(examples.start + r / rows, class.rows[r % rows], v)
        };
        if let Some((padded, windows)) = &direct {
            s.ws.resize_with(classes.len(), KernelRows::default);
            for (class, w) in classes.iter().zip(&mut s.ws) {
                T::kernel_rows(rs, &class.kernel_rows, cols, threads, w);
            }
            // The examples' padded copies one after another, and every class's rows in
            // one product over all of them.
            let len = padded.len();
            s.patches.resize(examples.len() * len, zero);
            for (j, n) in examples.clone().enumerate() {
                let (src_n, c0) = origin(n);
                padded.fill(&src, src_n, c0, &mut s.patches[j * len..(j + 1) * len]);
            }
            for ((class, win), w) in classes.iter().zip(windows).zip(&s.ws) {
                let rows = class.rows.len();
                let store = |r: usize, v: &[T]| by_row(class, r, v);
                if class.kernel_rows.is_empty() {
                    (0..examples.len() * rows).for_each(|r| store(r, &zeros));
                    continue;
                }
                s.bases.clear();
                for j in 0..examples.len() {
                    s.bases.extend(win.bases.iter().map(|&b| b + j * len));
                }
                let (data, offsets) = (&s.patches, &win.offsets);
                T::windows_product(data, &s.bases, offsets, w, g.o_group, store);
            }
            return;
        }
        for class in &classes {
            let (rows, k) = (class.rows.len(), class.kernel_rows.len());
            T::kernel_rows(rs, &class.kernel_rows, cols, threads, &mut s.w);
            s.patches.resize(examples.len() * rows * k, zero);
            for (j, n) in examples.clone().enumerate() {
                let (src_n, c0) = origin(n);
                let block = &mut s.patches[j * rows * k..(j + 1) * rows * k];
                im2col(&src, src_n, c0, g.c_group, class, block);
            }
            let store = |row: usize, v: &[T]| by_row(class, row, v);
            let shape = [examples.len() * rows, k, g.o_group];
            if k == 0 {
                (0..shape[0]).for_each(|row| store(row, &zeros));
            } else {
                T::product(&s.patches, &s.w, shape, threads, &mut s.out, store);
            }
        }
    };
    if split.workers == 1 {
        let mut s = Scratch::default();
        (0..split.tasks).for_each(|t| task(t, &mut s));
    } else {
        (0..split.tasks)
            .into_par_iter()
            .for_each_init(Scratch::default, |s, t| task(t, s));
    }
    Array::from_buffer(T::DTYPE, shape, buf)
}

/// A worker's buffers: patch matrix (or padded input), kernel rows (per class for the
/// direct product) and product.
struct Scratch<T> {
    patches: Vec<T>,
    w: KernelRows<T>,
    ws: Vec<KernelRows<T>>,
    bases: Vec<usize>,
    out: Vec<T>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            patches: Vec::new(),
            w: KernelRows::default(),
            ws: Vec::new(),
            bases: Vec::new(),
            out: Vec::new(),
        }
    }
}

/// The bytes `conv_general_dilated` holds beyond its operands and result: the kernel and
/// result in canonical order where their layout is not, per worker a task's patch matrix
/// (which bounds its padded inputs), kernel rows, product and `gemm`'s packed panels, and
/// the f32 copies of 16-bit operands.
pub(crate) fn scratch_bytes(p: &ConvParams, inputs: &[Aval]) -> usize {
    let Ok(outs) = conv_rule(p, inputs) else {
        return 0;
    };
    let (l, r, o) = (&inputs[0], &inputs[1], &outs[0]);
    let g = Geometry::new(p, &l.shape, &r.shape, &o.shape);
    let [rp, op] = perms(p);
    let elem = if l.dtype.is_half() { 4 } else { l.dtype.size() };
    let size = |a: &Aval| a.size() * elem;
    let half = if l.dtype.is_half() {
        size(l) + size(r) + size(o)
    } else {
        0
    };
    let copy = |a: &Aval, perm: &[usize], shape: &[usize]| {
        if keeps_order(perm, shape) {
            0
        } else {
            size(a)
        }
    };
    let copies = copy(r, &rp, &r.shape) + copy(o, &op, &canonical_shape(&g));
    let split = Split::new(&g, elem);
    let (rows, k) = (split.chunk * g.rows(), g.cols());
    let panels = elem * k.min(1024) * (rows.next_multiple_of(64) + g.o_group.next_multiple_of(64));
    // Kernel rows padded to 16 lanes, per class for the direct product; its row bases.
    let kernel_rows: usize = classes(p, &g).iter().map(|c| c.kernel_rows.len()).sum();
    let direct = kernel_rows * 16.max(g.o_group) * elem + rows * std::mem::size_of::<usize>();
    let task = elem * (rows * k + k * g.o_group + rows * g.o_group) + panels + direct;
    half + copies + split.workers * task
}
