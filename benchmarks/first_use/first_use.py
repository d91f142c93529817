"""What the first use of each model costs after installing: numba's compiling, measured.

Question: how long does a new user wait for each model's first fit, before numba has cached
the compiled loops (sktdi's scans and the deep model's max-pool, sktime's MiniRocket), and
how much of it is compiling? Each model runs in a fresh process twice over one empty numba
cache (``NUMBA_CACHE_DIR``): the first process compiles ("cold"), the second loads the cache
("warm"); in each, the model is fitted (and predicts) twice, so the second fit is the cost of
the work alone. The README states the cold first fits (its "first-use" region).

    python benchmarks/first_use/first_use.py            # -> benchmarks/first_use/results/first_use.csv (about 5 minutes)

Run on an idle machine: a second process beside it slows the compiler as much as the fits.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "results" / "first_use.csv"

# each model's first use: the data it fits, and the fit (``model``) and the use after it
# (``use``); run as a script in a fresh process
SETUP = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
started = time.perf_counter()
import numpy as np
import sktdi
from sktime.datasets import load_gunpoint, load_japanese_vowels
X, y = load_gunpoint(return_type="numpy3D")
y = np.asarray(y)
vowels, vowel_labels = load_japanese_vowels(split="train")
imported = time.perf_counter() - started
"""
# the stream's model, fitted before its clock starts
STREAM_SETUP = (  # the network alone streams (a model with its fast path needs whole series)
    "STREAM_MODEL = sktdi.SSMClassifier(max_epochs=1, fast_path=False, random_state=0)"
    ".fit(X, y)\n"
)
MODELS = {
    "SpectralRidgeClassifier": "sktdi.SpectralRidgeClassifier(random_state=0).fit(X, y).predict(X)",
    "SpectralRidgeRegressor": (
        "sktdi.SpectralRidgeRegressor(random_state=0).fit(X, y.astype(float)).predict(X)"
    ),
    "SpectralAlignmentTransformer": (
        "sktdi.SpectralAlignmentTransformer(random_state=0).fit(X, y).transform(X)"
    ),
    "SpectralRidgeClassifier(rocket='minirocket')": (
        "sktdi.SpectralRidgeClassifier(rocket='minirocket', random_state=0).fit(X, y).predict(X)"
    ),
    "SpectralRidgeClassifier(rocket='minirocket'), unequal lengths": (
        "sktdi.SpectralRidgeClassifier(rocket='minirocket', random_state=0)"
        ".fit(vowels, vowel_labels).predict(vowels)"
    ),
    "SSMClassifier(max_epochs=5)": (
        "sktdi.SSMClassifier(max_epochs=5, random_state=0).fit(X, y).predict(X)"
    ),
    # the model is fitted before the clock starts: the stream's first samples, one at a time
    "PredictionStream, 1,050 samples": (
        "stream = STREAM_MODEL.stream(); [stream.update([[v]]) for v in X[0, 0].tolist() * 7]"
    ),
}
RUN = """
def timed():
    start = time.perf_counter()
    {use}
    return time.perf_counter() - start
first = timed()
second = timed()
print(json.dumps({{"import_s": imported, "first_s": first, "second_s": second}}))
"""
FIELDS = ["model", "cache", "import_s", "first_s", "second_s", "cpu_count", "python"]


def measure(model: str, cache: str) -> list[dict]:
    """The cold and the warm process of ``model`` over the empty numba cache ``cache``."""
    use = MODELS[model]
    script = SETUP + (STREAM_SETUP if "STREAM_MODEL" in use else "") + RUN.format(use=use)
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    rows = []
    for state in ("cold", "warm"):
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        times = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append({
            "model": model, "cache": state, **{k: round(v, 2) for k, v in times.items()},
            "cpu_count": os.cpu_count(), "python": platform.python_version(),
        })
        print(rows[-1], flush=True)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=list(MODELS))
    args = parser.parse_args(argv)
    rows = []
    for model in args.models:  # each on a cache of its own: its own compiling, measured
        with tempfile.TemporaryDirectory() as cache:
            rows += measure(model, cache)
    import pandas as pd

    pd.DataFrame(rows, columns=FIELDS).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
