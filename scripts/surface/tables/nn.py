"""`jax.nn`: activations, normalisations, attention. (the table `crates/oxla/tests/surface/nn.rs`).

Each activation has a row on values in [-3, 3] (values, vmap, vjp and finite differences)
and an `_edges` row on NaN, +-inf, +-0, +-50 and the kinks, whose input passes through
`stop_gradient`: those rows check values only (oxla's custom derivatives drop the tangent
at non-finite inputs, where JAX's rules give non-finite ones).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges

EDGES = (np.nan, np.inf, -np.inf, 0.0, -0.0, 50.0, -50.0, 1.0, -1.0, 6.0, 3.0, -3.0)


def x_in(rng):
    return [f32(rng, (3, 4), -3, 3)]


def edge_in(rng):
    return [with_edges(f32(rng, (3, 4), -3, 3), EDGES)]


def sg(x):
    return lax.stop_gradient(x)


def unary(name, fn, inputs=x_in):
    case(name, inputs)(fn)
    case(name + "_edges", edge_in)(lambda x: fn(sg(x)))


unary("identity", jax.nn.identity)
unary("relu", jax.nn.relu)
unary("relu6", jax.nn.relu6)
unary("sigmoid", jax.nn.sigmoid)
unary("hard_sigmoid", jax.nn.hard_sigmoid)
unary("hard_silu", jax.nn.hard_silu)
unary("hard_swish", jax.nn.hard_swish)
unary("hard_tanh", jax.nn.hard_tanh)
unary("tanh", jax.nn.tanh)
unary("squareplus", jax.nn.squareplus)
unary("squareplus_b", lambda x: jax.nn.squareplus(x, 1.5))
unary("softplus", jax.nn.softplus)
unary("sparse_plus", jax.nn.sparse_plus)
unary("soft_sign", jax.nn.soft_sign)
unary("sparse_sigmoid", jax.nn.sparse_sigmoid)
unary("silu", jax.nn.silu)
unary("swish", jax.nn.swish)
unary("mish", jax.nn.mish)
unary("log_sigmoid", jax.nn.log_sigmoid)
unary("elu", jax.nn.elu)
unary("elu_alpha", lambda x: jax.nn.elu(x, 0.5))
unary("leaky_relu", jax.nn.leaky_relu)
unary("leaky_relu_slope", lambda x: jax.nn.leaky_relu(x, 0.2))
unary("celu", jax.nn.celu)
unary("celu_alpha", lambda x: jax.nn.celu(x, 0.7))
unary("selu", jax.nn.selu)
unary("glu", jax.nn.glu)
unary("glu_axis0", lambda x: jax.nn.glu(x.T, 0))


@case("log1mexp", lambda rng: [f32(rng, (3, 4), 0.05, 4)])
def _(x):
    return jax.nn.log1mexp(x)


@case("log1mexp_edges", lambda rng: [with_edges(f32(rng, (3, 4), 0, 4), (np.nan, np.inf, 0.0, 1e-6, 0.69, 0.7, 50.0))])
def _(x):
    return jax.nn.log1mexp(sg(x))


@case("relu6_kinks", lambda rng: [ties_f32(rng, (3, 4), -1, 8)])
def _(x):
    # At the kinks 0 and 6 the derivative is JAX's rule (0), not a difference quotient.
    return jax.nn.relu6(x)


@case("relu_kinks", lambda rng: [ties_f32(rng, (3, 4), -1, 2)])
def _(x):
    return jax.nn.relu(x)


@case("softplus_wide", lambda rng: [f32(rng, (3, 4), -40, 40)])
def _(x):
    return jax.nn.softplus(x)


@case("elu_small", lambda rng: [f32(rng, (3, 4), -1e-3, 1e-3)])
def _(x):
    # expm1 near 0: exp(x) - 1 would lose the digits.
    return jax.nn.elu(x)


# Softmax and friends.
@case("softmax", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.softmax(x)


@case("softmax_axis0", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.softmax(x, axis=0)


@case("log_softmax", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.log_softmax(x)


@case("log_softmax_axes", lambda rng: [f32(rng, (2, 3, 4), -3, 3)])
def _(x):
    return jax.nn.log_softmax(x, axis=(0, 2))


def masked_in(rng):
    m = rng.integers(0, 2, size=(3, 4)).astype(np.bool_)
    m[:, 0] = True
    return [f32(rng, (3, 4), -3, 3), m]


@case("softmax_where", masked_in)
def _(x, m):
    return jax.nn.softmax(x, axis=-1, where=m)


@case("log_softmax_where", masked_in)
def _(x, m):
    return jax.nn.log_softmax(x, axis=-1, where=m)


@case("logsumexp", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.logsumexp(x)


@case("logsumexp_axis", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.logsumexp(x, axis=1)


@case("logsumexp_keepdims", lambda rng: [f32(rng, (2, 3, 4), -3, 3)])
def _(x):
    return jax.nn.logsumexp(x, axis=(0, 2), keepdims=True)


@case("logsumexp_edges", lambda rng: [with_edges(f32(rng, (4, 3), -3, 3), (np.nan, 1.0, 2.0, np.inf, 0.0, 1.0, -np.inf, -np.inf, -np.inf, 80.0, 90.0, 100.0))])
def _(x):
    return jax.nn.logsumexp(sg(x), axis=1)


@case("logsumexp_b", lambda rng: [f32(rng, (3, 4), -3, 3), f32(rng, (3, 4), -1, 1)])
def _(x, b):
    return jax.nn.logsumexp(x, axis=1, b=b)


@case("logsumexp_b_sign", lambda rng: [f32(rng, (3, 4), -3, 3), f32(rng, (3, 4), -1, 1)])
def _(x, b):
    return jax.nn.logsumexp(x, axis=1, b=b, return_sign=True)


@case("logsumexp_b_zero", lambda rng: [f32(rng, (3, 4), -3, 3), ties_f32(rng, (4,), 0, 2)])
def _(x, b):
    return jax.nn.logsumexp(x, axis=-1, b=b)


@case("logsumexp_where", masked_in)
def _(x, m):
    return jax.nn.logsumexp(x, axis=1, where=m)


@case("logmeanexp", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.logmeanexp(x, axis=0)


@case("logmeanexp_where", masked_in)
def _(x, m):
    return jax.nn.logmeanexp(x, axis=1, where=m)


@case("standardize", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.standardize(x)


@case("standardize_stable", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return jax.nn.standardize(x, axis=0, algorithm="stable", epsilon=1e-3)


@case("standardize_given", lambda rng: [f32(rng, (3, 4), -3, 3), f32(rng, (3, 1), -1, 1), f32(rng, (3, 1), 0.5, 2)])
def _(x, m, v):
    return jax.nn.standardize(x, mean=m, variance=v)


@case("standardize_where", masked_in)
def _(x, m):
    return jax.nn.standardize(x, axis=1, where=m)


@case("one_hot", lambda rng: [i32(rng, (3, 4), -1, 6)], grad=False)
def _(x):
    return jax.nn.one_hot(x, 5)


# Attention: B=2, T=3, S=4, N=4 query heads over K=2 key/value heads, H=5.
def qkv(rng, t=3, s=4, n=4, k=2, h=5, b=2):
    return [f32(rng, (b, t, n, h)), f32(rng, (b, s, k, h)), f32(rng, (b, s, k, h))]


@case("attention", qkv)
def _(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, implementation="xla")


@case("attention_mha_causal", lambda rng: qkv(rng, t=4, k=4))
def _(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, is_causal=True, scale=0.7, implementation="xla")


@case("attention_bias_mask", lambda rng: qkv(rng) + [f32(rng, (1, 4, 3, 4)), rng.integers(0, 2, size=(2, 1, 3, 4)).astype(np.bool_)])
def _(q, k, v, bias, mask):
    return jax.nn.dot_product_attention(q, k, v, bias=bias, mask=mask, implementation="xla")


@case("attention_seqlens", lambda rng: qkv(rng) + [np.array([2, 3], np.int32), np.array([4, 1], np.int32)])
def _(q, k, v, ql, kl):
    return jax.nn.dot_product_attention(
        q, k, v, query_seq_lengths=ql, key_value_seq_lengths=kl, implementation="xla")


@case("attention_window", lambda rng: qkv(rng, t=5, s=5, k=1))
def _(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, local_window_size=(1, 2), implementation="xla")


@case("attention_unbatched", lambda rng: [a[0] for a in qkv(rng)])
def _(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, implementation="xla")


unary("gelu", jax.nn.gelu)
unary("gelu_exact", lambda x: jax.nn.gelu(x, approximate=False))
