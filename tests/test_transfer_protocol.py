"""The transfer protocol's decision rules (benchmarks/shared/transfer_protocol.py): every default of
the deep model goes through ``verdict``, so its rules are held here on tables whose answer is
worked out by hand."""

import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # the studies are the package ``benchmarks`` of the checkout
    sys.path.insert(0, ROOT)

from benchmarks.shared import transfer_protocol as protocol  # noqa: E402


def _table(arm, choice_gain, confirm_gain, *, fit_share=1.0, drop_fold=False):
    """Cells of the incumbent and ``arm``: every choice dataset at accuracy 0.80 for the
    incumbent over N_FOLDS folds (``arm`` 0.80 + gain/100, per dataset), two confirmation sets
    likewise; the arm's fit seconds ``fit_share`` of the incumbent's 10 s."""
    rows = []
    for stage, datasets, gains, folds in (
        ("choice", protocol.CHOICE, choice_gain, range(protocol.N_FOLDS)),
        ("confirm", protocol.CONFIRMATION[:2], confirm_gain, range(1)),
    ):
        if gains is None:
            continue
        for dataset, gain in zip(datasets, gains):
            for fold in folds:
                rows.append({"stage": stage, "dataset": dataset, "arm": protocol.INCUMBENT,
                             "fold": fold, "accuracy": 0.80, "fit_seconds": 10.0})
                rows.append({"stage": stage, "dataset": dataset, "arm": arm, "fold": fold,
                             "accuracy": 0.80 + gain / 100, "fit_seconds": 10.0 * fit_share})
    table = pd.DataFrame(rows)
    if drop_fold:  # the arm's last fold of the first choice dataset has not finished
        mine = table[(table["arm"] == arm) & (table["stage"] == "choice")]
        table = table.drop(mine.index[protocol.N_FOLDS - 1])
    return table


def test_verdict_reports_paired_gaps_in_points():
    v = protocol.verdict(_table("noncausal", [1, 2, 3, 4, 5], [0.5, -1.5]), "noncausal")
    assert v["choice"] == {"datasets": 5, "mean": pytest.approx(3.0), "worst": pytest.approx(1)}
    assert v["confirm"] == {"datasets": 2, "mean": pytest.approx(-0.5),
                            "worst": pytest.approx(-1.5)}
    # ahead on the choice, but behind on the confirmation's mean: not adopted
    assert v["adopt"] is False


@pytest.mark.parametrize(
    "choice, confirm, adopt",
    [
        ([1, 1, 1, 1, 1], [0, 1], True),  # ahead, then not behind anywhere by more than WORST
        ([1, 1, 1, 1, 1], [4, -3], False),  # one confirmation set more than WORST behind
        ([-1, -1, 0, 0, 1], None, False),  # not ahead on the choice: no confirmation needed
        ([1, 1, 1, 1, 1], None, None),  # ahead, confirmation not run yet: undecided
    ],
)
def test_accuracy_rule(choice, confirm, adopt):
    assert protocol.verdict(_table("noncausal", choice, confirm), "noncausal")["adopt"] is adopt


def test_an_unfinished_choice_is_undecided():
    table = _table("noncausal", [2] * 5, [1, 1], drop_fold=True)
    v = protocol.verdict(table, "noncausal")
    assert v["choice"]["datasets"] == len(protocol.CHOICE) - 1
    assert v["adopt"] is None


def test_a_candidate_that_multiplies_the_fit_needs_its_declared_gain():
    gain = protocol.MIN_CONFIRM_GAIN["ensemble3"]
    assert protocol.verdict(_table("ensemble3", [1] * 5, [gain - 1, gain - 1]),
                            "ensemble3")["adopt"] is False
    assert protocol.verdict(_table("ensemble3", [1] * 5, [gain, gain + 1]),
                            "ensemble3")["adopt"] is True


@pytest.mark.parametrize(
    "share, choice, confirm, adopt",
    [
        (0.5, [0, -0.5, 0, 0, 0], [0, 0], True),  # cheap and within the tolerance
        (0.9, [1] * 5, [1, 1], False),  # ahead, but not cheap enough
        (0.5, [-1] * 5, [0, 0], False),  # cheap, but the choice's mean trails too far
        (0.5, [0] * 5, [1, -3], False),  # a confirmation set more than WORST behind
    ],
)
def test_cost_rule(share, choice, confirm, adopt):
    v = protocol.verdict(_table("layers3", choice, confirm, fit_share=share), "layers3")
    assert v["fit_ratio"] == pytest.approx(share)
    assert v["adopt"] is adopt


def test_a_failed_cost_confirmation_is_final_whatever_the_choice():
    table = _table("stop10", [0] * 5, [-8, -14], fit_share=0.2, drop_fold=True)
    assert protocol.verdict(table, "stop10")["adopt"] is False


def test_results_reads_each_run_file_and_keeps_finished_cells(tmp_path):
    common = {"mode": "resample", "ratio": 1.0, "resample": 0, "fit_seconds": 1.0}
    pd.DataFrame([
        {"dataset": "ACSF1", "estimator": "tdi", "accuracy": 0.8, "status": "ok", **common},
        {"dataset": "PLAID", "estimator": "tdi", "accuracy": None, "status": "error", **common},
    ]).to_csv(tmp_path / "confirm_layers3.csv", index=False)
    pd.DataFrame([
        {"dataset": "ACSF1", "estimator": "minirocket", "accuracy": 0.9, "status": "ok",
         **common},
    ]).to_csv(tmp_path / "confirm_peers.csv", index=False)
    pd.DataFrame([{"dataset": "ACSF1", "estimator": "tdi", "accuracy": 0.1, "status": "ok",
                   **common}]).to_csv(tmp_path / "confirm_layers3_replaced.csv", index=False)
    table = protocol.results(tmp_path)
    assert sorted(zip(table["arm"], table["dataset"], table["accuracy"])) == [
        ("layers3", "ACSF1", 0.8), ("minirocket", "ACSF1", 0.9)]
    assert set(table["stage"]) == {"confirm"}
