//! The convolution kernel: the input in `[batch, spatial..., feature]` order, the kernel
//! in `[spatial..., in, out]` order, and per example and group the window's elements
//! gathered into rows (im2col) and multiplied by the kernel's matrix with `gemm`, the
//! (example, group) pairs in parallel.

use rayon::prelude::*;

use super::im2col::im2col;
use super::{conv_rule, ConvParams};
use crate::array::{aval_of, Array, Aval, Buffer, DType, Elem};
use crate::prims::elementwise::convert;
use crate::prims::shape::transpose;

/// The sizes of one convolution in canonical order.
pub(super) struct Geometry {
    /// Examples in the result, and batch groups.
    pub(super) n_out: usize,
    /// Input features and features a group reads.
    pub(super) c_in: usize,
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
        let c_in = l[dn.lhs_spec[1]];
        let c_out = r[dn.rhs_spec[0]];
        let groups = p.feature_group_count * p.batch_group_count;
        Geometry {
            n_out: o[dn.out_spec[0]],
            c_in,
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

/// The (example, group) pairs, each one patch matrix and one `gemm`.
fn tasks(g: &Geometry) -> usize {
    g.n_out * g.groups
}

/// Pairs that run at once: one per part of the pool, each with its own patch matrix.
fn workers(g: &Geometry) -> usize {
    tasks(g).min(crate::env::parts()).max(1)
}

/// The result's buffer, written by several threads at disjoint blocks.
struct Dst<T>(*mut T);

// SAFETY: each (example, group) pair writes only its own m x o_group block of the result,
// and the buffer outlives the parallel loop.
unsafe impl<T> Sync for Dst<T> {}

impl<T> Dst<T> {
    fn at(&self, offset: usize) -> *mut T {
        // SAFETY: callers pass offsets inside the result buffer.
        unsafe { self.0.add(offset) }
    }
}

fn is_identity(perm: &[usize]) -> bool {
    perm.iter().enumerate().all(|(i, &p)| i == p)
}

/// The permutations to canonical order: input `[N, spatial..., C]`, kernel
/// `[spatial..., I, O]`, and from the canonical result `[N, spatial..., O]` back.
fn perms(p: &ConvParams) -> [Vec<usize>; 3] {
    let dn = &p.dimension_numbers;
    let nd = dn.lhs_spec.len() - 2;
    let mut lp = vec![dn.lhs_spec[0]];
    lp.extend(&dn.lhs_spec[2..]);
    lp.push(dn.lhs_spec[1]);
    let mut rp: Vec<usize> = dn.rhs_spec[2..].to_vec();
    rp.extend([dn.rhs_spec[1], dn.rhs_spec[0]]);
    let mut op = vec![0; nd + 2];
    op[dn.out_spec[0]] = 0;
    op[dn.out_spec[1]] = nd + 1;
    for i in 0..nd {
        op[dn.out_spec[2 + i]] = 1 + i;
    }
    [lp, rp, op]
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
    let [lp, rp, op] = perms(p);
    let canon = |a: &Array, perm: &[usize]| {
        if is_identity(perm) {
            a.clone()
        } else {
            transpose(a, perm)
        }
    };
    let (l, r) = (canon(lhs, &lp), canon(rhs, &rp));
    let mut shape = vec![g.n_out];
    shape.extend(&g.out_sp);
    shape.push(g.c_out);
    let out = match dtype {
        DType::F32 => run::<f32>(&l, &r, p, &g, &shape),
        DType::F64 => run::<f64>(&l, &r, p, &g, &shape),
        d => unreachable!("conv_general_dilated on {d}, which the shape rule refuses"),
    };
    let out = if is_identity(&op) {
        out
    } else {
        transpose(&out, &op)
    };
    match p.preferred_element_type {
        Some(d) if d != dtype => convert(&out, d),
        _ => out,
    }
}

/// Per spatial dimension, for each (result position, window position) the input index it
/// reads, or `-1` where it reads padding or a hole of the input's dilation.
fn source_tables(p: &ConvParams, g: &Geometry) -> Vec<Vec<i64>> {
    (0..g.in_sp.len())
        .map(|i| {
            let (s, kd, ld) = (
                p.window_strides[i] as i64,
                p.rhs_dilation[i] as i64,
                p.lhs_dilation[i] as i64,
            );
            let lo = p.padding[i].0;
            let mut t = Vec::with_capacity(g.out_sp[i] * g.k_sp[i]);
            for o in 0..g.out_sp[i] as i64 {
                for k in 0..g.k_sp[i] as i64 {
                    let q = o * s + k * kd - lo;
                    let ok = q >= 0 && q % ld == 0 && q / ld < g.in_sp[i] as i64;
                    t.push(if ok { q / ld } else { -1 });
                }
            }
            t
        })
        .collect()
}

fn run<T: Elem>(l: &Array, r: &Array, p: &ConvParams, g: &Geometry, shape: &[usize]) -> Array {
    let zero = T::from_f64(0.0);
    let bytes = crate::array::checked_nbytes(shape, std::mem::size_of::<T>())
        .expect("results are checked when bound");
    let (m, k) = (g.rows(), g.cols());
    let per_example = m * g.c_out;
    if per_example == 0 || k == 0 {
        return Array::from_buffer(T::DTYPE, shape, Buffer::zeroed(bytes));
    }
    // SAFETY: the (example, group) pairs' blocks tile the result, and each pair's gemm
    // writes all of its block.
    let mut buf = unsafe { Buffer::uninit(bytes) };
    let tables = source_tables(p, g);
    let (ls, rs) = (l.as_slice::<T>(), r.as_slice::<T>());
    let in_example: usize = g.in_sp.iter().product::<usize>() * g.c_in;
    let in_strides = crate::array::strides_of(&g.in_sp);
    let dst = Dst(buf.as_mut_slice::<T>().as_mut_ptr());
    let inner = if tasks(g) == 1 && m * k * g.o_group >= 1 << 21 {
        gemm::Parallelism::Rayon(crate::env::parts())
    } else {
        gemm::Parallelism::None
    };
    let task = |t: usize, patches: &mut Vec<T>| {
        let (n, gi) = (t / g.groups, t % g.groups);
        patches.resize(m * k, zero);
        let (src_n, c0) = if g.batch_grouped {
            (gi * g.n_out + n, 0)
        } else {
            (n, gi * g.c_group)
        };
        let src = &ls[src_n * in_example..(src_n + 1) * in_example];
        im2col(src, g, &tables, &in_strides, c0, patches);
        let d = dst.at(n * per_example + gi * g.o_group);
        // SAFETY: the patch matrix is m x k row-major; the kernel's matrix is its
        // canonical `[spatial..., I, O]` buffer, k rows of c_out, read at columns
        // gi*o_group..(gi+1)*o_group; the destination is this pair's block of its
        // example's m x c_out row-major result, written at the same columns and by no
        // other pair. T is f32 or f64.
        unsafe {
            gemm::gemm(
                m,
                g.o_group,
                k,
                d,
                1,
                g.c_out as isize,
                false,
                patches.as_ptr(),
                1,
                k as isize,
                rs.as_ptr().add(gi * g.o_group),
                1,
                g.c_out as isize,
                zero,
                T::from_f64(1.0),
                false,
                false,
                false,
                inner,
            );
            // A sum of products starts from +0, so it is never -0.
            for row in 0..m {
                let cells = std::slice::from_raw_parts_mut(d.add(row * g.c_out), g.o_group);
                for x in cells {
                    if *x == zero {
                        *x = zero;
                    }
                }
            }
        }
    };
    if workers(g) == 1 {
        let mut patches = Vec::new();
        (0..tasks(g)).for_each(|t| task(t, &mut patches));
    } else {
        (0..tasks(g))
            .into_par_iter()
            .for_each_init(Vec::new, |patches, t| task(t, patches));
    }
    Array::from_buffer(T::DTYPE, shape, buf)
}

/// The bytes `conv_general_dilated` holds beyond its operands and result: the operands and
/// result in canonical order where their layout is not, the patch matrices (one per
/// example running at once) and `gemm`'s packed panels, and the f32 copies of 16-bit
/// operands.
pub(crate) fn scratch_bytes(p: &ConvParams, inputs: &[Aval]) -> usize {
    let Ok(outs) = conv_rule(p, inputs) else {
        return 0;
    };
    let (l, r, o) = (&inputs[0], &inputs[1], &outs[0]);
    let g = Geometry::new(p, &l.shape, &r.shape, &o.shape);
    let [lp, rp, op] = perms(p);
    let (elem, widen) = if l.dtype.is_half() {
        (4, 2)
    } else {
        (l.dtype.size(), 1)
    };
    let size = |a: &Aval| a.size() * elem;
    let half = if widen > 1 {
        size(l) + size(r) + size(o)
    } else {
        0
    };
    let copy = |a: &Aval, perm: &[usize]| if is_identity(perm) { 0 } else { size(a) };
    let copies = copy(l, &lp) + copy(r, &rp) + copy(o, &op);
    let (m, k) = (g.rows(), g.cols());
    let panels = elem * k.min(1024) * (m.next_multiple_of(64) + g.o_group.next_multiple_of(64));
    half + copies + workers(&g) * (m * k * elem + panels)
}
