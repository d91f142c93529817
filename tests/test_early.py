"""Early classification: the decision rule, and the sktime early classifier that reads one
causal network at every step."""

import pickle
import warnings

import numpy as np
import pytest

from sktdi import SSMClassifier
from sktdi.deep_model.early import (
    CLASS,
    DECIDED_AT,
    RUN,
    advance_decisions,
    harmonic_mean_score,
    initial_decisions,
    rule_score,
)
from sktdi.sktime import SktimeSSMEarlyClassifier

FAST = {"d_model": 8, "n_layers": 1, "max_epochs": 3, "device": "cpu"}


def _reference_decisions(probabilities, threshold, consecutive, final_step):
    """The rule written out for one series at a time: (decision step, probabilities)."""
    out = []
    for series in probabilities:
        run, previous = 0, None
        for t, p in enumerate(series, start=1):
            c = int(np.argmax(p))
            run = (run + 1 if c == previous else 1) if p[c] >= threshold else 0
            previous = c
            if run >= consecutive or t >= final_step:
                out.append((t, p))
                break
        else:
            out.append((0, None))
    return out


@pytest.mark.parametrize("consecutive", [1, 3])
def test_the_rule_matches_a_series_by_series_reference(consecutive):
    rng = np.random.default_rng(consecutive)
    logits = rng.normal(scale=2.0, size=(50, 30, 3)).cumsum(axis=1) / 4
    probabilities = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    expected = _reference_decisions(probabilities, 0.8, consecutive, final_step=30)
    # in two calls, as update_predict feeds them: the state carries the runs over
    state, first = advance_decisions(
        initial_decisions(50), probabilities[:, :11], 0.8, consecutive, 30
    )
    state, second = advance_decisions(state, probabilities[:, 11:], 0.8, consecutive, 30)
    for i, (step, p) in enumerate(expected):
        assert state[i, DECIDED_AT] == step
        got = first[i] if step <= 11 else second[i]
        np.testing.assert_array_equal(got, p)
    # rule_score: the same decisions, scored
    y_index = np.arange(50) % 3
    correct = [p is not None and int(np.argmax(p)) == c for (_, p), c in zip(expected, y_index)]
    decided_at = np.array([step for step, _ in expected])
    assert rule_score(probabilities, y_index, 0.8, consecutive, 30) == harmonic_mean_score(
        decided_at, np.array(correct), 30
    )


def test_a_decided_series_stays_decided():
    p = np.array([[[0.9, 0.1], [0.1, 0.9]]])
    state, _ = advance_decisions(initial_decisions(1), p[:, :1], 0.85, 1, final_step=5)
    state, decided = advance_decisions(state, p[:, 1:], 0.85, 1, final_step=5)
    assert state[0, DECIDED_AT] == 1 and state[0, CLASS] == 0 and state[0, RUN] == 1
    assert np.isnan(decided).all()  # decided before this call: nothing new


def test_harmonic_mean_score():
    hm, accuracy, earliness = harmonic_mean_score(np.array([10, 20]), np.array([True, False]), 40)
    assert (accuracy, earliness) == (0.5, 0.375)
    assert hm == pytest.approx(2 * 0.5 * 0.625 / 1.125)


def test_a_series_never_decided_is_scored_wrong_and_read_to_its_last_step():
    """rule_score on probabilities that stop before the full length: a series that never
    reached the threshold is wrong (not class 0) and read to the last step given (not
    decided at step 0)."""
    p = np.array([[[0.6, 0.4]] * 4, [[0.95, 0.05]] * 4])  # (2 series, 4 steps, 2 classes)
    # series 0 of class 0 never reaches 0.9 in the 4 steps given of 10; series 1 decides at 1
    hm, accuracy, earliness = rule_score(p, np.array([0, 0]), 0.9, 1, full_length=10)
    assert accuracy == 0.5
    assert earliness == (4 + 1) / 2 / 10
    assert (hm, accuracy, earliness) == harmonic_mean_score(
        np.array([4, 1]), np.array([False, True]), 10
    )


