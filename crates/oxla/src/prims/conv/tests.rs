//! The kernel against the convolution's definition, summed by loops, over random layouts,
//! strides, dilations, paddings and groups: every path (classes of a dilated input, tasks
//! of several examples, the direct product on padded inputs, the few-columns product and
//! `gemm`) in f32 and f64.

use proptest::prelude::*;

use super::{conv_general_dilated, conv_rule, ConvDimensionNumbers, ConvParams};
use crate::array::{strides_of, Array, Aval, DType};

/// Small integers, so that every sum is exact in f32 whatever its order.
fn values(len: usize, seed: usize) -> Vec<f64> {
    (0..len)
        .map(|i| ((i * 7 + seed * 5) % 9) as f64 - 4.0)
        .collect()
}

/// The definition: `out[n, o..., co]` sums `lhs[n', o * s + k * kd - lo (dilated)..., c] *
/// rhs[k..., ci, co]` over the window and the group's features.
fn reference(
    p: &ConvParams,
    l: (&[f64], &[usize]),
    r: (&[f64], &[usize]),
    o: &[usize],
) -> Vec<f64> {
    let dn = &p.dimension_numbers;
    let nd = o.len() - 2;
    let groups = p.feature_group_count * p.batch_group_count;
    let (c_out, c_group) = (r.1[dn.rhs_spec[0]], r.1[dn.rhs_spec[1]]);
    let (n_out, o_group) = (o[dn.out_spec[0]], c_out / groups);
    let k_sp: Vec<usize> = (0..nd).map(|i| r.1[dn.rhs_spec[2 + i]]).collect();
    let (ls, rs) = (strides_of(l.1), strides_of(r.1));
    let mut out = vec![0.0; o.iter().product()];
    for (flat, cell) in out.iter_mut().enumerate() {
        let idx: Vec<usize> = strides_of(o)
            .iter()
            .zip(o)
            .map(|(s, d)| flat / s % d)
            .collect();
        let (n, co) = (idx[dn.out_spec[0]], idx[dn.out_spec[1]]);
        let gi = co / o_group;
        let src_n = if p.batch_group_count > 1 {
            gi * n_out + n
        } else {
            n
        };
        for win in 0..k_sp.iter().product::<usize>() {
            let k: Vec<usize> = strides_of(&k_sp)
                .iter()
                .zip(&k_sp)
                .map(|(s, d)| win / s % d)
                .collect();
            let mut at = src_n * ls[dn.lhs_spec[0]];
            let mut inside = true;
            for i in 0..nd {
                let q = (idx[dn.out_spec[2 + i]] * p.window_strides[i] + k[i] * p.rhs_dilation[i])
                    as i64
                    - p.padding[i].0;
                let ld = p.lhs_dilation[i] as i64;
                let size = l.1[dn.lhs_spec[2 + i]] as i64;
                inside &= q >= 0 && q % ld == 0 && q / ld < size;
                at += (q.max(0) / ld) as usize * ls[dn.lhs_spec[2 + i]];
            }
            if !inside {
                continue;
            }
            for ci in 0..c_group {
                let c = if p.batch_group_count > 1 {
                    ci
                } else {
                    gi * c_group + ci
                };
                let mut rat = co * rs[dn.rhs_spec[0]] + ci * rs[dn.rhs_spec[1]];
                for i in 0..nd {
                    rat += k[i] * rs[dn.rhs_spec[2 + i]];
                }
                *cell += l.0[at + c * ls[dn.lhs_spec[1]]] * r.0[rat];
            }
        }
    }
    out
}

/// A random permutation of `0..n` from `seed`.
fn permutation(n: usize, mut seed: usize) -> Vec<usize> {
    let mut rest: Vec<usize> = (0..n).collect();
    let mut out = Vec::new();
    while !rest.is_empty() {
        out.push(rest.remove(seed % rest.len()));
        seed /= 3;
    }
    out
}

/// The shape of an operand whose spec places `sizes` (first two, then spatial).
fn placed(spec: &[usize], sizes: &[usize]) -> Vec<usize> {
    let mut shape = vec![0; spec.len()];
    for (&d, &s) in spec.iter().zip(sizes) {
        shape[d] = s;
    }
    shape
}

/// The sizes and parameters of one case: per spatial dimension (input size, window size,
/// stride, lhs dilation, rhs dilation, low and high padding).
#[derive(Debug)]
struct Case {
    dims: Vec<(usize, usize, usize, usize, usize, i64, i64)>,
    n_out: usize,
    by_batch: bool,
    groups: usize,
    c_group: usize,
    o_group: usize,
    layout: usize,
    f64_: bool,
}

