//! The samplers against the reference compositions, bit for bit: small draws, large ones
//! on every instruction set, compiled and op by op, and their memory plans.

use super::reference;
use super::*;

#[test]
fn blocked_bits_are_the_bits_of_one_pass() {
    // 2^22 + 3 * 2^10 counters: blocks of 2^10, the last chunk shorter.
    let n = (1 << 22) + 3 * 1024;
    let key = super::key(11);
    let (y0, y1) = super::hash_counters(&key, n);
    let want = crate::ops::xor(&y0, &y1).to_vec::<u32>();
    assert_eq!(super::bits(&key, &[n]).to_vec::<u32>(), want);
}

#[test]
fn large_draws_match_the_reference_compiled_on_every_isa_and_op_by_op() {
    use crate::prims::isa::{force, Isa};
    // Past the blocked size; an odd count, so the last lanes of a block are short.
    let n = (1 << 22) + 3 * 1024 + 7;
    let want: Vec<u32> = reference::random_bits_u32([0, 5], n as u64)
        .into_iter()
        .map(|b| reference::normal_f32_from_bits(b).to_bits())
        .collect();
    let k = key(5);
    let bits_of =
        |t: Tensor| -> Vec<u32> { t.to_vec::<f32>().iter().map(|v| v.to_bits()).collect() };
    let jitted = crate::jit(|k: Tensor| normal(&k, &[n]));
    for isa in [Isa::Baseline, Isa::V3, Isa::V4] {
        force(Some(isa));
        assert!(bits_of(normal(&k, &[n])) == want, "eager, {isa:?}");
        assert!(
            bits_of(jitted.call(k.clone()).unwrap()) == want,
            "jit, {isa:?}"
        );
    }
    force(None);
    let op_by_op = crate::disable_jit(|| normal(&k, &[n]));
    assert!(bits_of(op_by_op) == want, "op by op");
}

#[test]
fn a_compiled_draw_stores_nothing_but_its_values() {
    let n = 1 << 22;
    for dtype in [DType::F32, DType::F64] {
        let plan = crate::explain(|k: Tensor| normal_dtype(&k, &[n], dtype), &key(0));
        assert_eq!(plan.output_bytes, n * dtype.size());
        // The kernel's lane columns are the only other memory.
        assert!(
            plan.peak_bytes <= plan.argument_bytes + plan.output_bytes + (1 << 20),
            "{plan}"
        );
    }
}

#[test]
fn samplers_match_the_reference_compositions() {
    let k = key(42);
    let n = 257;
    let raw = |b: &Tensor| b.to_vec::<u32>();
    assert_eq!(
        raw(&bits(&k, &[n])),
        reference::random_bits_u32([0, 42], n as u64)
    );
    let want: Vec<f32> = reference::random_bits_u32([0, 42], n as u64)
        .into_iter()
        .map(|b| reference::uniform_f32_from_bits(b, -2.0, 3.0))
        .collect();
    let got = uniform_range(&k, &[n], -2.0, 3.0, DType::F32).to_vec::<f32>();
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    let want: Vec<u32> = reference::random_bits_u32([0, 42], n as u64)
        .into_iter()
        .map(|b| reference::normal_f32_from_bits(b).to_bits())
        .collect();
    let got: Vec<u32> = normal(&k, &[n])
        .to_vec::<f32>()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(got, want);
    let want: Vec<u64> = reference::random_bits_u64([0, 42], n as u64)
        .into_iter()
        .map(|b| reference::normal_f64_from_bits(b).to_bits())
        .collect();
    let got: Vec<u64> = normal_dtype(&k, &[n], DType::F64)
        .to_vec::<f64>()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(got, want);
    let s = split(&k, 3).to_vec::<u32>();
    let want: Vec<u32> = reference::split_partitionable([0, 42], 3).concat();
    assert_eq!(s, want);
    assert_eq!(
        fold_in(&k, 7).to_vec::<u32>(),
        reference::fold_in([0, 42], 7).to_vec()
    );
}

#[test]
fn randint_matches_the_reference() {
    let k = key(0);
    let ks = reference::split_partitionable([0, 0], 2);
    let hi = reference::random_bits_u32(ks[0], 10);
    let lo = reference::random_bits_u32(ks[1], 10);
    for (a, b) in [
        (0i64, 10i64),
        (-5, 5),
        (5, 5),
        (-(1 << 31), (1 << 31) - 1),
        (0, 1 << 31),
    ] {
        let got = randint(&k, &[10], a, b).to_vec::<i32>();
        let want: Vec<i32> = (0..10)
            .map(|i| {
                let clamp = |v: i64| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32;
                reference::randint32_from_bits(
                    clamp(a),
                    clamp(b),
                    true,
                    b > i32::MAX as i64,
                    hi[i],
                    lo[i],
                ) as i32
            })
            .collect();
        assert_eq!(got, want, "randint [{a}, {b})");
    }
}
