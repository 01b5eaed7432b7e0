//! `dot_general` (`src/prims/linalg.rs`, `src/prims/skinny/`) and `jnp.matmul` against
//! naive contractions, over random dimension numbers and on each kernel path.

use oxla::numpy as jnp;
use oxla::{lax, DType, Tensor};
use proptest::prelude::*;

use crate::support::{
    assert_bitwise, broadcast_ref, config, expect, expect_close, flat, indices, jit, numel, Rng,
    CASES,
};

#[derive(Debug)]
struct DotCase {
    lhs: Vec<usize>,
    rhs: Vec<usize>,
    contracting: (Vec<usize>, Vec<usize>),
    batch: (Vec<usize>, Vec<usize>),
}

fn dot_case(rng: &mut Rng) -> DotCase {
    // Ranks stay <= 4: nb batch + nc contracting + free dimensions.
    let nb = rng.below(3);
    let nc = rng.below(3).min(4 - nb);
    let nl = rng.below(3).min(4 - nb - nc);
    let nr = rng.below(3).min(4 - nb - nc);
    let bsz: Vec<usize> = (0..nb).map(|_| rng.below(4)).collect();
    let csz: Vec<usize> = (0..nc).map(|_| rng.below(4)).collect();
    // Lay out [batch, contracting, free] logical dimensions at random positions.
    let layout = |rng: &mut Rng, nf: usize| -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let p = rng.perm(nb + nc + nf);
        (
            p[..nb].to_vec(),
            p[nb..nb + nc].to_vec(),
            p[nb + nc..].to_vec(),
        )
    };
    let (lb, lc, lf) = layout(rng, nl);
    let (rb, rc, rf) = layout(rng, nr);
    let mut lhs = vec![0; nb + nc + nl];
    let mut rhs = vec![0; nb + nc + nr];
    for k in 0..nb {
        lhs[lb[k]] = bsz[k];
        rhs[rb[k]] = bsz[k];
    }
    for k in 0..nc {
        lhs[lc[k]] = csz[k];
        rhs[rc[k]] = csz[k];
    }
    for &f in &lf {
        lhs[f] = rng.below(4);
    }
    for &f in &rf {
        rhs[f] = rng.below(4);
    }
    DotCase {
        lhs,
        rhs,
        contracting: (lc, rc),
        batch: (lb, rb),
    }
}

/// The naive contraction, in f64, with the sum of |products| for a tolerance scale.
fn dot_ref(c: &DotCase, l: &[f64], r: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let free = |rank: usize, a: &[usize], b: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|d| !a.contains(d) && !b.contains(d))
            .collect()
    };
    let lfree = free(c.lhs.len(), &c.contracting.0, &c.batch.0);
    let rfree = free(c.rhs.len(), &c.contracting.1, &c.batch.1);
    let mut out: Vec<usize> = c.batch.0.iter().map(|&d| c.lhs[d]).collect();
    out.extend(lfree.iter().map(|&d| c.lhs[d]));
    out.extend(rfree.iter().map(|&d| c.rhs[d]));
    let csizes: Vec<usize> = c.contracting.0.iter().map(|&d| c.lhs[d]).collect();
    let nb = c.batch.0.len();
    let (mut want, mut scale) = (Vec::new(), Vec::new());
    for o in indices(&out) {
        let mut li = vec![0; c.lhs.len()];
        let mut ri = vec![0; c.rhs.len()];
        for k in 0..nb {
            li[c.batch.0[k]] = o[k];
            ri[c.batch.1[k]] = o[k];
        }
        for (j, &d) in lfree.iter().enumerate() {
            li[d] = o[nb + j];
        }
        for (j, &d) in rfree.iter().enumerate() {
            ri[d] = o[nb + lfree.len() + j];
        }
        let (mut s, mut a) = (0.0, 0.0);
        for ci in indices(&csizes) {
            for (k, &v) in ci.iter().enumerate() {
                li[c.contracting.0[k]] = v;
                ri[c.contracting.1[k]] = v;
            }
            let p = l[flat(&li, &c.lhs)] * r[flat(&ri, &c.rhs)];
            s += p;
            a += p.abs();
        }
        want.push(s);
        scale.push(a);
    }
    (want, scale, out)
}

