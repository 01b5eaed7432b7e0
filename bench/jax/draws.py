# Issue 20 workload: 20M standard normals (seed 000's images at N=2000), eagerly and under jit.
# Usage: python draws.py N   (draws N x 100 x 100)
import sys, time, resource
import numpy as np
import jax
N = int(sys.argv[1])
key = jax.random.PRNGKey(0)
shape = (N, 100, 100)
jitted = jax.jit(lambda k: jax.random.normal(k, shape))
for name, draw in (("normal_eager", lambda: jax.random.normal(key, shape)), ("normal_jit", lambda: jitted(key))):
    t0 = time.time(); out = draw(); jax.block_until_ready(out); t1 = time.time()
    n = 10
    for _ in range(n): out = draw(); jax.block_until_ready(out)
    t2 = time.time()
    checksum = float(np.asarray(out, dtype=np.float64).sum())
    print(name, "first_s", round(t1 - t0, 4), "steady_ms", round((t2 - t1) / n * 1000, 3), "checksum", checksum)
print("peak_rss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
