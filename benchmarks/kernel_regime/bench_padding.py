"""The fast path on zero-padded series given without their lengths, against the same series
as a list: what padding costs.

Question (issue 58): padded series given without ``lengths=`` took 25-55x the time of the list
(a zero stretch decayed the scan's states into subnormal floats); with that fixed, how far is
the padded form from the list? The padded form filters every padded step (the padding is
part of each series then), so it does more work: PLAID's training series are padded to 4.2
times their mean length. Target: within 1.5x of the list, fit and predict.

    python benchmarks/kernel_regime/bench_padding.py        # -> benchmarks/kernel_regime/results/bench_padding.csv (about a minute)

PLAID's official split, 200 training series (a seeded draw) and all 537; the test split padded
to the training split's length. Each time is the least of three, on the estimator's default
threads; run on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "results" / "bench_padding.csv"
FIELDS = ["n_train", "form", "fit_s", "predict_s", "accuracy", "steps", "cpu_count"]


def _least(call, repeats: int = 3) -> tuple[float, object]:
    best, result = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    from sktdi import SpectralRidgeClassifier
    from sktdi.datasets import load_ucr_split, pad_sequences

    X_train, y_train, X_test, y_test = load_ucr_split("PLAID")
    rows = []
    for n in (200, len(X_train)):
        pick = np.sort(np.random.default_rng(0).permutation(len(X_train))[:n])
        series = [X_train[i] for i in pick]
        labels = y_train[pick]
        padded, _ = pad_sequences(series)
        test_padded, _ = pad_sequences(X_test, padded.shape[-1])
        SpectralRidgeClassifier(random_state=0).fit(series[:50], labels[:50])  # compiled
        for form, train, test in (
            ("list", series, X_test), ("padded, no lengths", padded, test_padded)
        ):
            fit_s, model = _least(
                lambda: SpectralRidgeClassifier(random_state=0).fit(train, labels)
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PaddedSeriesWarning: the point here
                predict_s, predicted = _least(lambda: model.predict(test))
            # the time steps the training series hold as given
            steps = sum(np.shape(s)[-1] for s in train) if form == "list" else padded.size
            rows.append({
                "n_train": n, "form": form, "fit_s": round(fit_s, 3),
                "predict_s": round(predict_s, 3),
                "accuracy": round(float(np.mean(predicted == y_test)), 4),
                "steps": int(steps), "cpu_count": os.cpu_count(),
            })
            print(rows[-1], flush=True)
    import pandas as pd

    pd.DataFrame(rows, columns=FIELDS).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
