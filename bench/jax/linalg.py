# Linear algebra workload: jit(vmap(cholesky and solve)) over a batch of SPD matrices.
# Usage: python linalg.py BATCH N
import os, sys, time, resource
# JAX 0.10.2's CPU runtime deadlocks on this program at batch >= 600 on a 2-core machine
# (every thread idle, the caller waiting on the result) under its default
# concurrency-optimized scheduler; the plain scheduler runs it.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + " --xla_cpu_enable_concurrency_optimized_scheduler=false").strip()
import jax, jax.numpy as jnp
B = int(sys.argv[1]); N = int(sys.argv[2])
a = jax.random.normal(jax.random.PRNGKey(0), (B, N, N))
spd = a @ jnp.swapaxes(a, -1, -2) / N + jnp.eye(N)
b = jax.random.normal(jax.random.PRNGKey(1), (B, N))
def one(m, v):
    return jnp.linalg.cholesky(m), jnp.linalg.solve(m, v)
f = jax.jit(jax.vmap(one))
t0 = time.perf_counter(); l, x = f(spd, b); jax.block_until_ready((l, x)); t1 = time.perf_counter()
n = 10
for _ in range(n): l, x = f(spd, b)
jax.block_until_ready((l, x)); t2 = time.perf_counter()
print("first_s", round(t1 - t0, 4), "steady_ms", round((t2 - t1) / n * 1000, 3),
      "checksum", float(jnp.sum(l) + jnp.sum(x)))
print("peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
