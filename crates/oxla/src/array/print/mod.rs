//! Printing arrays as numpy and JAX print them: `Display` is numpy's `str(a)` and `Debug`
//! is JAX's `repr(a)`, with numpy's print options ([`set_printoptions`]).
//!
//! An array of more than `threshold` elements prints only `edgeitems` elements at each end
//! of every axis, with `...` between, and only those elements are formatted: printing a
//! 10000x10000 array formats 36 numbers. Floats print as numpy's default `floatmode`
//! (`'maxprec'`) does: the shortest digits that identify each value, at most `precision`
//! after the point, in scientific notation when the values span too wide a range.

use std::fmt;
use std::sync::RwLock;

mod float;

use super::{with_dtype, Array, DType, Elem, Kind};
use float::{float_type, scalar_str, FloatFormat};

/// How arrays print, as numpy's `np.set_printoptions` sets it; the defaults are numpy's.
///
/// ```
/// use oxla::{array::PrintOptions, Array};
/// let a = Array::from_vec((0..2000).map(|i| i as f32).collect(), &[2000]);
/// assert_eq!(a.to_string(), "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]");
/// let short = PrintOptions { edgeitems: 1, ..PrintOptions::default() };
/// assert_eq!(oxla::array::printoptions(short, || a.to_string()), "[   0. ... 1999.]");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// The most digits printed after a float's decimal point (numpy's default 8).
    pub precision: usize,
    /// Arrays of more elements than this print summarised, with `...` (default 1000).
    pub threshold: usize,
    /// Elements printed at each end of an axis when summarised (default 3).
    pub edgeitems: usize,
    /// Characters per line before wrapping (default 75).
    pub linewidth: usize,
}

impl PrintOptions {
    /// numpy's defaults.
    const NUMPY: PrintOptions = PrintOptions {
        precision: 8,
        threshold: 1000,
        edgeitems: 3,
        linewidth: 75,
    };
}

impl Default for PrintOptions {
    fn default() -> PrintOptions {
        PrintOptions::NUMPY
    }
}

/// The options in force for the whole process.
static OPTIONS: RwLock<PrintOptions> = RwLock::new(PrintOptions::NUMPY);

/// Sets how arrays print from now on, in every thread (numpy's `np.set_printoptions`).
pub fn set_printoptions(options: PrintOptions) {
    *OPTIONS.write().unwrap_or_else(|e| e.into_inner()) = options;
}

