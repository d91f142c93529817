"""SpectralAlignmentTransformer: scikit-learn conformance, pipelines, features, the kernel claim."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import RidgeClassifierCV
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sktdi import SpectralAlignmentTransformer
from sktdi.fast_path.experiments import kernel_regression_curve
from sktdi.tdi import TaskSpectrum, TDIOptions

CONFIGS = [
    SpectralAlignmentTransformer(n_filters=4, d_state=4, random_state=0),
    SpectralAlignmentTransformer(n_filters=3, d_state=4, task="regression", random_state=0),
    SpectralAlignmentTransformer(
        n_filters=3, d_state=4, tdi=TDIOptions(refine_steps=3, subsample=0.5), random_state=0
    ),
    SpectralAlignmentTransformer(
        n_filters=3, d_state=4, init="s4d-lin", features="sequence", random_state=0
    ),
    # a given spectrum: aligned without y, an unsupervised transformer
    SpectralAlignmentTransformer(
        n_filters=3,
        d_state=4,
        tdi=TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.2])),
        random_state=0,
    ),
    # MultiRocket's poolings of the series and of its first difference
    SpectralAlignmentTransformer(
        n_filters=3, d_state=4, features="multirocket", n_biases=2, difference=True,
        random_state=0,
    ),
]

# the bank filters in float32 (sktdi.fast_path.scan): against float64 numpy, features of unit scale
# agree to round-off of that size
FLOAT32_ATOL = 1e-6


@parametrize_with_checks(CONFIGS)
def test_sklearn_conformance(estimator, check):
    check(estimator)


def planted(n_per_class=20, length=100, freq=0.3, seed=0, channels=None):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n_per_class)
    t = np.arange(length)
    shape = (2 * n_per_class, length) if channels is None else (2 * n_per_class, channels, length)
    X = rng.normal(size=shape)
    phase = rng.uniform(0, 2 * np.pi, size=(n_per_class, 1))
    if channels is None:
        X[y == 1] += np.sin(2 * np.pi * freq * t + phase)
    else:
        X[y == 1, -1] += np.sin(2 * np.pi * freq * t + phase)
    return X, y


def test_grid_search_over_init_in_pipeline():
    X, y = planted(n_per_class=24, freq=0.4)
    pipe = Pipeline(
        [
            ("bank", SpectralAlignmentTransformer(n_filters=8, random_state=0)),
            ("scale", StandardScaler()),
            ("ridge", RidgeClassifierCV()),
        ]
    )
    search = GridSearchCV(pipe, {"bank__init": ["tdi", "s4d-lin", "s4d-inv"]}, cv=3, n_jobs=2)
    search.fit(X, y)
    scores = dict(zip(search.cv_results_["param_bank__init"], search.cv_results_["mean_test_score"]))
    assert search.best_params_ == {"bank__init": "tdi"}
    assert scores["tdi"] >= 0.9


def test_features_shapes_and_names():
    X, y = planted(n_per_class=5, length=40, channels=3)
    bank = SpectralAlignmentTransformer(n_filters=6, d_state=8, n_biases=4, random_state=0)
    both = bank.fit(X, y).transform(X)  # the series' features, then its first difference's
    assert both.shape == (10, 2 * 3 * 6 * 8) and both.dtype == np.float64
    names = bank.get_feature_names_out()
    assert len(names) == both.shape[1] and names[0] == "c0_f0_mean"
    assert names[3 * 6 * 8 - 1] == "c2_f5_ppv3" and names[-1] == "diff_c2_f5_ppv3"
    Z = both[:, : 3 * 6 * 8]
    plain = SpectralAlignmentTransformer(
        n_filters=6, d_state=8, n_biases=4, difference=False, random_state=0
    )
    np.testing.assert_array_equal(plain.fit(X, y).transform(X), Z)
    assert bank.n_features_in_ == 3 and bank.n_channels_ == 3 and bank.n_timepoints_ == 40
    seq = SpectralAlignmentTransformer(n_filters=6, d_state=8, features="sequence", random_state=0)
    Phi = seq.fit(X, y).transform(X)
    assert Phi.shape == (10, 3 * 6 * 40)
    assert seq.get_feature_names_out()[1] == "c0_f0_t1"
    stats = Z.reshape(10, 3, 6, 8)
    assert np.all(stats[..., 1] >= 0) and np.all(stats[..., 2] >= stats[..., 3])  # std, max ≥ min
    ppv = stats[..., 4:]
    assert np.all((ppv >= 0) & (ppv <= 1))
    # biases are increasing quantiles of the training outputs: PPV falls with the bias, and
    # on the training series it averages to 1 − the quantile level
    assert np.all(np.diff(bank.biases_, axis=-1) >= 0) and np.all(np.diff(ppv, axis=-1) <= 0)
    np.testing.assert_allclose(ppv.mean(axis=(0, 1, 2)), [0.875, 0.625, 0.375, 0.125], atol=0.02)
    none = SpectralAlignmentTransformer(n_filters=6, d_state=8, n_biases=0, random_state=0)
    assert none.fit(X, y).transform(X).shape == (10, 2 * 3 * 6 * 4)


def test_sequence_features_are_the_normalized_convolution():
    """Φ(u) = T_h u / √L, checked against numpy's convolution with the bank's kernel."""
    X, y = planted(n_per_class=3, length=30)
    bank = SpectralAlignmentTransformer(n_filters=2, d_state=4, features="sequence", random_state=0)
    Phi = bank.fit(X, y).transform(X).reshape(6, 1, 2, 30)
    K = bank.layer_.kernel(30).numpy()
    for h in range(2):
        expected = np.convolve(X[0], K[h])[:30] / np.sqrt(30)
        np.testing.assert_allclose(Phi[0, 0, h], expected, atol=1e-10)


def test_channel_that_carries_the_signal_is_used():
    X, y = planted(n_per_class=15, length=64, freq=0.25, channels=2)
    bank = SpectralAlignmentTransformer(n_filters=8, random_state=0).fit(X, y)
    assert abs(bank.task_spectrum_.dominant_frequency() - 0.25) <= 1 / 64
    assert bank.task_spectrum_.channel_values[1].max() > bank.task_spectrum_.channel_values[0].max()


def test_frequency_response_peaks_at_task_frequency():
    X, y = planted(freq=0.42)
    bank = SpectralAlignmentTransformer(n_filters=16, random_state=0).fit(X, y)
    freqs, magnitude = bank.frequency_response(501)
    assert magnitude.shape == (16, 501)
    assert "peak at f=0.42" in str(bank.tdi_report_)
    lin = SpectralAlignmentTransformer(n_filters=16, init="s4d-lin", random_state=0).fit(X)
    # half the modes sit on the peak, beside the base's own (which peak at f = 0): many times
    # S4D-Lin's share of the power lies at the task's frequency
    _, lin_magnitude = lin.frequency_response(501)
    band = np.abs(freqs - 0.42) <= 0.01
    share, lin_share = ((m**2)[:, band].sum() / (m**2).sum() for m in (magnitude, lin_magnitude))
    assert share > 4 * lin_share, (share, lin_share)
    tiled = SpectralAlignmentTransformer(n_filters=16, random_state=0, tdi=TDIOptions(
        coverage="tiled")).fit(X, y)
    freqs, magnitude = tiled.frequency_response(501)  # every mode moved: the peak is the task's
    assert abs(freqs[np.argmax((magnitude**2).sum(axis=0))] - 0.42) <= 0.01
    assert lin.task_spectrum_ is None and lin.tdi_report_ is None


def test_reproducible_and_seed_dependent():
    X, y = planted()
    a = SpectralAlignmentTransformer(random_state=3).fit(X, y).transform(X)
    b = SpectralAlignmentTransformer(random_state=3).fit(X, y).transform(X)
    c = SpectralAlignmentTransformer(random_state=4).fit(X, y).transform(X)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_pickle_and_clone_round_trip():
    X, y = planted()
    bank = SpectralAlignmentTransformer(n_filters=4, random_state=0).fit(X, y)
    restored = pickle.loads(pickle.dumps(bank))
    np.testing.assert_array_equal(bank.transform(X), restored.transform(X))
    np.testing.assert_array_equal(
        clone(bank).fit(X, y).transform(X), bank.transform(X)
    )


def test_univariate_2d_and_3d_are_interchangeable():
    X, y = planted(n_per_class=6, length=32)
    bank = SpectralAlignmentTransformer(n_filters=4, random_state=0).fit(X, y)
    np.testing.assert_allclose(bank.transform(X[:, None, :]), bank.transform(X))


@pytest.mark.parametrize(
    "fit_X, fit_y, X, error, match",
    [
        (np.zeros((6, 20)), [0, 0, 0, 1, 1, 1], np.zeros((2, 25)), ValueError, "25 features"),
        (np.zeros((6, 2, 20)), [0, 0, 0, 1, 1, 1], np.zeros((2, 2, 25)), ValueError, "length 25"),
        (np.zeros((6, 2, 20)), [0, 0, 0, 1, 1, 1], np.zeros((2, 3, 20)), ValueError, "3 channels"),
        (np.zeros((6, 20)), [0, 0, 0, 1, 1, 1], np.full((2, 20), np.nan), ValueError, "NaN"),
    ],
)
def test_transform_input_errors(fit_X, fit_y, X, error, match):
    bank = SpectralAlignmentTransformer(n_filters=2, d_state=4).fit(fit_X, fit_y)
    with pytest.raises(error, match=match):
        bank.transform(X)


def test_fit_input_errors():
    X, y = planted(n_per_class=3)
    with pytest.raises(ValueError, match="requires y"):
        SpectralAlignmentTransformer().fit(X)
    with pytest.raises(ValueError, match="1 class"):
        SpectralAlignmentTransformer().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="d_state must be even"):
        SpectralAlignmentTransformer(d_state=5).fit(X, y)
    with pytest.raises(ValueError, match="dt_min"):
        SpectralAlignmentTransformer(dt_min=0.5, dt_max=0.1).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        SpectralAlignmentTransformer().fit(np.full_like(X, np.nan), y)
    with pytest.raises(ValueError, match="init"):
        SpectralAlignmentTransformer(init="s4d").fit(X, y)


def test_kernel_regression_tdi_learns_faster_and_gap_shrinks():
    """The method's controlled experiment, small: ridge on SSM-kernel features."""
    errors = kernel_regression_curve([16, 256], n_repeats=2)
    tdi, lin = errors["tdi"].mean(axis=1), errors["s4d-lin"].mean(axis=1)
    assert tdi[0] < 0.6 * lin[0]
    gap_small, gap_large = lin[0] - tdi[0], lin[1] - tdi[1]
    assert gap_large < 0.2 * gap_small
    assert tdi[1] < tdi[0] and lin[1] < lin[0]


