//! `jax.nn.dot_product_attention`, as JAX's `implementation="xla"` computes it.

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, scalar_tensor, Operand};
use crate::ops as lax;

/// Scaled dot-product attention, `softmax(scale * Q K^T + bias, masked) V`, for a query
/// `[B, T, N, H]` and a key and value `[B, S, K, H]` (or all without the batch axis), with
/// `N` a multiple of `K` (grouped-query attention; `K = 1` multi-query), as
/// `jax.nn.dot_product_attention` with `implementation="xla"`: masked logits become
/// `-0.7 * f32::MAX`, the softmax runs in `f32`, and query positions past
/// `query_seq_lengths` give zeros. [`dot_product_attention`] runs it without options.
///
/// ```
/// use oxla::{nn, numpy as jnp};
/// let q = jnp::ones(&[1, 2, 1, 4]);
/// let kv = jnp::arange(8.0).reshape(&[1, 2, 1, 4]);
/// let out = nn::DotProductAttention::new(&q, &kv, &kv).is_causal().call();
/// assert_eq!(out.shape(), &[1, 2, 1, 4]);
/// assert_eq!(out.to_vec::<f32>()[..4], [0.0, 1.0, 2.0, 3.0]);
/// ```
#[derive(Clone, Debug)]
pub struct DotProductAttention {
    query: Tensor,
    key: Tensor,
    value: Tensor,
    bias: Option<Tensor>,
    mask: Option<Tensor>,
    scale: Option<f64>,
    is_causal: bool,
    q_seqlen: Option<Tensor>,
    kv_seqlen: Option<Tensor>,
    window: Option<(usize, usize)>,
}

impl DotProductAttention {
    /// Attention of `query` over `key` and `value`, with no bias or mask and the scale
    /// `1 / sqrt(H)`.
    pub fn new(
        query: impl Into<Operand>,
        key: impl Into<Operand>,
        value: impl Into<Operand>,
    ) -> DotProductAttention {
        DotProductAttention {
            query: query.into().into_tensor(),
            key: key.into().into_tensor(),
            value: value.into().into_tensor(),
            bias: None,
            mask: None,
            scale: None,
            is_causal: false,
            q_seqlen: None,
            kv_seqlen: None,
            window: None,
        }
    }

    /// Added to the logits; broadcastable to `[B, N, T, S]` (rank 4 at most).
    pub fn bias(mut self, bias: impl Into<Operand>) -> DotProductAttention {
        self.bias = Some(bias.into().into_tensor());
        self
    }

    /// A boolean mask, true where a query may attend to a key; broadcastable to
    /// `[B, N, T, S]`.
    pub fn mask(mut self, mask: &Tensor) -> DotProductAttention {
        self.mask = Some(mask.clone());
        self
    }

    /// The logits' scale (default `1 / sqrt(H)`).
    pub fn scale(mut self, scale: f64) -> DotProductAttention {
        self.scale = Some(scale);
        self
    }

    /// Query position `t` attends to key positions `s <= t` only.
    pub fn is_causal(mut self) -> DotProductAttention {
        self.is_causal = true;
        self
    }

    /// The valid length of each batch element's query (`i32[B]`); later positions give 0.
    pub fn query_seq_lengths(mut self, lengths: &Tensor) -> DotProductAttention {
        self.q_seqlen = Some(lengths.clone());
        self
    }

    /// The valid length of each batch element's key and value (`i32[B]`).
    pub fn key_value_seq_lengths(mut self, lengths: &Tensor) -> DotProductAttention {
        self.kv_seqlen = Some(lengths.clone());
        self
    }

    /// Query position `t` attends to key positions `t - left ..= t + right` only.
    pub fn local_window_size(mut self, left: usize, right: usize) -> DotProductAttention {
        self.window = Some((left, right));
        self
    }

