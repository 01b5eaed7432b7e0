//! Indexing primitives (`src/prims/indexing.rs`): `dynamic_slice`,
//! `dynamic_update_slice`, `gather` and `scatter_add` by XLA's definitions, with start
//! indices out of range in each mode; numpy indexing is in `numpy`.

mod numpy;

use oxla::prims::{GatherDims, GatherMode, ScatterDims};
use oxla::{lax, DType, Tensor};
use proptest::prelude::*;
use proptest::sample::select;

use crate::support::{
    config, expect_gathered, expect_values, flat, indices, iota_tensor, jit, numel, same_v,
    shape_dtype, shape_s, values, wrap, Rng, CASES, V,
};

#[derive(Debug)]
struct GatherCase {
    operand: Vec<usize>,
    batch: Vec<usize>,
    dims: GatherDims,
    slice_sizes: Vec<usize>,
    mode: GatherMode,
}

fn gather_case(rng: &mut Rng) -> GatherCase {
    let r = 1 + rng.below(3);
    let operand: Vec<usize> = (0..r).map(|_| 1 + rng.below(4)).collect();
    let mut start_index_map = rng.subset(r);
    let p = rng.perm(start_index_map.len());
    start_index_map = p.iter().map(|&i| start_index_map[i]).collect();
    let collapsed: Vec<usize> = (0..r).filter(|_| rng.below(3) == 0).collect();
    let slice_sizes: Vec<usize> = (0..r)
        .map(|d| {
            if collapsed.contains(&d) {
                1
            } else {
                rng.below(operand[d] + 1)
            }
        })
        .collect();
    let batch = rng.shape(2, 0, 3);
    let window = r - collapsed.len();
    let offset_dims = rng.choose(batch.len() + window, window);
    let mode = [
        GatherMode::Clip,
        GatherMode::FillOrDrop,
        GatherMode::PromiseInBounds,
    ][rng.below(3)];
    GatherCase {
        operand,
        batch,
        dims: GatherDims {
            offset_dims,
            collapsed_slice_dims: collapsed,
            start_index_map,
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
        },
        slice_sizes,
        mode,
    }
}

/// Index vectors for `map` into `operand` with windows of `sizes`: in range for
/// `PromiseInBounds`, else sometimes out of range (by up to 2 either side).
fn start_indices(
    rng: &mut Rng,
    batch: &[usize],
    map: &[usize],
    operand: &[usize],
    sizes: &[usize],
    mode: GatherMode,
) -> Tensor {
    let mut shape = batch.to_vec();
    shape.push(map.len());
    let v: Vec<i32> = (0..numel(batch))
        .flat_map(|_| {
            map.iter()
                .map(|&d| (d, operand[d] - sizes[d]))
                .collect::<Vec<_>>()
        })
        .map(|(_, hi)| {
            if mode == GatherMode::PromiseInBounds || rng.below(3) > 0 {
                rng.range(0, hi as i64) as i32
            } else {
                rng.range(-2, hi as i64 + 2) as i32
            }
        })
        .collect();
    Tensor::from_vec(v, &shape)
}

/// Where a window starting at `vec` (components for `map`) lands: the clamped start per
/// operand dimension, and whether it was in bounds.
fn window_start(
    vec: &[i32],
    map: &[usize],
    operand: &[usize],
    sizes: &[usize],
) -> (Vec<usize>, bool) {
    let mut start = vec![0usize; operand.len()];
    let mut ok = true;
    for (k, &d) in map.iter().enumerate() {
        let hi = (operand[d] - sizes[d]) as i64;
        let s = vec[k] as i64;
        ok &= (0..=hi).contains(&s);
        start[d] = s.clamp(0, hi) as usize;
    }
    (start, ok)
}

#[derive(Debug)]
struct ScatterCase {
    operand: Vec<usize>,
    batch: Vec<usize>,
    updates: Vec<usize>,
    dims: ScatterDims,
    window_sizes: Vec<usize>,
    mode: GatherMode,
}