@pytest.fixture(scope="module")
def task():
    from sktime.datasets import load_unit_test

    X, y = load_unit_test(split="train", return_type="numpy3D")
    X_test, y_test = load_unit_test(split="test", return_type="numpy3D")
    return X, y, X_test, y_test


@pytest.fixture(scope="module")
def early(task):
    X, y, _, _ = task
    return SktimeSSMEarlyClassifier(SSMClassifier(**FAST, prefix_weight=0.5), random_state=0).fit(
        X, y
    )


def test_update_predict_continues_without_rerunning_the_prefix(early, task):
    """predict on the first half then update_predict on the rest decides as predict on the
    whole; the update feeds only the new steps."""
    _, _, X, _ = task
    labels, _ = early.predict(X)
    whole = early.get_state_info().copy()
    first, first_decided = early.predict(X[:, :, :10])
    assert not first_decided.all()  # some cases go on
    stream = early._stream
    assert stream.n_steps_ == 10
    rest, rest_decided = early.update_predict(X[~first_decided])
    assert rest_decided.all()
    # the same stream, fed the 14 new steps at most (a rerun would start a new one from 0)
    assert early._stream is stream and 10 < stream.n_steps_ <= X.shape[-1]
    combined = first.copy()
    combined[~first_decided] = rest
    np.testing.assert_array_equal(combined, labels)
    np.testing.assert_array_equal(early.get_state_info(), whole[~first_decided])
    assert (first[~first_decided] == -1).all()


def test_at_full_length_with_an_unreachable_threshold_it_is_the_classifier(task):
    X, y, X_test, _ = task
    never = SktimeSSMEarlyClassifier(
        SSMClassifier(**FAST), probability_threshold=1.0, random_state=0
    ).fit(X, y)
    labels, decided = never.predict(X_test)
    assert decided.all()
    np.testing.assert_array_equal(labels, never.estimator_.predict(X_test))
    proba, _ = never.predict_proba(X_test)
    np.testing.assert_allclose(proba, never.estimator_.predict_proba(X_test), atol=1e-10)
    assert (never.get_state_info()[:, DECIDED_AT] == X.shape[-1]).all()


def test_score_is_the_harmonic_mean_of_accuracy_and_earliness(early, task):
    _, _, X, y = task
    hm, accuracy, earliness = early.score(X, y)
    labels, _ = early.predict(X)
    assert accuracy == np.mean(labels == y)
    assert earliness == np.mean(early.get_state_info()[:, DECIDED_AT] / X.shape[-1])
    assert hm == harmonic_mean_score(early.get_state_info()[:, DECIDED_AT], labels == y, 24)[0]
    # on a prefix, an undecided case is wrong and was read to the prefix's end
    _, accuracy, earliness = early.score(X[:, :, :5], y)
    decided_at = early.get_state_info()[:, DECIDED_AT]
    assert earliness == np.mean(np.where(decided_at > 0, decided_at, 5) / 24)
    labels, decided = early.predict(X[:, :, :5])
    assert accuracy == np.mean(decided & (labels == y))


def test_what_the_skipped_sktime_checks_would_check(early, task):
    """Fit is idempotent with a random_state; a pickled classifier predicts the same."""
    X, y, X_test, _ = task
    again = SktimeSSMEarlyClassifier(SSMClassifier(**FAST, prefix_weight=0.5), random_state=0)
    proba, decided = again.fit(X, y).predict_proba(X_test)
    expected, expected_decided = early.predict_proba(X_test)
    np.testing.assert_allclose(proba, expected, atol=1e-12)
    np.testing.assert_array_equal(decided, expected_decided)
    restored = pickle.loads(pickle.dumps(early))
    np.testing.assert_allclose(restored.predict_proba(X_test)[0], expected, atol=1e-12)


