"""A proven GPU path: sktdi's estimators fitted on a device, checked against the CPU, loaded on
a CPU-only machine, timed, pushed to the largest training batch, and tried in mixed precision.

Sections, each recorded even when another fails:

1. ``fit``: :class:`~sktdi.SSMClassifier` on scikit-learn's digits as length-64 series,
   :class:`~sktdi.SSMRegressor` on a synthetic amplitude task, and
   :class:`~sktdi.SpectralAlignmentTransformer` (with a ridge head) on the digits, on the
   device (the transformer only where it has a ``device`` parameter; it computes on the CPU
   otherwise, and the table says so).
2. ``agreement``: the same fitted models' outputs on the device against a copy moved to the
   CPU: float64 inference (the default) to ``FLOAT64_TOL``, float32 inference to
   ``FLOAT32_TOL``; class-label agreement.
3. ``loading``: the device-trained models pickled and saved (``est.save``, where
   :func:`sktdi.load` exists), then loaded in a subprocess with ``CUDA_VISIBLE_DEVICES=""``
   (a CPU-only machine): its outputs against the in-process CPU copy's, to ``LOAD_TOL``.
4. ``speed``: one training epoch (skorch's ``dur``, median after the first) and ``predict_proba``
   throughput on the pixel digits (length 1024), on the device and on the CPU, at the
   estimator's batch of 16 and at 128.
5. ``largest_batch`` (CUDA only): the largest batch of one training step (forward, backward,
   AdamW) of the default network at lengths 1024 and 4096, doubling until CUDA runs out of
   memory, then bisecting twice.
6. ``mixed_precision``: a plain torch loop doing the estimator's training (AdamW with the SSM
   group, cosine schedule, clipping at 1.0, cross-entropy) from one TDI-initialized network,
   in float32 and under ``torch.autocast`` with bfloat16 and float16 (with a gradient scaler):
   test accuracy after a fixed number of epochs and the epoch time. Each low precision runs
   as autocast leaves it and with the SSM convolution kept in float32 (a local wrapper:
   cuFFT has no bfloat16 transforms and half-precision ones only at power-of-2 sizes); the
   estimators are not changed.

One markdown table with every figure is printed; ``--out`` writes the results as JSON
(default ``benchmarks/gpu/results/gpu_check.json`` on CUDA, no file on CPU). The exit status
is 1 when a check with a criterion fails or a section raises.

    python benchmarks/gpu/gpu_check.py --device cuda   # < 5 min; writes results/gpu_check.json
    python benchmarks/gpu/gpu_check.py --device cpu --quick                       # CI, < 60 s
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import functools
import gc
import json
import os
import pickle
import platform
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # gpu_table beside it
from gpu_table import FLOAT32_TOL, FLOAT64_TOL, LOAD_TOL, markdown, table_rows  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CUDA_OUT = Path(__file__).resolve().parent / "results" / "gpu_check.json"



@dataclasses.dataclass(frozen=True)
class Config:
    """Sizes of one run: the full check (a GPU) or the quick smoke test (a CI CPU)."""

    n_train: int | None  # digits series per split (None: the whole split, 898 / 899)
    net: dict  # architecture of every fitted SSM estimator (estimator defaults: empty)
    epochs: int
    regression: tuple[int, int, int]  # train series, test series, length
    n_filters: int
    speed_dataset: str  # "pixel-digits" (length 1024) or "digits" (length 64)
    speed_epochs: tuple[int, int]  # epochs fitted on the device, on the CPU (the first untimed)
    speed_batches: tuple[int, ...]
    amp_epochs: int
    amp_large_batch: int | None  # a second, large batch for the epoch time (None: skipped)
    probe_lengths: tuple[int, ...]
    probe_time_s: float


FULL = Config(
    n_train=None,
    net={},
    epochs=20,
    regression=(800, 400, 256),
    n_filters=128,
    speed_dataset="pixel-digits",
    speed_epochs=(4, 2),
    speed_batches=(16, 128),
    amp_epochs=10,
    amp_large_batch=256,
    probe_lengths=(1024, 4096),
    probe_time_s=45.0,
)
QUICK = Config(
    n_train=300,
    net={"d_model": 16, "d_state": 16, "n_layers": 1},
    epochs=10,
    regression=(160, 80, 64),
    n_filters=16,
    speed_dataset="digits",
    speed_epochs=(2, 2),
    speed_batches=(16,),
    amp_epochs=4,
    amp_large_batch=None,
    probe_lengths=(),
    probe_time_s=0.0,
)


# ---- data --------------------------------------------------------------------------------


def digits(name: str, n: int | None) -> tuple[np.ndarray, ...]:
    """(X_train, y_train, X_test, y_test) of sktdi's "digits" or "pixel-digits" split, the
    first n series of each half (stratified already: the halves are shuffled)."""
    from sktdi.datasets import load_dataset_split

    X_train, y_train, X_test, y_test = load_dataset_split(name)
    n = len(y_train) if n is None else n
    return X_train[:n], y_train[:n], X_test[:n], y_test[:n]


def amplitude_task(n: int, length: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Regression: noise plus a sine of random phase at 0.1 cycles/sample whose amplitude,
    uniform in [0, 2], is the target. X (n, 1, length), y (n,)."""
    rng = np.random.default_rng(seed)
    amplitude = rng.uniform(0, 2, size=n)
    phase = rng.uniform(0, 2 * np.pi, size=(n, 1))
    t = np.arange(length)
    X = rng.normal(size=(n, length)) + amplitude[:, None] * np.sin(2 * np.pi * 0.1 * t + phase)
    return X[:, None, :], amplitude


