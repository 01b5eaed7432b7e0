//! Shape primitives: `iota`, `broadcast_in_dim`, `reshape`, `transpose`, `rev`, `squeeze`,
//! `slice`, `pad` and `concatenate`.

use super::arity;
use super::view::{new_array, signed_strides, strided};
use crate::array::{checked_numel, numel, with_dtype, Array, Aval, DType, Elem};

fn check_perm(perm: &[usize], rank: usize) -> Result<(), String> {
    let mut seen = vec![false; rank];
    for &p in perm {
        if p >= rank || std::mem::replace(&mut seen[p], true) {
            return Err(format!(
                "{perm:?} is not a permutation of {rank} dimensions"
            ));
        }
    }
    if perm.len() != rank {
        return Err(format!(
            "{perm:?} is not a permutation of {rank} dimensions"
        ));
    }
    Ok(())
}

pub(crate) fn iota_rule(
    dtype: DType,
    shape: &[usize],
    dimension: usize,
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 0)?;
    if dimension >= shape.len() {
        return Err(format!(
            "dimension {dimension} out of range for shape {shape:?}"
        ));
    }
    if !dtype.is_numeric() {
        return Err(format!("dtype must be numeric, got {dtype}"));
    }
    Ok(vec![Aval::new(dtype, shape)])
}

pub(crate) fn iota(dtype: DType, shape: &[usize], dimension: usize) -> Array {
    let inner: usize = shape[dimension + 1..].iter().product();
    let n = shape[dimension];
    with_dtype!(dtype, T, Num, {
        new_array::<T>(shape, |out| {
            for (i, o) in out.iter_mut().enumerate() {
                *o = T::from_f64(((i / inner) % n) as f64);
            }
        })
    })
}

pub(crate) fn broadcast_in_dim_rule(
    shape: &[usize],
    dims: &[usize],
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    if dims.len() != x.ndim() {
        return Err(format!(
            "broadcast_dimensions {dims:?} must have one entry per operand dimension of {x}"
        ));
    }
    for (i, &d) in dims.iter().enumerate() {
        if d >= shape.len() || (x.shape[i] != 1 && x.shape[i] != shape[d]) {
            return Err(format!(
                "operand {x} cannot broadcast to {shape:?} with broadcast_dimensions {dims:?}"
            ));
        }
        if i > 0 && d <= dims[i - 1] {
            return Err(format!(
                "broadcast_dimensions {dims:?} must be strictly increasing"
            ));
        }
    }
    Ok(vec![Aval::new(x.dtype, shape)])
}

pub(crate) fn broadcast_in_dim(a: &Array, shape: &[usize], dims: &[usize]) -> Array {
    if numel(shape) == a.size() {
        // Only size-1 dimensions are added: the elements keep their order.
        return a.reshaped(shape);
    }
    let src = signed_strides(a.shape());
    let mut strides = vec![0isize; shape.len()];
    for (i, &d) in dims.iter().enumerate() {
        if a.shape()[i] != 1 {
            strides[d] = src[i];
        }
    }
    strided(a, 0, shape, &strides)
}

pub(crate) fn reshape_rule(new_sizes: &[usize], inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    if checked_numel(new_sizes) != Some(x.size()) {
        return Err(format!("cannot reshape {x} to {new_sizes:?}"));
    }
    Ok(vec![Aval::new(x.dtype, new_sizes)])
}

pub(crate) fn transpose_rule(perm: &[usize], inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    check_perm(perm, x.ndim())?;
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape[p]).collect();
    Ok(vec![Aval::new(x.dtype, &shape)])
}

pub(crate) fn transpose(a: &Array, perm: &[usize]) -> Array {
    let src = signed_strides(a.shape());
    let shape: Vec<usize> = perm.iter().map(|&p| a.shape()[p]).collect();
    let strides: Vec<isize> = perm.iter().map(|&p| src[p]).collect();
    strided(a, 0, &shape, &strides)
}

pub(crate) fn rev_rule(dims: &[usize], inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    if let Some(d) = dims.iter().find(|&&d| d >= x.ndim()) {
        return Err(format!("dimension {d} out of range for {x}"));
    }
    Ok(vec![x.clone()])
}

pub(crate) fn rev(a: &Array, dims: &[usize]) -> Array {
    let mut strides = signed_strides(a.shape());
    let mut offset = 0isize;
    for &d in dims {
        offset += strides[d] * (a.shape()[d] as isize - 1).max(0);
        strides[d] = -strides[d];
    }
    strided(a, offset, a.shape(), &strides)
}

pub(crate) fn squeeze_rule(dims: &[usize], inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    for &d in dims {
        if d >= x.ndim() || x.shape[d] != 1 {
            return Err(format!(
                "cannot squeeze dimension {d} of {x}: it is not of size 1"
            ));
        }
    }
    let shape: Vec<usize> = (0..x.ndim())
        .filter(|d| !dims.contains(d))
        .map(|d| x.shape[d])
        .collect();
    Ok(vec![Aval::new(x.dtype, &shape)])
}