def test_given_spectrum_aligns_without_labels():
    X, _ = planted()
    spectrum = TaskSpectrum.from_frequencies([0.35])
    transformer = SpectralAlignmentTransformer(
        n_filters=8, tdi=TDIOptions(spectrum=spectrum), random_state=0
    )
    features = transformer.fit_transform(X)
    assert features.shape == (len(X), 2 * 8 * (4 + 8))
    assert transformer.init_report_["reason"].startswith("tdi on the given spectrum")
    freqs, magnitude = transformer.frequency_response()
    assert abs(freqs[np.argmax(magnitude.mean(axis=0))] - 0.35) < 0.03


def test_init_report_says_when_tdi_stood_down_as_the_ssm_models_do():
    """Before: the transformer's init_report_ was the plan alone: on labels that are noise it
    said chosen "tdi" and nothing said the bank was S4D-Lin on every filter. Now it has the
    SSM models' applied, n_aligned_channels and "tdi stood down" reason, from one function
    (InitPlan.report), word for word the same on the same data."""
    from sktdi import SSMClassifier

    rng = np.random.default_rng(0)
    noise = rng.normal(size=(4, 64))  # two series per class, labels that are noise
    labels = np.array([0, 0, 1, 1])
    bank = SpectralAlignmentTransformer(n_filters=8, d_state=4, random_state=0)
    flat = bank.fit(noise, labels).init_report_
    assert flat["chosen"] == "tdi" and flat["applied"] == "s4d-lin"
    assert flat["n_aligned_channels"] == 0 and flat["channel_share"] == 0.0
    assert flat["reason"].startswith("tdi stood down: ")
    assert flat["reason"].endswith("s4d-lin kept on all")
    assert list(flat)[:3] == ["requested", "chosen", "applied"]  # the plan's keys are kept
    assert {"reliability", "reliability_note", "n_significant_bins"} <= set(flat)
    network = {"network": "s4d", "d_model": 8, "n_layers": 1, "d_state": 4, "max_epochs": 0}
    # the series as given, as the transformer reads them
    ssm = SSMClassifier(**network, input_scaling="channel", random_state=0).fit(
        noise, labels).init_report_
    assert ssm == flat

    X, y = planted(n_per_class=20, length=128)
    # coverage="base": this small bank has no aliased mode for the default form to move
    aligned = bank.set_params(tdi__coverage="base").fit(X, y).init_report_
    assert aligned["chosen"] == aligned["applied"] == "tdi"
    assert aligned["n_aligned_channels"] == bank.tdi_report_.n_aligned_channels > 0
    assert "stood down" not in aligned["reason"]
    named = SpectralAlignmentTransformer(n_filters=8, init="s4d-inv").fit(X).init_report_
    assert named["applied"] == "s4d-inv" and named["n_aligned_channels"] == 0