# ---- helpers -----------------------------------------------------------------------------


def synchronize(device: str) -> None:
    """Wait for the device's queued work, so that a clock reading covers it."""
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def outputs(model, X) -> np.ndarray:
    """What a model answers: class probabilities, predictions, or features."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    if hasattr(model, "transform"):
        return model.transform(X)
    return model.predict(X)


def on_cpu(model):
    """A copy of a fitted SSM estimator with its network moved to the CPU (the original is
    left on its device): what a CPU-only machine computes with the same weights."""
    moved = copy.deepcopy(model)
    moved.__dict__.pop("_inference_modules", None)  # copies of the network on the device
    moved.net_.module_.to("cpu")
    moved.net_.device = "cpu"
    moved.set_params(device="cpu")
    return moved


def with_inference_dtype(model, dtype: str, X) -> np.ndarray:
    """The model's outputs with ``inference_dtype=dtype``, the parameter restored after."""
    previous = model.inference_dtype
    model.set_params(inference_dtype=dtype)
    try:
        return outputs(model, X)
    finally:
        model.set_params(inference_dtype=previous)


def compare(a: np.ndarray, b: np.ndarray, *, scale: float = 1.0) -> dict:
    """Max absolute difference (divided by ``scale``) and, for 2-D outputs, the share of
    rows whose arg-max agrees."""
    result = {"max_abs_diff": float(np.max(np.abs(a - b))) / scale}
    if a.ndim == 2 and a.shape[1] > 1:
        result["label_agreement"] = float(np.mean(a.argmax(axis=1) == b.argmax(axis=1)))
    return result


