"""Forward+backward time and peak memory of one S4D block.

Default configuration (issue #2): d_model=128, d_state=64, batch 32, L in {256, 1024, 4096}.
Each length runs in a fresh subprocess so that its peak resident memory is its own.

    python benchmarks/gpu/bench_ssm_layer.py                 # CPU, the defaults
    python benchmarks/gpu/bench_ssm_layer.py --device cuda   # peak memory from the CUDA allocator

On CPU, "peak MiB" is the growth of the process' peak RSS over its RSS just before the timed
passes (model and input already allocated); on CUDA it is torch.cuda.max_memory_allocated.
"Kernel MiB" is what the kernel computation holds: the two factored Vandermonde blocks
(H, N, ⌈√L⌉) and (H, N, L/⌈√L⌉) plus the (H, L) kernel — O(d_model · d_state · √L + d_model · L),
below the O(d_model · d_state · L) bound by construction.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import resource
import statistics
import time


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _measure(config: dict) -> dict:
    import torch

    from sktdi.ssm import S4DBlock

    torch.manual_seed(0)
    if config["threads"]:
        torch.set_num_threads(config["threads"])
    device = torch.device(config["device"])
    block = S4DBlock(config["d_model"], config["d_state"]).to(device)
    x = torch.randn(config["batch"], config["length"], config["d_model"], device=device)

    def step() -> None:
        block.zero_grad(set_to_none=True)
        block(x).square().mean().backward()
        if device.type == "cuda":
            torch.cuda.synchronize()

    step()  # warm-up: allocator, FFT plans
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    rss_before = _rss_mib()
    times = []
    for _ in range(config["repeats"]):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    if device.type == "cuda":
        peak = torch.cuda.max_memory_allocated() / 2**20
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss_before
    n_modes = config["d_state"] // 2
    block = math.isqrt(config["length"] - 1) + 1
    factored = n_modes * (block + -(-config["length"] // block))  # complex64 per channel
    kernel_mib = config["d_model"] * (factored * 8 + config["length"] * 4) / 2**20
    return {
        **config,
        "fwd_bwd_ms_median": 1e3 * statistics.median(times),
        "fwd_bwd_ms_min": 1e3 * min(times),
        "peak_mib": peak,
        "kernel_mib": kernel_mib,
        "torch_threads": torch.get_num_threads(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--d-state", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args()

    rows = []
    ctx = mp.get_context("spawn")
    print(f"{'L':>6} {'fwd+bwd ms':>11} {'peak MiB':>9} {'kernel MiB':>10}")
    for length in args.lengths:
        config = {
            "length": length,
            "d_model": args.d_model,
            "d_state": args.d_state,
            "batch": args.batch,
            "repeats": args.repeats,
            "device": args.device,
            "threads": args.threads,
        }
        with ctx.Pool(1) as pool:
            row = pool.apply(_measure, (config,))
        rows.append(row)
        print(
            f"{length:>6} {row['fwd_bwd_ms_median']:>11.1f} {row['peak_mib']:>9.0f} "
            f"{row['kernel_mib']:>10.1f}"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
