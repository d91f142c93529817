"""benchmarks/gpu/gpu_check.py runs on the CPU as a smoke test of the GPU check's code path (the
device run itself needs a GPU): every section but the CUDA-only batch probe, one table."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).parent.parent / "benchmarks" / "gpu" / "gpu_check.py"


def test_quick_cpu_run_prints_the_table_and_writes_json(tmp_path):
    out = tmp_path / "gpu_check.json"
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cpu", "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        # one thread: the smoke test checks the code path, and a CI runner shared with other
        # jobs would oversubscribe its cores (OpenMP spin-waits) with more
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "| section | measure | value | criterion | status |" in run.stdout
    assert "FAIL" not in run.stdout
    results = json.loads(out.read_text())
    assert results["all_ok"] and not results["errors"]
    assert results["environment"]["device"] == "cpu" and results["environment"]["torch"]
    assert {"fit", "agreement", "loading", "speed", "mixed_precision"} <= set(results)
    assert "largest_batch" not in results  # CUDA only
    loading = results["loading"]
    assert loading["child_cuda_available"] is False
    assert loading["classifier/pickle"]["identical"]
    # the fp32 arm of the mixed-precision loop trained and was evaluated
    assert results["mixed_precision"]["arms"]["fp32"]["ok"]


def test_cpu_run_writes_no_file_by_default(tmp_path):
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cpu", "--quick", "--sections", "fit"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "classifier on cpu" in run.stdout
    assert list(tmp_path.iterdir()) == []


def _gpu_check_module():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gpu_check", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_table_covers_the_cuda_only_figures_and_failures():
    gpu_check = _gpu_check_module()
    results = {
        "environment": {
            "device": "cuda", "device_name": "GPU", "torch": "2.x", "cuda": "12.x",
            "torch_threads": 16, "cpu_count": 16,
        },
        "errors": {"speed": "Traceback ...\nRuntimeError: boom"},
        "agreement": {
            "classifier": {
                "output": "predict_proba",
                "float64": {"max_abs_diff": 1e-15, "label_agreement": 1.0},
                "float32": {"max_abs_diff": 1e-3, "label_agreement": 0.99},
            }
        },
        "loading": {
            "save_load_available": False, "child_cuda_available": False, "subprocess_s": 3.0,
            "classifier/pickle": {"ok": False, "error": "RuntimeError: CUDA tensors", "bytes": 1},
        },
        "largest_batch": {
            "1024": {
                "largest_batch": 3072, "first_failure": 4096, "series_steps": 3072 * 1024,
                "step_s": 0.5, "peak_gib": 120.0, "train_series_per_s": 6144.0,
                "failure_reason": "out of memory", "tried": {},
            },
            "4096": {"largest_batch": None, "first_failure": 256, "tried": {},
                     "failure_reason": "out of memory"},
        },
        "mixed_precision": {
            "dataset": "pixel-digits", "epochs": 10, "large_batch": 256,
            "kernel_under_autocast": {"bf16": {"dtype": "float32", "max_abs_diff": 0.0}},
            "arms": {
                "fp32": {"ok": True, "test_accuracy": 0.9, "epoch_s": 1.0,
                         "epoch_s_large_batch": 0.2, "final_loss": 0.3},
                "bf16": {"ok": False, "error": "RuntimeError: Unsupported dtype BFloat16"},
            },
        },
    }
    rows = gpu_check.table_rows(results)
    text = gpu_check.markdown(rows)
    statuses = {(row[0], row[1]): row[4] for row in rows}
    assert statuses[("speed", "section raised")] == "FAIL"
    assert statuses[("agreement", "classifier predict_proba, cuda float64 vs cpu float64")] == "ok"
    float32 = ("agreement", "classifier predict_proba, cuda float32 vs cpu float64")
    assert statuses[float32] == "FAIL"
    assert "3072 series (120.0 GiB" in text and "none fit: out of memory" in text
    assert "Unsupported dtype BFloat16" in text and "CUDA tensors" in text
    assert "est.save / sktdi.load | not available" in text