def test_constructor_is_keyword_only():
    with pytest.raises(TypeError):
        SpectralAlignmentTransformer(16)


def test_fitted_features_do_not_depend_on_batch_size():
    X, y = planted(n_per_class=150, length=64)  # more series than either batch size
    small = SpectralAlignmentTransformer(n_filters=8, batch_size=16, random_state=0).fit(X, y)
    large = SpectralAlignmentTransformer(n_filters=8, batch_size=512, random_state=0).fit(X, y)
    np.testing.assert_allclose(small.biases_, large.biases_, rtol=1e-12)
    np.testing.assert_allclose(small.transform(X[:20]), large.transform(X[:20]), rtol=1e-10)


def test_filter_bank_holds_float64_modes_exactly():
    import math

    import torch

    bank = SpectralAlignmentTransformer(n_filters=4, d_state=8, init="s4d-lin").fit(
        np.random.default_rng(0).normal(size=(6, 32))
    )
    assert {p.dtype for p in bank.layer_.parameters()} == {torch.float64}
    assert bank.layer_.imag_A[0, 1].item() == math.pi  # float32-rounded before


def test_given_spectrum_with_named_init_warns():
    X, y = planted(n_per_class=5)
    with pytest.warns(UserWarning, match="tdi.spectrum is ignored"):
        SpectralAlignmentTransformer(
            n_filters=4, init="s4d-lin", tdi=TDIOptions(spectrum=TaskSpectrum.from_frequencies([0.2]))
        ).fit(X, y)


