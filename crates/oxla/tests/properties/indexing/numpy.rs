//! numpy indexing (`x.index(...)`): integers, slices, `None`, an ellipsis and integer
//! arrays, against a naive reference with JAX's rule for where advanced-index dimensions go.

use std::slice::from_ref;

use oxla::numpy::{s, IndexItem};
use oxla::{DType, Tensor};
use proptest::prelude::*;
use proptest::sample::select;

use crate::support::{
    broadcast_ref, config, expect_gathered, flat, indices, iota_tensor, jit, numel, shape_s, Rng,
    CASES,
};

/// One entry of a numpy index, as the reference sees it.
#[derive(Clone, Debug)]
enum Item {
    Int(isize),
    Slice(Option<isize>, Option<isize>, isize),
    NewAxis,
    Ellipsis,
    Array(Vec<usize>, Vec<i64>, bool),
}

impl Item {
    fn to_oxla(&self) -> IndexItem {
        match self {
            Item::Int(i) => IndexItem::Int(*i),
            Item::Slice(a, b, c) => IndexItem::Slice(s(*a, *b, *c)),
            Item::NewAxis => IndexItem::NewAxis,
            Item::Ellipsis => IndexItem::Ellipsis,
            Item::Array(shape, v, unsigned) => IndexItem::Array(if *unsigned {
                Tensor::from_vec(v.iter().map(|&i| i as u32).collect(), shape)
            } else {
                Tensor::from_vec(v.iter().map(|&i| i as i32).collect(), shape)
            }),
        }
    }
}

fn apply_index(x: &Tensor, items: &[Item]) -> Tensor {
    let mut it = items.iter().map(Item::to_oxla);
    let mut n = || it.next().expect("counted");
    match items.len() {
        1 => x.index(n()),
        2 => x.index((n(), n())),
        3 => x.index((n(), n(), n())),
        4 => x.index((n(), n(), n(), n())),
        5 => x.index((n(), n(), n(), n(), n())),
        6 => x.index((n(), n(), n(), n(), n(), n())),
        k => unreachable!("{k} items"),
    }
}

/// A random index into `shape`: per dimension a full or random slice, an integer or an
/// integer array (arrays broadcast together), some `None`s, perhaps an ellipsis.
fn index_case(rng: &mut Rng, shape: &[usize]) -> Vec<Item> {
    let r = shape.len();
    let explicit = rng.range(r.saturating_sub(1) as i64, r as i64) as usize;
    let bshape = rng.shape(2, 0, 3);
    let mut items: Vec<Item> = Vec::new();
    for &n in &shape[..explicit] {
        let ni = n as i64;
        let kind = if n == 0 { rng.below(2) } else { rng.below(5) };
        items.push(match kind {
            0 => Item::Slice(None, None, 1),
            1 => {
                let step = [-3, -2, -1, 1, 1, 2, 3][rng.below(7)];
                let bound = |rng: &mut Rng| rng.coin().then(|| rng.range(-ni - 2, ni + 2) as isize);
                Item::Slice(bound(rng), bound(rng), step)
            }
            2 => Item::Int(rng.range(-ni, ni - 1) as isize),
            _ => {
                let k = rng.below(bshape.len() + 1);
                let ashape: Vec<usize> = bshape[bshape.len() - k..]
                    .iter()
                    .map(|&d| if rng.coin() { 1 } else { d })
                    .collect();
                let unsigned = rng.below(4) == 0;
                let lo = if unsigned { 0 } else { -ni };
                let v = (0..numel(&ashape)).map(|_| rng.range(lo, ni - 1)).collect();
                Item::Array(ashape, v, unsigned)
            }
        });
    }
    // An ellipsis in place of a run of full slices (possibly empty); it also covers the
    // implicit trailing dimensions, so it goes last when there are any.
    if rng.coin() {
        let at = if explicit < r {
            items.len()
        } else {
            rng.below(items.len() + 1)
        };
        while at < items.len() && matches!(items[at], Item::Slice(None, None, 1)) && rng.coin() {
            items.remove(at);
        }
        items.insert(at, Item::Ellipsis);
    }
    // At most six items in all (the largest index tuple).
    for _ in 0..rng.below(3).min(6 - items.len()) {
        let at = rng.below(items.len() + 1);
        items.insert(at, Item::NewAxis);
    }
    if items.is_empty() {
        items.push(Item::Ellipsis);
    }
    items
}

