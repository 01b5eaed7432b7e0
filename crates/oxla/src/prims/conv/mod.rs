//! `conv_general_dilated`: XLA's convolution, with its parameters, shape rule and kernel
//! (im2col by classes of result positions into products, see [`kernel`]).

mod classes;
mod direct;
mod im2col;
mod kernel;
mod product;
#[cfg(test)]
mod tests;

use std::fmt;

use super::arity;
use super::pyfmt::tuple;
use crate::array::{Aval, DType};

pub(crate) use kernel::{conv_general_dilated, scratch_bytes};

/// Which dimension of each operand plays which part (JAX's `ConvDimensionNumbers`):
/// `lhs_spec` is `(batch, feature, spatial...)` of the input, `rhs_spec`
/// `(out feature, in feature, spatial...)` of the kernel and `out_spec`
/// `(batch, feature, spatial...)` of the result. Spatial dimension `i` of the three is the
/// same window dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConvDimensionNumbers {
    /// The input's `(batch, feature, spatial...)` dimensions.
    pub lhs_spec: Vec<usize>,
    /// The kernel's `(out feature, in feature, spatial...)` dimensions.
    pub rhs_spec: Vec<usize>,
    /// The result's `(batch, feature, spatial...)` dimensions.
    pub out_spec: Vec<usize>,
}

impl ConvDimensionNumbers {
    /// The default layout of rank `ndim` (`NCHW`, `OIHW`, `NCHW` in two dimensions): every
    /// spec `0, 1, 2, ...`.
    pub fn identity(ndim: usize) -> ConvDimensionNumbers {
        let iota: Vec<usize> = (0..ndim).collect();
        ConvDimensionNumbers {
            lhs_spec: iota.clone(),
            rhs_spec: iota.clone(),
            out_spec: iota,
        }
    }

    /// JAX's `conv_general_permutations`: the specs of a layout given as three strings such
    /// as `("NHWC", "HWIO", "NHWC")`, `N`/`C` naming batch and feature of the input and
    /// result, `O`/`I` the kernel's out and in features, and any other letters the spatial
    /// dimensions, ordered as the kernel's string orders them. `Err` says what is wrong.
    pub fn from_strings(lhs: &str, rhs: &str, out: &str) -> Result<ConvDimensionNumbers, String> {
        let specs = [lhs, rhs, out];
        let pairs = [('N', 'C'), ('O', 'I'), ('N', 'C')];
        for (i, (s, (a, b))) in specs.iter().zip(pairs).enumerate() {
            if s.matches(a).count() != 1 || s.matches(b).count() != 1 {
                return Err(format!(
                    "dimension_numbers[{i}] must contain the characters '{a}' and '{b}' \
                     exactly once, got {s:?}"
                ));
            }
            let mut chars: Vec<char> = s.chars().collect();
            chars.sort_unstable();
            chars.dedup();
            if chars.len() != s.chars().count() {
                return Err(format!(
                    "dimension_numbers[{i}] cannot have duplicate characters, got {s:?}"
                ));
            }
        }
        let spatial = |s: &str, (a, b): (char, char)| {
            let mut v: Vec<char> = s.chars().filter(|&c| c != a && c != b).collect();
            v.sort_unstable();
            v
        };
        let rs = spatial(rhs, pairs[1]);
        if spatial(lhs, pairs[0]) != rs || spatial(out, pairs[2]) != rs {
            return Err(format!(
                "dimension_numbers elements must each have the same set of spatial \
                 characters, got ({lhs:?}, {rhs:?}, {out:?})"
            ));
        }
        let rhs_chars: Vec<char> = rhs.chars().collect();
        let perm = |s: &str, (a, b): (char, char)| -> Vec<usize> {
            let chars: Vec<char> = s.chars().collect();
            let at = |c: char| chars.iter().position(|&x| x == c).expect("checked above");
            let mut v = vec![at(a), at(b)];
            v.extend(
                rhs_chars
                    .iter()
                    .filter(|&&c| c != 'O' && c != 'I')
                    .map(|&c| at(c)),
            );
            v
        };
        Ok(ConvDimensionNumbers {
            lhs_spec: perm(lhs, pairs[0]),
            rhs_spec: perm(rhs, pairs[1]),
            out_spec: perm(out, pairs[2]),
        })
    }
}

impl fmt::Display for ConvDimensionNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ConvDimensionNumbers(lhs_spec={}, rhs_spec={}, out_spec={})",
            tuple(&self.lhs_spec),
            tuple(&self.rhs_spec),
            tuple(&self.out_spec)
        )
    }
}

/// The parameters of `conv_general_dilated`, as JAX names them (`precision` is always
/// `None`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConvParams {
    /// Step of the window per spatial dimension.
    pub window_strides: Vec<usize>,
    /// `(low, high)` padding of the (dilated) input per spatial dimension; may be negative.
    pub padding: Vec<(i64, i64)>,
    /// Input dilation per spatial dimension (a transposed convolution's stride).
    pub lhs_dilation: Vec<usize>,
    /// Kernel dilation per spatial dimension (atrous convolution).
    pub rhs_dilation: Vec<usize>,
    /// The layout.
    pub dimension_numbers: ConvDimensionNumbers,
    /// Groups the input features are split into, each convolved with its own kernels.
    pub feature_group_count: usize,
    /// Groups the input batch is split into, each convolved with its own kernels.
    pub batch_group_count: usize,
    /// Result dtype, if not the operands'.
    pub preferred_element_type: Option<DType>,
}

