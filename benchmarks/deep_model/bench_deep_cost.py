"""Where a training step of the default network spends its time, and what the CPU backward
passes of ``sktdi.ssm.conv_ops`` save.

Issue 36's cost item. On one thread, for the shapes of a long and a medium series (ACSF1:
1460 steps, OSULeaf: 427; batch 16, SSMClassifier's), forward + backward + AdamW step of

- the default network (``ConvS4DNetwork``: 6 blocks, 32 filters, S4D branch) with this
  package's convolution and max-pool (``conv_ops``),
- the same network with torch's own kernels (oneDNN convolution backward, ``max_pool1d``,
  the residual join in torch's ops),
- sktime's ``InceptionTimeNetworkTorch`` at its classifier's batch (64), per series,

alternating ``--rounds`` times (median of ``--steps`` timed steps each). And the profile of
one step of the default network: the share of each of its costliest operators.

    OMP_NUM_THREADS=1 python benchmarks/deep_model/bench_deep_cost.py --out benchmarks/deep_model/results/deep_cost.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import torch
import torch.nn.functional as F

SHAPES = {"ACSF1": 1460, "OSULeaf": 427}
BATCH, INCEPTION_BATCH, N_CLASSES = 16, 64, 10


@contextmanager
def torch_kernels():
    """The default network with torch's own convolutions, max-pool and residual join (the
    code before ``sktdi.ssm.conv_ops``)."""
    import sktdi.ssm.hybrid as hybrid

    names = ("conv1d_same_length", "max_pool3_same_length", "max_pool3_project",
             "pointwise_conv", "residual_join")
    saved = {name: getattr(hybrid, name) for name in names}

    def conv(x, weight, left):
        return F.conv1d(F.pad(x, (left, weight.shape[-1] - 1 - left)), weight)

    def pool(x, left):
        return F.max_pool1d(F.pad(x, (left, 2 - left), value=float("-inf")), 3, stride=1)

    def join(a, r, shortcut):
        return F.relu(F.relu(a) + shortcut(r))

    torchs = {
        "conv1d_same_length": conv,
        "max_pool3_same_length": pool,
        "max_pool3_project": lambda x, weight, left: F.conv1d(pool(x, left), weight),
        "pointwise_conv": F.conv1d,
        "residual_join": join,
    }
    for name in names:
        setattr(hybrid, name, torchs[name])
    try:
        yield
    finally:
        for name in names:
            setattr(hybrid, name, saved[name])


def _network(kind: str):
    if kind == "inceptiontime":
        from sktime.networks.inceptiontime import InceptionTimeNetworkTorch

        return InceptionTimeNetworkTorch(1, N_CLASSES)
    from sktdi.ssm import ConvS4DNetwork

    return ConvS4DNetwork(1, N_CLASSES)


def step_seconds(kind: str, length: int, steps: int) -> float:
    """Median seconds of one optimizer step, per series of the batch."""
    torch.manual_seed(0)
    batch = INCEPTION_BATCH if kind == "inceptiontime" else BATCH
    net = _network(kind)
    X = torch.randn(batch, 1, length)  # (B, C, L)
    if kind == "inceptiontime":
        X = X.transpose(1, 2)  # sktime's network takes (B, L, C)
    y = torch.randint(0, N_CLASSES, (batch,))
    optimizer = torch.optim.AdamW(net.parameters(), 1e-3)

    def step():
        optimizer.zero_grad()
        F.cross_entropy(net(X), y).backward()
        optimizer.step()

    step()  # warm-up
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) / batch


def profile(length: int) -> list[dict]:
    """The default network's costliest operators in one step (self CPU time)."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    torch.manual_seed(0)
    net = _network("default")
    X, y = torch.randn(BATCH, 1, length), torch.randint(0, N_CLASSES, (BATCH,))
    F.cross_entropy(net(X), y).backward()  # warm-up
    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        F.cross_entropy(net(X), y).backward()
    events = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
    total = sum(e.self_cpu_time_total for e in events)
    return [
        {"operator": e.key, "share": e.self_cpu_time_total / total, "calls": e.count}
        for e in events[:8]
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(1)
    # as every CPU fit does (sktdi.utils.memory), for all three arms: freed blocks are kept
    # for the next step rather than faulted in anew
    from sktdi.utils.memory import keep_freed_memory

    keep_freed_memory()
    result = {
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "threads": 1, "freed_memory_kept": True, "batch": BATCH,
        "inception_batch": INCEPTION_BATCH, "shapes": {},
    }
    for name, length in SHAPES.items():
        runs = {"conv_ops": [], "torch_kernels": [], "inceptiontime": []}
        for _ in range(args.rounds):
            runs["conv_ops"].append(step_seconds("default", length, args.steps))
            with torch_kernels():
                runs["torch_kernels"].append(step_seconds("default", length, args.steps))
            runs["inceptiontime"].append(step_seconds("inceptiontime", length, args.steps))
        median = {k: statistics.median(v) for k, v in runs.items()}
        result["shapes"][name] = {
            "length": length,
            "seconds_per_series": median,
            "conv_ops_over_torch": median["conv_ops"] / median["torch_kernels"],
            "ours_over_inceptiontime": median["conv_ops"] / median["inceptiontime"],
            "profile": profile(length),
        }
        print(name, json.dumps(result["shapes"][name]["seconds_per_series"]), flush=True)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
