"""The task zoo (sktdi.datasets.zoo_task): each family puts its class information where its
docstring says, checked with plain numpy periodograms and autocorrelations."""

from __future__ import annotations

import numpy as np
import pytest

from sktdi.datasets import NOISE_COLOURS, ZOO_FAMILIES, ZOO_TASKS, zoo_task


def class_power(X: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Mean periodogram per class: label -> (F,)."""
    power = np.abs(np.fft.rfft(X[:, 0], axis=-1)) ** 2 / X.shape[-1]  # (n, F)
    return {label: power[y == label].mean(axis=0) for label in np.unique(y)}


def test_one_band_information_sits_in_one_narrow_band():
    X, y = zoo_task("one-band", n_classes=3, n_per_class=200, length=200, random_state=0)
    power = class_power(X, y)
    excess = power["2"] - power["0"]  # the loudest class against the silent one
    freqs = np.fft.rfftfreq(200)
    band = freqs[excess > excess.max() / 4]
    assert band.max() - band.min() <= 0.05  # one band, 0.04 wide
    # the middle class sits between the two, in that band
    peak = np.argmax(excess)
    assert power["0"][peak] < power["1"][peak] < power["2"][peak]


def test_multi_band_gives_every_class_its_own_band():
    X, y = zoo_task("multi-band", n_classes=4, n_per_class=100, length=256, random_state=1)
    power = class_power(X, y)
    pooled = np.mean(list(power.values()), axis=0)
    peaks = {label: int(np.argmax(p - pooled)) for label, p in power.items()}
    assert len(set(peaks.values())) == 4  # four distinct bands
    for label, peak in peaks.items():
        # at its own band a class has the most power of all classes
        assert max(power, key=lambda other: power[other][peak]) == label


def test_broadband_classes_differ_in_tilt_at_every_frequency():
    X, y = zoo_task("broadband", n_classes=3, n_per_class=100, length=128, random_state=2)
    series = X[:, 0]
    lag1 = np.array([np.corrcoef(s[:-1], s[1:])[0, 1] for s in series])
    means = [lag1[y == label].mean() for label in ("0", "1", "2")]
    np.testing.assert_allclose(means, [-0.6, 0.0, 0.6], atol=0.08)


def test_phase_classes_share_their_power_and_differ_in_shape():
    X, y = zoo_task("phase", n_classes=2, n_per_class=300, length=64, random_state=3)
    power = class_power(X, y)
    ratio = power["0"] / power["1"]
    assert np.all(np.abs(np.log(ratio[1:])) < 0.35)  # the same expected power everywhere
    # while the shapes differ: each series matches its own class's template best
    # (maximum circular cross-correlation with a denoised class template)
    templates = {}
    for label in ("0", "1"):
        members = X[y == label, 0]
        reference = members[0]
        aligned = [
            np.roll(s, -np.argmax(np.fft.irfft(np.fft.rfft(s) * np.conj(np.fft.rfft(reference)))))
            for s in members
        ]
        templates[label] = np.mean(aligned, axis=0)

    def match(s, t):
        return np.max(np.fft.irfft(np.fft.rfft(s) * np.conj(np.fft.rfft(t))))

    predicted = np.array(
        [max(templates, key=lambda label: match(s, templates[label])) for s in X[:, 0]]
    )
    assert np.mean(predicted == y) > 0.9


@pytest.mark.parametrize("colour", NOISE_COLOURS)
def test_noise_colours_tilt_the_background(colour):
    X, _y = zoo_task(
        "one-band",
        n_classes=2,
        n_per_class=100,
        length=256,
        noise=colour,
        strength=0.0,
        random_state=4,
    )
    power = np.mean(np.abs(np.fft.rfft(X[:, 0], axis=-1)) ** 2, axis=0)  # (F,)
    assert np.allclose(X.std(axis=-1), 1.0)
    low, high = power[1:13].mean(), power[-64:].mean()
    if colour == "white":
        assert 0.7 < low / high < 1.4
    else:
        assert low / high > (10 if colour == "pink" else 100)


def test_zoo_is_seeded_and_every_standard_task_draws():
    a = zoo_task("multi-band", n_classes=3, n_per_class=2, length=32, random_state=5)
    b = zoo_task("multi-band", n_classes=3, n_per_class=2, length=32, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])
    for name, spec in ZOO_TASKS.items():
        X, _y = zoo_task(**{**spec, "n_per_class": 2}, random_state=0)
        assert X.shape == (2 * spec["n_classes"], 1, spec["length"]), name
        assert np.isfinite(X).all()
    assert {spec["family"] for spec in ZOO_TASKS.values()} == set(ZOO_FAMILIES)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"family": "chirp"}, "family must be one of"),
        ({"family": "phase", "noise": "blue"}, "noise must be one of"),
        ({"family": "phase", "n_classes": 1}, "n_classes must be at least 2"),
        ({"family": "phase", "n_per_class": 0}, "n_per_class must be at least 1"),
        ({"family": "phase", "length": 4}, "length must be at least 8"),
    ],
)
def test_zoo_refuses_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        zoo_task(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_per_class": 2.5}, TypeError, "n_per_class must be an int, got 2.5"),
        ({"n_classes": "4"}, TypeError, "n_classes must be an int"),
        ({"length": 100.0}, TypeError, "length must be an int"),
        ({"strength": -1.0}, ValueError, "strength == -1.0, must be >= 0"),
        ({"strength": float("nan")}, ValueError, "strength must be a finite number"),
        ({"family": "broadband", "strength": 2.0}, ValueError, "strength == 2.0, must be <= 1.5"),
    ],
)
def test_zoo_names_wrong_types_and_strengths(kwargs, error, match):
    """Floats where counts belong, and strengths that would give silent nonsense (a negative
    one swaps the broadband tilts, one past 1.5 an unstable filter, NaN all-NaN series), are
    refused by name rather than truncated or passed on to numpy."""
    with pytest.raises(error, match=match):
        zoo_task(**{"family": "multi-band", **kwargs})


def test_tdi_stands_down_to_s4d_lin_bit_for_bit_where_the_statistic_is_flat():
    """On a task with no class information in power (the "phase" family) no bin of the
    statistic is significant: init="tdi" and its control are S4D-Lin, prediction for
    prediction (the zoo's report relies on it for its long budgets)."""
    from sktdi import SSMClassifier

    X, y = zoo_task("phase", n_classes=3, n_per_class=8, length=48, random_state=0)
    probas = {}
    for init in ("tdi", "tdi-control", "s4d-lin"):
        model = SSMClassifier(
            init=init, d_model=8, n_layers=1, max_epochs=2, random_state=0, n_threads=1
        ).fit(X, y)
        probas[init] = model.predict_proba(X)
        if init != "s4d-lin":
            assert model.init_report_["channel_share"] == 0.0
    np.testing.assert_array_equal(probas["tdi"], probas["s4d-lin"])
    np.testing.assert_array_equal(probas["tdi-control"], probas["s4d-lin"])
