"""What a training step costs: the S4D layer against an earlier revision, the estimator against
a plain torch loop.

Issue 14's targets, measured side by side on the same CPU:

1. ``layer``: forward + backward of one S4D layer and of one S4D block at (batch 16,
   d_model 64, d_state 64, length 1024), this checkout against ``--baseline`` (a git
   revision, unpacked with ``git archive`` into a temporary folder). This checkout runs
   twice: as a CPU fit trains it (freed memory kept, ``sktdi.utils.memory``) and with the code
   change alone (glibc's defaults, as the baseline). All run in alternating fresh
   subprocesses, ``--rounds`` times; each reports the median of its timed steps, and the
   table gives the median over rounds and the ratios (target ≤ 0.7).
2. ``epoch``: one epoch of ``SSMClassifier.fit`` (skorch: callbacks, history, data loader)
   against a plain torch loop that does the same work — the same S4DNetwork, AdamW with the
   SSM parameter group, cosine schedule, gradient clipping at 1.0, cross-entropy, shuffled
   minibatches of 16 — on 600 pixel-digits series (one layer, d_model 64; 38 steps). Epoch
   times are skorch's ``dur`` and the loop's own clock, median over epochs after the first,
   alternating ``--rounds`` times (target ≤ 1.05).

    python benchmarks/budgets/bench_training_step.py --baseline 0f80f9c --rounds 5 --steps 20 \\
        --epochs 4 --out benchmarks/budgets/results/training_step.json   # an idle machine
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHAPE = {"batch": 16, "d_model": 64, "d_state": 64, "length": 1024}


def _layer_times(threads: int, steps: int, keep_memory: bool = False) -> dict:
    """Median forward+backward seconds of an S4D layer and an S4D block (run in a subprocess
    whose sys.path decides which sktdi is measured). ``keep_memory``: first apply what a CPU
    fit applies (``sktdi.utils.memory.keep_freed_memory``)."""
    import torch

    from sktdi.ssm import S4D, S4DBlock

    if keep_memory:
        from sktdi.utils.memory import keep_freed_memory

        assert keep_freed_memory(), "glibc's thresholds could not be set here"

    torch.manual_seed(0)
    torch.set_num_threads(threads)
    x = torch.randn(SHAPE["batch"], SHAPE["length"], SHAPE["d_model"], requires_grad=True)
    out = {}
    for name, module in (
        ("layer", S4D(SHAPE["d_model"], SHAPE["d_state"])),
        ("block", S4DBlock(SHAPE["d_model"], SHAPE["d_state"])),
    ):
        def step() -> None:
            module.zero_grad(set_to_none=True)
            x.grad = None
            module(x).square().mean().backward()

        for _ in range(3):  # warm-up: allocator, FFT plans
            step()
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        out[name] = statistics.median(times)
    return out


def _run_layer_subprocess(src: Path, threads: int, steps: int, keep_memory: bool) -> dict:
    code = (
        "import json, sys; sys.path.insert(0, %r); sys.path.insert(1, %r);"
        "import bench_training_step as b; print(json.dumps(b._layer_times(%d, %d, %r)))"
        % (str(src), str(ROOT / "benchmarks"), threads, steps, keep_memory)
    )
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def layer_benchmark(baseline: str, threads: int, steps: int, rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "baseline.tar"
        subprocess.run(
            ["git", "archive", "-o", str(archive), baseline, "sktdi"], cwd=ROOT, check=True
        )
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "baseline", filter="data")
        # "current": this checkout as a fit trains it (freed memory kept); "code only": the
        # same code in a process left at glibc's defaults, as the baseline runs
        variants = {
            "baseline": (Path(tmp) / "baseline", False),
            "current": (ROOT, True),
            "code_only": (ROOT, False),
        }
        runs = {name: [] for name in variants}
        for _ in range(rounds):
            for name, (src, keep) in variants.items():  # alternating: drifts hit all alike
                runs[name].append(_run_layer_subprocess(src, threads, steps, keep))
    result = {"baseline": baseline, "threads": threads, "shape": SHAPE, "rounds": rounds}
    for part in ("layer", "block"):
        base = statistics.median(r[part] for r in runs["baseline"])
        cur = statistics.median(r[part] for r in runs["current"])
        code = statistics.median(r[part] for r in runs["code_only"])
        result[part] = {
            "baseline_ms": 1e3 * base,
            "current_ms": 1e3 * cur,
            "ratio": cur / base,
            "code_only_ms": 1e3 * code,
            "code_only_ratio": code / base,
        }
    return result


def _plain_epochs(X, y, n_epochs: int, seed: int) -> list[float]:
    """Per-epoch seconds of a plain torch loop doing the estimator's training work."""
    import torch

    from sktdi.ssm import S4DNetwork, ssm_param_groups

    torch.manual_seed(seed)
    net = S4DNetwork(
        n_channels=1, n_outputs=10, d_model=64, d_state=64, n_layers=1, dropout=0.1,
        pooling="mean-max", init="s4d-lin", dt_max=1.0,
    )
    optimizer = torch.optim.AdamW(ssm_param_groups(net, ssm_lr=1e-3), lr=1e-2, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=n_epochs)
    loss_fn = torch.nn.CrossEntropyLoss()
    Xt = torch.as_tensor(X, dtype=torch.float32)  # (n, 1, L): the network's input layout
    yt = torch.as_tensor(y)
    generator = torch.Generator().manual_seed(seed)
    times = []
    for _ in range(n_epochs):
        start = time.perf_counter()
        net.train()
        for idx in torch.randperm(len(yt), generator=generator).split(16):
            optimizer.zero_grad()
            loss = loss_fn(net(Xt[idx]), yt[idx])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            loss.item()  # the estimator records every batch's loss
        schedule.step()
        times.append(time.perf_counter() - start)
    return times


def epoch_benchmark(threads: int, n_epochs: int, rounds: int) -> dict:
    import numpy as np
    import torch

    from sktdi import SSMClassifier
    from sktdi.datasets import load_dataset_split

    torch.set_num_threads(threads)
    X_train, y_train, _, _ = load_dataset_split("pixel-digits")
    X, labels = X_train[:600], y_train[:600]
    codes = np.unique(labels, return_inverse=True)[1]
    # the loop gets the estimator's scaled input, so both see the same numbers
    scaled = (X - X.mean()) / X.std()
    estimator_epochs, plain_epochs = [], []
    for r in range(rounds):
        model = SSMClassifier(
            init="s4d-lin", n_layers=1, max_epochs=n_epochs, random_state=r, n_threads=threads
        ).fit(X, labels)
        estimator_epochs += [row["dur"] for row in model.history_][1:]
        plain_epochs += _plain_epochs(scaled, codes, n_epochs, r)[1:]
    est, plain = statistics.median(estimator_epochs), statistics.median(plain_epochs)
    return {
        "threads": threads,
        "series": len(labels),
        "steps_per_epoch": -(-len(labels) // 16),
        "epochs_timed": len(estimator_epochs),
        "estimator_epoch_s": est,
        "plain_loop_epoch_s": plain,
        "ratio": est / plain,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="0f80f9c", help="git revision to compare with")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", nargs="+", default=["layer", "epoch"])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    results = {}
    if "layer" in args.parts:
        results["layer"] = layer_benchmark(args.baseline, args.threads, args.steps, args.rounds)
        print(json.dumps(results["layer"], indent=1), flush=True)
    if "epoch" in args.parts:
        results["epoch"] = epoch_benchmark(args.threads, args.epochs, args.rounds)
        print(json.dumps(results["epoch"], indent=1), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