fn scatter_case(rng: &mut Rng) -> ScatterCase {
    let r = 1 + rng.below(3);
    let operand: Vec<usize> = (0..r).map(|_| 1 + rng.below(4)).collect();
    let mut map = rng.subset(r);
    let p = rng.perm(map.len());
    map = p.iter().map(|&i| map[i]).collect();
    let inserted: Vec<usize> = (0..r).filter(|_| rng.below(3) == 0).collect();
    let window_sizes: Vec<usize> = (0..r)
        .map(|d| {
            if inserted.contains(&d) {
                1
            } else {
                rng.below(operand[d] + 1)
            }
        })
        .collect();
    let batch = rng.shape(2, 0, 3);
    let window: Vec<usize> = (0..r)
        .filter(|d| !inserted.contains(d))
        .map(|d| window_sizes[d])
        .collect();
    let urank = batch.len() + window.len();
    let update_window_dims = rng.choose(urank, window.len());
    let (mut b, mut w) = (batch.iter(), window.iter());
    let updates: Vec<usize> = (0..urank)
        .map(|d| {
            if update_window_dims.contains(&d) {
                *w.next().unwrap()
            } else {
                *b.next().unwrap()
            }
        })
        .collect();
    let mode = [
        GatherMode::Clip,
        GatherMode::FillOrDrop,
        GatherMode::PromiseInBounds,
    ][rng.below(3)];
    ScatterCase {
        operand,
        batch,
        updates,
        dims: ScatterDims {
            update_window_dims,
            inserted_window_dims: inserted,
            scatter_dims_to_operand_dims: map,
            operand_batching_dims: vec![],
            scatter_indices_batching_dims: vec![],
        },
        window_sizes,
        mode,
    }
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn dynamic_slice_and_update(shape in shape_s(3, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let r = shape.len();
        let x = iota_tensor(dtype, &shape);
        let sizes: Vec<usize> = shape.iter().map(|&n| rng.below(n + 1)).collect();
        // Start indices, sometimes out of range (they clamp), all i32 or all u32 scalars.
        let unsigned = rng.coin();
        let lo = if unsigned { 0 } else { -2 };
        let raw: Vec<i64> = shape.iter().map(|&n| rng.range(lo, n as i64 + 1)).collect();
        let starts: Vec<Tensor> = raw
            .iter()
            .map(|&v| if unsigned { Tensor::scalar(v as u32) } else { Tensor::scalar(v as i32) })
            .collect();
        let clamped: Vec<usize> =
            (0..r).map(|d| raw[d].clamp(0, (shape[d] - sizes[d]) as i64) as usize).collect();
        let mut args = vec![x.clone()];
        args.extend(starts.iter().cloned());
        let got = jit(|a| lax::dynamic_slice(&a[0], &a[1..], &sizes), &args);
        let src: Vec<usize> = indices(&sizes)
            .iter()
            .map(|o| {
                let i: Vec<usize> = (0..r).map(|d| clamped[d] + o[d]).collect();
                flat(&i, &shape)
            })
            .collect();
        expect_gathered(&got, &x, &src, &sizes, &(&sizes, &raw));
        // dynamic_update_slice writes a window of the same size at the same (clamped) start.
        let upd = rng.tensor(dtype, &sizes);
        let mut args = vec![x.clone(), upd.clone()];
        args.extend(starts.iter().cloned());
        let got = jit(|a| lax::dynamic_update_slice(&a[0], &a[1], &a[2..]), &args);
        let (xv, uv) = (values(&x), values(&upd));
        let mut want = xv.clone();
        for o in indices(&sizes) {
            let i: Vec<usize> = (0..r).map(|d| clamped[d] + o[d]).collect();
            want[flat(&i, &shape)] = uv[flat(&o, &sizes)];
        }
        prop_assert_eq!(got.shape(), &shape[..]);
        for (i, (&a, &b)) in values(&got).iter().zip(&want).enumerate() {
            prop_assert!(same_v(a, b), "element {}: {:?} vs {:?}", i, a, b);
        }
    }

    #[test]
    fn gather(seed in any::<u64>(), dtype in shape_dtype()) {
        let mut rng = Rng(seed);
        let c = gather_case(&mut rng);
        let x = iota_tensor(dtype, &c.operand);
        let idx = start_indices(&mut rng, &c.batch, &c.dims.start_index_map, &c.operand,
                                &c.slice_sizes, c.mode);
        let got = jit(
            |a| lax::gather(&a[0], &a[1], c.dims.clone(), &c.slice_sizes, c.mode),
            &[x.clone(), idx.clone()],
        );
        // The reference, by XLA's definition.
        let iv = idx.to_vec::<i32>();
        let nvec = c.dims.start_index_map.len();
        let window_dims: Vec<usize> = (0..c.operand.len())
            .filter(|d| !c.dims.collapsed_slice_dims.contains(d))
            .collect();
        let out_rank = c.batch.len() + window_dims.len();
        let (mut bi, mut wi) = (c.batch.iter(), window_dims.iter());
        let out: Vec<usize> = (0..out_rank)
            .map(|d| if c.dims.offset_dims.contains(&d) {
                c.slice_sizes[*wi.next().unwrap()]
            } else {
                *bi.next().unwrap()
            })
            .collect();
        prop_assert_eq!(got.shape(), &out[..], "{:?}", c);
        let xv = values(&x);
        let g = values(&got);
        for (k, o) in indices(&out).iter().enumerate() {
            let b: Vec<usize> = (0..out_rank).filter(|d| !c.dims.offset_dims.contains(d)).map(|d| o[d]).collect();
            let w: Vec<usize> = c.dims.offset_dims.iter().map(|&d| o[d]).collect();
            let row = flat(&b, &c.batch);
            let (start, ok) = window_start(&iv[row * nvec..(row + 1) * nvec],
                                           &c.dims.start_index_map, &c.operand, &c.slice_sizes);
            if !ok && c.mode == GatherMode::FillOrDrop {
                // Out-of-bounds windows read the fill value (NaN, INT_MIN, UINT_MAX, true).
                let fill = match g[k] {
                    V::F(v) => v.is_nan(),
                    V::D(v) => v.is_nan(),
                    V::I(v) => v == i32::MIN,
                    V::U(v) => v == u32::MAX,
                    V::B(v) => v,
                };
                prop_assert!(fill, "element {} of {:?} should be the fill value", k, c);
                continue;
            }
            let mut i = start.clone();
            for (&d, &wv) in window_dims.iter().zip(&w) {
                i[d] += wv;
            }
            prop_assert!(same_v(g[k], xv[flat(&i, &c.operand)]), "element {} of {:?}", k, c);
        }
    }

    #[test]
    fn scatter_add(seed in any::<u64>(), dtype in select(vec![DType::F32, DType::I32, DType::U32, DType::F64])) {
        let mut rng = Rng(seed);
        let c = scatter_case(&mut rng);
        let x = rng.tensor(dtype, &c.operand);
        let upd = rng.tensor(dtype, &c.updates);
        let map = &c.dims.scatter_dims_to_operand_dims;
        let idx = start_indices(&mut rng, &c.batch, map, &c.operand, &c.window_sizes, c.mode);
        let got = jit(
            |a| lax::scatter_add(&a[0], &a[1], &a[2], c.dims.clone(), c.mode),
            &[x.clone(), idx.clone(), upd.clone()],
        );
        let iv = idx.to_vec::<i32>();
        let nvec = map.len();
        let window_dims: Vec<usize> = (0..c.operand.len())
            .filter(|d| !c.dims.inserted_window_dims.contains(d))
            .collect();
        let mut want = x.array().to_f64_vec();
        let uv = upd.array().to_f64_vec();
        for (k, u) in indices(&c.updates).iter().enumerate() {
            let b: Vec<usize> = (0..u.len()).filter(|d| !c.dims.update_window_dims.contains(d)).map(|d| u[d]).collect();
            let w: Vec<usize> = c.dims.update_window_dims.iter().map(|&d| u[d]).collect();
            let row = flat(&b, &c.batch);
            let (start, ok) = window_start(&iv[row * nvec..(row + 1) * nvec], map, &c.operand,
                                           &c.window_sizes);
            if !ok && c.mode == GatherMode::FillOrDrop {
                continue;
            }
            let mut i = start;
            for (&d, &wv) in window_dims.iter().zip(&w) {
                i[d] += wv;
            }
            want[flat(&i, &c.operand)] += uv[k];
        }
        let want: Vec<Option<f64>> = want.into_iter().map(|v| Some(wrap(v, dtype))).collect();
        expect_values(&got, dtype, &want, &c.operand, &c);
    }
}
