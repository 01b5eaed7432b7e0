//! The cipher and the reference compositions of `random` against JAX's values.

use super::reference::*;
use crate::prims::special::tests::{fnv_u32, fnv_u64};
use crate::prims::threefry::*;

const K0: [u32; 2] = [0, 0];
const K42: [u32; 2] = [0, 42];

#[test]
fn threefry_known_answers() {
    // Random123 known-answer vectors (also checked against JAX's primitive).
    assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b200159, 0x99ba4efe]);
    assert_eq!(
        threefry2x32([0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff]),
        [0x1cb996fc, 0xbb002be7]
    );
    assert_eq!(
        threefry2x32([0x13198a2e, 0x03707344], [0x243f6a88, 0x85a308d3]),
        [0xc4923a9c, 0x483df7a0]
    );
}

#[test]
fn threefry_slices_match_jax_primitive() {
    // jax threefry2x32_p(0, 42, [0,1,2,3], [4,5,6,7])
    let x0 = [0u32, 1, 2, 3];
    let x1 = [4u32, 5, 6, 7];
    let mut o0 = [0u32; 4];
    let mut o1 = [0u32; 4];
    threefry_lanes(
        &K42[..1],
        &K42[1..],
        &x0,
        &x1,
        ThreefryWords::Both,
        &mut o0,
        &mut o1,
    );
    assert_eq!(o0, [0xb013aee3, 0x997e0266, 0x43e44385, 0x3dbc1e1f]);
    assert_eq!(o1, [0xc34eddf6, 0x48ebcd9f, 0x0a56f817, 0x00d226af]);
}

#[test]
fn keys_from_seeds() {
    assert_eq!(key_from_seed(0, false), [0, 0]);
    assert_eq!(key_from_seed(42, false), [0, 42]);
    assert_eq!(key_from_seed(-1, false), [0, 0xffffffff]);
    assert_eq!(key_from_seed((1 << 32) + 5, false), [0, 5]);
    assert_eq!(key_from_seed(-1, true), [0xffffffff, 0xffffffff]);
    assert_eq!(key_from_seed((1 << 32) + 5, true), [1, 5]);
    assert_eq!(key_from_seed((1 << 40) + 7, true), [0x100, 7]);
    assert_eq!(key_from_seed(-(1 << 40), true), [0xffffff00, 0]);
    assert_eq!(key_from_seed(i64::MIN, true), [0x80000000, 0]);
}

#[test]
fn split_and_fold_in_partitionable() {
    let s = split_partitionable(K0, 4);
    assert_eq!(
        s,
        vec![
            [0x6b200159, 0x99ba4efe],
            [0x375f238f, 0xcddb151d],
            [0xf71f4ea9, 0xa20e4081],
            [0x9312778b, 0xe4e8dfbe]
        ]
    );
    assert_eq!(
        split_partitionable(K42, 2),
        vec![[0x6d3e048f, 0x1022172d], [0x03d7b32d, 0xadd083f4]]
    );
    assert_eq!(fold_in(K0, 0), [0x6b200159, 0x99ba4efe]);
    assert_eq!(fold_in(K0, 1), [0x375f238f, 0xcddb151d]);
    assert_eq!(fold_in(K0, 7), [0xa1ef7a4d, 0x116eb6b3]);
    assert_eq!(fold_in(K42, 7), [0x97d0552f, 0x51bf719f]);
    assert_eq!(fold_in(K0, 0xffffffff), [0x2c4e0437, 0xe1e32d13]);
}

#[test]
fn split_and_bits_original_mode() {
    assert_eq!(
        split_original(K0, 2),
        vec![[0xf71f4ea9, 0x39a405d9], [0xa20e4081, 0x4bdfae2f]]
    );
    assert_eq!(
        split_original(K0, 3),
        vec![
            [0x9312778b, 0x19850714],
            [0xbdf17afd, 0xe4e8dfbe],
            [0x98b89669, 0x7408518d]
        ]
    );
    assert_eq!(split_original(K0, 1), vec![[0x375f238f, 0xcddb151d]]);
    assert_eq!(random_bits_u32_original(K0, 1), vec![0x6b200159]);
    assert_eq!(
        random_bits_u32_original(K0, 3),
        vec![0xf71f4ea9, 0x508efb2c, 0xa20e4081]
    );
    assert_eq!(
        random_bits_u32_original(K0, 5),
        vec![0x9312778b, 0x19850714, 0x64a626ec, 0xe4e8dfbe, 0x98b89669]
    );
}

