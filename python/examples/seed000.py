"""Seed 000: pairwise affinities of N images, the answer's three programs, on oxla.

The code below is the answer's JAX code (`../shared/seeds/000_*.txt`), with two changes:
the imports (`import oxla as jax`, `import oxla.numpy as jnp`) and oxla's memory keyword
(`memory_budget=`), which replaces the hand-written block loop. The answer's images
(`jnp.random.normal(size=...)`, which JAX does not have) are drawn with `jax.random`. The
third answer (`pmap` across devices) runs on two CPU devices (`XLA_FLAGS`, as in JAX); its
comments are translated.

Usage: python seed000.py [N] [H]   (the question's sizes: 10000 100)
"""

import os
import sys
import time

# Two CPU devices for the pmap answer, set as JAX users set them (before the import).
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import oxla as jax  # noqa: E402
import oxla.numpy as jnp  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 500
H = int(sys.argv[2]) if len(sys.argv) > 2 else 100
imgs = jax.random.normal(jax.random.PRNGKey(0), (N, H, H))


# 1. Affinities as matrix products.
def compute_affinity_matrix(imgs):
    # Flatten the images into an (N, H*W) matrix.
    imgs_flat = imgs.reshape(imgs.shape[0], -1)
    # One matrix product gives every pairwise inner product.
    return imgs_flat @ imgs_flat.T


def compute_cosine_affinity(imgs):
    imgs_flat = imgs.reshape(imgs.shape[0], -1)
    imgs_norm = imgs_flat / jnp.linalg.norm(imgs_flat, axis=1, keepdims=True)
    return imgs_norm @ imgs_norm.T


# 2. Blocked vmap, for an affinity that is not a matrix product.
def compute_affinity(img1, img2):
    return -jnp.sum(jnp.abs(img1 - img2))  # negative L1 distance


def block_vs_all_affinity(block, all_imgs):
    return jax.vmap(lambda x: jax.vmap(lambda y: compute_affinity(x, y))(all_imgs))(block)


def compute_all_affinities(imgs, block_size=100):
    N = imgs.shape[0]
    num_blocks = (N + block_size - 1) // block_size
    affinity_blocks = []
    for i in range(num_blocks):
        start_idx = i * block_size
        end_idx = min(start_idx + block_size, N)
        current_block = imgs[start_idx:end_idx]
        block_affinities = block_vs_all_affinity(current_block, imgs)
        affinity_blocks.append(block_affinities)
    return jnp.concatenate(affinity_blocks, axis=0)


# 3. Several devices sharing the memory (pmap with blocks).
def pmap_block_affinity(blocks, all_imgs):
    # Process several blocks in parallel across devices
    return jax.pmap(lambda block: block_vs_all_affinity(block, all_imgs))(blocks)


def compute_affinities_multi_device(imgs, block_size=100):
    N = imgs.shape[0]
    num_blocks = (N + block_size - 1) // block_size
    # Round the block count up to a multiple of the device count (jax.local_device_count())
    pad_blocks = num_blocks + (jax.local_device_count() - num_blocks % jax.local_device_count()) % jax.local_device_count()
    padded_imgs = jnp.pad(imgs, ((0, pad_blocks*block_size - N), (0,0), (0,0)))
    # Split the blocks among the devices
    device_blocks = padded_imgs.reshape(jax.local_device_count(), -1, 100, 100)
    # Compute in parallel
    device_affinities = pmap_block_affinity(device_blocks, imgs)
    # Join the results and drop the padding
    all_affinities = device_affinities.reshape(-1, N)[:N]
    return all_affinities


# oxla: the same affinities as one vmap, run in chunks that fit the budget.
def compute_all_affinities_budget(imgs, budget):
    return jax.vmap(lambda x: jax.vmap(lambda y: compute_affinity(x, y))(imgs),
                    memory_budget=budget)(imgs)


def timed(name, f, *args):
    t0 = time.perf_counter()
    r = f(*args).block_until_ready()
    print(f"{name:<34} {time.perf_counter() - t0:8.3f} s   sum of the first 4x4: "
          f"{float(jnp.sum(r[:4, :4])):.6g}")
    return r


print(f"{N} images of {H}x{H}")
timed("inner products (matmul)", compute_affinity_matrix, imgs)
timed("cosine", compute_cosine_affinity, imgs)
blocked = timed("negative L1, blocks of 20", compute_all_affinities, imgs, 20)
budget = timed("negative L1, memory_budget=256 MiB", compute_all_affinities_budget, imgs, 256 << 20)
print("blocked and budgeted agree:", bool(jnp.allclose(blocked, budget)))
if H == 100:  # the answer's pmap program hard-codes 100x100 images
    devices = timed(f"negative L1, pmap over {jax.local_device_count()} devices",
                    compute_affinities_multi_device, imgs)
    print("pmap and budgeted agree:", bool(jnp.allclose(devices, budget)))
plan = jax.explain(lambda a: jax.vmap(lambda x: jax.vmap(lambda y: compute_affinity(x, y))(a))(a),
                   imgs)
print("the unchunked vmap's plan, before running anything:")
print(plan)
