//! `jax.nn`: activations, normalisations, attention. One row a golden case of
//! `scripts/surface/tables/nn.py`.
//!
//! The `_edges` rows pass their input through `stop_gradient` (on both sides): they check
//! values at NaN, ±inf, ±0 and the kinks only, since oxla's custom derivatives (`relu6`,
//! `softplus`, `log1mexp`, `expm1` in `elu`/`celu`/`selu`) drop the tangent at non-finite
//! inputs where JAX's rules give non-finite ones. `relu_kinks` and `relu6_kinks` sit on the
//! kinks, where JAX's derivative is its rule's (0), not a difference quotient: `nofd`.
//! The edge rows are `nofd` too (differences at NaN and inf are NaN), and so are:
//! `log_softmax_where` (`-inf` at masked elements), `logsumexp_b` (NaN where a sum is
//! negative), `logsumexp_b_zero` (as JAX, `b == 0` masks `a` to `-inf`, so the derivative in
//! `b` there is 0, not the difference quotient), and the attention rows (as JAX's `xla`
//! implementation, the softmax runs in `f32` even for `f64` inputs, so f64 differences see
//! f32 rounding); their vjps are checked against JAX's.

use oxla::lax::stop_gradient as sg;
use oxla::nn;
use oxla::Tensor;

fn t(a: &Tensor) -> Tensor {
    a.t()
}