#[test]
fn random_bits_partitionable() {
    assert_eq!(
        random_bits_u32(K0, 4),
        vec![0xf29a4fa7, 0xfa843692, 0x55110e28, 0x77faa835]
    );
    assert_eq!(
        random_bits_u32(K42, 6),
        vec![0x7d1c13a2, 0xae0730d9, 0x9dc3f9f9, 0x8f9ec1d7, 0x735d7315, 0x95fb4ed8]
    );
    // uint8 / uint16: low bits of the same words.
    let b8: Vec<u8> = random_bits_u32(K0, 6).iter().map(|&w| w as u8).collect();
    assert_eq!(b8, vec![0xa7, 0x92, 0x28, 0x35, 0xb7, 0x43]);
    assert_eq!(
        random_bits_u64(K0, 3),
        vec![0x6b20015999ba4efe, 0x375f238fcddb151d, 0xf71f4ea9a20e4081]
    );
}

#[test]
fn uniform_vectors() {
    let u: Vec<u32> = random_bits_u32(K0, 5)
        .into_iter()
        .map(|b| uniform_f32_from_bits(b, 0.0, 1.0).to_bits())
        .collect();
    assert_eq!(
        u,
        vec![0x3f729a4e, 0x3f7a8436, 0x3eaa221c, 0x3eeff550, 0x3f11e43a]
    );
    let u: Vec<u32> = random_bits_u32(K42, 5)
        .into_iter()
        .map(|b| uniform_f32_from_bits(b, -2.0, 3.0).to_bits())
        .collect();
    assert_eq!(
        u,
        vec![0x3ee318b4, 0x3fb311f8, 0x3f8a69ec, 0x3f4e19c0, 0x3e81a674]
    );
    let u: Vec<u64> = random_bits_u64(K0, 5)
        .into_iter()
        .map(|b| uniform_f64_from_bits(b, 0.0, 1.0).to_bits())
        .collect();
    assert_eq!(
        u,
        vec![
            0x3fdac80056666e90,
            0x3fcbaf91c7e6ed88,
            0x3feee3e9d53441c8,
            0x3fe2624ef17c9d1a,
            0x3fe107ffd8233b78
        ]
    );
    let u: Vec<u64> = random_bits_u64(K42, 5)
        .into_iter()
        .map(|b| uniform_f64_from_bits(b, -2.0, 3.0).to_bits())
        .collect();
    assert_eq!(
        u,
        vec![
            0x3fc11b0b65a85528,
            0xbffecc9801b9aed8,
            0x3febdcf492498382,
            0x3ffa62b0e5f0a7a2,
            0x3ff70626a72d08a1
        ]
    );
    let h = fnv_u32(
        &random_bits_u32(K0, 1000)
            .into_iter()
            .map(|b| uniform_f32_from_bits(b, 0.0, 1.0).to_bits())
            .collect::<Vec<_>>(),
    );
    assert_eq!(h, 0xa98d8172f06b71fc);
    let h = fnv_u64(
        &random_bits_u64(K0, 1000)
            .into_iter()
            .map(|b| uniform_f64_from_bits(b, 0.0, 1.0).to_bits())
            .collect::<Vec<_>>(),
    );
    assert_eq!(h, 0x09a05abd38617709);
}

#[test]
fn normal_f32_vectors() {
    let n: Vec<u32> = random_bits_u32(K0, 8)
        .into_iter()
        .map(|b| normal_f32_from_bits(b).to_bits())
        .collect();
    assert_eq!(
        n,
        vec![
            0x3fcfb2bd, 0x40019df0, 0xbede0017, 0xbda10222, 0x3e34512c, 0xbf78dad7, 0xbefd97cc,
            0x3efd1f31
        ]
    );
    let n: Vec<u32> = random_bits_u32(K42, 8)
        .into_iter()
        .map(|b| normal_f32_from_bits(b).to_bits())
        .collect();
    assert_eq!(
        n,
        vec![
            0xbce7df15, 0x3eef2be8, 0x3e976661, 0x3e1d3b24, 0xbdfe04eb, 0x3e5e211a, 0xbfb86eb9,
            0x3f418009
        ]
    );
    // All 1000 values of jax.random.normal(PRNGKey(0), (1000,), float32).
    let n: Vec<u32> = random_bits_u32(K0, 1000)
        .into_iter()
        .map(|b| normal_f32_from_bits(b).to_bits())
        .collect();
    assert_eq!(fnv_u32(&n), 0x08abb40147f1fc5b);
}

#[test]
fn normal_f64_vectors() {
    let n: Vec<u64> = random_bits_u64(K0, 8)
        .into_iter()
        .map(|b| normal_f64_from_bits(b).to_bits())
        .collect();
    assert_eq!(
        n,
        vec![
            0xbfca5909049a141d,
            0xbfe91ccd1e1b7b4a,
            0x3ffd0eb0e61cf797,
            0x3fc80b45ca1069ab,
            0x3fb4b3c1e85a437c,
            0xbfd7d0a9c9f7177f,
            0x3ff30ae91e3b6324,
            0x3fd5ac50b7414fb3
        ]
    );
    let n: Vec<u64> = random_bits_u64(K0, 1000)
        .into_iter()
        .map(|b| normal_f64_from_bits(b).to_bits())
        .collect();
    assert_eq!(fnv_u64(&n), 0x94b5fe1bde572433);
}