def time_call(fn, repeats: int) -> float:
    """Median seconds of ``fn()`` over ``repeats`` calls after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def environment(device: str) -> dict:
    """Versions, the device and the CPU thread count."""
    import sklearn
    import torch

    import sktdi

    info = {
        "device": device,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "sktdi": sktdi.__version__,
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "platform": platform.platform(),
    }
    try:
        import skorch

        info["skorch"] = skorch.__version__
    except ImportError:  # pragma: no cover - the estimators need it
        info["skorch"] = None
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(torch.device(device))
        info.update(
            device_name=props.name,
            device_memory_gib=props.total_memory / 2**30,
            compute_capability=f"{props.major}.{props.minor}",
            cudnn=torch.backends.cudnn.version(),
            matmul_allow_tf32=torch.backends.cuda.matmul.allow_tf32,
        )
    else:
        info["device_name"] = platform.processor() or platform.machine()
    try:
        info["git_commit"] = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
            timeout=10,
        ).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        info["git_commit"] = None
    return info


# ---- 1. fit ------------------------------------------------------------------------------


def fit_section(device: str, cfg: Config, models: dict) -> dict:
    """Fit the three estimators on ``device``; store them in ``models`` for later sections."""
    from sklearn.linear_model import RidgeClassifierCV

    from sktdi import SpectralAlignmentTransformer, SSMClassifier, SSMRegressor

    X_train, y_train, X_test, y_test = digits("digits", cfg.n_train)
    n_reg, n_reg_test, length = cfg.regression
    Xr_train, yr_train = amplitude_task(n_reg, length, seed=0)
    Xr_test, yr_test = amplitude_task(n_reg_test, length, seed=1)
    models["data"] = {
        "classifier": X_test, "regressor": Xr_test, "transformer": X_test,
        "regressor_scale": float(np.std(yr_test)), "transformer_train": (X_train, y_train),
    }
    result = {}
    common = {**cfg.net, "max_epochs": cfg.epochs, "random_state": 0, "device": device}
    for name, estimator, (X, y, Xt, yt) in (
        ("classifier", SSMClassifier(**common), (X_train, y_train, X_test, y_test)),
        ("regressor", SSMRegressor(**common), (Xr_train, yr_train, Xr_test, yr_test)),
    ):
        start = time.perf_counter()
        estimator.fit(X, y)
        synchronize(device)
        fit_s = time.perf_counter() - start
        models[name] = estimator
        result[name] = {
            "dataset": (
                "digits (length 64)" if name == "classifier" else f"amplitude (length {length})"
            ),
            "n_train": len(y),
            "n_test": len(yt),
            "epochs": estimator.n_epochs_,
            "fit_s": fit_s,
            "net_device": str(estimator.net_.device),
            "test_score": float(estimator.score(Xt, yt)),
            "score_name": "accuracy" if name == "classifier" else "R2",
        }
    has_device = "device" in SpectralAlignmentTransformer().get_params()
    bank = SpectralAlignmentTransformer(
        n_filters=cfg.n_filters, random_state=0, **({"device": device} if has_device else {})
    )
    start = time.perf_counter()
    features = bank.fit_transform(X_train, y_train)
    head = RidgeClassifierCV(alphas=np.logspace(-3, 3, 7)).fit(features, y_train)
    accuracy = head.score(bank.transform(X_test), y_test)
    models["transformer"] = bank
    result["transformer"] = {
        "dataset": "digits (length 64)",
        "n_filters": cfg.n_filters,
        "fit_transform_s": time.perf_counter() - start,
        "computes_on": device if has_device else "cpu (no device parameter)",
        "has_device_parameter": has_device,
        "ridge_test_accuracy": float(accuracy),
    }
    return result


# ---- 2. agreement ------------------------------------------------------------------------


def agreement_section(models: dict) -> dict:
    """Device outputs against a CPU copy of the same fitted model."""
    from sklearn.base import clone

    result = {}
    for name in ("classifier", "regressor"):
        model, X = models[name], models["data"][name]
        scale = models["data"]["regressor_scale"] if name == "regressor" else 1.0
        cpu = on_cpu(model)
        models[f"{name}_cpu"] = cpu
        reference = outputs(cpu, X)  # float64 on the CPU
        models[f"{name}_reference"] = reference
        result[name] = {
            "output": "predict_proba" if name == "classifier" else "predict / std(y)",
            "float64": compare(outputs(model, X), reference, scale=scale),
            "float32": compare(with_inference_dtype(model, "float32", X), reference, scale=scale),
        }
    bank = models["transformer"]
    models["transformer_reference"] = outputs(bank, models["data"]["transformer"])
    if "device" in bank.get_params() and bank.get_params()["device"] != "cpu":
        cpu_bank = clone(bank).set_params(device="cpu").fit(*models["data"]["transformer_train"])
        cpu_features = outputs(cpu_bank, models["data"]["transformer"])
        result["transformer"] = {
            "output": "transform (refitted on the CPU)",
            "float64": compare(models["transformer_reference"], cpu_features),
        }
    return result


# ---- 3. loading on a CPU-only machine ----------------------------------------------------


def _save_available(model) -> bool:
    import sktdi

    try:
        load = getattr(sktdi, "load", None)
    except Exception:  # the persistence module is being written: treat as absent
        return False
    return callable(load) and callable(getattr(model, "save", None))


def loading_section(models: dict, workdir: Path) -> dict:
    """Pickle and save the device-trained models, load them in a CPU-only subprocess, and
    compare its outputs with the in-process CPU copies'."""
    import torch

    jobs, result = [], {"save_load_available": _save_available(models["classifier"])}
    for name in ("classifier", "regressor", "transformer"):
        model = models[name]
        x_path = workdir / f"{name}_X.npy"
        np.save(x_path, models["data"][name])
        formats = {"pickle": workdir / f"{name}.pkl"}
        with open(formats["pickle"], "wb") as f:
            pickle.dump(model, f)
        if _save_available(model):
            formats["save"] = workdir / f"{name}.sktdi"
            model.save(formats["save"])
        for fmt, path in formats.items():
            jobs.append(
                {
                    "name": f"{name}/{fmt}", "format": fmt, "path": str(path),
                    "X": str(x_path), "out": str(workdir / f"{name}_{fmt}_out.npy"),
                    "bytes": path.stat().st_size,
                }
            )
    spec = workdir / "jobs.json"
    spec.write_text(json.dumps({"threads": torch.get_num_threads(), "jobs": jobs}))
    env = {
        **os.environ,
        "CUDA_VISIBLE_DEVICES": "",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--load-child", str(spec)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    result["subprocess_s"] = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"the CPU-only process failed:\n{done.stderr[-3000:]}")
    child = json.loads(done.stdout.strip().splitlines()[-1])
    result["child_cuda_available"] = child["cuda_available"]
    for job in jobs:
        record = {"bytes": job["bytes"], **child["jobs"][job["name"]]}
        if record.get("ok"):
            name = job["name"].split("/")[0]
            loaded = np.load(job["out"])
            reference = models[f"{name}_reference"]
            record.update(compare(loaded, reference))
            record["identical"] = bool(np.array_equal(loaded, reference))
        result[job["name"]] = record
    return result


def load_child(spec_path: str) -> dict:
    """In the CPU-only subprocess: load each job's file, compute its outputs, save them."""
    import torch

    spec = json.loads(Path(spec_path).read_text())
    torch.set_num_threads(spec["threads"])  # the parent's: the same arithmetic as its copy
    result = {"cuda_available": torch.cuda.is_available(), "jobs": {}}
    for job in spec["jobs"]:
        record = {}
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if job["format"] == "pickle":
                    with open(job["path"], "rb") as f:
                        model = pickle.load(f)
                else:
                    import sktdi

                    model = sktdi.load(job["path"])
            record["load_warnings"] = sorted({str(w.message)[:160] for w in caught})
            record["device_parameter"] = model.get_params().get("device")
            if hasattr(model, "net_"):
                record["net_device"] = str(model.net_.device)
            np.save(job["out"], outputs(model, np.load(job["X"])))
            record["ok"] = True
        except Exception as exc:  # recorded: the table shows the failure
            record.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:500])
        result["jobs"][job["name"]] = record
    return result


