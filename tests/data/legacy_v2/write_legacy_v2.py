"""Write the fixtures of the models issue 76 changed: run with sktdi at commit a48cb7d (before
it: one scale per channel by default, the network on top of the fast path trained unchecked
where nothing could be held out, the temperature fitted on unsmoothed targets), from that
checkout's root (FOLDER: this folder):

    PYTHONPATH=. python FOLDER/write_legacy_v2.py FOLDER

Each model is tiny; ``expected.npz`` holds the inputs and what each model predicted when it
was saved, which tests/test_persistence.py compares with the same files loaded by the
current sktdi.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

import sktdi
from sktdi.datasets import planted_frequency_task


def main(folder: Path) -> None:
    X, y = planted_frequency_task(10, length=32, random_state=0)  # (40, 1, 32), 4 classes
    few, few_y = X[::5], y[::5]  # 2 per class: nothing held out
    target = X[:, 0, -8:].mean(axis=1) * 3.0  # a regression target
    deep = {"d_model": 8, "n_layers": 1, "d_state": 8, "max_epochs": 2, "batch_size": 8,
            "random_state": 0, "device": "cpu"}
    expected = {"X": X}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        held_out = sktdi.SSMClassifier(**deep).fit(X, y)  # a fifth held out
        held_out.save(folder / "one_model_held_out.sktdi")
        expected["one_model_held_out"] = held_out.predict_proba(X)
        unchecked = sktdi.SSMClassifier(**deep).fit(few, few_y)  # trained on all, unchecked
        unchecked.save(folder / "one_model_unchecked.sktdi")
        expected["one_model_unchecked"] = unchecked.predict_proba(X)
        reg = sktdi.SSMRegressor(**deep).fit(X, target)
        reg.save(folder / "one_model_regressor.sktdi")
        expected["one_model_regressor"] = reg.predict(X)
        ridge = sktdi.SpectralRidgeClassifier(n_filters=4, d_state=4, random_state=0).fit(X, y)
        ridge.save(folder / "ridge_classifier.sktdi")
        expected["ridge_classifier"] = ridge.decision_function(X)
    np.savez_compressed(folder / "expected.npz", **expected)
    print(sktdi.__version__, {name: value.shape for name, value in expected.items()})


if __name__ == "__main__":  # not when pytest collects this folder's modules
    main(Path(sys.argv[1]))
