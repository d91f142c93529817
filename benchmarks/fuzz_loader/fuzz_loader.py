"""Fuzzing ``sktdi.load``: mutated files of every saved estimator type, each either loaded and
predicting exactly as the original, or refused with a ValueError that names the file; never a
hang, a crash, another exception, or an allocation far beyond the file's size.

Tiny models of every type that saves (the deep models, the filter bank, the ridge models with
and without MiniRocket, the sktime adapters and the early classifier) are fitted once and
saved; then, seeded, each mutated file is one of

- ``truncate``: the file cut short; ``bitflip``: one to three bits flipped anywhere;
- ``swap``: two members' contents swapped, with the recorded sizes and checksums rewritten
  to match (a crafted file) or not (damage);
- ``inflate``: a declared size inflated: a zip header's size, a data member replaced by a
  deflate bomb whose recorded size is its inflated one, metadata that inflates past its cap,
  or a size in the metadata (a layer's d_model, a channel or feature count) set one higher
  or a million times higher;
- ``shape`` / ``dtype``: a fitted array (numpy, in ``arrays.safetensors``) or tensor (in
  ``tensors.safetensors``), or a string array of the metadata, given another shape or dtype,
  its metadata entry and checksums rewritten to match.

For the sktime adapters' files (sktime's zip around the sktdi archive), the byte-level
mutations hit the outer file half the time, the others the archive inside, rewrapped.

Each file is loaded in a worker process (killed after ``--timeout`` seconds: a hang; dead
otherwise: a crash). The worker measures each load's peak memory as the rise of its resident
set's high-water mark (reset before each load through /proc/self/clear_refs) and as
tracemalloc's peak, and compares it with the bound 4 × the file's size + 64 MiB.

    nice -n 10 env OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/fuzz_loader/fuzz_loader.py \
        --files 10000 --minutes 15 --out benchmarks/fuzz_loader/results/fuzz_loader.json

The committed ``results/fuzz_loader.json`` records ``"seed": 1``: it is the command above with
``--seed 1`` added (without it the run draws seed 0).

``tests/test_persistence_fuzz.py`` runs a short seeded run of it in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import multiprocessing as mp
import os
import platform
import struct
import sys
import tempfile
import time
import tracemalloc
import warnings
import zipfile
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

MiB = 2**20
FIXED_BYTES = 64 * MiB  # the bound: 4 × the file's size plus this
KINDS = ("truncate", "bitflip", "swap", "inflate", "shape", "dtype")
# the metadata's sizes the "inflate" mutation raises: a layer's, a network's, a fitted count.
# Not n_timepoints_ of a model that takes series of any length: the training series' length
# is a fact no other part of the file records, and altered, predictions refuse series of the
# true length without lengths= (a ValueError at predict, not at load)
SIZE_KEYS = (
    "d_model", "d_state", "n_layers", "n_estimators", "n_filters", "n_biases", "n_channels",
    "n_outputs", "n_channels_", "n_features_in_", "_n_features_out", "series_length_",
    "n_classes_", "_input_ndim",
)
DATA_MEMBERS = ("arrays.safetensors", "tensors.safetensors")
SKTIME_OBJECT = "_obj"


# ---- the originals ------------------------------------------------------------------------


def estimators(minirocket: bool = True) -> dict:
    """Tiny unfitted models of every type that saves, by name, and whether it regresses."""
    from sktdi import (
        SpectralAlignmentTransformer,
        SpectralRidgeClassifier,
        SpectralRidgeRegressor,
        SSMClassifier,
        SSMRegressor,
    )
    from sktdi.sktime import (
        SktimeSpectralRidgeClassifier,
        SktimeSpectralRidgeRegressor,
        SktimeSSMClassifier,
        SktimeSSMEarlyClassifier,
        SktimeSSMRegressor,
    )

    # the network alone: the deep models' fast path holds MiniRocket where sktime is installed,
    # whose transform compiles once per worker (~30 s); with it, in the long run below
    deep = dict(d_model=4, n_layers=1, d_state=4, max_epochs=1, batch_size=8, random_state=0,
                device="cpu", fast_path=False)
    bank = dict(n_filters=4, d_state=4, n_biases=2, random_state=0)
    models = {
        "SSMClassifier": (SSMClassifier(**deep), False),
        "SSMRegressor": (SSMRegressor(**deep, network="s4d"), True),
        "SpectralAlignmentTransformer": (SpectralAlignmentTransformer(**bank), False),
        "SpectralRidgeClassifier": (SpectralRidgeClassifier(**bank), False),
        "SpectralRidgeRegressor": (SpectralRidgeRegressor(**bank), True),
        "SktimeSSMClassifier": (SktimeSSMClassifier(**deep), False),
        "SktimeSSMRegressor": (SktimeSSMRegressor(**deep), True),
        "SktimeSpectralRidgeClassifier": (SktimeSpectralRidgeClassifier(**bank), False),
        "SktimeSpectralRidgeRegressor": (SktimeSpectralRidgeRegressor(**bank), True),
        "SktimeSSMEarlyClassifier": (
            SktimeSSMEarlyClassifier(SSMClassifier(**deep), random_state=0), False,
        ),
    }
    if minirocket:  # sktime's MiniRocket inside: its numba transform compiles once (~30 s)
        models["SpectralRidgeClassifier+minirocket"] = (
            SpectralRidgeClassifier(**bank, rocket="minirocket"), False,
        )
        models["SSMClassifier+fast_path"] = (SSMClassifier(**{**deep, "fast_path": "auto"}), False)
    return models


def task(seed: int = 0):
    """16 series of 2 channels and 20 steps; labels and targets."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.array(["calm", "ringing"]), 8)
    X = rng.normal(size=(16, 2, 20))
    X[y == "ringing"] += np.sin(2 * np.pi * 0.3 * np.arange(20))
    return X, y, X[:, 0].mean(axis=1) + rng.normal(scale=0.1, size=16)