# ---- 4. speed ----------------------------------------------------------------------------


def speed_section(device: str, cfg: Config) -> dict:
    """Epoch time and prediction throughput on the device and, when it is not the CPU, on
    the CPU, with the same model and data."""
    from sktdi import SSMClassifier

    X_train, y_train, X_test, _ = digits(cfg.speed_dataset, cfg.n_train)
    result = {
        "dataset": cfg.speed_dataset,
        "length": int(X_train.shape[-1]),
        "n_train": len(y_train),
        "n_predict": len(X_test),
    }
    targets = [(device, cfg.speed_epochs[0])]
    if device != "cpu":
        targets.append(("cpu", cfg.speed_epochs[1]))
    for target, epochs in targets:
        for batch in cfg.speed_batches:
            model = SSMClassifier(
                **cfg.net, init="s4d-lin", max_epochs=epochs, batch_size=batch,
                random_state=0, device=target,
            ).fit(X_train, y_train)
            epoch_s = float(np.median([row["dur"] for row in model.history_][1:]))
            result[f"{target}/epoch_batch{batch}"] = {
                "epoch_s": epoch_s,
                "train_series_per_s": len(y_train) / epoch_s,
                "epochs_timed": epochs - 1,
            }
        for dtype in ("float64", "float32"):
            model.set_params(inference_dtype=dtype)
            seconds = time_call(lambda: outputs(model, X_test), repeats=3)
            result[f"{target}/predict_{dtype}"] = {
                "predict_s": seconds,
                "series_per_s": len(X_test) / seconds,
            }
    return result


