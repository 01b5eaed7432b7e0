//! The machine's limits, measured when the runner starts: the rate of a large `f32`
//! product (floating-point operations per second) and of a large copy (bytes read plus
//! written per second, on every core). A workload's least work ([`Work`]) at these rates
//! is the lower bound the table shows beside its time.

use std::time::Instant;

use oxla::{jit, random, Tensor};

/// The least work a workload needs: floating-point operations (a multiply-add is two),
/// and bytes that must cross memory (inputs read and results written once).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    pub flops: f64,
    pub bytes: f64,
}

impl Work {
    /// `flops` operations.
    pub fn flops(flops: f64) -> Work {
        Work { flops, bytes: 0.0 }
    }

    /// `bytes` bytes moved.
    pub fn bytes(bytes: f64) -> Work {
        Work { flops: 0.0, bytes }
    }

    /// This work and `bytes` bytes moved.
    pub fn and_bytes(self, bytes: f64) -> Work {
        Work { bytes, ..self }
    }

    /// Seconds the machine needs at least: the flops at the product's rate or the bytes
    /// at the copy's, whichever is longer; `None` for no work (dispatch, compilation).
    pub fn limit(self, m: &Machine) -> Option<f64> {
        let t = (self.flops / m.flops_per_s).max(self.bytes / m.bytes_per_s);
        (t > 0.0).then_some(t)
    }
}

/// The measured rates.
#[derive(Clone, Copy, Debug)]
pub struct Machine {
    pub flops_per_s: f64,
    pub bytes_per_s: f64,
}

/// The median of five timed runs of `f`, after one untimed.
fn median_seconds(mut f: impl FnMut()) -> f64 {
    f();
    let mut v: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[2]
}

/// Measures the machine: a jitted `f32[2048,2048] @ f32[2048,2048]` (two operands, so the
/// full product) and a 256 MiB copy split over the cores.
pub fn measure() -> Machine {
    let n = 2048;
    let a = random::normal(&random::key(1), &[n, n]);
    let b = random::normal(&random::key(2), &[n, n]);
    let product = jit(|(a, b): (Tensor, Tensor)| a.matmul(&b));
    let t = median_seconds(|| {
        product.call((a.clone(), b.clone())).expect("runs");
    });
    let flops_per_s = 2.0 * (n * n * n) as f64 / t;
    let size = 256 << 20;
    let src = vec![1u8; size];
    let mut dst = vec![0u8; size];
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let part = size.div_ceil(cores);
    let t = median_seconds(|| {
        std::thread::scope(|s| {
            for (d, from) in dst.chunks_mut(part).zip(src.chunks(part)) {
                s.spawn(move || d.copy_from_slice(from));
            }
        })
    });
    Machine {
        flops_per_s,
        bytes_per_s: 2.0 * size as f64 / t,
    }
}

// The least work of the seed workloads (the others' are beside their code).

/// The lattice: ids and values read (`N^3 x 19` f32), one f32 per site written; the sum
/// over 27 neighbours of 19 values, an add each.
pub fn lattice_work(n: usize) -> Work {
    let sites = (n * n * n) as f64;
    Work::flops(sites * 27.0 * 19.0).and_bytes(sites * 4.0 * (1.0 + 19.0 + 1.0))
}

/// Seed 000 over `n` images of 10^4 pixels: `ops` operations per pixel and unordered pair
/// (both affinities are symmetric; a multiply-add is two, `|a - b|` summed three), the
/// images read and the `n x n` result written.
pub fn affinity_work(n: usize, ops: f64) -> Work {
    let (n, d) = (n as f64, 1e4);
    Work::flops(ops * n * n / 2.0 * d).and_bytes(4.0 * (n * d + n * n))
}

/// The 784-256-10 MLP at `batch`: per example, a forward pass (two flops per weight) and
/// a backward one (two per weight for its gradient, two more per second-layer weight for
/// the hidden layer's; the inputs are not differentiated), the inputs read, and the
/// gradients written (one per example, or one).
pub fn mlp_work(batch: usize, per_example: bool) -> Work {
    let b = batch as f64;
    let (first, second) = ((784 * 256) as f64, (256 * 10) as f64);
    let weights = first + 256.0 + second + 10.0;
    let grads = if per_example { b * weights } else { weights };
    Work::flops(b * (4.0 * first + 6.0 * second)).and_bytes(4.0 * (b * 794.0 + grads))
}

/// A Cholesky factor (`n^3 / 3` flops) and an LU solve (`2 n^3 / 3`) per matrix, the
/// matrices read and the factors written.
pub fn spd_work(batch: usize) -> Work {
    let (b, n) = (batch as f64, 64.0);
    Work::flops(b * n * n * n).and_bytes(4.0 * b * (2.0 * n * n + 2.0 * n))
}

/// `-sum|a @ b|` over `n` images of 32 x 32: a 32-cubed product per ordered pair (two
/// flops a multiply-add), the images read and the `n x n` result written.
pub fn prodl1_work(n: usize) -> Work {
    let (n, side) = (n as f64, 32.0);
    Work::flops(2.0 * n * n * side * side * side).and_bytes(4.0 * (n * side * side + n * n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_the_longer_of_the_two_bounds() {
        let m = Machine {
            flops_per_s: 1e11,
            bytes_per_s: 1e10,
        };
        assert_eq!(Work::flops(1e11).limit(&m), Some(1.0));
        assert_eq!(Work::flops(1e11).and_bytes(3e10).limit(&m), Some(3.0));
        assert_eq!(Work::bytes(1e9).limit(&m), Some(0.1));
        assert_eq!(Work::default().limit(&m), None);
    }
}
