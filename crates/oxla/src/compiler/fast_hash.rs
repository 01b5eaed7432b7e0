//! A fast hash for the maps a compiled call consults on every run (the jit cache's
//! signatures, the run's values by variable id). These keys come from the program, not
//! from an adversary, so the default hasher's protection against collisions chosen to
//! attack it buys nothing, and its cost is a tenth of a small call's dispatch.

use std::hash::{BuildHasherDefault, Hasher};

/// Rotate, xor and multiply by an odd constant per word (the scheme of Firefox's and
/// rustc's hasher).
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`FastHasher`].
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::FastMap;

    #[test]
    fn keys_that_differ_in_any_word_stay_apart() {
        let mut m: FastMap<(u32, Vec<usize>), usize> = FastMap::default();
        for i in 0..1000u32 {
            m.insert((i, vec![i as usize % 7, 3]), i as usize);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(m[&(999, vec![5, 3])], 999);
    }
}
