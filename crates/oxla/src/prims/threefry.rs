//! The Threefry-2x32 block cipher of JAX's default PRNG, bit-exact: the 20-round block
//! function exactly as JAX lowers its `threefry2x32` primitive, on single blocks
//! ([`threefry2x32`]) and on slices of counters ([`threefry2x32_slices`]).

/// Rotation amounts for round groups 1, 3 and 5 (1-based).
const ROT_A: [u32; 4] = [13, 15, 26, 6];
/// Rotation amounts for round groups 2 and 4 (1-based).
const ROT_B: [u32; 4] = [17, 29, 16, 24];
/// Threefry key-schedule parity constant.
const KS_PARITY: u32 = 0x1BD1_1BDA;

/// One Threefry mix round: add, rotate, xor.
#[inline(always)]
fn mix(v: &mut [u32; 2], r: u32) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(r) ^ v[0];
}

/// Threefry-2x32 with 20 rounds, as used by JAX's `threefry2x32` primitive.
///
/// `key` is the 2-word key `(k0, k1)` and `x` the 2-word counter block
/// `(x0, x1)`.  Returns the two output words.  For example, with key `[0, 0]`
/// and counter `[0, 0]` the result is `[0x6b200159, 0x99ba4efe]` (the Random123
/// known-answer vector, and also `jax.random.split(PRNGKey(0))[0]`).
pub fn threefry2x32(key: [u32; 2], x: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ KS_PARITY];
    let mut v = [x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1])];
    // Five groups of four rounds; after group g (1-based) inject key words
    // ks[g % 3] and ks[(g + 1) % 3] + g.
    for g in 1..=5u32 {
        let rots = if g % 2 == 1 { &ROT_A } else { &ROT_B };
        for &r in rots.iter() {
            mix(&mut v, r);
        }
        v[0] = v[0].wrapping_add(ks[(g % 3) as usize]);
        v[1] = v[1]
            .wrapping_add(ks[((g + 1) % 3) as usize])
            .wrapping_add(g);
    }
    v
}

/// Element-wise [`threefry2x32`] over parallel counter slices.
///
/// For every `i`, `(out0[i], out1[i]) = threefry2x32(key, [x0[i], x1[i]])`.
/// This is exactly what the `threefry2x32` primitive computes on arrays (the
/// key is broadcast).
///
/// # Panics
/// Panics if the four slices do not all have the same length.
pub fn threefry2x32_slices(
    key: [u32; 2],
    x0: &[u32],
    x1: &[u32],
    out0: &mut [u32],
    out1: &mut [u32],
) {
    let n = x0.len();
    assert!(
        x1.len() == n && out0.len() == n && out1.len() == n,
        "threefry2x32_slices: slice lengths differ"
    );
    for i in 0..n {
        let r = threefry2x32(key, [x0[i], x1[i]]);
        out0[i] = r[0];
        out1[i] = r[1];
    }
}
