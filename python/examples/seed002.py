import oxla as jax
import oxla.numpy as jnp
import time

# 定义一个处理单个数据点的函数
def predict(params, x):
  # 一个简单的线性模型：w*x + b
  w, b = params
  return w * x + b

# 创建一些示例参数和一批数据
key = jax.random.PRNGKey(0)
params = (jnp.array(2.0), jnp.array(1.0)) # (w, b)
batch_x = jnp.arange(10000.0)

# 1. 使用 vmap 对 predict 函数进行向量化
#    在 batch_x 上映射（轴 0），但保持 params 不变 (None)
batched_predict_vmap = jax.vmap(predict, in_axes=(None, 0))

# 2. 使用 jit 编译向量化函数
jitted_batched_predict = jax.jit(batched_predict_vmap)

# --- 计时比较 ---

# 运行 vmap 版本（不带 JIT）
start_time = time.time()
result_vmap = batched_predict_vmap(params, batch_x).block_until_ready()
duration_vmap = time.time() - start_time
print(f"仅 vmap 的执行时间: {duration_vmap:.6f} 秒")

# 运行 JIT 编译的 vmap 版本（首次运行包含编译时间）
start_time = time.time()
result_jit_vmap = jitted_batched_predict(params, batch_x).block_until_ready()
duration_jit_vmap_first = time.time() - start_time
print(f"jit(vmap(...)) 执行时间（首次运行）: {duration_jit_vmap_first:.6f} 秒")

# 再次运行 JIT 编译的 vmap 版本（应该更快）
start_time = time.time()
result_jit_vmap_again = jitted_batched_predict(params, batch_x).block_until_ready()
duration_jit_vmap_second = time.time() - start_time
print(f"jit(vmap(...)) 执行时间（第二次运行）: {duration_jit_vmap_second:.6f} 秒")

# 检查结果是否相同
print(f"结果匹配: {jnp.allclose(result_vmap, result_jit_vmap)}")


import oxla as jax
import oxla.numpy as jnp

# 示例：单个数据点的平方误差损失
def squared_error(params, x, y_true):
  w, b = params
  y_pred = w * x + b
  loss = (y_pred - y_true)**2
  return loss

# 计算单个数据点关于参数（第0个参数）的梯度函数
grad_loss_single = jax.grad(squared_error, argnums=0)

# 示例参数和一批数据 (x, y_true)
key = jax.random.PRNGKey(1)
params = (jnp.array(2.0), jnp.array(1.0)) # (w, b)
batch_x = jnp.linspace(0, 1, 5)
batch_y_true = 2.5 * batch_x + 0.5 # 真实关系：w=2.5, b=0.5

# 对梯度函数进行向量化：
# 在 batch_x（轴 0）和 batch_y_true（轴 0）上映射
# 保持 params 在所有计算中不变 (None)
grad_loss_batch = jax.vmap(grad_loss_single, in_axes=(None, 0, 0))

# 计算整个批次的梯度
batch_gradients = grad_loss_batch(params, batch_x, batch_y_true)

# batch_gradients 将是一个元组 (dw, db)。dw 和 db 均为数组，它们包含为批次中每个项目计算的梯度。
print("参数 (w, b):", params)
print("批次 x:", batch_x)
print("批次 y_true:", batch_y_true)
print("\n每个示例的梯度 (dw):", batch_gradients[0])
print("每个示例的梯度 (db):", batch_gradients[1])
print("\ndw 的形状:", batch_gradients[0].shape) # 应该为 (5,)
print("db 的形状:", batch_gradients[1].shape) # 应该为 (5,)


import oxla as jax
import oxla.numpy as jnp

# 示例：批次上的均方误差损失
def mean_squared_error(params, batch_x, batch_y_true):
  # 在损失函数*内部*使用 vmap 进行预测
  # 注意：这通常不如 vmap(grad(...)) 明确
  batched_predict = jax.vmap(predict, in_axes=(None, 0))
  batch_y_pred = batched_predict(params, batch_x)
  loss = jnp.mean((batch_y_pred - batch_y_true)**2)
  return loss

# 计算*平均*损失关于参数的梯度
grad_mean_loss = jax.grad(mean_squared_error, argnums=0)

# 计算表示批次平均梯度的单个梯度向量
mean_batch_gradient = grad_mean_loss(params, batch_x, batch_y_true)

print("\n--- 平均梯度 ---")
print("平均批次梯度 (dw, db):", mean_batch_gradient)
print("平均 dw 的形状:", mean_batch_gradient[0].shape) # 应该为 () - 标量
print("平均 db 的形状:", mean_batch_gradient[1].shape) # 应该为 () - 标量

# 你可以验证这与每个示例梯度的平均值匹配
print("每个示例 dw 的平均值:", jnp.mean(batch_gradients[0]))
print("每个示例 db 的平均值:", jnp.mean(batch_gradients[1]))
print(f"平均梯度匹配: {jnp.allclose(mean_batch_gradient[0], jnp.mean(batch_gradients[0]))}")


import oxla as jax
import oxla.numpy as jnp
import time

# 使用之前定义的单个示例的 squared_error
def squared_error(params, x, y_true):
  w, b = params
  y_pred = w * x + b
  loss = (y_pred - y_true)**2
  return loss

# 1. 获取单个示例关于参数的梯度函数
grad_loss_single = jax.grad(squared_error, argnums=0)

# 2. 对单个示例的梯度函数进行向量化
#    在 batch_x（轴 0）和 batch_y_true（轴 0）上映射
#    保持 params 固定 (None)
vmap_grad_loss = jax.vmap(grad_loss_single, in_axes=(None, 0, 0))

# 3. 编译向量化梯度函数
jit_vmap_grad_loss = jax.jit(vmap_grad_loss)

# 准备更大的批次数据用于计时
key = jax.random.PRNGKey(42)
large_batch_size = 100000
params = (jnp.array(2.0), jnp.array(1.0)) # (w, b)
large_batch_x = jax.random.uniform(key, (large_batch_size,))
large_batch_y_true = 2.5 * large_batch_x + 0.5 + 0.1 * jax.random.normal(key, (large_batch_size,))

# --- 计时 ---

# 运行编译过的函数（包含编译时间）
start_time = time.time()
per_example_grads = jit_vmap_grad_loss(params, large_batch_x, large_batch_y_true)
# 等待计算完成再停止计时
per_example_grads[0].block_until_ready()
per_example_grads[1].block_until_ready()
duration_first = time.time() - start_time
print(f"jit(vmap(grad(...))) 执行时间（首次运行）: {duration_first:.6f} 秒")

# 再次运行（应该快很多）
start_time = time.time()
per_example_grads_again = jit_vmap_grad_loss(params, large_batch_x, large_batch_y_true)
per_example_grads_again[0].block_until_ready()
per_example_grads_again[1].block_until_ready()
duration_second = time.time() - start_time
print(f"jit(vmap(grad(...))) 执行时间（第二次运行）: {duration_second:.6f} 秒")

print(f"\n每个示例 dw 的形状: {per_example_grads[0].shape}")
print(f"每个示例 db 的形状: {per_example_grads[1].shape}")
