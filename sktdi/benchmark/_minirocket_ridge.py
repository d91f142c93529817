"""MiniRocket → StandardScaler(with_mean=False) → RidgeClassifierCV (or RidgeCV), by hand.

The same steps as sktime's ``RocketClassifier(rocket_transform="minirocket")`` — the
univariate transform for one channel, the multivariate one otherwise — without the classifier
wrapper's per-column input conversions, which on 10,000 feature columns cost seconds. It gives
the benchmark a clock for MiniRocket's algorithm, next to the wrapper's (``minirocket``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.linear_model import RidgeClassifierCV, RidgeCV
from sklearn.preprocessing import StandardScaler

from ..utils.threads import keep_torch_threads


class _MiniRocketRidgeBase(BaseEstimator):
    """MiniRocket features, scaled, and the cross-validated ridge :meth:`_head` (numpy3D
    input); the classifier and the regressor differ in their head alone."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def _head(self):
        raise NotImplementedError

    def fit(self, X, y):
        from sktime.transformations.rocket import MiniRocket, MiniRocketMultivariate

        X = np.asarray(X, dtype=np.float64)  # (n, C, L)
        rocket = MiniRocket if X.shape[1] == 1 else MiniRocketMultivariate
        with keep_torch_threads():  # numba's first start resets the OpenMP threads
            self.rocket_ = rocket(random_state=self.random_state).fit(X)
            features = np.asarray(self.rocket_.transform(X))
        self.scaler_ = StandardScaler(with_mean=False)
        features = self.scaler_.fit_transform(features)
        self.ridge_ = self._head().fit(features, y)
        return self

    def predict(self, X):
        with keep_torch_threads():
            features = np.asarray(self.rocket_.transform(np.asarray(X, dtype=np.float64)))
        return self.ridge_.predict(self.scaler_.transform(features))


class MiniRocketRidge(ClassifierMixin, _MiniRocketRidgeBase):
    """MiniRocket features with a cross-validated ridge head (numpy3D input)."""

    def _head(self):
        return RidgeClassifierCV(alphas=np.logspace(-3, 3, 10))

    def fit(self, X, y):
        super().fit(X, y)
        self.classes_ = self.ridge_.classes_
        return self


class MiniRocketRidgeRegressor(RegressorMixin, _MiniRocketRidgeBase):
    """MiniRocket features with a cross-validated ridge regression (numpy3D input): sktime's
    ``RocketRegressor(rocket_transform="minirocket")`` by hand, as :class:`MiniRocketRidge`
    is its classifier."""

    def _head(self):
        return RidgeCV(alphas=np.logspace(-3, 3, 10))
