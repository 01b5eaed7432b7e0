# Issue 18 workload: the gradient of a 1000-step tanh RNN's loss through lax.scan, jit(grad(loss)).
# Usage: python rnn.py STEPS BATCH INPUT HIDDEN
import sys, time, resource
import jax, jax.numpy as jnp
T, B, D, H = (int(a) for a in sys.argv[1:5])
k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
params = (jax.random.normal(k1, (H, H)) * (1.0 / H ** 0.5), jax.random.normal(k2, (D, H)) * (1.0 / D ** 0.5), jnp.zeros(H))
xs = jax.random.normal(k3, (T, B, D))
def loss(p, xs):
    wh, wx, b = p
    def step(h, x):
        h = jnp.tanh(h @ wh + x @ wx + b)
        return h, jnp.sum(h * h)
    _, ys = jax.lax.scan(step, jnp.zeros((B, H)), xs)
    return jnp.mean(ys)
g = jax.jit(jax.grad(loss))
t0 = time.time(); out = g(params, xs); jax.block_until_ready(out); t1 = time.time()
n = 10
for _ in range(n): out = g(params, xs)
jax.block_until_ready(out); t2 = time.time()
print("rnn first_s", round(t1 - t0, 4), "steady_ms", round((t2 - t1) / n * 1000, 3), "checksum", float(jnp.sum(out[0])))
print("peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