fn random_f32(rng: &mut Rng, shape: &[usize]) -> Tensor {
    let v: Vec<f32> = (0..numel(shape))
        .map(|_| (rng.next() >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0)
        .collect();
    Tensor::from_vec(v, shape)
}

#[derive(Debug)]
struct MatmulCase {
    a: Vec<usize>,
    b: Vec<usize>,
}

fn matmul_case(rng: &mut Rng) -> MatmulCase {
    let (ra, rb) = (1 + rng.below(4), 1 + rng.below(4));
    let (m, k, n) = (rng.below(4), rng.below(4), rng.below(4));
    let nbatch = ra.max(rb).saturating_sub(2);
    let batch: Vec<usize> = (0..nbatch).map(|_| rng.below(4)).collect();
    let mut pick = |r: usize, tail: [usize; 2]| -> Vec<usize> {
        if r == 1 {
            return vec![k];
        }
        let mut s: Vec<usize> = batch[nbatch - (r - 2)..]
            .iter()
            .map(|&d| if rng.coin() { 1 } else { d })
            .collect();
        s.extend(tail);
        s
    };
    let a = pick(ra, [m, k]);
    let b = pick(rb, [k, n]);
    MatmulCase { a, b }
}

/// numpy's matmul, naively: 1-d operands are promoted to matrices, batches broadcast.
fn matmul_ref(c: &MatmulCase, a: &[f64], b: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let a2: Vec<usize> = if c.a.len() == 1 {
        vec![1, c.a[0]]
    } else {
        c.a.clone()
    };
    let b2: Vec<usize> = if c.b.len() == 1 {
        vec![c.b[0], 1]
    } else {
        c.b.clone()
    };
    let (ba, bb) = (&a2[..a2.len() - 2], &b2[..b2.len() - 2]);
    let (batch, pos) = broadcast_ref(&[ba, bb]);
    let (m, k, n) = (a2[a2.len() - 2], a2[a2.len() - 1], b2[b2.len() - 1]);
    let (mut want, mut scale) = (Vec::new(), Vec::new());
    for p in &pos {
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut t) = (0.0, 0.0);
                for q in 0..k {
                    let v = a[p[0] * m * k + i * k + q] * b[p[1] * k * n + q * n + j];
                    s += v;
                    t += v.abs();
                }
                want.push(s);
                scale.push(t);
            }
        }
    }
    let mut out = batch;
    if c.a.len() > 1 {
        out.push(m);
    }
    if c.b.len() > 1 {
        out.push(n);
    }
    (want, scale, out)
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn dot_general(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let c = dot_case(&mut rng);
        let run = |a: &[Tensor], pref: Option<DType>| {
            lax::dot_general(
                &a[0],
                &a[1],
                (&c.contracting.0, &c.contracting.1),
                (&c.batch.0, &c.batch.1),
                pref,
            )
        };
        // f32 against the f64 reference, with tolerance.
        let (l, r) = (random_f32(&mut rng, &c.lhs), random_f32(&mut rng, &c.rhs));
        let got = jit(|a| run(a, None), &[l.clone(), r.clone()]);
        let (want, scale, out) = dot_ref(&c, &l.array().to_f64_vec(), &r.array().to_f64_vec());
        prop_assert_eq!(got.dtype(), DType::F32);
        expect_close(&got, &want, &scale, &out, 1e-5, &c);
        // i32 exactly (small values: no overflow), and with an f32 preferred type.
        let (l, r) = (rng.tensor(DType::I32, &c.lhs), rng.tensor(DType::I32, &c.rhs));
        let got = jit(|a| run(a, None), &[l.clone(), r.clone()]);
        let (want, _, out) = dot_ref(&c, &l.array().to_f64_vec(), &r.array().to_f64_vec());
        let want_i: Vec<i32> = want.iter().map(|&v| v as i32).collect();
        expect(&got, &want_i, &out, &c);
        let got = jit(|a| run(a, Some(DType::F32)), &[l.clone(), r.clone()]);
        let want_f: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        expect(&got, &want_f, &out, &(&c, "preferred f32"));
        // f64 too.
        let (l, r) = (l.astype(DType::F64), r.astype(DType::F64));
        let got = jit(|a| run(a, None), &[l.clone(), r.clone()]);
        expect(&got, &want, &out, &(&c, "f64"));
    }

    #[test]
    fn matmul(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let c = matmul_case(&mut rng);
        let (a, b) = (random_f32(&mut rng, &c.a), random_f32(&mut rng, &c.b));
        let got = jit(|t| jnp::matmul(&t[0], &t[1]), &[a.clone(), b.clone()]);
        let (want, scale, out) = matmul_ref(&c, &a.array().to_f64_vec(), &b.array().to_f64_vec());
        prop_assert_eq!(got.dtype(), DType::F32);
        expect_close(&got, &want, &scale, &out, 1e-5, &c);
        let method = jit(|t| t[0].matmul(&t[1]), &[a.clone(), b.clone()]);
        assert_bitwise(&method, &got, &"method");
        let (a, b) = (rng.tensor(DType::I32, &c.a), rng.tensor(DType::I32, &c.b));
        let got = jit(|t| jnp::matmul(&t[0], &t[1]), &[a.clone(), b.clone()]);
        let (want, _, out) = matmul_ref(&c, &a.array().to_f64_vec(), &b.array().to_f64_vec());
        let want: Vec<i32> = want.iter().map(|&v| v as i32).collect();
        expect(&got, &want, &out, &c);
        // Mixed dtypes promote: i32 @ f32 is f32.
        let af = random_f32(&mut rng, &c.b);
        let got = jit(|t| jnp::matmul(&t[0], &t[1]), &[a.clone(), af.clone()]);
        prop_assert_eq!(got.dtype(), DType::F32);
    }
}

