"""The published results beside the archive study's run, per dataset: each published
classifier's resample 0 (the official split, which pairs with the run's cell exactly) and its
mean over its resamples (MiniRocket's paper publishes the mean alone), read with the main job's
own reader (``sktdi.benchmark.published``), so that the page reads committed files only.

    python benchmarks/archive_study/beside.py \\
        aeon MiniRocket=../shared/data/published/minirocket_ucr109_mean.csv \\
        > benchmarks/archive_study/results/published.csv
"""

from __future__ import annotations

import sys


def main(specs: list[str]) -> None:
    import pandas as pd

    from sktdi.benchmark.published import MEAN, read_all_published

    published = read_all_published(specs)
    rows = []
    for (classifier, dataset), part in published.groupby(["classifier", "dataset"]):
        zero = part.loc[part["resample"] == 0, "accuracy"]
        means = part.loc[part["resample"] == MEAN, "accuracy"]
        drawn = part.loc[part["resample"] != MEAN, "accuracy"]
        rows.append({
            "classifier": classifier, "dataset": dataset,
            "resample0": zero.iloc[0] if len(zero) else None,
            "mean": means.iloc[0] if len(means) else drawn.mean(),
            "resamples": len(drawn) if len(drawn) else None,
        })
    pd.DataFrame(rows).to_csv(sys.stdout, index=False)


if __name__ == "__main__":
    main(sys.argv[1:])