def _numpy_multirocket(z: np.ndarray) -> list[float]:
    """PPV, MPV, MIPV, LSPV of one sequence z (already minus its bias), by plain loops."""
    positive = [t for t, v in enumerate(z) if v > 0]
    if not positive:
        return [0.0, 0.0, -1.0, 0.0]
    longest = run = 0
    for v in z:
        run = run + 1 if v > 0 else 0
        longest = max(longest, run)
    return [
        len(positive) / len(z),
        float(np.mean([z[t] for t in positive])),
        float(np.mean(positive)) / (len(z) - 1),
        longest / len(z),
    ]


def test_multirocket_pooling_matches_plain_loops():
    import torch

    from sktdi.fast_path.transformers import multirocket_pooling

    rng = np.random.default_rng(0)
    filtered = rng.normal(size=(3, 2, 40))
    filtered[0, 0] = -1.0  # no positive value at all
    bias = rng.normal(scale=0.5, size=(3, 2))
    pooled = multirocket_pooling(torch.from_numpy(filtered), torch.from_numpy(bias)).numpy()
    for i in range(3):
        for j in range(2):
            expected = _numpy_multirocket(filtered[i, j] - bias[i, j])
            np.testing.assert_allclose(pooled[i, j], expected, atol=1e-12)


def test_multirocket_and_difference_features_from_the_filtered_sequences():
    """Each feature recomputed from the bank's own filtered sequences ("sequence" features)
    and the fitted biases, raw series first, then the first difference."""
    X, y = planted(n_per_class=4, length=30)
    params = dict(n_filters=2, d_state=4, n_biases=2, random_state=0)
    bank = SpectralAlignmentTransformer(features="multirocket", difference=True, **params)
    F = bank.fit(X, y).transform(X)
    assert F.shape == (8, 2 * 2 * 2 * 4) and len(bank.get_feature_names_out()) == F.shape[1]
    assert bank.get_feature_names_out()[16] == "diff_c0_f0_ppv0"
    K = bank.layer_.kernel(30).numpy()
    for part, (series, biases) in enumerate(
        [(X, bank.biases_), (np.diff(X, axis=-1), bank.difference_biases_)]
    ):
        length = series.shape[-1]
        for h in range(2):
            filtered = np.convolve(series[1], K[h])[:length]
            for q in range(2):
                expected = _numpy_multirocket(filtered - biases[0, h, q])
                start = part * 16 + h * 8 + q * 4
                np.testing.assert_allclose(F[1, start : start + 4], expected, atol=FLOAT32_ATOL)
    # the series' own biases do not move when the difference is added
    plain = SpectralAlignmentTransformer(features="multirocket", difference=False, **params)
    plain.fit(X, y)
    np.testing.assert_array_equal(plain.biases_, bank.biases_)
    np.testing.assert_allclose(plain.transform(X), F[:, :16])


