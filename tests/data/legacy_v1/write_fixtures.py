"""Write the legacy fixtures: run with sktdi at commit e2a638a (format version 1, before the
``tdi``/``training`` option objects), from that checkout's root (FOLDER: this folder):

    PYTHONPATH=. python FOLDER/write_fixtures.py FOLDER

Each model is tiny (d_model=8, one layer, one epoch); ``expected.npz`` holds the inputs and
what each model predicted when it was saved, which tests/test_persistence.py compares with
the same files loaded by the current sktdi.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

import sktdi
from sktdi.datasets import planted_frequency_task
from sktdi.sktime import SktimeSSMClassifier
from sktdi.tdi import TaskSpectrum


def main(folder: Path) -> None:
    X, y = planted_frequency_task(6, length=32, random_state=0)  # (24, 1, 32), labels "0".."3"
    target = X[:, 0, -8:].mean(axis=1) * 3.0  # a regression target
    deep = {"d_model": 8, "n_layers": 1, "d_state": 8, "max_epochs": 1, "batch_size": 8,
            "random_state": 0, "device": "cpu"}
    bank = {"n_filters": 4, "d_state": 4, "random_state": 0}
    expected = {"X": X}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = sktdi.SSMClassifier(**deep, tdi_spread=0.5, augment="jitter").fit(X, y)
        clf.save(folder / "ssm_classifier.sktdi")
        expected["ssm_classifier"] = clf.predict_proba(X)
        # the removed parameters at their non-default values: prenorm (kept by the saved
        # network) and scale_inputs=False (carried by the fitted input_mean_/input_scale_)
        reg = sktdi.SSMRegressor(
            **deep, network="s4d", prenorm=True, scale_inputs=False, lr_schedule="constant",
            grad_clip=None,
        ).fit(X, target)
        reg.save(folder / "ssm_regressor.sktdi")
        expected["ssm_regressor"] = reg.predict(X)
        transformer = sktdi.SpectralAlignmentTransformer(**bank, tdi_reliability=False).fit(X, y)
        transformer.save(folder / "transformer.sktdi")
        expected["transformer"] = transformer.transform(X)
        ridge = sktdi.SpectralRidgeClassifier(
            **bank, tdi_spectrum=TaskSpectrum.from_frequencies([0.3, 0.37], n_bins=17)
        ).fit(X, y)
        ridge.save(folder / "ridge_classifier.sktdi")
        expected["ridge_classifier"] = ridge.decision_function(X)
        adapter = SktimeSSMClassifier(**deep, tdi_max_peaks=4, weight_decay=0.05).fit(X, y)
        adapter.save(folder / "sktime_classifier.zip")
        expected["sktime_classifier"] = adapter.predict_proba(X)
    np.savez_compressed(folder / "expected.npz", **expected)
    print(sktdi.__version__, {name: value.shape for name, value in expected.items()})


if __name__ == "__main__":  # not when pytest collects this folder's modules
    main(Path(sys.argv[1]))
