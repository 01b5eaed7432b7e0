//! The Threefry-2x32 block cipher of JAX's default PRNG, bit-exact: the 20-round block
//! function exactly as JAX lowers its `threefry2x32` primitive, on runs of lanes
//! ([`threefry_lanes`]), sixteen blocks at a time in vector registers. The tests check it
//! against the cipher written one block at a time (`threefry2x32`).

use crate::prims::isa::multiversion;

/// Rotation amounts for round groups 1, 3 and 5 (1-based).
#[cfg(test)]
const ROT_A: [u32; 4] = [13, 15, 26, 6];
/// Rotation amounts for round groups 2 and 4 (1-based).
#[cfg(test)]
const ROT_B: [u32; 4] = [17, 29, 16, 24];
/// Threefry key-schedule parity constant.
const KS_PARITY: u32 = 0x1BD1_1BDA;

/// One Threefry mix round: add, rotate, xor.
#[cfg(test)]
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
#[cfg(test)]
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

/// Blocks ciphered together: one AVX-512 register of `u32`, two of AVX2.
const LANES: usize = 16;

/// One word of sixteen lanes.
type Word = [u32; LANES];

/// Which words of the cipher a run of lanes keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreefryWords {
    /// Both words, into two outputs (the `threefry2x32` primitive).
    Both,
    /// `y0 ^ y1`: JAX's 32 random bits per counter.
    Xor,
    /// `y0`, the high word of 64 random bits.
    Hi,
    /// `y1`, the low word of 64 random bits.
    Lo,
}

/// [`threefry2x32`] of sixteen blocks, each step on all lanes at once: the loops are over
/// the lanes, so they compile to vector instructions (a rotation is one `vprold` on
/// AVX-512).
#[inline(always)]
fn cipher(k0: &Word, k1: &Word, x0: &Word, x1: &Word) -> (Word, Word) {
    let mut k2 = [0; LANES];
    let (mut a, mut b) = ([0; LANES], [0; LANES]);
    for i in 0..LANES {
        k2[i] = k0[i] ^ k1[i] ^ KS_PARITY;
        a[i] = x0[i].wrapping_add(k0[i]);
        b[i] = x1[i].wrapping_add(k1[i]);
    }
    // Every rotation a constant (an immediate operand), every group written out.
    macro_rules! group {
        ($g:literal, $ka:expr, $kb:expr, [$($r:literal),*]) => {
            $(
                for i in 0..LANES {
                    a[i] = a[i].wrapping_add(b[i]);
                    b[i] = b[i].rotate_left($r) ^ a[i];
                }
            )*
            for i in 0..LANES {
                a[i] = a[i].wrapping_add($ka[i]);
                b[i] = b[i].wrapping_add($kb[i]).wrapping_add($g);
            }
        };
    }
    // After group g (1-based), key words ks[g % 3] and ks[(g + 1) % 3] + g.
    group!(1, k1, k2, [13, 15, 26, 6]);
    group!(2, k2, k0, [17, 29, 16, 24]);
    group!(3, k0, k1, [13, 15, 26, 6]);
    group!(4, k1, k2, [17, 29, 16, 24]);
    group!(5, k2, k0, [13, 15, 26, 6]);
    (a, b)
}

/// Lanes `at..at + len` of an operand (`len <= LANES`), a one-element operand repeating.
#[inline(always)]
fn load(s: &[u32], at: usize, len: usize) -> Word {
    if s.len() == 1 {
        return [s[0]; LANES];
    }
    let mut w = [0; LANES];
    w[..len].copy_from_slice(&s[at..at + len]);
    w
}

multiversion! {
    /// The cipher elementwise over runs of lanes: for every `i`, the blocks of
    /// `threefry2x32([k0[i], k1[i]], [x0[i], x1[i]])` (one-element operands repeat), kept
    /// as `words` says: both into `out0` and `out1`, or one word into `out0` (`out1` is
    /// then empty).
    ///
    /// # Panics
    /// Panics if an operand is neither one element nor as long as `out0`, or if `out1`'s
    /// length does not match `words`.
    pub fn threefry_lanes(
        k0: &[u32],
        k1: &[u32],
        x0: &[u32],
        x1: &[u32],
        words: ThreefryWords,
        out0: &mut [u32],
        out1: &mut [u32],
    ) {
        let n = out0.len();
        assert!(
            [k0, k1, x0, x1].iter().all(|s| s.len() == 1 || s.len() == n),
            "threefry_lanes: operands of {n} lanes or one"
        );
        assert_eq!(out1.len(), if words == ThreefryWords::Both { n } else { 0 });
        let mut at = 0;
        while at < n {
            let len = LANES.min(n - at);
            let (a, b) = cipher(
                &load(k0, at, len),
                &load(k1, at, len),
                &load(x0, at, len),
                &load(x1, at, len),
            );
            let out = &mut out0[at..at + len];
            match words {
                ThreefryWords::Both => {
                    out.copy_from_slice(&a[..len]);
                    out1[at..at + len].copy_from_slice(&b[..len]);
                }
                ThreefryWords::Xor => {
                    for (o, (&a, &b)) in out.iter_mut().zip(a.iter().zip(&b)) {
                        *o = a ^ b;
                    }
                }
                ThreefryWords::Hi => out.copy_from_slice(&a[..len]),
                ThreefryWords::Lo => out.copy_from_slice(&b[..len]),
            }
            at += len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prims::isa::{force, Isa};

    /// Operands of `n` lanes with varied words, and one-element ones.
    fn operands(n: usize) -> [Vec<u32>; 4] {
        let w = |s: u32| {
            (0..n as u32)
                .map(|i| i.wrapping_mul(0x9E37_79B9) ^ s)
                .collect()
        };
        [w(1), w(0xDEAD_BEEF), w(7), (0..n as u32).collect()]
    }

    #[test]
    fn every_version_of_the_lanes_matches_single_blocks() {
        for n in [1, 15, 16, 17, 100] {
            let [k0, k1, x0, x1] = operands(n);
            for (k0, k1, x0) in [
                (&k0[..], &k1[..], &x0[..]),
                (&k0[..1], &k1[..1], &[0u32][..]),
            ] {
                let at = |s: &[u32], i: usize| if s.len() == 1 { s[0] } else { s[i] };
                let want: Vec<[u32; 2]> = (0..n)
                    .map(|i| threefry2x32([at(k0, i), at(k1, i)], [at(x0, i), x1[i]]))
                    .collect();
                for isa in [Isa::Baseline, Isa::V3, Isa::V4] {
                    force(Some(isa));
                    let (mut o0, mut o1) = (vec![0; n], vec![0; n]);
                    threefry_lanes(k0, k1, x0, &x1, ThreefryWords::Both, &mut o0, &mut o1);
                    let both: Vec<[u32; 2]> = o0.iter().zip(&o1).map(|(&a, &b)| [a, b]).collect();
                    assert_eq!(both, want, "{isa:?}, {n} lanes");
                    for (words, f) in [
                        (
                            ThreefryWords::Xor,
                            (|w: [u32; 2]| w[0] ^ w[1]) as fn([u32; 2]) -> u32,
                        ),
                        (ThreefryWords::Hi, |w| w[0]),
                        (ThreefryWords::Lo, |w| w[1]),
                    ] {
                        let mut o = vec![0; n];
                        threefry_lanes(k0, k1, x0, &x1, words, &mut o, &mut []);
                        let one: Vec<u32> = want.iter().map(|&w| f(w)).collect();
                        assert_eq!(o, one, "{isa:?}, {words:?}, {n} lanes");
                    }
                }
                force(None);
            }
        }
    }
}
