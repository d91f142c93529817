"""Evaluate a benchmark run's tsml-eval results files with tsml-eval's own evaluation, and check
that it reproduces the run's per-dataset accuracies exactly.

tsml-eval's ``evaluate_classifiers_by_problem`` reads every results file of the run (one per
arm, dataset and resample, under ``<out>/tsml/ratio<r>/``), verifies each (its loader checks the
accuracy written in a file against the predictions in it) and writes its own tables. Its
per-dataset mean accuracy over resamples is set against the mean of the run's ``results.csv``
rows, dataset by dataset and arm by arm: every difference must be exactly zero.

tsml-eval pins older scikit-learn and aeon than sktdi's; its loaders run with the newer ones,
so it is installed beside them without its pins: ``pip install --no-deps tsml-eval==0.6.0``.

    python benchmarks/archive_run/check_tsml.py runs/archive/out benchmarks/archive_run/results/archive_tsml_check.csv
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import pandas as pd


def without_figures():
    """tsml-eval's evaluation with its figure step left out.

    tsml-eval 0.6 draws its figures through aeon's ``create_multi_comparison_matrix`` with an
    argument that aeon 1.6 no longer takes (a TypeError after the tables are written). Its
    tables (means, ranks, p-values per statistic) are computed before, by tsml-eval's own
    code, and are what is checked here; the run's own critical-difference diagrams are
    aeon's (``sktdi benchmark``).
    """
    import tsml_eval.evaluation.multiple_estimator_evaluation as evaluation

    evaluation._figures_for_statistic = lambda *args, **kwargs: None
    return evaluation.evaluate_classifiers_by_problem


def check(out: Path) -> pd.DataFrame:
    from sktdi.benchmark.statistics import dataset_means

    evaluate_classifiers_by_problem = without_figures()

    # round_trip: pandas' default parser may misread a float's last digit
    results = pd.read_csv(out / "results.csv", float_precision="round_trip")
    results = results[results["status"] == "ok"]
    rows = []
    for ratio, part in results.groupby("ratio"):
        root = out / "tsml" / f"ratio{ratio:g}"
        arms = sorted(part["estimator"].unique())
        datasets = sorted(part["dataset"].unique())
        resamples = int(part["resample"].max()) + 1
        saved = out / "tsml_eval" / f"ratio{ratio:g}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its figures' font and tight-layout warnings
            evaluate_classifiers_by_problem(
                f"{root}/", arms, datasets, str(saved), resamples=resamples, eval_name="run",
            )
        theirs = pd.read_csv(saved / "run" / "Accuracy" / "accuracy_mean.csv", index_col=0,
                             float_precision="round_trip")
        # the run's per-dataset accuracies, as its summary takes them
        ours = dataset_means(part).xs(ratio, level="ratio").stack()
        for (dataset, arm), value in ours.items():
            rows.append({
                "ratio": ratio, "dataset": dataset, "estimator": arm,
                "resamples": int((part["dataset"].eq(dataset) & part["estimator"].eq(arm)).sum()),
                "ours": value, "tsml_eval": float(theirs.loc[dataset, arm]),
            })
    table = pd.DataFrame(rows)
    table["difference"] = table["tsml_eval"] - table["ours"]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the run's --out folder")
    parser.add_argument("save", type=Path, help="the comparison table (CSV)")
    args = parser.parse_args()
    table = check(args.out)
    table.to_csv(args.save, index=False)
    n_exact = int((table["difference"] == 0).sum())
    print(f"{n_exact} of {len(table)} (dataset, arm) accuracies equal exactly; largest "
          f"difference {table['difference'].abs().max():.3g}")


if __name__ == "__main__":
    main()
