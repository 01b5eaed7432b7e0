"""Seed 002: combining vmap with jit and grad (the tutorial's four programs), on oxla.

The code is the tutorial's (`../shared/seeds/002_*.txt`, comments translated), with the
imports changed to oxla's and nothing else.

Usage: python seed002.py
"""

import time

import oxla as jax
import oxla.numpy as jnp


# --- Combining vmap and jit ---
def predict(params, x):
    # A linear model: w*x + b
    w, b = params
    return w * x + b


key = jax.random.PRNGKey(0)
params = (jnp.array(2.0), jnp.array(1.0))  # (w, b)
batch_x = jnp.arange(10000.0)
# Map over batch_x (axis 0), keeping params fixed (None).
batched_predict_vmap = jax.vmap(predict, in_axes=(None, 0))
jitted_batched_predict = jax.jit(batched_predict_vmap)

start_time = time.time()
result_vmap = batched_predict_vmap(params, batch_x).block_until_ready()
print(f"vmap alone: {time.time() - start_time:.6f} s")
start_time = time.time()
result_jit_vmap = jitted_batched_predict(params, batch_x).block_until_ready()
print(f"jit(vmap(...)) first run: {time.time() - start_time:.6f} s")
start_time = time.time()
result_jit_vmap_again = jitted_batched_predict(params, batch_x).block_until_ready()
print(f"jit(vmap(...)) second run: {time.time() - start_time:.6f} s")
print(f"results match: {jnp.allclose(result_vmap, result_jit_vmap)}")


# --- Combining vmap and grad: per-example gradients ---
def squared_error(params, x, y_true):
    w, b = params
    y_pred = w * x + b
    loss = (y_pred - y_true) ** 2
    return loss


grad_loss_single = jax.grad(squared_error, argnums=0)
key = jax.random.PRNGKey(1)
params = (jnp.array(2.0), jnp.array(1.0))  # (w, b)
batch_x = jnp.linspace(0, 1, 5)
batch_y_true = 2.5 * batch_x + 0.5  # the true relation: w=2.5, b=0.5
grad_loss_batch = jax.vmap(grad_loss_single, in_axes=(None, 0, 0))
batch_gradients = grad_loss_batch(params, batch_x, batch_y_true)
print("params (w, b):", params)
print("batch x:", batch_x)
print("batch y_true:", batch_y_true)
print("\nper-example gradients (dw):", batch_gradients[0])
print("per-example gradients (db):", batch_gradients[1])
print("\nshape of dw:", batch_gradients[0].shape)  # (5,)
print("shape of db:", batch_gradients[1].shape)  # (5,)


# --- The mean gradient: vmap inside the loss ---
def mean_squared_error(params, batch_x, batch_y_true):
    batched_predict = jax.vmap(predict, in_axes=(None, 0))
    batch_y_pred = batched_predict(params, batch_x)
    loss = jnp.mean((batch_y_pred - batch_y_true) ** 2)
    return loss


grad_mean_loss = jax.grad(mean_squared_error, argnums=0)
mean_batch_gradient = grad_mean_loss(params, batch_x, batch_y_true)
print("\n--- mean gradient ---")
print("mean batch gradient (dw, db):", mean_batch_gradient)
print("shape of the mean dw:", mean_batch_gradient[0].shape)  # ()
print("shape of the mean db:", mean_batch_gradient[1].shape)  # ()
print("mean of the per-example dw:", jnp.mean(batch_gradients[0]))
print("mean of the per-example db:", jnp.mean(batch_gradients[1]))
print(f"mean gradients match: {jnp.allclose(mean_batch_gradient[0], jnp.mean(batch_gradients[0]))}")

# --- jit(vmap(grad(f))) ---
grad_loss_single = jax.grad(squared_error, argnums=0)
vmap_grad_loss = jax.vmap(grad_loss_single, in_axes=(None, 0, 0))
jit_vmap_grad_loss = jax.jit(vmap_grad_loss)
key = jax.random.PRNGKey(42)
large_batch_size = 100000
params = (jnp.array(2.0), jnp.array(1.0))  # (w, b)
large_batch_x = jax.random.uniform(key, (large_batch_size,))
large_batch_y_true = 2.5 * large_batch_x + 0.5 + 0.1 * jax.random.normal(key, (large_batch_size,))
start_time = time.time()
per_example_grads = jit_vmap_grad_loss(params, large_batch_x, large_batch_y_true)
per_example_grads[0].block_until_ready()
per_example_grads[1].block_until_ready()
print(f"\njit(vmap(grad(...))) first run: {time.time() - start_time:.6f} s")
start_time = time.time()
per_example_grads_again = jit_vmap_grad_loss(params, large_batch_x, large_batch_y_true)
per_example_grads_again[0].block_until_ready()
per_example_grads_again[1].block_until_ready()
print(f"jit(vmap(grad(...))) second run: {time.time() - start_time:.6f} s")
print(f"\nshape of the per-example dw: {per_example_grads[0].shape}")
print(f"shape of the per-example db: {per_example_grads[1].shape}")