#[test]
fn bernoulli_vectors() {
    let b = |key, p: f32, n| -> Vec<u8> {
        random_bits_u32(key, n)
            .into_iter()
            .map(|w| (uniform_f32_from_bits(w, 0.0, 1.0) < p) as u8)
            .collect()
    };
    assert_eq!(b(K0, 0.5, 10), vec![0, 0, 1, 1, 0, 1, 1, 0, 0, 1]);
    assert_eq!(b(K0, 0.3, 10), vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
}

fn randint_i32(key: [u32; 2], n: u64, minval: i64, maxval: i64) -> Vec<i32> {
    // int32 sampling dtype; bounds clamped to the int32 range.
    let oor = maxval > i32::MAX as i64;
    let lo_c = minval.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    let hi_c = maxval.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    let ks = split_partitionable(key, 2);
    let hi = random_bits_u32(ks[0], n);
    let lo = random_bits_u32(ks[1], n);
    (0..n as usize)
        .map(|i| randint32_from_bits(lo_c as u32, hi_c as u32, true, oor, hi[i], lo[i]) as i32)
        .collect()
}

#[test]
fn randint_vectors() {
    assert_eq!(
        randint_i32(K0, 10, 0, 10),
        vec![9, 0, 2, 3, 1, 7, 2, 3, 3, 3]
    );
    assert_eq!(
        randint_i32(K42, 10, -5, 5),
        vec![-1, -1, -4, 4, 4, 4, 2, 2, -1, 1]
    );
    assert_eq!(randint_i32(K0, 6, 5, 5), vec![5; 6]);
    assert_eq!(
        randint_i32(K0, 6, -(1 << 31), (1 << 31) - 1)
            .iter()
            .map(|&v| v as u32)
            .collect::<Vec<_>>(),
        vec![0x81de0365, 0x85592150, 0x14d85fc8, 0xdca16a3d, 0xb9190003, 0x9e89afd3]
    );
    // uint8 (0, 256): sampled in int32 with bounds clipped to [0, 255] / [0, 256].
    assert_eq!(
        randint_i32(K0, 6, 0, 256)
            .iter()
            .map(|&v| v as u8)
            .collect::<Vec<_>>(),
        vec![0x65, 0x50, 0xc8, 0x3d, 0x03, 0xd3]
    );
    // int8 (-10, 300): maxval clipped to 128 before int32 sampling.
    assert_eq!(
        randint_i32(K0, 6, -10, 128)
            .iter()
            .map(|&v| v as i8 as u8)
            .collect::<Vec<_>>(),
        vec![0x5d, 0x0e, 0x1c, 0x15, 0x79, 0x17]
    );
    // uint32 (0, 2**32) in x64 mode: maxval out of range, span wraps to 0,
    // every remainder is the identity and the result is the low-bits draw.
    let ks = split_partitionable(K0, 2);
    let hi = random_bits_u32(ks[0], 6);
    let lo = random_bits_u32(ks[1], 6);
    let r: Vec<u32> = (0..6)
        .map(|i| randint32_from_bits(0, u32::MAX, false, true, hi[i], lo[i]))
        .collect();
    assert_eq!(r, lo);
    assert_eq!(
        r,
        vec![0x01de0365, 0x05592150, 0x94d85fc8, 0x5ca16a3d, 0x39190003, 0x1e89afd3]
    );
    // int32 (0, 2**31) in x64 mode: maxval out of range -> span 2**31.
    let r: Vec<u32> = (0..3)
        .map(|i| randint32_from_bits(0, i32::MAX as u32, true, true, hi[i], lo[i]))
        .collect();
    assert_eq!(r, vec![0x01de0365, 0x05592150, 0x14d85fc8]);
    // int64 (x64 mode): two 64-bit draws.
    let ks = split_partitionable(K0, 2);
    let hi = random_bits_u64(ks[0], 6);
    let lo = random_bits_u64(ks[1], 6);
    let r: Vec<i64> = (0..6)
        .map(|i| {
            randint64_from_bits(
                (-(1i64 << 40)) as u64,
                1u64 << 40,
                true,
                false,
                hi[i],
                lo[i],
            ) as i64
        })
        .collect();
    assert_eq!(
        r.iter().map(|&v| v as u64).collect::<Vec<_>>(),
        vec![
            0xffffff6a157dcf0f,
            0x2fe9dec87f,
            0x72f3c12cf,
            0xe8c8f7b3d5,
            0xffffffb6a1e582b5,
            0xf4adbd5e27
        ]
    );
}
