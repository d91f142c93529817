"""sktime adapters: SktimeSSMClassifier and SktimeSSMRegressor.

Thin delegates of :class:`~sktdi.SSMClassifier` / :class:`~sktdi.SSMRegressor` with the same
parameters, so that the models run in sktime's tooling (``evaluate``, benchmarking,
pipelines). Series of unequal length are right-padded and masked by length; missing values are
refused by sktime's base class with a clear error. Importing this module imports sktime.
"""

from __future__ import annotations

import inspect

import numpy as np
from sktime.classification.base import BaseClassifier
from sktime.regression.base import BaseRegressor

from ._validation import keyword_only
from .datasets import pad_sequences
from .estimators import SSMClassifier, SSMRegressor
from .persistence import SaveMixin, dumps, loads, save_estimator

_TAGS = {
    "authors": ["sktdi developers"],
    "maintainers": ["sktdi developers"],
    "python_dependencies": ["torch", "skorch"],
    # sktime converts any other panel type to the first of these: a list of DataFrames holds
    # unequal lengths too; numpy3D input is kept as it is
    "X_inner_mtype": ["df-list", "numpy3D"],
    "capability:multivariate": True,
    "capability:unequal_length": True,
    "capability:missing_values": False,
    "property:randomness": "derandomized",
    "capability:random_state": True,
    # sktime's check reads ``save(path)``'s file with sktime.base.load, which unpickles it;
    # here ``save`` writes the safe sktdi format instead (read by sktdi.load, tested in
    # tests/test_persistence.py). The in-memory ``save()`` round trip is still checked.
    "tests:skip_by_name": ["test_save_estimators_to_file"],
}


def _padded(X) -> tuple[np.ndarray, np.ndarray | None]:
    """numpy3D passes through; a df-list (each (length_i, n_channels)) is right-padded, with
    its lengths only when they differ (equal lengths need no mask)."""
    if isinstance(X, np.ndarray):
        return X, None
    padded, lengths = pad_sequences([frame.to_numpy(dtype=np.float64).T for frame in X])
    return padded, None if np.all(lengths == lengths[0]) else lengths


def _delegate_signature(cls, estimator_cls):
    """Give ``cls`` an ``__init__`` with exactly ``estimator_cls``'s parameters: one list of
    parameters and defaults to keep, and get_params/set_params/clone see them all."""
    signature = inspect.signature(estimator_cls.__init__)
    params = [p for p in signature.parameters.values() if p.name != "self"]

    @keyword_only
    def __init__(self, **kwargs):
        unknown = set(kwargs) - {p.name for p in params}
        if unknown:
            raise TypeError(f"{cls.__name__} got unexpected parameters {sorted(unknown)}")
        for p in params:
            setattr(self, p.name, kwargs.get(p.name, p.default))
        super(cls, self).__init__()

    __init__.__signature__ = signature.replace(
        parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]
    )
    __init__.__doc__ = f"Same parameters as :class:`~sktdi.{estimator_cls.__name__}`."
    cls.__init__ = __init__
    # what a saved file lacking a newer parameter meant (sktdi.persistence reads it)
    cls._value_before_parameter_existed = estimator_cls._value_before_parameter_existed
    return cls