# ---- 5. the largest training batch -------------------------------------------------------


def _training_step(device: str, batch: int, length: int) -> tuple[float, float]:
    """Two training steps of the default network (as the estimators build it, 10 classes) on
    random data: (seconds of the second, peak GiB allocated). The first pays for the cuFFT
    plans and cuBLAS workspaces of the new shapes."""
    import torch

    from sktdi.ssm import S4DNetwork, ssm_param_groups

    torch.cuda.reset_peak_memory_stats()
    net = S4DNetwork(
        n_channels=1, n_outputs=10, d_model=64, d_state=64, n_layers=2, dropout=0.1,
        pooling="mean-max", dt_max=1.0,
    ).to(device)  # built on the CPU and moved, as skorch builds the estimators' networks
    optimizer = torch.optim.AdamW(ssm_param_groups(net), lr=1e-2, weight_decay=0.01)
    X = torch.randn(batch, 1, length, device=device)
    y = torch.randint(0, 10, (batch,), device=device)
    for _ in range(2):
        synchronize(device)
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(X), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optimizer.step()
        synchronize(device)
    return time.perf_counter() - start, torch.cuda.max_memory_allocated() / 2**30


def _try_step(device: str, batch: int, length: int) -> dict:
    """A training step's figures, or why it failed (out of memory, or another CUDA error:
    cuFFT and some kernels refuse sizes past 2**31 elements before memory runs out)."""
    import torch

    try:
        seconds, peak = _training_step(device, batch, length)
        outcome = {"ok": True, "step_s": seconds, "peak_gib": peak}
    except torch.cuda.OutOfMemoryError:
        outcome = {"ok": False, "reason": "out of memory"}
    except RuntimeError as exc:
        outcome = {"ok": False, "reason": f"{type(exc).__name__}: {exc}"[:300]}
    gc.collect()  # the failed step's tensors, held by the exception's frames until now
    torch.cuda.empty_cache()
    return outcome


def largest_batch_section(device: str, cfg: Config) -> dict:
    """Per length: double the batch from 256 until a step fails, then bisect twice."""
    result = {}
    for length in cfg.probe_lengths:
        deadline = time.perf_counter() + cfg.probe_time_s
        tried, best, failed, batch = {}, None, None, 256
        while batch <= 2**17 and time.perf_counter() < deadline:
            tried[batch] = _try_step(device, batch, length)
            if not tried[batch]["ok"]:
                failed = batch
                break
            best, batch = batch, 2 * batch
        for _ in range(2):  # bisect between the last batch that fit and the first that did not
            if best is None or failed is None or time.perf_counter() >= deadline:
                break
            middle = (best + failed) // 2
            tried[middle] = _try_step(device, middle, length)
            best, failed = (middle, failed) if tried[middle]["ok"] else (best, middle)
        record = {"largest_batch": best, "first_failure": failed, "tried": tried}
        if best is not None:
            record.update(
                series_steps=best * length,
                step_s=tried[best]["step_s"],
                peak_gib=tried[best]["peak_gib"],
                train_series_per_s=best / tried[best]["step_s"],
            )
        if failed is not None:
            record["failure_reason"] = tried[failed]["reason"]
        result[str(length)] = record
    return result


# ---- 6. mixed precision ------------------------------------------------------------------


def _ssm_forward_fp32(layer, u):
    """An S4D layer's forward with its convolution in float32, outside autocast: cuFFT has
    no bfloat16 transforms, and half-precision ones only at power-of-2 sizes."""
    import torch

    from sktdi.ssm import fft_conv

    with torch.autocast(u.device.type, enabled=False):
        K, K_back = layer.kernels(u.shape[-2])
        return fft_conv(u.float(), K, K_back, D=layer.D)


def _autocast(device: str, precision: str):
    import torch

    if precision == "fp32":
        return contextlib.nullcontext()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    return torch.autocast(torch.device(device).type, dtype=dtype)