/// The options in force (numpy's `np.get_printoptions`).
pub fn get_printoptions() -> PrintOptions {
    *OPTIONS.read().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` with `options` in force, then restores the previous ones, even if `f` panics
/// (numpy's `with np.printoptions(...)`).
pub fn printoptions<R>(options: PrintOptions, f: impl FnOnce() -> R) -> R {
    struct Restore(PrintOptions);
    impl Drop for Restore {
        fn drop(&mut self) {
            set_printoptions(self.0);
        }
    }
    let _restore = Restore(get_printoptions());
    set_printoptions(options);
    f()
}

impl fmt::Display for Array {
    /// numpy's `str(a)`: `[[1. 2.]\n [3. 4.]]`; a rank-0 array prints as its scalar.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = get_printoptions();
        if self.ndim() == 0 && self.dtype().is_complex() {
            let (re, im) = complex_parts(self);
            let part = |v: f64| scalar_str(self.dtype().real_dtype(), v);
            let sign = if im[0].is_sign_negative() { "-" } else { "+" };
            return write!(f, "({}{sign}{}j)", part(re[0]), part(im[0].abs()));
        }
        if self.ndim() == 0 {
            return f.write_str(&scalar_str(self.dtype(), value(self)));
        }
        f.write_str(&array2string(self, &o, " ", "", "").0)
    }
}

impl fmt::Debug for Array {
    /// JAX's `repr(a)`: `Array([1., 2.], dtype=float32)`; a summarised array also shows its
    /// shape, as numpy's `repr` does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = get_printoptions();
        let prefix = "Array(";
        let (s, summarised) = array2string(self, &o, ", ", prefix, ",");
        let dtype = format!("dtype={}", self.dtype().numpy_name());
        let last_line = s.rfind('\n').map_or(s.len() + 2, |i| s.len() - i + 1);
        let sep = if last_line + dtype.len() + 2 > o.linewidth {
            " ".repeat(prefix.len())
        } else {
            " ".into()
        };
        let shape = if summarised {
            format!("shape={}, ", py_tuple(self.shape()))
        } else {
            String::new()
        };
        write!(f, "{prefix}{s},{sep}{shape}{dtype})")
    }
}

/// A shape as Python prints a tuple: `()`, `(3,)`, `(2, 3)`.
fn py_tuple(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    }
}

/// The real and imaginary parts of a complex array's elements, as `f64`.
// The body is instantiated for `f32` and `f64` parts; the conversion is a no-op for the latter.
#[allow(clippy::useless_conversion)]
fn complex_parts(a: &Array) -> (Vec<f64>, Vec<f64>) {
    with_dtype!(a.dtype(), T, Complex, {
        let s = a.as_slice::<T>();
        let re = s.iter().map(|v| f64::from(v.re)).collect();
        let im = s.iter().map(|v| f64::from(v.im)).collect();
        (re, im)
    })
}

/// The single element of a rank-0 array, as `f64`.
fn value(a: &Array) -> f64 {
    with_dtype!(a.dtype(), T, a.as_slice::<T>()[0].to_f64())
}

/// numpy's `np.array2string(a, separator=sep, prefix=prefix, suffix=suffix)`, and whether
/// it summarised.
fn array2string(
    a: &Array,
    o: &PrintOptions,
    sep: &str,
    prefix: &str,
    suffix: &str,
) -> (String, bool) {
    if a.size() == 0 {
        let s = if prefix.is_empty() {
            "[]".to_string()
        } else {
            format!("[], shape={}", py_tuple(a.shape()))
        };
        return (s, false);
    }
    let summarise = a.size() > o.threshold;
    let edge = if summarise { o.edgeitems } else { usize::MAX };
    let (kept, offsets) = edge_offsets(a, edge);
    let words = if a.dtype().is_complex() {
        complex_words(a, &offsets, o.precision)
    } else {
        let values = with_dtype!(a.dtype(), T, Real, {
            let s = a.as_slice::<T>();
            offsets.iter().map(|&o| s[o].to_f64()).collect::<Vec<f64>>()
        });
        Format::new(a.dtype(), a.ndim() == 0, &values, o.precision).all(&values)
    };
    let layout = Nested {
        words: &words,
        shape: a.shape(),
        kept: &kept,
        edge,
        sep,
    };
    let hanging = " ".repeat(1 + prefix.len());
    let width = o.linewidth.saturating_sub(suffix.len());
    (layout.recurse(0, 0, &hanging, width), summarise)
}

/// The dimensions kept when at most `edge` elements print at each end of every axis, and
/// the offsets of the elements kept, row-major.
fn edge_offsets(a: &Array, edge: usize) -> (Vec<usize>, Vec<usize>) {
    let shape = a.shape();
    let cut = |d: usize| edge.checked_mul(2).is_some_and(|e| e < d);
    let kept: Vec<usize> = shape
        .iter()
        .map(|&d| if cut(d) { 2 * edge } else { d })
        .collect();
    let strides = super::strides_of(shape);
    let mut offsets = vec![0usize];
    for (k, &d) in shape.iter().enumerate() {
        let positions: Vec<usize> = if cut(d) {
            (0..edge).chain(d - edge..d).collect()
        } else {
            (0..d).collect()
        };
        let stride = strides[k];
        offsets = offsets
            .iter()
            .flat_map(|&o| positions.iter().map(move |&p| o + p * stride))
            .collect();
    }
    (kept, offsets)
}

/// The elements of a complex array at `offsets` as numpy prints them: the real parts
/// formatted together, then the imaginary parts with their sign and `j` (`1.+2.j`).
fn complex_words(a: &Array, offsets: &[usize], precision: usize) -> Vec<String> {
    let (re, im) = complex_parts(a);
    let re: Vec<f64> = offsets.iter().map(|&o| re[o]).collect();
    let im: Vec<f64> = offsets.iter().map(|&o| im[o]).collect();
    let abs_im: Vec<f64> = im.iter().map(|v| v.abs()).collect();
    let ty = || float_type(a.dtype().real_dtype());
    let re_format = FloatFormat::new(&re, ty(), precision);
    let im_format = FloatFormat::new(&abs_im, ty(), precision);
    re.iter()
        .zip(&im)
        .map(|(&r, &i)| {
            let sign = if i.is_sign_negative() { '-' } else { '+' };
            let im = im_format.one(i.abs());
            format!("{}{sign}{}j", re_format.one(r), im.trim_start())
        })
        .collect()
}

/// numpy's `_formatArray`: nested brackets over formatted elements, lines wrapped.
struct Nested<'a> {
    /// The kept elements, formatted, row-major over `kept`.
    words: &'a [String],
    shape: &'a [usize],
    kept: &'a [usize],
    edge: usize,
    sep: &'a str,
}

impl Nested<'_> {
    /// The text of the sub-array at `axis` whose first kept element is `words[start]`.
    fn recurse(&self, axis: usize, start: usize, hanging: &str, width: usize) -> String {
        if axis == self.shape.len() {
            return self.words[start].clone();
        }
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let len = self.shape[axis];
        let show = self.edge.checked_mul(2).is_some_and(|e| e < len);
        let (leading, trailing) = if show {
            (self.edge, self.edge)
        } else {
            (0, len)
        };
        let kept = self.kept[axis];
        let step: usize = self.kept[axis + 1..].iter().product();
        let child = |i: usize| self.recurse(axis + 1, start + i * step, &next_hanging, next_width);
        // The kept positions in numpy's order: the leading, then the trailing from the end.
        let before: Vec<usize> = (0..leading).collect();
        let after: Vec<usize> = (1..=trailing).rev().map(|i| kept - i).collect();
        let mut s = String::new();
        if axis + 1 == self.shape.len() {
            let elem_width = width.saturating_sub(self.sep.trim_end().len().max(1));
            let mut line = hanging.to_string();
            let add = |s: &mut String, line: &mut String, word: &str| {
                if line.len() + word.len() > elem_width && line.len() > hanging.len() {
                    s.push_str(line.trim_end());
                    s.push('\n');
                    *line = hanging.to_string();
                }
                line.push_str(word);
            };
            for &i in &before {
                add(&mut s, &mut line, &child(i));
                line.push_str(self.sep);
            }
            if show {
                add(&mut s, &mut line, "...");
                line.push_str(self.sep);
            }
            for (n, &i) in after.iter().enumerate() {
                add(&mut s, &mut line, &child(i));
                if n + 1 < after.len() {
                    line.push_str(self.sep);
                }
            }
            s.push_str(&line);
        } else {
            let line_sep = format!(
                "{}{}",
                self.sep.trim_end(),
                "\n".repeat(self.shape.len() - axis - 1)
            );
            let mut rows: Vec<String> = before.iter().map(|&i| child(i)).collect();
            if show {
                rows.push("...".into());
            }
            rows.extend(after.iter().map(|&i| child(i)));
            let body: Vec<String> = rows.iter().map(|r| format!("{hanging}{r}")).collect();
            s = body.join(&line_sep);
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// How the elements of one array format, decided from all the elements that print.
enum Format {
    Bool { rank0: bool },
    Int { width: usize },
    Float(FloatFormat),
}

impl Format {
    fn new(dtype: DType, rank0: bool, values: &[f64], precision: usize) -> Format {
        match dtype.kind() {
            Kind::Bool => Format::Bool { rank0 },
            Kind::Int => Format::Int {
                width: values
                    .iter()
                    .map(|v| (*v as i64).to_string().len())
                    .max()
                    .unwrap_or(0),
            },
            Kind::Float | Kind::Complex => {
                Format::Float(FloatFormat::new(values, float_type(dtype), precision))
            }
        }
    }

    /// Every value formatted.
    fn all(&self, values: &[f64]) -> Vec<String> {
        values.iter().map(|&v| self.one(v)).collect()
    }

    fn one(&self, v: f64) -> String {
        match self {
            Format::Bool { rank0: true } => (if v != 0.0 { "True" } else { "False" }).into(),
            Format::Bool { rank0: false } => (if v != 0.0 { " True" } else { "False" }).into(),
            Format::Int { width } => format!("{:>width$}", v as i64),
            Format::Float(f) => f.one(v),
        }
    }
}