class _Delegate(SaveMixin):
    _estimator_cls: type

    def __sklearn_is_fitted__(self) -> bool:
        return bool(getattr(self, "_is_fitted", False))

    def save(self, path=None, serialization_format="sktdi"):
        """Save the fitted estimator; by default in the safe sktdi format.

        Parameters
        ----------
        path : str, os.PathLike or None, default=None
            The file to write (suffix ``.sktdi`` recommended), read back by
            :func:`sktdi.load`. None: return the saved estimator in memory, as sktime's
            ``save`` does, for ``sktime.base.load``.
        serialization_format : {"sktdi", "pickle", "cloudpickle"}, default="sktdi"
            "sktdi": one archive that loads without running code (see
            :func:`sktdi.load`). "pickle" and "cloudpickle": sktime's own ``save``, whose
            files are read with ``sktime.base.load``.

        Returns
        -------
        None or tuple
            With a ``path``, None for "sktdi" (sktime's ZipFile for the pickle formats);
            without one, ``(type(self), data)`` for ``sktime.base.load``.
        """
        if serialization_format != "sktdi":
            return super(SaveMixin, self).save(path, serialization_format)
        if path is None:
            return type(self), dumps(self)
        save_estimator(self, path)
        return None

    @classmethod
    def load_from_serial(cls, serial):
        """Rebuild an estimator from the in-memory data of ``save()``.

        Parameters
        ----------
        serial : bytes
            The second element of ``save()``'s output: an sktdi archive, or a pickle when it
            was saved with a pickle ``serialization_format`` (read by sktime's own loader).

        Returns
        -------
        estimator : object
        """
        if isinstance(serial, bytes) and serial[:4] == b"PK\x03\x04":  # a zip: sktdi's
            estimator = loads(serial, source="the saved estimator")
            if type(estimator) is not cls:
                raise ValueError(
                    f"the data holds a {type(estimator).__name__}, not a {cls.__name__}"
                )
            return estimator
        return super().load_from_serial(serial)

    def _make_estimator(self):
        return self._estimator_cls(**{name: getattr(self, name) for name in self._param_names()})

    @classmethod
    def _param_names(cls) -> list[str]:
        return [n for n in inspect.signature(cls.__init__).parameters if n != "self"]

    def _fit(self, X, y):
        X, lengths = _padded(X)
        self.estimator_ = self._make_estimator().fit(X, y, lengths=lengths)
        return self

    def _predict(self, X):
        X, lengths = _padded(X)
        return self.estimator_.predict(X, lengths=lengths)

    @classmethod
    def get_test_params(cls, parameter_set: str = "default"):
        """Small, fast settings for sktime's estimator checks."""
        fast = {"d_model": 4, "n_layers": 1, "d_state": 4, "max_epochs": 2, "batch_size": 8}
        return [fast, {**fast, "init": "s4d-lin", "pooling": "last"}]


class SktimeSSMClassifier(_Delegate, BaseClassifier):
    """sktime classifier delegating to :class:`~sktdi.SSMClassifier` (same parameters).

    Multivariate and unequal-length panels are supported (padding masked by length); missing
    values are not.

    Examples
    --------
    >>> from sktime.datasets import load_unit_test
    >>> from sktdi.sktime import SktimeSSMClassifier
    >>> X_train, y_train = load_unit_test(split="train")
    >>> X_test, y_test = load_unit_test(split="test")
    >>> clf = SktimeSSMClassifier(d_model=16, max_epochs=20, random_state=0)
    >>> clf = clf.fit(X_train, y_train)
    >>> bool(clf.score(X_test, y_test) > 0.6)
    True
    """

    _estimator_cls = SSMClassifier
    _tags = {**_TAGS, "capability:predict_proba": True}

    def _predict_proba(self, X):
        X, lengths = _padded(X)
        return self.estimator_.predict_proba(X, lengths=lengths)


class SktimeSSMRegressor(_Delegate, BaseRegressor):
    """sktime regressor delegating to :class:`~sktdi.SSMRegressor` (same parameters).

    Examples
    --------
    >>> from sktdi.datasets import load_ucr
    >>> from sktdi.sktime import SktimeSSMRegressor
    >>> X, y = load_ucr("Covid3Month", split="train")
    >>> reg = SktimeSSMRegressor(d_model=8, max_epochs=5, random_state=0).fit(X, y.astype(float))
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    _estimator_cls = SSMRegressor
    _tags = dict(_TAGS)


_delegate_signature(SktimeSSMClassifier, SSMClassifier)
_delegate_signature(SktimeSSMRegressor, SSMRegressor)