@pytest.mark.parametrize(
    "params,match",
    [
        (dict(features="sequence", difference=True), "difference=True"),
        (dict(features="multirocket", n_biases=0), "n_biases must be at least 1"),
    ],
)
def test_bad_feature_settings_say_what_to_change(params, match):
    X, y = planted(n_per_class=3, length=20)
    with pytest.raises(ValueError, match=match):
        SpectralAlignmentTransformer(n_filters=2, d_state=4, **params).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 time steps"):
        SpectralAlignmentTransformer(
            n_filters=2, d_state=4, init="s4d-lin", difference=True
        ).fit(np.ones((4, 1)))


# ---- series of unequal length ------------------------------------------------------------
def _numpy_features(bank, series: np.ndarray) -> np.ndarray:
    """The bank's pooled features of one whole series (C, L), by numpy alone: each channel's
    convolution with the bank's kernel, then its statistics at the fitted biases (the first
    difference's after the series' own)."""
    K = bank.layer_.kernel(series.shape[-1]).numpy()  # (H, L)
    parts = [(series, bank.biases_)]
    if hasattr(bank, "difference_biases_"):
        parts.append((np.diff(series, axis=-1), bank.difference_biases_))
    out = []
    for u, biases in parts:
        for c in range(u.shape[0]):
            for h in range(K.shape[0]):
                f = np.convolve(u[c], K[h])[: u.shape[-1]]
                if bank.features == "stats":
                    out += [f.mean(), f.std(), f.max(), f.min()]
                    out += [np.mean(f > b) for b in biases[c, h]]
                else:
                    for b in biases[c, h]:
                        out += _numpy_multirocket(f - b)
    return np.array(out)


def _unequal(lengths=(12, 30, 21, 30, 17, 25), channels=2, seed=0):
    """Series (channels, length_i) of unequal length, and the same series right-padded
    with a large junk value to a longer length."""
    rng = np.random.default_rng(seed)
    series = [rng.normal(size=(channels, n)) for n in lengths]
    padded = np.full((len(series), channels, max(lengths) + 7), 1e3)
    for i, s in enumerate(series):
        padded[i, :, : s.shape[-1]] = s
    return series, padded, np.array(lengths), np.arange(len(series)) % 2


@pytest.mark.parametrize("features", ["stats", "multirocket"])
def test_padded_series_have_the_features_of_the_series_alone(features):
    """Before: "X holds 6 series of unequal lengths ... fit(X, y, lengths=lengths)", and fit
    took no lengths. Now a list of series, or padded series with their lengths, give each
    series' features as numpy computes them from the series alone: padding changes none."""
    train, train_padded, train_lengths, y = _unequal()
    bank = SpectralAlignmentTransformer(
        n_filters=3, d_state=4, n_biases=2, features=features, difference=True, random_state=0
    ).fit(train, y)
    # new series: a training value can equal a bias (a quantile), and round-off then decides
    # a PPV comparison
    series, padded, lengths, _ = _unequal(lengths=(9, 33, 20, 14), seed=1)
    expected = np.stack([_numpy_features(bank, s) for s in series])  # (4, F)
    np.testing.assert_allclose(bank.transform(series), expected, atol=FLOAT32_ATOL)
    np.testing.assert_allclose(bank.transform(padded, lengths=lengths), bank.transform(series))
    # scikit-learn's fit_transform would not pass lengths on to transform
    np.testing.assert_allclose(
        clone(bank).fit_transform(train_padded, y, lengths=train_lengths),
        bank.transform(train),
        atol=1e-9,
    )