pub(crate) fn slice_rule(
    start: &[usize],
    limit: &[usize],
    strides: Option<&[usize]>,
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    let n = x.ndim();
    if start.len() != n || limit.len() != n || strides.is_some_and(|s| s.len() != n) {
        return Err(format!(
            "start_indices {start:?}, limit_indices {limit:?} and strides need one entry per \
             dimension of {x}"
        ));
    }
    let mut shape = Vec::with_capacity(n);
    for d in 0..n {
        let step = strides.map_or(1, |s| s[d]);
        if start[d] > limit[d] || limit[d] > x.shape[d] || step == 0 {
            return Err(format!(
                "slice [{}:{}:{step}] out of range for dimension {d} of {x}",
                start[d], limit[d]
            ));
        }
        shape.push((limit[d] - start[d]).div_ceil(step));
    }
    Ok(vec![Aval::new(x.dtype, &shape)])
}

pub(crate) fn slice(a: &Array, start: &[usize], limit: &[usize], steps: Option<&[usize]>) -> Array {
    let src = signed_strides(a.shape());
    let mut offset = 0isize;
    let mut shape = Vec::with_capacity(start.len());
    let mut strides = Vec::with_capacity(start.len());
    for d in 0..start.len() {
        let step = steps.map_or(1, |s| s[d]);
        offset += src[d] * start[d] as isize;
        shape.push((limit[d] - start[d]).div_ceil(step));
        strides.push(src[d] * step as isize);
    }
    strided(a, offset, &shape, &strides)
}

pub(crate) fn pad_rule(config: &[(i64, i64, i64)], inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 2)?;
    let (x, v) = (&inputs[0], &inputs[1]);
    if v.ndim() != 0 || v.dtype != x.dtype {
        return Err(format!(
            "padding value must be a scalar of {x}'s dtype, got {v}"
        ));
    }
    if config.len() != x.ndim() {
        return Err(format!(
            "padding_config needs one entry per dimension of {x}"
        ));
    }
    let mut shape = Vec::with_capacity(config.len());
    for (d, &(lo, hi, interior)) in config.iter().enumerate() {
        let n = i64::try_from(x.shape[d]).unwrap_or(i64::MAX);
        let size = interior
            .checked_mul((n - 1).max(0))
            .and_then(|s| s.checked_add(n)?.checked_add(lo)?.checked_add(hi));
        let Some(size) = size.filter(|&s| interior >= 0 && s >= 0) else {
            return Err(format!(
                "padding {:?} of dimension {d} of {x} is invalid",
                config[d]
            ));
        };
        shape.push(size as usize);
    }
    Ok(vec![Aval::new(x.dtype, &shape)])
}

pub(crate) fn pad(a: &Array, value: &Array, config: &[(i64, i64, i64)]) -> Array {
    fn run<T: Elem>(a: &Array, value: T, config: &[(i64, i64, i64)]) -> Array {
        let shape: Vec<usize> = config
            .iter()
            .zip(a.shape())
            .map(|(&(lo, hi, int), &n)| (lo + hi + n as i64 + int * (n as i64 - 1).max(0)) as usize)
            .collect();
        let out_strides = signed_strides(&shape);
        let src = a.as_slice::<T>();
        new_array::<T>(&shape, |out| {
            out.fill(value);
            super::view::for_each_index(a.shape(), |idx| {
                let mut pos = 0isize;
                for (d, &i) in idx.iter().enumerate() {
                    let (lo, _, int) = config[d];
                    let p = lo + i as i64 * (int + 1);
                    if p < 0 || p >= shape[d] as i64 {
                        return;
                    }
                    pos += p as isize * out_strides[d];
                }
                let flat: usize = idx
                    .iter()
                    .zip(signed_strides(a.shape()))
                    .map(|(&i, s)| i * s as usize)
                    .sum();
                out[pos as usize] = src[flat];
            })
        })
    }
    with_dtype!(a.dtype(), T, run::<T>(a, value.as_slice::<T>()[0], config))
}

pub(crate) fn concatenate_rule(dim: usize, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    let first = inputs.first().ok_or("needs at least one operand")?;
    if dim >= first.ndim() {
        return Err(format!("dimension {dim} out of range for {first}"));
    }
    let mut size: usize = 0;
    for x in inputs {
        let same_elsewhere = x.ndim() == first.ndim()
            && (0..x.ndim()).all(|d| d == dim || x.shape[d] == first.shape[d]);
        if x.dtype != first.dtype || !same_elsewhere {
            return Err(format!(
                "operands must agree in dtype and in every dimension but {dim}: {first} vs {x}"
            ));
        }
        size = usize::checked_add(size, x.shape[dim])
            .ok_or_else(|| format!("dimension {dim} of the result overflows"))?;
    }
    let mut shape = first.shape.clone();
    shape[dim] = size;
    Ok(vec![Aval::new(first.dtype, &shape)])
}

pub(crate) fn concatenate(inputs: &[Array], dim: usize) -> Array {
    if let [one] = inputs {
        // Arrays are immutable: one input is the result, uncopied.
        return one.clone();
    }
    let mut shape = inputs[0].shape().to_vec();
    shape[dim] = inputs.iter().map(|a| a.shape()[dim]).sum();
    let outer: usize = shape[..dim].iter().product();
    let out_row: usize = shape[dim..].iter().product();
    with_dtype!(inputs[0].dtype(), T, {
        new_array::<T>(&shape, |out| {
            let mut col = 0;
            for a in inputs {
                let row: usize = a.shape()[dim..].iter().product();
                let src = a.as_slice::<T>();
                for o in 0..outer {
                    out[o * out_row + col..o * out_row + col + row]
                        .copy_from_slice(&src[o * row..(o + 1) * row]);
                }
                col += row;
            }
        })
    })
}