def originals(folder: Path, minirocket: bool = True) -> dict:
    """Fit and save every model in ``folder``: name -> the saved file's bytes."""
    X, y, target = task()
    saved = {}
    for name, (model, regression) in estimators(minirocket).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, target if regression else y)
        path = folder / f"{name}.sktdi"
        model.save(path)
        saved[name] = path.read_bytes()
    return saved


def outputs(model, X) -> list:
    """What the model computes on X: its transform, or its predictions (and probabilities)."""
    if hasattr(model, "transform") and not hasattr(model, "predict"):
        return [model.transform(X)]
    if type(model).__name__ == "SktimeSSMEarlyClassifier":
        return [*model.predict(X), *model.predict_proba(X)]
    results = [model.predict(X)]
    inner = getattr(model, "estimator_", model)  # an adapter's proba needs its estimator's
    if hasattr(model, "predict_proba") and hasattr(inner, "predict_proba"):
        results.append(model.predict_proba(X))
    return results


def same_outputs(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b)
    )


# ---- archives -----------------------------------------------------------------------------


def read_zip(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def write_zip(members: dict, compressed=("metadata.json",), declared: dict | None = None) -> bytes:
    """A zip of ``members``; ``declared`` overrides a member's recorded uncompressed size."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if name in compressed else zipfile.ZIP_STORED
            archive.writestr(info, data)
    data = buffer.getvalue()
    for name, size in (declared or {}).items():
        data = set_declared_size(data, name, size)
    return data


def set_declared_size(data: bytes, name: str, size: int) -> bytes:
    """``data`` with the uncompressed size of member ``name`` in its local and central headers
    set to ``size`` (what a crafted header says; the member's bytes are unchanged)."""
    data = bytearray(data)
    encoded = name.encode()
    # (signature, offset of the uncompressed size, of the name's length, of the name)
    headers = ((b"PK\x03\x04", 22, 26, 30), (b"PK\x01\x02", 24, 28, 46))
    for signature, size_at, length_at, name_at in headers:
        start = 0
        while (start := data.find(signature, start)) >= 0:
            length = struct.unpack_from("<H", data, start + length_at)[0]
            if data[start + name_at : start + name_at + length] == encoded:
                struct.pack_into("<I", data, start + size_at, min(size, 2**32 - 1))
            start += 4
    return bytes(data)


def reseal(members: dict) -> dict:
    """``members`` with the metadata's recorded sizes and checksums rewritten to match."""
    meta = json.loads(members["metadata.json"])
    for name, entry in meta.get("members", {}).items():
        if name in members and isinstance(entry, dict):
            entry.update(sha256=hashlib.sha256(members[name]).hexdigest(), size=len(members[name]))
    return {**members, "metadata.json": json.dumps(meta, indent=1).encode()}


def entries(value, found: list, kind: str = "ndarray") -> list:
    """Every dict in the JSON ``value`` tagged ``kind`` (depth first)."""
    if isinstance(value, dict):
        if value.get("__sktdi_type__") == kind:
            found.append(value)
        for item in value.values():
            entries(item, found, kind)
    elif isinstance(value, list):
        for item in value:
            entries(item, found, kind)
    return found


def sizes_in(value, found: list) -> list:
    """Every (dict, key) of the JSON ``value`` whose key is in SIZE_KEYS and value an int."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SIZE_KEYS and type(item) is int:
                found.append((value, key))
            sizes_in(item, found)
    elif isinstance(value, list):
        for item in value:
            sizes_in(item, found)
    return found


# ---- mutations ----------------------------------------------------------------------------


def other_shape(shape: tuple, rng) -> tuple:
    """A shape other than ``shape``: one axis longer or shorter, one more axis, or one less."""
    shape = list(shape)
    choice = rng.integers(4) if shape else 2
    if choice == 0 and shape:
        axis = rng.integers(len(shape))
        shape[axis] += int(rng.choice([1, 7, 4000]))
    elif choice == 1 and shape and max(shape) > 0:
        axis = int(np.argmax(shape))
        shape[axis] -= 1
    elif choice == 2:
        shape.insert(int(rng.integers(len(shape) + 1)), int(rng.choice([1, 2])))
    else:
        shape = shape[1:] if len(shape) > 1 else shape + [2]
    return tuple(shape)


OTHER_DTYPES = {"f": ["float32", "float64", "int64"], "i": ["int32", "int64", "float64"],
                "u": ["int64", "float32"], "b": ["int64", "float64"]}


def mutate_array(members: dict, rng, change: str) -> tuple[dict, str]:
    """A fitted array or tensor given another shape or dtype, consistently recorded."""
    from safetensors.numpy import load as load_arrays
    from safetensors.numpy import save as save_arrays
    from safetensors.torch import load as load_tensors
    from safetensors.torch import save as save_tensors

    meta = json.loads(members["metadata.json"])
    strings = [e for e in entries(meta, []) if "values" in e]
    arrays = load_arrays(members["arrays.safetensors"])
    tensors = load_tensors(members["tensors.safetensors"])
    pool = [("array", k) for k in arrays] + [("tensor", k) for k in tensors] + [
        ("string", i) for i in range(len(strings))
    ]
    where, key = pool[rng.integers(len(pool))]
    if where == "string":
        entry = strings[key]
        if change == "shape":
            entry["values"] = entry["values"][:-1] if entry["values"] else ["x"]
            entry["shape"] = [len(entry["values"])]
        else:
            entry["dtype"] = rng.choice(["<U100000000", "<f8", "|b1", "<U1"])
        members = {**members, "metadata.json": json.dumps(meta).encode()}
        return reseal(members), f"{change} of a string array"
    if where == "array":
        old = arrays[key]
        if change == "shape":
            new = np.resize(old, other_shape(old.shape, rng)).astype(old.dtype)
        else:
            new = old.astype(rng.choice(OTHER_DTYPES.get(old.dtype.kind, ["float64"])))
            if new.dtype == old.dtype:
                new = old.astype(np.float32 if old.dtype != np.float32 else np.float64)
        arrays[key] = new
        for entry in entries(meta, []):
            if entry.get("key") == key:
                entry["shape"], entry["dtype"] = list(new.shape), new.dtype.str
        members = {**members, "arrays.safetensors": save_arrays(arrays),
                   "metadata.json": json.dumps(meta).encode()}
        return reseal(members), f"{change} of array {key}"
    import torch

    old = tensors[key]
    if change == "shape":
        shape = other_shape(tuple(old.shape), rng)
        new = torch.from_numpy(np.resize(old.numpy(), shape).astype(old.numpy().dtype))
    else:
        dtype = torch.float32 if old.dtype != torch.float32 else torch.float64
        new = old.to(dtype)
    tensors[key] = new.contiguous()
    members = {**members, "tensors.safetensors": save_tensors(tensors)}
    return reseal(members), f"{change} of tensor {key}"


def mutate_archive(data: bytes, rng, kind: str) -> tuple[bytes, str]:
    """One mutation of ``kind`` of an sktdi archive's bytes; (bytes, what was done)."""
    if kind == "truncate":
        cut = int(rng.integers(len(data)))
        return data[:cut], f"truncated to {cut} of {len(data)} bytes"
    if kind == "bitflip":
        data = bytearray(data)
        flips = int(rng.integers(1, 4))
        for _ in range(flips):
            position = int(rng.integers(len(data)))
            data[position] ^= 1 << int(rng.integers(8))
        return bytes(data), f"{flips} bit(s) flipped"
    members = read_zip(data)
    if kind == "swap":
        a, b = rng.choice(sorted(members), size=2, replace=False)
        members[a], members[b] = members[b], members[a]
        sealed = rng.random() < 0.5 and "metadata.json" not in (a, b)
        return write_zip(reseal(members) if sealed else members), (
            f"{a} and {b} swapped" + (", resealed" if sealed else "")
        )
    if kind == "inflate":
        how = rng.integers(4)
        if how == 0:  # a header's declared size
            name = str(rng.choice(sorted(members)))
            size = int(rng.choice([len(data) * 16, 200 * MiB, 2**32 - 1]))
            return write_zip(members, declared={name: size}), f"{name} declares {size} bytes"
        if how == 1:  # a deflate bomb recorded as what it inflates to
            name = str(rng.choice(DATA_MEMBERS))
            members[name] = bytes(int(rng.choice([8, 64, 200])) * MiB)
            return write_zip(reseal(members), compressed=("metadata.json", name)), (
                f"{name} a deflate bomb of {len(members[name])} bytes"
            )
        if how == 2:  # metadata that inflates past its cap
            meta = json.loads(members["metadata.json"])
            meta["padding"] = " " * int(rng.choice([2, 70, 300]) * MiB)
            members["metadata.json"] = json.dumps(meta).encode()
            return write_zip(members), f"metadata of {len(members['metadata.json'])} bytes"
        meta = json.loads(members["metadata.json"])
        found = sizes_in(meta, [])
        if not found:
            return write_zip(members), "no size to inflate"
        holder, key = found[rng.integers(len(found))]
        holder[key] = holder[key] + 1 if rng.random() < 0.5 else holder[key] * 10**6 + 1
        members["metadata.json"] = json.dumps(meta).encode()
        return write_zip(members), f"{key} set to {holder[key]}"
    members, what = mutate_array(members, rng, kind)
    return write_zip(members), what


def mutate(data: bytes, rng, kind: str) -> tuple[bytes, str]:
    """One mutation of a saved file: an sktdi archive, or sktime's zip around one."""
    try:
        outer = read_zip(data)
    except zipfile.BadZipFile:
        outer = {}
    if SKTIME_OBJECT not in outer:
        return mutate_archive(data, rng, kind)
    if kind in ("truncate", "bitflip") and rng.random() < 0.5:
        mutated, what = mutate_archive(data, rng, kind)
        return mutated, f"outer file: {what}"
    inner, what = mutate_archive(outer[SKTIME_OBJECT], rng, kind)
    return write_zip({**outer, SKTIME_OBJECT: inner}, compressed=()), f"{SKTIME_OBJECT}: {what}"


# ---- the worker ---------------------------------------------------------------------------


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    """Reset this process's resident high-water mark (Linux: clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def worker(connection, saved: dict, folder: str) -> None:
    """Load each mutated file sent, report what happened, until told to stop."""
    warnings.simplefilter("ignore")
    import sktdi

    X = task()[0]
    expected = {}
    for name, data in saved.items():  # also imports and compiles everything once
        path = Path(folder) / f"original-{name.replace('+', '-')}.sktdi"
        path.write_bytes(data)
        expected[name] = outputs(sktdi.load(path), X)
    connection.send("ready")
    while True:
        message = connection.recv()
        if message is None:
            return
        name, data = message
        path = Path(folder) / "mutated.sktdi"
        path.write_bytes(data)
        rss_measured = _reset_peak()
        before = _status_kib("VmRSS")
        tracemalloc.start()
        try:
            model = sktdi.load(path)
            outcome, detail = "loaded", ""
        except ValueError as exc:
            outcome = "refused" if str(path) in str(exc) else "refused without naming the file"
            detail = str(exc)[:300]
        except BaseException as exc:  # noqa: BLE001 - what the fuzzer looks for
            outcome, detail = "other exception", f"{type(exc).__name__}: {str(exc)[:300]}"
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rss = (_status_kib("VmHWM") - before) * 1024 if rss_measured else None
        if outcome == "loaded":
            try:
                same = same_outputs(outputs(model, X), expected[name])
                outcome = "loaded, same outputs" if same else "loaded, different outputs"
            except BaseException as exc:  # noqa: BLE001
                outcome, detail = "loaded, then failed", f"{type(exc).__name__}: {str(exc)[:300]}"
            del model
        connection.send((outcome, detail, traced, rss))


class Worker:
    """A worker process, restarted after a hang or a crash."""

    def __init__(self, saved: dict, folder: str):
        self.saved, self.folder = saved, folder
        self.start()

    def start(self):
        context = mp.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=worker, args=(child, self.saved, self.folder),
                                       daemon=True)
        self.process.start()
        if not self.connection.poll(600) or self.connection.recv() != "ready":
            raise RuntimeError("the fuzzing worker did not start")

    def check(self, name: str, data: bytes, timeout: float):
        self.connection.send((name, data))
        try:
            if self.connection.poll(timeout):
                return self.connection.recv()
        except (EOFError, ConnectionError):
            pass
        hung = self.process.is_alive()
        self.process.kill()
        self.process.join()
        self.start()
        return ("hang" if hung else "crash"), "", 0, None

    def stop(self):
        try:
            self.connection.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(10)


# ---- the run ------------------------------------------------------------------------------

FAILURES = ("hang", "crash", "other exception", "refused without naming the file",
            "loaded, different outputs", "loaded, then failed")


def run(n_files: int, *, seed: int = 0, minutes: float | None = None, timeout: float = 60.0,
        minirocket: bool = True, log=None) -> dict:
    """Fuzz ``n_files`` mutated files (fewer if ``minutes`` run out); a summary dict."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        saved = originals(Path(folder), minirocket)
        fitted_seconds = time.perf_counter() - started
        pool = Worker(saved, folder)
        rng = np.random.default_rng(seed)
        names = sorted(saved)
        counts = defaultdict(Counter)  # estimator type -> outcome -> files
        kinds = defaultdict(Counter)  # mutation kind -> outcome -> files
        failures, worst, over_bound = [], {"ratio": 0.0}, 0
        done = 0
        try:
            for done in range(1, n_files + 1):
                if minutes is not None and time.perf_counter() - started > 60 * minutes:
                    done -= 1
                    break
                name = names[(done - 1) % len(names)]
                kind = KINDS[int(rng.integers(len(KINDS)))]
                data, what = mutate(saved[name], rng, kind)
                outcome, detail, traced, rss = pool.check(name, data, timeout)
                counts[name][outcome] += 1
                kinds[kind][outcome] += 1
                peak = max(traced, rss or 0)
                bound = 4 * len(data) + FIXED_BYTES
                if peak / bound > worst["ratio"]:
                    worst = {"ratio": peak / bound, "peak_bytes": peak, "traced_bytes": traced,
                             "rss_bytes": rss, "file_bytes": len(data), "type": name,
                             "mutation": what}
                over_bound += peak > bound
                if outcome in FAILURES or peak > bound:
                    failures.append({"type": name, "mutation": what, "outcome": outcome,
                                     "detail": detail, "peak_bytes": peak})
                if log is not None and done % 500 == 0:
                    print(f"{done} files, {time.perf_counter() - started:.0f} s", file=log,
                          flush=True)
        finally:
            pool.stop()
    total = Counter()
    for outcome_counts in counts.values():
        total.update(outcome_counts)
    return {
        "files": done,
        "seconds": round(time.perf_counter() - started, 1),
        "fit_seconds": round(fitted_seconds, 1),
        "seed": seed,
        "timeout_s": timeout,
        "outcomes": dict(total),
        "hangs": total["hang"],
        "crashes": total["crash"],
        "other_exceptions": sum(total[o] for o in FAILURES if o not in ("hang", "crash")),
        "over_memory_bound": over_bound,
        "peak_memory": worst,
        "memory_bound": "4 x file size + 64 MiB",
        "per_type": {name: dict(c) for name, c in sorted(counts.items())},
        "per_mutation": {kind: dict(c) for kind, c in sorted(kinds.items())},
        "failures": failures[:50],
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a hang")
    parser.add_argument("--no-minirocket", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    import sktdi

    summary = run(args.files, seed=args.seed, minutes=args.minutes, timeout=args.timeout,
                  minirocket=not args.no_minirocket, log=sys.stderr)
    summary = {
        "benchmark": "fuzz_loader",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sktdi_version": sktdi.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "threads": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS")},
        **summary,
    }
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
