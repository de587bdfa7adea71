# Captures small real profiles on a GPU machine: PyTorch (Kineto trace JSON) and JAX (XSpace).
# Usage: python3 capture.py torch-input|torch-compute|jax OUTDIR
# Each mode is a short training loop with step markers, an input pipeline and memory events.
import os
import sys
import time


def torch_capture(out_dir, input_bound):
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, Dataset

    class Images(Dataset):
        # Sleeping per sample makes the loader the bottleneck in the input-bound run.
        def __len__(self):
            return 4096

        def __getitem__(self, i):
            if input_bound:
                time.sleep(0.002)
            g = torch.Generator().manual_seed(i)
            return torch.randn(3, 64, 64, generator=g), i % 10

    torch.manual_seed(0)
    width = 32 if input_bound else 256
    model = nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, 64, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    if input_bound:
        data = Images()
    else:
        # Made up front, so that the loader only slices tensors and the GPU is the bottleneck.
        g = torch.Generator().manual_seed(0)
        data = torch.utils.data.TensorDataset(torch.randn(512, 3, 64, 64, generator=g),
                                              torch.randint(0, 10, (512,), generator=g))
    loader = DataLoader(data, batch_size=32 if input_bound else 64, num_workers=2 if input_bound else 0,
                        pin_memory=True, shuffle=False)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    sched = torch.profiler.schedule(wait=1, warmup=1, active=4)
    handler = torch.profiler.tensorboard_trace_handler(out_dir, worker_name="gpu0", use_gzip=True)
    with torch.profiler.profile(activities=acts, schedule=sched, on_trace_ready=handler,
                                record_shapes=True, profile_memory=True) as prof:
        for step, (x, y) in enumerate(loader):
            if step >= 6:
                break
            x = x.cuda(non_blocking=True)
            y = y.cuda(non_blocking=True)
            opt.zero_grad(set_to_none=True)
            # The compute-bound run trains in bfloat16 autocast, so its kernels are 16-bit.
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not input_bound):
                loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            loss.item()
            prof.step()


def jax_capture(out_dir):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    import numpy as np

    def init(key, sizes):
        params = []
        for n_in, n_out in zip(sizes[:-1], sizes[1:]):
            key, sub = jax.random.split(key)
            params.append((jax.random.normal(sub, (n_in, n_out)) * 0.02, jnp.zeros(n_out)))
        return params

    def forward(params, x):
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = params[-1]
        return x @ w + b

    def loss_fn(params, x, y):
        logits = forward(params, x)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 10), axis=-1))

    @jax.jit
    def train_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads), loss

    @jax.jit
    def eval_step(params, x, y):
        return jnp.mean(jnp.argmax(forward(params, x), -1) == y)

    def batches():
        # A host-side input pipeline that takes a few milliseconds per batch.
        rng = np.random.default_rng(0)
        while True:
            time.sleep(0.004)
            yield (rng.standard_normal((512, 1024), dtype=np.float32),
                   rng.integers(0, 10, 512).astype(np.int32))

    params = init(jax.random.PRNGKey(0), [1024, 2048, 2048, 10])
    it = batches()
    x, y = next(it)
    params, loss = train_step(params, x, y)  # compile before tracing
    loss.block_until_ready()
    with jax.profiler.trace(out_dir, create_perfetto_trace=True):
        for step in range(1, 7):
            with jax.profiler.StepTraceAnnotation("train", step_num=step):
                x, y = next(it)
                x = jax.device_put(x)
                y = jax.device_put(y)
                params, loss = train_step(params, x, y)
                loss.block_until_ready()
        eval_step(params, x, y).block_until_ready()  # compiled inside the trace


if __name__ == "__main__":
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "jax":
        jax_capture(out)
    else:
        torch_capture(out, mode == "torch-input")