def test_errors_name_the_problem(early, task):
    X, y, X_test, _ = task
    _, decided = early.predict(X_test[:, :, :5])
    with pytest.raises(ValueError, match="continues the .* cases the last call left undecided"):
        early.update_predict(np.concatenate([X_test[~decided], X_test[:1]]))
    with pytest.raises(ValueError, match="longer length than the 5 steps"):
        early.update_predict(X_test[~decided][:, :, :5])
    with pytest.raises(ValueError, match="probability_threshold must be in"):
        SktimeSSMEarlyClassifier(probability_threshold=1.5).fit(X, y)
    with pytest.raises(ValueError, match="consecutive_predictions must be a positive int"):
        SktimeSSMEarlyClassifier(consecutive_predictions=0).fit(X, y)
    with pytest.raises(TypeError, match="must be an sktdi SSMClassifier"):
        SktimeSSMEarlyClassifier(estimator="minirocket").fit(X, y)
    with pytest.raises(ValueError, match="bidirectional network cannot"):
        SktimeSSMEarlyClassifier(SSMClassifier(network="s4d", bidirectional=True)).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 channels, but the early classifier was fitted on 1"):
        early.predict(np.repeat(X_test, 3, axis=1))
    with pytest.raises(ValueError, match=r"X has 48 steps, more than the 24 of the training"):
        early.predict(np.concatenate([X_test, X_test], axis=-1))


def test_labels_may_be_a_list(task):
    X, y, X_test, _ = task
    early = SktimeSSMEarlyClassifier(SSMClassifier(**FAST), random_state=0).fit(X, list(y))
    assert set(early.predict(X_test)[0]) <= set(y)
    # unsigned labels cannot hold the -1 of an undecided case: they come back as objects
    unsigned = SktimeSSMEarlyClassifier(SSMClassifier(**FAST), probability_threshold=1.0)
    labels, decided = unsigned.fit(X, y.astype(np.uint8)).predict(X_test[:, :, :5])
    assert not decided.any() and (labels == -1).all()
    # the other sktime adapters too (sktime's own check fails on a list with a numpy error)
    from sktdi.sktime import SktimeSpectralRidgeClassifier

    ridge = SktimeSpectralRidgeClassifier(n_filters=8, random_state=0).fit(X, list(y))
    assert set(ridge.predict(X_test)) <= set(y)


def test_an_undecided_case_is_told_from_a_label_of_minus_one(task):
    """-1 marks an undecided case, as in sktime, unless -1 is a label: then None does, so
    that no undecided case reads as a decision for class -1."""
    X, y, X_test, y_test = task
    signed = np.where(y == "1", -1, 2)  # integer labels, -1 among them
    never = SktimeSSMEarlyClassifier(SSMClassifier(**FAST), probability_threshold=1.0)
    labels, decided = never.fit(X, signed).predict(X_test[:, :, :5])
    assert not decided.any()
    assert all(label is None for label in labels)
    assert not (labels == -1).any()
    labels, decided = never.update_predict(X_test)  # at full length: every case decided
    assert decided.all() and set(labels) <= {-1, 2}
    hm, accuracy, _ = never.score(X_test[:, :, :5], np.where(y_test == "1", -1, 2))
    assert accuracy == 0.0  # every case undecided on the prefix: none right


def test_sktime_check_estimator():
    from sktime.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(
            SktimeSSMEarlyClassifier,
            raise_exceptions=False,
            tests_to_exclude=SktimeSSMEarlyClassifier.get_class_tag("tests:skip_by_name"),
        )
    failed = {name: result for name, result in results.items() if result != "PASSED"}
    assert not failed, failed
    assert len(results) > 50
    # four of those sktime's own TEASER skips, for the reasons given with the tag
    assert set(SktimeSSMEarlyClassifier.get_class_tag("tests:skip_by_name")) == {
        "test_non_state_changing_method_contract",
        "test_fit_idempotent",
        "test_persistence_via_pickle",
        "test_save_estimators_to_file",
    }
