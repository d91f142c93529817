"""
Choosing ``init`` with Pipeline and GridSearchCV
================================================

``SSMClassifier`` is an ordinary scikit-learn estimator: it goes in a ``Pipeline`` and its
``init`` is a hyperparameter like any other. Cross-validation on the training split decides;
the test split is scored once at the end. Short training (30 epochs) keeps this quick.
"""

import pandas as pd
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sktdi import SSMClassifier
from sktdi.datasets import load_ucr_split

X_train, y_train, X_test, y_test = load_ucr_split("ItalyPowerDemand")
X_train, X_test = X_train[:, 0], X_test[:, 0]  # univariate: (n, length)

pipe = make_pipeline(StandardScaler(), SSMClassifier(max_epochs=30, random_state=0))
search = GridSearchCV(
    pipe,
    {"ssmclassifier__init": ["tdi", "auto", "s4d-lin", "s4d-inv"]},
    cv=StratifiedKFold(3, shuffle=True, random_state=0),
    n_jobs=2,
)
search.fit(X_train, y_train)
table = pd.DataFrame(search.cv_results_)[["param_ssmclassifier__init", "mean_test_score"]]
print(table.sort_values("mean_test_score", ascending=False).to_string(index=False))
print(f"best: {search.best_params_}, test accuracy {search.score(X_test, y_test):.3f}")

# sphinx_gallery_thumbnail_path = "images/ssm_inits.png"
