"""The GPU check's table (``benchmarks/gpu/gpu_check.py``): each measured figure of its results
against its criterion, as rows and as the Markdown of ``docs/gpu.md``; and the tolerances the
check compares with."""

from __future__ import annotations

FLOAT64_TOL = 1e-9  # device vs CPU, both float64: only the FFT/reduction order differs
FLOAT32_TOL = 1e-4  # float32 inference on the device vs float64 on the CPU
LOAD_TOL = 1e-12  # a loaded copy on the CPU vs the in-process CPU copy: the same computation


def _check(value: float | None, tol: float) -> str:
    if value is None:
        return "n/a"
    return "ok" if value <= tol else "FAIL"


def table_rows(results: dict) -> list[tuple[str, str, str, str, str]]:
    """(section, measure, value, criterion, status) for every figure in ``results``."""
    env = results["environment"]
    device = env["device"]
    rows = [(
        "environment", "device; torch, CUDA; CPU threads",
        f"{env['device_name']}; torch {env['torch']}, CUDA {env['cuda']}; "
        f"{env['torch_threads']} torch threads of {env['cpu_count']} cores", "", "info",
    )]
    for section, error in results.get("errors", {}).items():
        rows.append((section, "section raised", error.splitlines()[-1][:90], "no error", "FAIL"))
    fit = results.get("fit", {})
    for name in ("classifier", "regressor"):
        if name in fit:
            r = fit[name]
            rows.append((
                "fit", f"{name} on {device} ({r['dataset']}, {r['epochs']} epochs)",
                f"{r['score_name']} {r['test_score']:.3f}, {r['fit_s']:.1f} s", "", "info",
            ))
    if "transformer" in fit:
        r = fit["transformer"]
        rows.append((
            "fit", f"transformer + ridge, computes on {r['computes_on']}",
            f"accuracy {r['ridge_test_accuracy']:.3f}, {r['fit_transform_s']:.1f} s", "", "info",
        ))
    for name, r in results.get("agreement", {}).items():
        for dtype, tol in (("float64", FLOAT64_TOL), ("float32", FLOAT32_TOL)):
            if dtype not in r:
                continue
            diff = r[dtype]["max_abs_diff"]
            rows.append((
                "agreement", f"{name} {r['output']}, {device} {dtype} vs cpu float64",
                f"max abs diff {diff:.2e}", f"<= {tol:g}", _check(diff, tol),
            ))
            if "label_agreement" in r[dtype]:
                share = r[dtype]["label_agreement"]
                rows.append((
                    "agreement", f"{name} labels, {device} {dtype} vs cpu",
                    f"{100 * share:.2f}% agree", "100%", "ok" if share == 1 else "FAIL",
                ))
    loading = results.get("loading", {})
    if loading:
        rows.append((
            "loading", "CPU-only subprocess sees CUDA",
            str(loading["child_cuda_available"]), "False",
            "ok" if not loading["child_cuda_available"] else "FAIL",
        ))
        if not loading["save_load_available"]:
            rows.append(("loading", "est.save / sktdi.load", "not available", "", "n/a"))
        for name, r in loading.items():
            if not isinstance(r, dict):
                continue
            if not r.get("ok"):
                rows.append(("loading", f"{name} on cpu", r.get("error", "")[:90], "loads", "FAIL"))
                continue
            rows.append((
                "loading", f"{name} ({r['bytes'] / 2**10:.0f} KiB) on cpu vs cpu copy",
                f"max abs diff {r['max_abs_diff']:.2e}, identical {r['identical']}, "
                f"device={r['device_parameter']!r}",
                f"<= {LOAD_TOL:g}", _check(r["max_abs_diff"], LOAD_TOL),
            ))
    speed = results.get("speed", {})
    for key, r in speed.items():
        if not isinstance(r, dict):
            continue
        target, what = key.split("/")
        if "epoch_s" in r:
            value = f"{r['epoch_s']:.2f} s ({r['train_series_per_s']:.0f} series/s)"
        else:
            value = f"{r['predict_s']:.3f} s ({r['series_per_s']:.0f} series/s)"
        rows.append((
            "speed", f"{target} {what.replace('_', ' ')} ({speed['dataset']}, "
            f"{speed['n_train'] if 'epoch' in what else speed['n_predict']} series)",
            value, "", "info",
        ))
    for length, r in results.get("largest_batch", {}).items():
        if r["largest_batch"] is None:
            value = f"none fit: {r.get('failure_reason', '')}"
        else:
            value = (
                f"{r['largest_batch']} series ({r['peak_gib']:.1f} GiB, {r['step_s']:.2f} s, "
                f"{r['train_series_per_s']:.0f} series/s); fails at {r['first_failure']}: "
                f"{r.get('failure_reason', 'not reached')}"
            )
        rows.append(("largest batch", f"one training step, length {length}", value, "", "info"))
    amp = results.get("mixed_precision", {})
    for precision, r in amp.get("kernel_under_autocast", {}).items():
        rows.append((
            "mixed precision", f"SSM kernel under {precision} autocast",
            f"{r['dtype']}, max abs diff {r['max_abs_diff']:.1e} vs fp32", "", "info",
        ))
    for name, r in amp.get("arms", {}).items():
        if not r.get("ok"):
            value = r.get("error", f"non-finite loss {r.get('final_loss')}")[:110]
        else:
            value = (
                f"accuracy {r['test_accuracy']:.3f}, epoch {r['epoch_s']:.2f} s at batch 16"
                + (
                    f", {r['epoch_s_large_batch']:.2f} s at batch {amp['large_batch']}"
                    if "epoch_s_large_batch" in r else ""
                )
            )
        rows.append((
            "mixed precision",
            f"{name} ({amp['dataset']}, {amp['epochs']} epochs)", value, "", "info",
        ))
    return rows


def markdown(rows: list[tuple]) -> str:
    lines = ["| section | measure | value | criterion | status |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(cell).replace("|", "/") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


# ---- main --------------------------------------------------------------------------------