surface! {
    identity: |a| vec![nn::identity(&a[0])];
    identity_edges [nofd]: |a| vec![nn::identity(sg(&a[0]))];
    relu: |a| vec![nn::relu(&a[0])];
    relu_edges [nofd]: |a| vec![nn::relu(sg(&a[0]))];
    relu6: |a| vec![nn::relu6(&a[0])];
    relu6_edges [nofd]: |a| vec![nn::relu6(sg(&a[0]))];
    sigmoid: |a| vec![nn::sigmoid(&a[0])];
    sigmoid_edges [nofd]: |a| vec![nn::sigmoid(sg(&a[0]))];
    hard_sigmoid: |a| vec![nn::hard_sigmoid(&a[0])];
    hard_sigmoid_edges [nofd]: |a| vec![nn::hard_sigmoid(sg(&a[0]))];
    hard_silu: |a| vec![nn::hard_silu(&a[0])];
    hard_silu_edges [nofd]: |a| vec![nn::hard_silu(sg(&a[0]))];
    hard_swish: |a| vec![nn::hard_swish(&a[0])];
    hard_swish_edges [nofd]: |a| vec![nn::hard_swish(sg(&a[0]))];
    hard_tanh: |a| vec![nn::hard_tanh(&a[0])];
    hard_tanh_edges [nofd]: |a| vec![nn::hard_tanh(sg(&a[0]))];
    tanh: |a| vec![nn::tanh(&a[0])];
    tanh_edges [nofd]: |a| vec![nn::tanh(sg(&a[0]))];
    squareplus: |a| vec![nn::squareplus(&a[0], 4)];
    squareplus_edges [nofd]: |a| vec![nn::squareplus(sg(&a[0]), 4)];
    squareplus_b: |a| vec![nn::squareplus(&a[0], 1.5)];
    squareplus_b_edges [nofd]: |a| vec![nn::squareplus(sg(&a[0]), 1.5)];
    softplus: |a| vec![nn::softplus(&a[0])];
    softplus_edges [nofd]: |a| vec![nn::softplus(sg(&a[0]))];
    sparse_plus: |a| vec![nn::sparse_plus(&a[0])];
    sparse_plus_edges [nofd]: |a| vec![nn::sparse_plus(sg(&a[0]))];
    soft_sign: |a| vec![nn::soft_sign(&a[0])];
    soft_sign_edges [nofd]: |a| vec![nn::soft_sign(sg(&a[0]))];
    sparse_sigmoid: |a| vec![nn::sparse_sigmoid(&a[0])];
    sparse_sigmoid_edges [nofd]: |a| vec![nn::sparse_sigmoid(sg(&a[0]))];
    silu: |a| vec![nn::silu(&a[0])];
    silu_edges [nofd]: |a| vec![nn::silu(sg(&a[0]))];
    swish: |a| vec![nn::swish(&a[0])];
    swish_edges [nofd]: |a| vec![nn::swish(sg(&a[0]))];
    mish: |a| vec![nn::mish(&a[0])];
    mish_edges [nofd]: |a| vec![nn::mish(sg(&a[0]))];
    log_sigmoid: |a| vec![nn::log_sigmoid(&a[0])];
    log_sigmoid_edges [nofd]: |a| vec![nn::log_sigmoid(sg(&a[0]))];
    elu: |a| vec![nn::elu(&a[0], 1.0)];
    elu_edges [nofd]: |a| vec![nn::elu(sg(&a[0]), 1.0)];
    elu_alpha: |a| vec![nn::elu(&a[0], 0.5)];
    elu_alpha_edges [nofd]: |a| vec![nn::elu(sg(&a[0]), 0.5)];
    leaky_relu: |a| vec![nn::leaky_relu(&a[0], 1e-2)];
    leaky_relu_edges [nofd]: |a| vec![nn::leaky_relu(sg(&a[0]), 1e-2)];
    leaky_relu_slope: |a| vec![nn::leaky_relu(&a[0], 0.2)];
    leaky_relu_slope_edges [nofd]: |a| vec![nn::leaky_relu(sg(&a[0]), 0.2)];
    celu: |a| vec![nn::celu(&a[0], 1.0)];
    celu_edges [nofd]: |a| vec![nn::celu(sg(&a[0]), 1.0)];
    celu_alpha: |a| vec![nn::celu(&a[0], 0.7)];
    celu_alpha_edges [nofd]: |a| vec![nn::celu(sg(&a[0]), 0.7)];
    selu: |a| vec![nn::selu(&a[0])];
    selu_edges [nofd]: |a| vec![nn::selu(sg(&a[0]))];
    glu: |a| vec![nn::glu(&a[0], -1)];
    glu_edges [nofd]: |a| vec![nn::glu(sg(&a[0]), -1)];
    glu_axis0: |a| vec![nn::glu(t(&a[0]), 0)];
    glu_axis0_edges [nofd]: |a| vec![nn::glu(t(&sg(&a[0])), 0)];
    log1mexp: |a| vec![nn::log1mexp(&a[0])];
    log1mexp_edges [nofd]: |a| vec![nn::log1mexp(sg(&a[0]))];
    relu6_kinks [nofd]: |a| vec![nn::relu6(&a[0])];
    relu_kinks [nofd]: |a| vec![nn::relu(&a[0])];
    softplus_wide: |a| vec![nn::softplus(&a[0])];
    elu_small: |a| vec![nn::elu(&a[0], 1.0)];
    softmax: |a| vec![nn::softmax(&a[0], -1)];
    softmax_axis0: |a| vec![nn::softmax(&a[0], 0)];
    log_softmax: |a| vec![nn::log_softmax(&a[0], -1)];
    log_softmax_axes: |a| vec![nn::log_softmax(&a[0], (0, 2))];
    softmax_where: |a| vec![nn::softmax_where(&a[0], -1, &a[1])];
    log_softmax_where [nofd]: |a| vec![nn::log_softmax_where(&a[0], -1, &a[1])];
    logsumexp: |a| vec![nn::logsumexp(&a[0], None)];
    logsumexp_axis: |a| vec![nn::logsumexp(&a[0], 1)];
    logsumexp_keepdims: |a| vec![nn::logsumexp(&a[0], oxla::numpy::keepdims((0, 2)))];
    logsumexp_edges [nofd]: |a| vec![nn::logsumexp(sg(&a[0]), 1)];
    logsumexp_b [nofd]: |a| vec![nn::LogSumExp::new(&a[0], 1).b(&a[1]).call()];
    logsumexp_b_sign: |a| {
        let (out, sign) = nn::LogSumExp::new(&a[0], 1).b(&a[1]).with_sign();
        vec![out, sign]
    };
    logsumexp_b_zero [nofd]: |a| vec![nn::LogSumExp::new(&a[0], -1).b(&a[1]).call()];
    logsumexp_where: |a| vec![nn::LogSumExp::new(&a[0], 1).where_(&a[1]).call()];
    logmeanexp: |a| vec![nn::logmeanexp(&a[0], 0, None)];
    logmeanexp_where: |a| vec![nn::logmeanexp(&a[0], 1, Some(&a[1]))];
    standardize: |a| vec![nn::standardize(&a[0], -1)];
    standardize_stable: |a| vec![nn::Standardize::new(&a[0], 0).stable().epsilon(1e-3).call()];
    standardize_given: |a| vec![nn::Standardize::new(&a[0], -1).mean(&a[1]).variance(&a[2]).call()];
    standardize_where: |a| vec![nn::Standardize::new(&a[0], 1).where_(&a[1]).call()];
    one_hot: |a| vec![nn::one_hot(&a[0], 5)];
    attention [nofd]: |a| vec![nn::dot_product_attention(&a[0], &a[1], &a[2])];
    attention_mha_causal [nofd]: |a| {
        vec![nn::DotProductAttention::new(&a[0], &a[1], &a[2]).is_causal().scale(0.7).call()]
    };
    attention_bias_mask [nofd]: |a| {
        vec![nn::DotProductAttention::new(&a[0], &a[1], &a[2]).bias(&a[3]).mask(&a[4]).call()]
    };
    attention_seqlens [nofd]: |a| {
        vec![nn::DotProductAttention::new(&a[0], &a[1], &a[2])
            .query_seq_lengths(&a[3])
            .key_value_seq_lengths(&a[4])
            .call()]
    };
    attention_window [nofd]: |a| {
        vec![nn::DotProductAttention::new(&a[0], &a[1], &a[2]).local_window_size(1, 2).call()]
    };
    gelu: |a| vec![nn::gelu(&a[0], true)];
    gelu_edges [nofd]: |a| vec![nn::gelu(sg(&a[0]), true)];
    gelu_exact: |a| vec![nn::gelu(&a[0], false)];
    gelu_exact_edges [nofd]: |a| vec![nn::gelu(sg(&a[0]), false)];
    attention_unbatched [nofd]: |a| vec![nn::dot_product_attention(&a[0], &a[1], &a[2])];
}