    /// The attention output, shaped as the query.
    #[track_caller]
    pub fn call(self) -> Tensor {
        let _line = crate::core::user_line();
        let out_shape = self.query.shape().to_vec();
        let q = ensure_4d(&self.query);
        let k = ensure_4d(&self.key);
        let v = ensure_4d(&self.value);
        let [b, s, kh, h] = [k.shape()[0], k.shape()[1], k.shape()[2], k.shape()[3]];
        let [t, n] = [q.shape()[1], q.shape()[2]];
        let bad = |what: &str| -> ! {
            panic!(
                "dot_product_attention: {what} (query {}, key {}, value {})\n  at {}",
                self.query.aval(),
                self.key.aval(),
                self.value.aval(),
                std::panic::Location::caller()
            )
        };
        if v.shape() != k.shape() || v.dtype() != k.dtype() {
            bad("value must have the key's shape and dtype");
        }
        if q.shape()[0] != b || q.shape()[3] != h || q.dtype() != k.dtype() {
            bad("query must be [B, T, N, H] with the key's B, H and dtype");
        }
        if n % kh != 0 {
            bad("the number of query heads must be a multiple of key/value heads");
        }
        if self.mask.as_ref().is_some_and(|m| m.dtype() != DType::Bool) {
            bad("mask must be boolean");
        }
        for l in [&self.q_seqlen, &self.kv_seqlen].into_iter().flatten() {
            if l.shape() != [b] || l.dtype() != DType::I32 {
                bad("sequence lengths must be i32[B]");
            }
        }
        let g = n / kh;
        let scale = self.scale.unwrap_or(1.0 / (h as f64).sqrt());
        let logits_dtype = match q.dtype() {
            DType::F64 => DType::F64,
            _ => DType::F32,
        };
        // Logits [B, K, G, T, S], the query's heads grouped by the key head they share.
        let qg = lax::reshape(&q, &[b, t, kh, g, h]);
        let wide = (q.dtype() != logits_dtype).then_some(logits_dtype);
        let logits = lax::dot_general(&qg, &k, (&[4], &[3]), (&[0, 2], &[0, 2]), wide);
        let logits = lax::transpose(&logits, &[0, 1, 3, 2, 4]);
        let mut logits = logits * scalar_tensor(scale, logits_dtype);
        if let Some(bias) = &self.bias {
            logits = jnp::astype(logits + grouped(&ensure_4d(bias), kh, g), logits_dtype);
        }
        let mask = self.combined_mask(t, s, kh, g);
        if let Some(mask) = mask {
            let f32_max = f64::from(f32::MAX);
            logits = jnp::where_(mask, &logits, scalar_tensor(-0.7 * f32_max, logits_dtype));
        }
        let probs = super::softmax(jnp::astype(&logits, DType::F32), -1);
        let probs = jnp::astype(probs, k.dtype());
        // [B, K, G, T, H] back to [B, T, N, H].
        let encoded = lax::dot_general(&probs, &v, (&[4], &[1]), (&[0, 1], &[0, 2]), None);
        let encoded = lax::transpose(&encoded, &[0, 3, 1, 2, 4]);
        let mut encoded = lax::reshape(&encoded, &[b, t, n, h]);
        if let Some(lens) = &self.q_seqlen {
            let pos = lax::iota(DType::I32, &[1, t, 1, 1], 1);
            let valid = jnp::less(pos, lens.reshape(&[b as isize, 1, 1, 1]));
            encoded = &encoded * jnp::astype(valid, encoded.dtype());
        }
        lax::reshape(&encoded, &out_shape)
    }

    /// The mask, the causal and window masks and the padding mask, combined, as
    /// `[B?, K?, G?, T, S]` (`None`: nothing masked).
    #[track_caller]
    fn combined_mask(&self, t: usize, s: usize, kh: usize, g: usize) -> Option<Tensor> {
        let qpos = lax::iota(DType::I32, &[t, s], 0);
        let kpos = lax::iota(DType::I32, &[t, s], 1);
        let mut masks: Vec<Tensor> = Vec::new();
        if let Some(m) = &self.mask {
            masks.push(grouped(&ensure_4d(m), kh, g));
        }
        if self.is_causal {
            masks.push(jnp::greater_equal(&qpos, &kpos));
        }
        if let Some((left, right)) = self.window {
            let lo = jnp::less_equal(&qpos, &kpos + left as i32);
            let hi = jnp::greater_equal(&qpos, &kpos - right as i32);
            masks.push(jnp::logical_and(lo, hi));
        }
        let padded = |lens: &Tensor, pos: &Tensor| {
            let n = lens.shape()[0] as isize;
            jnp::less(
                pos.reshape(&[1, 1, 1, t as isize, s as isize]),
                lens.reshape(&[n, 1, 1, 1, 1]),
            )
        };
        if let Some(lens) = &self.q_seqlen {
            masks.push(padded(lens, &qpos));
        }
        if let Some(lens) = &self.kv_seqlen {
            masks.push(padded(lens, &kpos));
        }
        masks.into_iter().reduce(jnp::logical_and)
    }
}

/// `x` with size-1 axes in front up to rank 4.
#[track_caller]
fn ensure_4d(x: &Tensor) -> Tensor {
    let mut shape = vec![1; 4usize.saturating_sub(x.ndim())];
    shape.extend_from_slice(x.shape());
    lax::reshape(x, &shape)
}

/// A `[B, N, T, S]` bias or mask as `[B, K, G, T, S]` (a single head broadcasts as
/// `[B, 1, 1, T, S]`).
#[track_caller]
fn grouped(x: &Tensor, kh: usize, g: usize) -> Tensor {
    let [b, n, t, s] = [x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]];
    if n == 1 {
        lax::reshape(x, &[b, 1, 1, t, s])
    } else {
        assert_eq!(
            n,
            kh * g,
            "dot_product_attention: bias or mask heads {n} != N"
        );
        lax::reshape(x, &[b, kh, g, t, s])
    }
}

/// [`DotProductAttention`] without options: `softmax(Q K^T / sqrt(H)) V`.
#[track_caller]
pub fn dot_product_attention(
    query: impl Into<Operand>,
    key: impl Into<Operand>,
    value: impl Into<Operand>,
) -> Tensor {
    let _line = crate::core::user_line();
    DotProductAttention::new(query, key, value).call()
}