impl ConvParams {
    /// The parameters as JAX prints them, sorted by name.
    pub(crate) fn params(&self) -> Vec<(&'static str, String)> {
        let pads: Vec<String> = self
            .padding
            .iter()
            .map(|(l, h)| format!("({l}, {h})"))
            .collect();
        vec![
            ("batch_group_count", self.batch_group_count.to_string()),
            ("dimension_numbers", self.dimension_numbers.to_string()),
            ("feature_group_count", self.feature_group_count.to_string()),
            ("lhs_dilation", tuple(&self.lhs_dilation)),
            ("padding", super::pyfmt::tuple_of_strings(&pads)),
            ("precision", "None".into()),
            (
                "preferred_element_type",
                self.preferred_element_type
                    .map_or("None".into(), |d| d.to_string()),
            ),
            ("rhs_dilation", tuple(&self.rhs_dilation)),
            ("window_strides", tuple(&self.window_strides)),
        ]
    }
}

/// The size of `n` elements dilated by `d` (`d - 1` holes between neighbours).
pub(crate) fn dilate_dim(n: usize, d: usize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * d + 1
    }
}

/// Whether `spec` is a permutation of `0..rank`.
fn is_perm(spec: &[usize], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    spec.len() == rank
        && spec
            .iter()
            .all(|&d| d < rank && !std::mem::replace(&mut seen[d], true))
}

/// The shape rule of `conv_general_dilated` (JAX's checks and messages).
pub(crate) fn conv_rule(p: &ConvParams, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 2)?;
    let (l, r) = (&inputs[0], &inputs[1]);
    if l.dtype != r.dtype || !l.dtype.is_float() {
        return Err(format!(
            "operands must share a float dtype, got {l} and {r}"
        ));
    }
    if l.ndim() != r.ndim() || l.ndim() < 2 {
        return Err(format!(
            "lhs and rhs must have the same number of dimensions (at least 2), got {l} and {r}"
        ));
    }
    let rank = l.ndim();
    let nd = rank - 2;
    let dn = &p.dimension_numbers;
    if !is_perm(&dn.lhs_spec, rank) || !is_perm(&dn.rhs_spec, rank) || !is_perm(&dn.out_spec, rank)
    {
        return Err(format!(
            "dimension numbers {dn} are not permutations of rank {rank}"
        ));
    }
    for (what, v) in [
        ("window_strides", &p.window_strides),
        ("lhs_dilation", &p.lhs_dilation),
        ("rhs_dilation", &p.rhs_dilation),
    ] {
        if v.len() != nd || v.contains(&0) {
            return Err(format!(
                "{what} {v:?} must hold {nd} positive integers, one per spatial dimension"
            ));
        }
    }
    if p.padding.len() != nd {
        return Err(format!(
            "wrong number of explicit pads for convolution: expected {nd}, got {}",
            p.padding.len()
        ));
    }
    let (g, b) = (p.feature_group_count, p.batch_group_count);
    if g == 0 || b == 0 {
        return Err("feature_group_count and batch_group_count must be positive".into());
    }
    if g > 1 && b > 1 {
        return Err(format!(
            "at most one of batch_group_count and feature_group_count may be > 1, got \
             batch_group_count={b} and feature_group_count={g}"
        ));
    }
    let lf = l.shape[dn.lhs_spec[1]];
    let (ri, ro) = (r.shape[dn.rhs_spec[1]], r.shape[dn.rhs_spec[0]]);
    if lf % g != 0 || lf / g != ri {
        return Err(format!(
            "lhs feature dimension size divided by feature_group_count must equal the rhs \
             input feature dimension size, but {lf} // {g} != {ri}"
        ));
    }
    if ro % g != 0 || ro % b != 0 {
        return Err(format!(
            "rhs output feature dimension size {ro} must be a multiple of \
             feature_group_count {g} and batch_group_count {b}"
        ));
    }
    let lb = l.shape[dn.lhs_spec[0]];
    if lb % b != 0 {
        return Err(format!(
            "batch_group_count must divide lhs batch dimension size, but {b} does not \
             divide {lb}"
        ));
    }
    let mut out = vec![0; rank];
    out[dn.out_spec[0]] = lb / b;
    out[dn.out_spec[1]] = ro;
    for i in 0..nd {
        let (lo, hi) = p.padding[i];
        let padded = dilate_dim(l.shape[dn.lhs_spec[2 + i]], p.lhs_dilation[i]) as i64 + lo + hi;
        if padded < 0 {
            return Err(format!(
                "negative padding is larger than the size of the corresponding dimension: \
                 got padding={:?} for {l}",
                p.padding
            ));
        }
        let window = dilate_dim(r.shape[dn.rhs_spec[2 + i]], p.rhs_dilation[i]) as i64;
        out[dn.out_spec[2 + i]] = if padded < window {
            0
        } else {
            ((padded - window) / p.window_strides[i] as i64 + 1) as usize
        };
    }
    Ok(vec![Aval::new(
        p.preferred_element_type.unwrap_or(l.dtype),
        &out,
    )])
}