/// Products whose sizes pick each of `dot_general`'s paths — the skinny kernels (few
/// terms, few columns by either layout of the left operand, few rows) and `gemm`, whole,
/// in column chunks for a left operand with contiguous columns, or split over the terms
/// for a small result of a long contraction — against loops, f32 and f64, with and
/// without a batch dimension.
#[test]
fn dot_general_paths_agree_with_loops() {
    let mut rng = Rng(7);
    // [b, m, k, n], and whether the left operand is stored k x m (contiguous columns).
    let cases = [
        ([1, 70, 300, 200], true),
        ([1, 70, 300, 200], false),
        ([2, 40, 90, 130], true),
        ([1, 300, 10, 64], false),
        ([1, 300, 64, 10], true),
        ([1, 300, 64, 10], false),
        ([1, 33, 20, 257], true),
        ([1, 16, 128, 128], false),
        ([1, 5, 40, 83], true),
        ([1, 64, 8192, 48], true),
    ];
    for ([b, m, k, n], by_columns) in cases {
        let lhs_shape = if by_columns { [b, k, m] } else { [b, m, k] };
        let (l, r) = (
            random_f32(&mut rng, &lhs_shape),
            random_f32(&mut rng, &[b, k, n]),
        );
        let (lv, rv) = (l.array().to_f64_vec(), r.array().to_f64_vec());
        let at = |i: usize, p: usize, t: usize| {
            let idx = if by_columns {
                (i * k + t) * m + p
            } else {
                (i * m + p) * k + t
            };
            lv[idx]
        };
        let mut want = vec![0.0; b * m * n];
        let mut scale = vec![0.0; b * m * n];
        for i in 0..b {
            for p in 0..m {
                for q in 0..n {
                    for t in 0..k {
                        let x = at(i, p, t) * rv[(i * k + t) * n + q];
                        want[(i * m + p) * n + q] += x;
                        scale[(i * m + p) * n + q] += x.abs();
                    }
                }
            }
        }
        let contract = if by_columns { 1 } else { 2 };
        for dtype in [DType::F32, DType::F64] {
            let (l, r) = (l.astype(dtype), r.astype(dtype));
            let got = lax::dot_general(&l, &r, (&[contract], &[1]), (&[0], &[0]), None);
            let ctx = format!("{dtype:?} {b}x{m}x{k}x{n}, columns {by_columns}");
            expect_close(&got, &want, &scale, &[b, m, n], 1e-5, &ctx);
        }
    }
}