/// Runs the kernel on case `c` and compares it with [`reference`], where the shape rule
/// accepts the case.
fn check(c: Case) -> Result<(), TestCaseError> {
    let rank = c.dims.len() + 2;
    let dn = ConvDimensionNumbers {
        lhs_spec: permutation(rank, c.layout),
        rhs_spec: permutation(rank, c.layout / 7),
        out_spec: permutation(rank, c.layout / 49),
    };
    let p = ConvParams {
        window_strides: c.dims.iter().map(|d| d.2).collect(),
        padding: c.dims.iter().map(|d| (d.5, d.6)).collect(),
        lhs_dilation: c.dims.iter().map(|d| d.3).collect(),
        rhs_dilation: c.dims.iter().map(|d| d.4).collect(),
        dimension_numbers: dn.clone(),
        feature_group_count: if c.by_batch { 1 } else { c.groups },
        batch_group_count: if c.by_batch { c.groups } else { 1 },
        preferred_element_type: None,
    };
    let c_in = if c.by_batch {
        c.c_group
    } else {
        c.groups * c.c_group
    };
    let mut l_sizes = vec![c.n_out * p.batch_group_count, c_in];
    l_sizes.extend(c.dims.iter().map(|d| d.0));
    let mut r_sizes = vec![c.groups * c.o_group, c.c_group];
    r_sizes.extend(c.dims.iter().map(|d| d.1));
    let (ls, rs) = (
        placed(&dn.lhs_spec, &l_sizes),
        placed(&dn.rhs_spec, &r_sizes),
    );
    let dtype = if c.f64_ { DType::F64 } else { DType::F32 };
    let Ok(outs) = conv_rule(&p, &[Aval::new(dtype, &ls), Aval::new(dtype, &rs)]) else {
        return Ok(());
    };
    let (lv, rv) = (
        values(ls.iter().product(), 1),
        values(rs.iter().product(), 2),
    );
    let array = |v: &[f64], shape: &[usize]| {
        if c.f64_ {
            Array::from_slice(v, shape)
        } else {
            Array::from_vec(v.iter().map(|&x| x as f32).collect::<Vec<f32>>(), shape)
        }
    };
    let got = conv_general_dilated(&array(&lv, &ls), &array(&rv, &rs), &p);
    prop_assert_eq!(got.shape(), &outs[0].shape[..]);
    let got: Vec<f64> = if c.f64_ {
        got.as_slice::<f64>().to_vec()
    } else {
        got.as_slice::<f32>().iter().map(|&x| x as f64).collect()
    };
    let want = reference(&p, (&lv, &ls), (&rv, &rs), &outs[0].shape);
    prop_assert_eq!(got, want, "{:?}", p);
    Ok(())
}

/// Cases of 1 to `max_nd` spatial dimensions: inputs of `sizes`, windows of `windows`,
/// strides and dilations of 1-2, paddings of -1 to 2, and `o_group` features per group.
fn cases(
    max_nd: usize,
    sizes: std::ops::Range<usize>,
    windows: std::ops::Range<usize>,
    o_group: impl Strategy<Value = usize>,
    f64_: impl Strategy<Value = bool>,
) -> impl Strategy<Value = Case> {
    let dim = (
        sizes,
        windows,
        1usize..3,
        1usize..3,
        1usize..3,
        -1i64..3,
        -1i64..3,
    );
    (
        proptest::collection::vec(dim, 1..=max_nd),
        1usize..4,
        (any::<bool>(), 1usize..3),
        1usize..4,
        o_group,
        0usize..1000,
        f64_,
    )
        .prop_map(
            |(dims, n_out, (by_batch, groups), c_group, o_group, layout, f64_)| Case {
                dims,
                n_out,
                by_batch,
                groups,
                c_group,
                o_group,
                layout,
                f64_,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn kernel_equals_the_definition(
        case in cases(2, 1..7, 1..4, prop_oneof![1usize..4, 5usize..20], any::<bool>()),
    ) {
        check(case)?;
    }

    /// `f32` results of 2-16 features over windows larger than a tap, where the padded
    /// input is smaller than the patch matrices: the direct product, windows read in place.
    #[test]
    fn direct_equals_the_definition(case in cases(3, 3..9, 2..4, 2usize..=16, Just(false))) {
        check(case)?;
    }
}
