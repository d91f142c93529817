"""The resampled protocol's rule (benchmarks/deep_resampled/deep_resampled.py): the deep model's
defaults are decided by ``verdict``, so its statistics are checked against independent
computations and its rules on tables whose answer is worked out by hand."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:  # the studies are the package ``benchmarks`` of the checkout
    sys.path.insert(0, ROOT)

from benchmarks.deep_resampled import deep_resampled as protocol  # noqa: E402


def test_paired_matches_a_t_interval_and_wilcoxon_computed_apart():
    gaps = pd.Series([1.0, -0.5, 2.0, 0.0, 3.5, 1.5, -1.0, 0.5])
    test = protocol.paired(gaps)
    n, mean, sd = len(gaps), float(np.mean(gaps)), float(np.std(gaps, ddof=1))
    t = stats.t.ppf(0.975, n - 1)
    assert test["n"] == n
    assert test["mean"] == pytest.approx(mean)
    assert test["low"] == pytest.approx(mean - t * sd / np.sqrt(n))
    assert test["high"] == pytest.approx(mean + t * sd / np.sqrt(n))
    assert test["mdd"] == pytest.approx(2.8 * sd / np.sqrt(n))
    # the signed-rank test, zero differences split between the signs
    assert test["p"] == pytest.approx(stats.wilcoxon(gaps, zero_method="zsplit").pvalue)


def test_paired_of_one_cell_has_no_interval():
    test = protocol.paired(pd.Series([2.0]))
    assert test["n"] == 1 and test["mean"] == 2.0 and np.isnan(test["low"])


def _table(gains: dict, draws=None, spread: float = 0.0):
    """The incumbent at 0.80 on every draw of every choice and confirmation set; each arm
    0.80 + gain/100 on a set (``gains[arm][dataset]``, default 0), ± ``spread`` points
    alternating over the draws."""
    rows = []
    for dataset in (*protocol.CHOICE, *protocol.CONFIRMATION):
        for r in protocol.draws(dataset) if draws is None else range(draws):
            rows.append({"task": "classification", "stage": protocol.stage_of(dataset),
                         "dataset": dataset, "arm": protocol.INCUMBENT, "resample": r,
                         "score": 0.80})
            for arm, by_set in gains.items():
                wobble = spread * (1 if r % 2 else -1)
                rows.append({"task": "classification", "stage": protocol.stage_of(dataset),
                             "dataset": dataset, "arm": arm, "resample": r,
                             "score": 0.80 + (by_set.get(dataset, 0.0) + wobble) / 100})
    return pd.DataFrame(rows)


def test_differences_pair_on_the_draw_in_points():
    table = _table({"narrow": {"GunPoint": 3.0}}, draws=2)
    diff = protocol.differences(table, "narrow")
    gun = diff[diff["dataset"] == "GunPoint"]
    assert list(gun["diff"]) == pytest.approx([3.0, 3.0])
    assert len(diff) == 2 * (len(protocol.CHOICE) + len(protocol.CONFIRMATION))
    # a draw the candidate has not finished is left out, not paired with another
    partial = table.drop(table[(table["arm"] == "narrow") & (table["resample"] == 1)].index)
    assert len(protocol.differences(partial, "narrow")) == len(diff) // 2


def test_a_candidate_level_everywhere_holds_and_is_adopted():
    table = _table({"narrow": {}, "narrow3": {}}, spread=0.5)
    v = protocol.verdict(table)
    assert v["arms"]["narrow"]["choice"]["holds"] and v["arms"]["narrow"]["confirm"]["holds"]
    assert v["adopted"] in ("narrow", "narrow3")


@pytest.mark.parametrize(
    "gains, holds_choice",
    [
        ({"OSULeaf": -2.5}, False),  # one set's mean over its draws more than WORST_SET behind
        ({"OSULeaf": -1.9}, True),  # behind on a set, within WORST_SET, the mean well above -1
        ({d: -1.5 for d in protocol.CHOICE}, False),  # the whole interval below -1 point
    ],
)
def test_the_rule_on_a_stage(gains, holds_choice):
    v = protocol.verdict(_table({"narrow": gains}, spread=0.2))
    assert v["arms"]["narrow"]["choice"]["holds"] is holds_choice


def test_holding_on_the_choice_alone_adopts_nothing():
    behind = {"ACSF1": -4.0}
    v = protocol.verdict(_table({"narrow": behind, "narrow3": behind}, spread=0.2))
    assert v["arms"]["narrow"]["choice"]["holds"]
    assert not v["arms"]["narrow"]["confirm"]["holds"]
    assert v["adopted"] == protocol.INCUMBENT


def test_of_two_candidates_that_hold_the_larger_choice_mean_is_adopted():
    v = protocol.verdict(_table({"narrow": {"GunPoint": 0.5}, "narrow3": {"GunPoint": 1.5}}))
    assert v["adopted"] == "narrow3"


def test_nothing_is_adopted_before_every_cell_is_in():
    table = _table({"narrow": {}, "narrow3": {}})
    assert protocol.verdict(table)["adopted"] in ("narrow", "narrow3")
    late = table[(table["dataset"] == "ACSF1") & (table["arm"] == "default")].index[-1:]
    assert protocol.verdict(table.drop(late))["adopted"] is None


def test_a_noisy_stage_does_not_hold_whatever_its_mean():
    # level on the mean but ± 6 points a draw: the interval reaches below -1 point
    v = protocol.verdict(_table({"narrow": {}}, draws=2, spread=6.0))
    assert v["arms"]["narrow"]["choice"]["mean"] == pytest.approx(0.0, abs=1e-9)
    assert not v["arms"]["narrow"]["choice"]["holds"]


def test_the_plan_runs_every_arm_on_every_draw_once():
    jobs = protocol.plan()
    assert len(jobs) == len(set(jobs))
    for dataset in (*protocol.CHOICE, *protocol.CONFIRMATION):
        for arm in (*protocol.ARMS, "minirocket"):
            got = sorted(r for (_, d, a, r) in jobs if d == dataset and a == arm)
            assert got == list(protocol.draws(dataset))
    # round 1's long-set incumbent runs last of round 1: an interrupted run has every cheaper
    # cell; round 2 follows it
    first = [j for j in jobs if j[2] not in protocol.ROUND2]
    assert jobs[: len(first)] == first
    slow_default = [i for i, j in enumerate(first) if j[1] in protocol.SLOW and j[2] == "default"]
    assert slow_default == list(range(len(first) - len(slow_default), len(first)))


def test_a_round_two_arm_is_reported_but_never_adopted():
    (late,) = protocol.ROUND2
    behind = {"OSULeaf": -5.0}  # round 1's candidates fail; the late arm is ahead everywhere
    v = protocol.verdict(_table({late: {"GunPoint": 3.0}, "narrow": behind, "narrow3": behind}))
    assert v["arms"][late]["choice"]["holds"] and v["arms"][late]["confirm"]["holds"]
    assert v["adopted"] == protocol.INCUMBENT
