"""What recomputing the blocks' outputs and grouping the S4D branch's transforms cost a CPU
training step of the default network, by length.

The long-series issue's memory item. One optimizer step (forward, backward, AdamW) of
``ConvS4DNetwork`` at batch 16, one thread, freed memory kept as every CPU fit keeps it, in
four arms alternated within one process (medians over ``--rounds``):

- ``both``: the blocks' outputs recomputed (:class:`sktdi.ssm.conv_ops.RecomputedActivations`,
  forced on at every length) and the transforms a few series at a time
  (``sktdi.ssm.kernel.SPECTRUM_GROUP_BYTES``),
- ``recompute only`` and ``groups only``: one of the two,
- ``neither``: the outputs kept and the whole batch transformed at once (the code before).

Shipped: the groups at every length, the recomputation only where a block's output is at
least ``MMAP_THRESHOLD_BYTES`` (``sktdi.ssm.conv_ops.recompute_block_outputs``).

    OMP_NUM_THREADS=1 python benchmarks/long_series/bench_recompute.py --out benchmarks/long_series/results/recompute_cost.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import datetime, timezone
from pathlib import Path

import torch
import torch.nn.functional as F

BATCH, N_CLASSES = 16, 5
ARMS = {  # (recompute, transforms grouped)
    "both": (True, True),
    "recompute only": (True, False),
    "groups only": (False, True),
    "neither": (False, False),
}


def arm_step_seconds(length: int, rounds: int) -> dict[str, float]:
    """Median seconds of one step per arm, the arms alternated round by round."""
    from sktdi.ssm import ConvS4DNetwork, conv_ops, hybrid, kernel

    torch.manual_seed(0)
    net = ConvS4DNetwork(1, N_CLASSES)
    optimizer = torch.optim.AdamW(net.parameters(), 1e-3)
    X, y = torch.randn(BATCH, 1, length), torch.randint(0, N_CLASSES, (BATCH,))  # (B, C, L)
    shipped_rule, group_bytes = hybrid.recompute_block_outputs, kernel.SPECTRUM_GROUP_BYTES

    def use(arm: str) -> None:
        recompute, grouped = ARMS[arm]
        hybrid.recompute_block_outputs = (
            (lambda x, channels: conv_ops._own_backward(x) and torch.is_grad_enabled())
            if recompute else (lambda x, channels: False)
        )
        kernel.SPECTRUM_GROUP_BYTES = group_bytes if grouped else 2**62

    def step() -> float:
        start = time.perf_counter()
        optimizer.zero_grad()
        F.cross_entropy(net(X), y).backward()
        optimizer.step()
        return time.perf_counter() - start

    times = {arm: [] for arm in ARMS}
    try:
        for arm in ARMS:  # warm-up
            use(arm)
            step()
        for _ in range(rounds):
            for arm in ARMS:
                use(arm)
                times[arm].append(step())
    finally:
        hybrid.recompute_block_outputs, kernel.SPECTRUM_GROUP_BYTES = shipped_rule, group_bytes
    return {arm: statistics.median(seconds) for arm, seconds in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", nargs="+", type=int, default=[1000, 4000, 16000])
    parser.add_argument("--rounds", nargs="+", type=int, default=[15, 7, 3],
                        help="rounds per length")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(1)
    from sktdi.utils.memory import keep_freed_memory

    keep_freed_memory()
    result = {
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "threads": 1, "batch": BATCH, "freed_memory_kept": True, "lengths": {},
    }
    for length, rounds in zip(args.lengths, args.rounds):
        seconds = arm_step_seconds(length, rounds)
        result["lengths"][str(length)] = {
            "rounds": rounds,
            "step_seconds": seconds,
            "over_neither": {arm: s / seconds["neither"] for arm, s in seconds.items()},
        }
        print(length, {arm: round(s, 3) for arm, s in seconds.items()}, flush=True)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