/// numpy indexing, naively, with its rule (and JAX's) for where advanced-index dimensions
/// go: advanced indices (arrays and, with them, integers) are contiguous when their
/// positions in the index (with `None`s) are consecutive, and an ellipsis between two of
/// them separates them even when it stands for no dimension.
fn index_ref(shape: &[usize], items: &[Item]) -> Option<(Vec<usize>, Vec<usize>)> {
    let r = shape.len();
    let consumed = items
        .iter()
        .filter(|i| !matches!(i, Item::NewAxis | Item::Ellipsis))
        .count();
    if consumed > r {
        return None;
    }
    let mut its: Vec<Item> = Vec::new();
    let mut has_ellipsis = false;
    let mut empty_ellipsis_at = None;
    for it in items {
        if let Item::Ellipsis = it {
            has_ellipsis = true;
            if r == consumed {
                empty_ellipsis_at = Some(its.len());
            }
            its.extend((0..r - consumed).map(|_| Item::Slice(None, None, 1)));
        } else {
            its.push(it.clone());
        }
    }
    if !has_ellipsis {
        its.extend((0..r - consumed).map(|_| Item::Slice(None, None, 1)));
    }
    let in_range = |v: i64, n: usize| (-(n as i64)..n as i64).contains(&v);
    // Operand dimension of each item (None for new axes).
    let mut dim_of = Vec::new();
    let mut d = 0;
    for it in &its {
        if let Item::NewAxis = it {
            dim_of.push(None);
        } else {
            dim_of.push(Some(d));
            d += 1;
        }
    }
    // The generator only makes in-range integers.
    for (it, d) in its.iter().zip(&dim_of) {
        let ok = match it {
            Item::Int(v) => in_range(*v as i64, shape[d.unwrap()]),
            Item::Array(_, v, _) => v.iter().all(|&v| in_range(v, shape[d.unwrap()])),
            _ => true,
        };
        assert!(
            ok,
            "generator bug: {it:?} out of range in {items:?} for {shape:?}"
        );
    }
    // Python's slice.indices, then walking the range.
    let positions = |a: Option<isize>, b: Option<isize>, step: isize, n: usize| -> Vec<usize> {
        let n = n as isize;
        let norm = |v: isize| if v < 0 { v + n } else { v };
        let (start, stop) = if step > 0 {
            (
                a.map_or(0, |v| norm(v).clamp(0, n)),
                b.map_or(n, |v| norm(v).clamp(0, n)),
            )
        } else {
            (
                a.map_or(n - 1, |v| norm(v).clamp(-1, n - 1)),
                b.map_or(-1, |v| norm(v).clamp(-1, n - 1)),
            )
        };
        let mut out = Vec::new();
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(i as usize);
            i += step;
        }
        out
    };
    let adv: Vec<usize> = (0..its.len())
        .filter(|&k| matches!(its[k], Item::Array(..)))
        .collect();
    let has_arrays = !adv.is_empty();
    let adv: Vec<usize> = (0..its.len())
        .filter(|&k| {
            matches!(its[k], Item::Array(..)) || (has_arrays && matches!(its[k], Item::Int(_)))
        })
        .collect();
    let array_shapes: Vec<&[usize]> = adv
        .iter()
        .map(|&k| match &its[k] {
            Item::Array(s, ..) => s.as_slice(),
            _ => &[][..],
        })
        .collect();
    let (bshape, bpos) = if has_arrays {
        broadcast_ref(&array_shapes)
    } else {
        (vec![], vec![])
    };
    // Basic dimensions: (item, list of source positions or None for a new axis).
    let basic: Vec<(usize, Option<Vec<usize>>)> = (0..its.len())
        .filter_map(|k| match &its[k] {
            Item::Slice(a, b, st) => {
                Some((k, Some(positions(*a, *b, *st, shape[dim_of[k].unwrap()]))))
            }
            Item::NewAxis => Some((k, None)),
            _ => None,
        })
        .collect();
    let basic_size = |b: &(usize, Option<Vec<usize>>)| b.1.as_ref().map_or(1, |p| p.len());
    let split = empty_ellipsis_at.is_some_and(|p| {
        adv.first().is_some_and(|&a| a < p) && adv.last().is_some_and(|&a| a >= p)
    });
    let contiguous = !split && adv.windows(2).all(|w| w[1] == w[0] + 1);
    let before = if has_arrays && contiguous {
        basic.iter().filter(|b| b.0 < adv[0]).count()
    } else {
        0
    };
    let mut out: Vec<usize> = basic[..before].iter().map(basic_size).collect();
    out.extend(&bshape);
    out.extend(basic[before..].iter().map(basic_size));
    let nb = bshape.len();
    let src = indices(&out)
        .iter()
        .map(|o| {
            let mut i = vec![0usize; r];
            let (bidx, basic_idx): (Vec<usize>, Vec<usize>) = if has_arrays {
                let b = o[before..before + nb].to_vec();
                let mut rest = o[..before].to_vec();
                rest.extend(&o[before + nb..]);
                (b, rest)
            } else {
                (vec![], o.clone())
            };
            for (j, (k, pos)) in basic.iter().enumerate() {
                if let Some(p) = pos {
                    i[dim_of[*k].unwrap()] = p[basic_idx[j]];
                }
            }
            let bflat = if has_arrays { flat(&bidx, &bshape) } else { 0 };
            for (j, &k) in adv.iter().enumerate() {
                let d = dim_of[k].unwrap();
                let v = match &its[k] {
                    Item::Int(v) => *v as i64,
                    Item::Array(_, vals, _) => vals[bpos[bflat][j]],
                    _ => unreachable!(),
                };
                i[d] = if v < 0 { v + shape[d] as i64 } else { v } as usize;
            }
            // Plain integers without arrays select one position and drop the dimension.
            if !has_arrays {
                for (k, it) in its.iter().enumerate() {
                    if let Item::Int(v) = it {
                        let d = dim_of[k].unwrap();
                        i[d] = if *v < 0 { *v + shape[d] as isize } else { *v } as usize;
                    }
                }
            }
            flat(&i, shape)
        })
        .collect();
    Some((out, src))
}

proptest! {
    #![proptest_config(config(CASES * 2))]

    #[test]
    fn numpy_indexing(shape in shape_s(4, 4).prop_filter("rank >= 1", |s| !s.is_empty()),
                      dtype in select(vec![DType::I32, DType::F32, DType::Bool]),
                      seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let items = index_case(&mut rng, &shape);
        let Some((out, src)) = index_ref(&shape, &items) else {
            return Ok(());
        };
        let x = iota_tensor(dtype, &shape);
        let got = jit(|a| apply_index(&a[0], &items), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &items);
    }
}
