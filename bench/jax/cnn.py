# Issue 18 workloads: per-example gradients of a small CNN (two 3x3 convolutions, 28x28
# inputs), jit(vmap(grad(loss))); and one 3x3 SAME convolution, NHWC.
# Usage: python cnn.py per_example BATCH | python cnn.py conv BATCH SIDE CHANNELS
import sys, time, resource
import jax, jax.numpy as jnp
from jax import lax

NHWC = ("NHWC", "HWIO", "NHWC")


def conv(x, w, s):
    return lax.conv_general_dilated(x, w, (s, s), "SAME", dimension_numbers=NHWC)


def timed(name, f, *args):
    t0 = time.time(); out = f(*args); jax.block_until_ready(out); t1 = time.time()
    n = 20
    for _ in range(n): out = f(*args)
    jax.block_until_ready(out); t2 = time.time()
    return out, f"{name} first_s {round(t1 - t0, 4)} steady_ms {round((t2 - t1) / n * 1000, 3)}"


mode = sys.argv[1]
if mode == "per_example":
    B = int(sys.argv[2])
    k = jax.random.split(jax.random.PRNGKey(0), 4)
    params = (jax.random.normal(k[0], (3, 3, 1, 8)) / 3.0, jnp.zeros(8),
              jax.random.normal(k[1], (3, 3, 8, 16)) / 72 ** 0.5, jnp.zeros(16),
              jax.random.normal(k[2], (16, 10)) * 0.25, jnp.zeros(10))
    x = jax.random.normal(k[3], (B, 28, 28, 1))
    y = jax.nn.one_hot(jnp.arange(B) % 10, 10)

    def loss(p, x, y):
        w1, b1, w2, b2, w3, b3 = p
        h = jnp.tanh(conv(x.reshape(1, 28, 28, 1), w1, 1) + b1)
        h = jnp.tanh(conv(h, w2, 2) + b2)
        f = jnp.mean(h.reshape(196, 16), 0)
        return -jnp.sum(y * jax.nn.log_softmax(f @ w3 + b3))

    out, line = timed("cnn", jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))), params, x, y)
    print(line, "checksum", float(jnp.sum(out[2])))
else:
    B, S, C = (int(a) for a in sys.argv[2:5])
    k = jax.random.split(jax.random.PRNGKey(1), 2)
    x = jax.random.normal(k[0], (B, S, S, C))
    w = jax.random.normal(k[1], (3, 3, C, C)) / (9 * C) ** 0.5
    out, line = timed("conv", jax.jit(lambda x, w: conv(x, w, 1)), x, w)
    print(line, "checksum", float(jnp.sum(out)))
print("peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