def test_padding_changes_nothing_in_the_fit():
    """A list of series, and the same series padded with zeros or with junk to another length,
    fit the same bank: the statistic and the biases come from the series' own steps."""
    from sktdi.tdi import fisher_log_power

    series, junk, lengths, y = _unequal()
    zeros = junk[:, :, :30] * (np.arange(30) < lengths[:, None, None])
    params = {"n_filters": 3, "d_state": 4, "n_biases": 3, "random_state": 0}
    fits = [
        SpectralAlignmentTransformer(**params).fit(series, y),
        SpectralAlignmentTransformer(**params).fit(zeros, y, lengths=lengths),
        SpectralAlignmentTransformer(**params).fit(junk, y, lengths=lengths),
    ]
    # the statistic of the series' own steps, as the public function computes it
    statistic = fisher_log_power(zeros, y, lengths=lengths).values
    # the biases: quantiles of the filtered values of every series' own steps
    K = fits[0].layer_.kernel(30).numpy()  # (H, L)
    levels = (np.arange(3) + 0.5) / 3
    for bank in fits:
        np.testing.assert_allclose(bank.task_spectrum_.values, statistic, rtol=1e-10)
        for name, value in fits[0].layer_.state_dict().items():
            np.testing.assert_allclose(bank.layer_.state_dict()[name], value, rtol=1e-12)
        for c in range(2):
            for h in range(3):
                values = np.concatenate([np.convolve(s[c], K[h])[: s.shape[-1]] for s in series])
                np.testing.assert_allclose(
                    bank.biases_[c, h], np.quantile(values, levels), atol=FLOAT32_ATOL
                )
        np.testing.assert_allclose(
            bank.difference_biases_, fits[0].difference_biases_, rtol=1e-9, atol=1e-12
        )


def test_a_pipeline_takes_a_list_of_series_of_unequal_length():
    series, _, _, _ = _unequal(lengths=(40, 64, 52, 48) * 10, channels=1)
    y = np.tile([0, 0, 1, 1], 10)  # both classes in either half, at every length
    series = [s + 2 * c * np.sin(0.6 * np.pi * np.arange(s.shape[-1])) for s, c in zip(series, y)]
    model = Pipeline(
        [
            ("bank", SpectralAlignmentTransformer(n_filters=8, random_state=0)),
            ("scale", StandardScaler()),
            ("ridge", RidgeClassifierCV()),
        ]
    ).fit(series[::2], y[::2])
    assert model.score(series[1::2], y[1::2]) >= 0.9


def test_unequal_lengths_errors_name_what_to_change():
    series, padded, lengths, y = _unequal()
    bank = SpectralAlignmentTransformer(n_filters=2, d_state=4, random_state=0)
    # a list carries its lengths: a second set would be ambiguous
    with pytest.raises(ValueError, match="pass lengths=None"):
        bank.fit(series, y, lengths=lengths)
    # one feature per time step cannot describe series of unequal length
    sequence = SpectralAlignmentTransformer(
        n_filters=2, d_state=4, init="s4d-lin", features="sequence"
    )
    with pytest.raises(ValueError, match="features='stats' or 'multirocket'"):
        sequence.fit(padded, y, lengths=lengths)
    sequence.fit(padded[:, :, :12], y)  # whole series of one length: fine
    with pytest.raises(ValueError, match=r"length seen in fit \(12\)"):
        sequence.transform(padded, lengths=lengths)
    # the first difference of a one-step series has no step
    short = lengths.copy()
    short[0] = 1
    fitted = bank.fit(padded, y, lengths=lengths)
    with pytest.raises(ValueError, match=r"series of length 1 .*\(difference='auto'\)"):
        fitted.transform(padded, lengths=short)
    with pytest.raises(ValueError, match=r"lengths must lie in \[1, 37\]"):
        fitted.transform(padded, lengths=np.full(6, 38))
