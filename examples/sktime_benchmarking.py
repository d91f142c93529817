"""
SSMClassifier in sktime's benchmarking tools
============================================

``ClassificationBenchmark`` (through ``evaluate``) calls ``cv.split(X)`` without the labels,
so scikit-learn's ``StratifiedKFold`` cannot run there. ``LabelledStratifiedKFold`` takes the
labels up front and stratifies on them; ``KFold`` works too but ignores the classes.
"""

import pandas as pd
from sklearn.metrics import accuracy_score
from sktime.benchmarking.classification import ClassificationBenchmark
from sktime.datasets import load_italy_power_demand

from sktdi.datasets import LabelledStratifiedKFold
from sktdi.sktime import SktimeSSMClassifier

X, y = load_italy_power_demand(split="train", return_type="numpy3D")
benchmark = ClassificationBenchmark()
for init in ("tdi", "s4d-lin"):
    benchmark.add_estimator(
        SktimeSSMClassifier(init=init, max_epochs=30, random_state=0), estimator_id=init
    )
benchmark.add_task(
    (X, pd.Series(y)),
    cv_splitter=LabelledStratifiedKFold(y, n_splits=3, shuffle=True, random_state=0),
    scorers=[accuracy_score],
    task_id="ItalyPowerDemand-train-3fold",
)
results = benchmark.run()
columns = [c for c in results.columns if "accuracy_score" in c and "mean" in c or c == "model_id"]
print(results[columns].to_string(index=False))

# sphinx_gallery_thumbnail_path = "images/default_benchmark.png"
