//! The instruction set the kernels run with, chosen when the program runs.
//!
//! oxla is built for the baseline of its target (SSE2 on x86-64), so that one binary runs
//! on every machine of the target. Its hot kernels — the interpreter's lane loops, loads
//! and folds, the elementwise lane kernels, the skinny products — are compiled twice more,
//! for x86-64-v3 (AVX2 and FMA) and x86-64-v4 (AVX-512), by [`multiversion!`]; each call
//! takes the best version the processor runs. On other targets the baseline is the only
//! version.
//!
//! The environment variable `OXLA_ISA` (`baseline`, `v3` or `v4`) lowers the choice, to
//! test the fallbacks on a machine that has more. The versions compute the same values:
//! they differ in instruction selection only (no fused multiply-add where the source has
//! none, no reordered sums), except where a kernel is written per instruction set
//! (the pairwise micro-kernel's AVX-512 form sums its lanes in another order).

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set kernels are compiled for, in increasing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Baseline = 1,
    /// x86-64-v3: AVX2, FMA, BMI2.
    V3 = 2,
    /// x86-64-v4: v3 and AVX-512 (F, BW, CD, DQ, VL).
    V4 = 3,
}

/// The chosen instruction set; 0 until the first call of [`isa`].
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// The instruction set kernels run with: the best the processor has, lowered by
/// `OXLA_ISA` or [`force`].
#[inline]
pub(crate) fn isa() -> Isa {
    match CHOSEN.load(Ordering::Relaxed) {
        1 => Isa::Baseline,
        2 => Isa::V3,
        3 => Isa::V4,
        _ => {
            let wanted = match crate::env::isa_level() {
                1 => Isa::Baseline,
                2 => Isa::V3,
                _ => Isa::V4,
            };
            let isa = detected().min(wanted);
            CHOSEN.store(isa as u8, Ordering::Relaxed);
            isa
        }
    }
}

/// Chooses the instruction set when the program starts (on Linux, as the loader runs the
/// program's initialisers), not on the first kernel call: detecting it takes several
/// `cpuid` instructions, each of which a virtual machine traps, tens of microseconds in all
/// — most of a small program's first call.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[used]
#[link_section = ".init_array"]
static CHOOSE_AT_START: extern "C" fn() = {
    extern "C" fn choose() {
        isa();
    }
    choose
};

/// Runs the kernels with `isa`, or what the processor has if that is less; `None`: the
/// choice of [`isa`] again. For tests that compare the versions: the choice is the
/// process's, so kernels running on other threads meanwhile take it too.
#[cfg(test)]
pub(crate) fn force(isa: Option<Isa>) {
    CHOSEN.store(
        isa.map_or(0, |i| detected().min(i) as u8),
        Ordering::Relaxed,
    );
}

/// The best instruction set the processor runs.
fn detected() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        let v3 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("movbe")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("f16c");
        let v4 = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512cd")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl");
        match (v3, v4) {
            (true, true) => Isa::V4,
            (true, false) => Isa::V3,
            _ => Isa::Baseline,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Isa::Baseline
}

/// Defines a function whose body is compiled for each instruction set of [`Isa`], each
/// call running the version [`isa`] chose. The body is a nested function, always inlined
/// into a `#[target_feature]` function per instruction set; what it calls runs with those
/// features when it is inlined too (mark the kernel's helpers `#[inline(always)]`).
/// Generic parameters go in brackets after the name; arguments are plain names.
///
/// ```ignore
/// multiversion! {
///     /// Doubles `x` into `out`.
///     fn double[T: Num](x: &[T], out: &mut [T]) {
///         for (o, &v) in out.iter_mut().zip(x) {
///             *o = v.add(v);
///         }
///     }
/// }
/// ```
macro_rules! multiversion {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident $([$($gen:tt)*])? ($($arg:ident: $ty:ty),* $(,)?)
            $(-> $ret:ty)? $body:block
    ) => {
        $(#[$attr])*
        $vis fn $name $(<$($gen)*>)? ($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            fn body $(<$($gen)*>)? ($($arg: $ty),*) $(-> $ret)? $body

            #[cfg(target_arch = "x86_64")]
            #[target_feature(
                enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl,avx2,fma,bmi1,bmi2,lzcnt,movbe,popcnt,f16c"
            )]
            fn v4 $(<$($gen)*>)? ($($arg: $ty),*) $(-> $ret)? {
                body($($arg),*)
            }

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,movbe,popcnt,f16c")]
            fn v3 $(<$($gen)*>)? ($($arg: $ty),*) $(-> $ret)? {
                body($($arg),*)
            }

            match $crate::prims::isa::isa() {
                // SAFETY: `isa` chose V4 only on a processor with every feature `v4`
                // enables.
                #[cfg(target_arch = "x86_64")]
                $crate::prims::isa::Isa::V4 => unsafe { v4($($arg),*) },
                // SAFETY: as for V4, with `v3`'s features.
                #[cfg(target_arch = "x86_64")]
                $crate::prims::isa::Isa::V3 => unsafe { v3($($arg),*) },
                _ => body($($arg),*),
            }
        }
    };
}

pub(crate) use multiversion;

#[cfg(test)]
mod tests {
    use super::*;

    multiversion! {
        /// A sum of squares with a fused multiply-add, as the kernels write it.
        fn sum_squares(x: &[f32]) -> f32 {
            x.iter().fold(0.0, |a, &v| v.mul_add(v, a))
        }
    }

    #[test]
    fn every_version_computes_the_same_values() {
        let x: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin()).collect();
        let want = sum_squares(&x);
        for isa in [Isa::Baseline, Isa::V3, Isa::V4] {
            force(Some(isa));
            assert!(super::isa() <= isa);
            assert_eq!(sum_squares(&x).to_bits(), want.to_bits(), "{isa:?}");
        }
        force(None);
        assert!(super::isa() >= Isa::Baseline);
    }
}
