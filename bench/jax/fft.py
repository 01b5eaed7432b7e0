# Issue 18 workload: jnp.fft.rfft2 of a batch of f32 images, jit(rfft2).
# Usage: python fft.py BATCH SIZE
import sys, time, resource
import jax, jax.numpy as jnp
B, N = (int(a) for a in sys.argv[1:3])
x = jax.random.normal(jax.random.PRNGKey(0), (B, N, N))
f = jax.jit(jnp.fft.rfft2)
t0 = time.time(); out = f(x); jax.block_until_ready(out); t1 = time.time()
n = 10
for _ in range(n): out = f(x)
jax.block_until_ready(out); t2 = time.time()
print("rfft2 first_s", round(t1 - t0, 4), "steady_ms", round((t2 - t1) / n * 1000, 3), "checksum", float(jnp.sum(jnp.real(out))))
print("peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