def train_arm(
    initial, data: tuple, *, device: str, precision: str, fp32_ssm: bool, epochs: int,
    batch_size: int, seed: int = 0, evaluate: bool = True,
) -> dict:
    """Train a copy of ``initial`` (an S4DNetwork) as the estimator trains, under autocast
    with ``precision``: test accuracy and per-epoch seconds."""
    import torch

    from sktdi.ssm import ssm_param_groups

    X, y, X_test, y_test = data  # tensors on the device: standardized float32, class codes
    net = copy.deepcopy(initial).to(device)
    if fp32_ssm:
        for layer in net.ssm_layers:
            layer.forward = functools.partial(_ssm_forward_fp32, layer)
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(ssm_param_groups(net, ssm_lr=1e-3), lr=1e-2, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    scaler = torch.amp.GradScaler(torch.device(device).type, enabled=precision == "fp16")
    generator = torch.Generator().manual_seed(seed)
    times, losses = [], []
    for _ in range(epochs):
        synchronize(device)
        start = time.perf_counter()
        net.train()
        for idx in torch.randperm(len(y), generator=generator).split(batch_size):
            idx = idx.to(device)
            optimizer.zero_grad()
            with _autocast(device, precision):
                loss = torch.nn.functional.cross_entropy(net(X[idx]), y[idx])
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            losses.append(loss.item())  # the estimator records every batch's loss
        schedule.step()
        synchronize(device)
        times.append(time.perf_counter() - start)
    result = {
        "epoch_s": float(np.median(times[1:] if len(times) > 1 else times)),
        "final_loss": float(np.mean(losses[-max(1, len(losses) // epochs) :])),
    }
    if evaluate:
        net.eval()
        with torch.no_grad(), _autocast(device, precision):
            logits = torch.cat([net(batch).float() for batch in X_test.split(512)])
        result["test_accuracy"] = float((logits.argmax(dim=1) == y_test).float().mean())
    return result


def _kernel_under_autocast(initial, device: str, precision: str, length: int) -> dict:
    """The SSM kernel computed under autocast against float32: its dtype and difference
    (the complex matmul and exponentials are not autocast to lower precision)."""
    import torch

    layer = copy.deepcopy(initial.ssm_layers[0]).to(device)
    with torch.no_grad():
        reference = layer.kernels(length)[0]
        with _autocast(device, precision):
            kernel = layer.kernels(length)[0]
    return {
        "dtype": str(kernel.dtype).replace("torch.", ""),
        "max_abs_diff": float((kernel.float() - reference).abs().max()),
    }


def mixed_precision_section(device: str, cfg: Config) -> dict:
    """fp32 against bf16 and fp16 autocast, each as autocast leaves it and with the SSM
    convolution kept in float32, from one TDI-initialized network."""
    import torch

    from sktdi import SSMClassifier
    from sktdi.utils.inputs import network_input

    X_train, y_train, X_test, y_test = digits(cfg.speed_dataset, cfg.n_train)
    init = SSMClassifier(**cfg.net, max_epochs=0, random_state=0, device="cpu").fit(
        X_train, y_train
    )  # max_epochs=0: TDI and the base initialization, no training
    codes = {label: i for i, label in enumerate(init.classes_)}

    def tensors(X, y):
        inputs = network_input(X, init.input_mean_, init.input_scale_, None)
        return (
            torch.as_tensor(inputs, device=device),
            torch.as_tensor([codes[label] for label in y], device=device),
        )

    data = (*tensors(X_train, y_train), *tensors(X_test, y_test))
    initial = init.net_.module_
    length = int(X_train.shape[-1])
    result = {
        "dataset": cfg.speed_dataset, "length": length, "epochs": cfg.amp_epochs,
        "batch_size": 16, "large_batch": cfg.amp_large_batch, "arms": {},
        "kernel_under_autocast": {},
    }
    arms = [("fp32", False), ("bf16", False), ("bf16", True), ("fp16", False), ("fp16", True)]
    for precision, fp32_ssm in arms:
        name = precision + (" + fp32 SSM conv" if fp32_ssm else "")
        if precision != "fp32" and not fp32_ssm:
            try:
                kernel = _kernel_under_autocast(initial, device, precision, length)
            except Exception as exc:  # recorded, as the arms' failures are
                kernel = {"dtype": "error", "max_abs_diff": float("nan"), "error": repr(exc)}
            result["kernel_under_autocast"][precision] = kernel
        try:
            arm = train_arm(
                initial, data, device=device, precision=precision, fp32_ssm=fp32_ssm,
                epochs=cfg.amp_epochs, batch_size=16,
            )
            if cfg.amp_large_batch:
                large = train_arm(
                    initial, data, device=device, precision=precision, fp32_ssm=fp32_ssm,
                    epochs=2, batch_size=cfg.amp_large_batch, evaluate=False,
                )
                arm["epoch_s_large_batch"] = large["epoch_s"]
            arm["ok"] = bool(np.isfinite(arm["final_loss"]))
        except Exception as exc:  # autocast may break the FFT path: recorded, not fatal
            arm = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
        result["arms"][name] = arm
    return result


SECTIONS = ("fit", "agreement", "loading", "speed", "mixed_precision", "largest_batch")


def run(device: str, cfg: Config, sections: tuple[str, ...], out: Path | None) -> dict:
    """Run the sections in order (the largest-batch probe last: a CUDA error there can leave
    the device unusable), recording each one's result or error; write ``out`` after each."""
    results = {
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "environment": environment(device),
        "config": dataclasses.asdict(cfg),
        "tolerances": {"float64": FLOAT64_TOL, "float32": FLOAT32_TOL, "load": LOAD_TOL},
        "errors": {},
    }
    models: dict = {}
    needs = {"agreement": "fit", "loading": "agreement"}  # what a section reads from another
    for section in ("loading", "agreement"):  # closed under needs: a section brings its inputs
        if section in sections:
            sections = (*sections, needs[section])
    with tempfile.TemporaryDirectory() as tmp:
        for section in SECTIONS:
            if section not in sections:
                continue
            if section == "largest_batch" and not device.startswith("cuda"):
                continue
            if section in needs and needs[section] not in results:
                continue
            start = time.perf_counter()
            print(f"[gpu_check] {section} ...", file=sys.stderr, flush=True)
            try:
                if section == "fit":
                    results[section] = fit_section(device, cfg, models)
                elif section == "agreement":
                    results[section] = agreement_section(models)
                elif section == "loading":
                    results[section] = loading_section(models, Path(tmp))
                elif section == "speed":
                    results[section] = speed_section(device, cfg)
                elif section == "mixed_precision":
                    results[section] = mixed_precision_section(device, cfg)
                else:
                    results[section] = largest_batch_section(device, cfg)
            except Exception:
                results["errors"][section] = traceback.format_exc()[-3000:]
            results.setdefault("section_s", {})[section] = time.perf_counter() - start
            results["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
            if out is not None:
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps(results, indent=1, default=str) + "\n")
    rows = table_rows(results)
    results["all_ok"] = not any(row[4] == "FAIL" for row in rows)
    if out is not None:
        out.write_text(json.dumps(results, indent=1, default=str) + "\n")
    print(markdown(rows))
    env = results["environment"]
    print(
        f"\n{env['device_name']}; torch {env['torch']}, CUDA {env['cuda']}, "
        f"{env['torch_threads']} CPU threads of {env['cpu_count']} cores; "
        f"{results['started']} to {results['finished']}"
    )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="default: cuda when available, else cpu")
    parser.add_argument("--quick", action="store_true", help="the small CI configuration")
    parser.add_argument("--sections", nargs="+", default=list(SECTIONS), choices=SECTIONS)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (torch's own)")
    parser.add_argument("--out", default=None, help="JSON results; default on CUDA: %(prog)s "
                        "writes benchmarks/gpu/results/gpu_check.json, on the CPU nothing")
    parser.add_argument("--load-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.load_child:
        print(json.dumps(load_child(args.load_child)))
        return 0

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        parser.error(f"--device {device}: this torch ({torch.__version__}) sees no CUDA device; "
                     "the check's CPU smoke test is --device cpu --quick")
    out = Path(args.out) if args.out else (DEFAULT_CUDA_OUT if device.startswith("cuda") else None)
    results = run(device, QUICK if args.quick else FULL, tuple(args.sections), out)
    for section, error in results["errors"].items():
        print(f"\n[{section}] raised:\n{error}", file=sys.stderr)
    return 0 if results["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
