"""sktime adapters of sktdi's estimators: SSM and spectral ridge, classifier and regressor.

Thin delegates with the same parameters as the estimator they wrap (:class:`~sktdi.SSMClassifier`,
:class:`~sktdi.SSMRegressor`, :class:`~sktdi.SpectralRidgeClassifier`,
:class:`~sktdi.SpectralRidgeRegressor`), so that the models run in sktime's tooling
(``evaluate``, benchmarking, pipelines). Series of unequal length are right-padded and masked
by length; missing values are refused by sktime's base class with a clear error. ``save``
writes the safe sktdi archive in sktime's file layout, so that both :func:`sktdi.load` and
``sktime.base.load`` read it. Importing this module imports sktime.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import numpy as np
from sktime.classification.base import BaseClassifier
from sktime.regression.base import BaseRegressor

from ._validation import keyword_only
from .datasets import pad_sequences
from .estimators import SSMClassifier, SSMRegressor
from .persistence import SKTIME_OBJECT_MEMBER, SaveMixin, dumps, load, loads, save_estimator
from .ridge import SpectralRidgeClassifier, SpectralRidgeRegressor

__all__ = [
    "SktimeSSMClassifier",
    "SktimeSSMRegressor",
    "SktimeSpectralRidgeClassifier",
    "SktimeSpectralRidgeRegressor",
]

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

    @keyword_only  # which also refuses a keyword that is not in the signature below
    def __init__(self, **kwargs):
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
    cls._value_before_parameter_existed = getattr(
        estimator_cls, "_value_before_parameter_existed", {}
    )
    return cls


_ZIP_SIGNATURE = b"PK\x03\x04"  # an sktdi archive; sktime's pickle formats hold a pickle


def _sktime_file(path) -> Path:
    """Where ``save(path)`` writes: ``path`` itself, or ``path.zip`` for a name without a
    suffix, which is where sktime's own ``save`` writes and ``sktime.base.load`` looks."""
    path = Path(os.fspath(path))
    return path if path.suffix else path.with_name(f"{path.name}.zip")


class _SafeSktimeSave(SaveMixin):
    """sktime's ``save`` / ``load_from_*`` contract with the safe sktdi archive as payload.

    Any sktime adapter of an sktdi estimator (a class in ``sktdi.persistence``'s list)
    inherits it, before its sktime base class.
    """

    def __sklearn_is_fitted__(self) -> bool:
        # what save's fitted check asks: sktime records fitting in _is_fitted
        return bool(getattr(self, "_is_fitted", False))

    def save(self, path=None, serialization_format="sktdi"):
        """Save the fitted estimator; by default in the safe sktdi format.

        Parameters
        ----------
        path : str, os.PathLike or None, default=None
            The file to write. A name without a suffix gets ``.zip``, as in sktime
            (``save("model")`` writes ``model.zip``, which ``sktime.base.load("model")``
            reads); a name with one is written as it is (``.sktdi`` recommended). None:
            return the saved estimator in memory, for ``sktime.base.load``.
        serialization_format : {"sktdi", "pickle", "cloudpickle"}, default="sktdi"
            "sktdi": the sktdi archive, which loads without running code, in sktime's file
            layout (its ``_obj`` member), so that :func:`sktdi.load` and
            ``sktime.base.load`` both read the file. "pickle" and "cloudpickle": sktime's
            own ``save``.

        Returns
        -------
        pathlib.Path, tuple or zipfile.ZipFile
            For "sktdi", the file written, or without a ``path`` ``(type(self), data)``
            for ``sktime.base.load``; for the pickle formats, what sktime's ``save`` returns.

        Notes
        -----
        ``sktime.base.load`` unpickles the file's ``_metadata`` member, a reference to the
        class, to find the class's ``load_from_path``; the estimator's weights and fitted
        state are read from the sktdi archive, never unpickled. :func:`sktdi.load` does not
        unpickle ``_metadata`` either: it refuses a file whose ``_metadata`` is not the exact
        reference ``save`` writes.
        """
        if serialization_format != "sktdi":
            return super(SaveMixin, self).save(path, serialization_format)
        if path is None:
            return type(self), dumps(self)
        target = _sktime_file(path)
        save_estimator(self, target, sktime_layout=True)
        return target

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
        if isinstance(serial, bytes) and serial.startswith(_ZIP_SIGNATURE):
            return cls._expected(loads(serial, source="the saved estimator"))
        return super().load_from_serial(serial)

    @classmethod
    def load_from_path(cls, serial):
        """Rebuild an estimator from the file of ``save(path)``, for ``sktime.base.load``.

        Parameters
        ----------
        serial : str or os.PathLike
            The zip file: what ``save`` returned.

        Returns
        -------
        estimator : object

        Notes
        -----
        The file is read by :func:`sktdi.load`, which runs no code from it. A file of
        sktime's pickle formats (no sktdi archive inside) is read by sktime's loader, which
        unpickles it.
        """
        import zipfile

        with zipfile.ZipFile(serial) as archive, archive.open(SKTIME_OBJECT_MEMBER) as member:
            pickled = member.read(len(_ZIP_SIGNATURE)) != _ZIP_SIGNATURE
        if pickled:  # save(path, serialization_format="pickle"): sktime's own file
            return super().load_from_path(serial)
        return cls._expected(load(serial))

    @classmethod
    def _expected(cls, estimator):
        if type(estimator) is not cls:
            raise ValueError(f"the data holds a {type(estimator).__name__}, not a {cls.__name__}")
        return estimator


class _Delegate(_SafeSktimeSave):
    """An sktime estimator that fits and predicts with a wrapped sktdi estimator.

    ``_delegate_signature`` gives a subclass the wrapped class's parameters; ``estimator_``
    is the fitted sktdi estimator.
    """

    _estimator_cls: type

    def __init__(self):
        super().__init__()
        self.set_tags(**self._parameter_tags())

    def _parameter_tags(self) -> dict:
        """Tags that depend on the parameters' values (none unless a subclass says so)."""
        return {}

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


class _SSMDelegate(_Delegate):
    @classmethod
    def get_test_params(cls, parameter_set: str = "default"):
        """Small, fast settings for sktime's estimator checks."""
        fast = {"d_model": 4, "n_layers": 1, "d_state": 4, "max_epochs": 2, "batch_size": 8}
        return [fast, {**fast, "init": "s4d-lin", "pooling": "last"}]


class _SpectralRidgeDelegate(_Delegate):
    def _parameter_tags(self) -> dict:
        # MiniRocket's features need series of one length (sktime's MiniRocketMultivariate)
        return {"capability:unequal_length": self.rocket is None}

    @classmethod
    def get_test_params(cls, parameter_set: str = "default"):
        """Settings for sktime's estimator checks: the defaults, a small bank with
        MiniRocket's features, and a small S4D-Lin bank."""
        small = {"n_filters": 8, "d_state": 4, "n_biases": 2}
        return [{}, {**small, "rocket": "minirocket"}, {**small, "init": "s4d-lin"}]


class SktimeSSMClassifier(_SSMDelegate, BaseClassifier):
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


class SktimeSSMRegressor(_SSMDelegate, BaseRegressor):
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


class SktimeSpectralRidgeClassifier(_SpectralRidgeDelegate, BaseClassifier):
    """sktime classifier delegating to :class:`~sktdi.SpectralRidgeClassifier`.

    Same parameters. The fast path in sktime's tooling: only a ridge head is trained, as in
    sktime's ``RocketClassifier``, so a fit takes seconds; use it as the baseline, or where
    :class:`SktimeSSMClassifier` has no time to train. Multivariate panels are supported, and
    so are series of unequal length (padding masked by length) unless ``rocket="minirocket"``,
    whose features need series of one length; missing values are not.

    Notes
    -----
    A ridge classifier gives scores, not probabilities, so ``predict_proba`` is sktime's
    default: 1 for the predicted class, 0 for the others, as in sktime's ``RocketClassifier``
    (whose ``RidgeClassifierCV`` has no ``predict_proba`` either). The tag
    ``capability:predict_proba`` is False to say so. The ridge scores are
    ``estimator_.decision_function``.

    Examples
    --------
    >>> from sktime.datasets import load_unit_test
    >>> from sktdi.sktime import SktimeSpectralRidgeClassifier
    >>> X_train, y_train = load_unit_test(split="train")
    >>> X_test, y_test = load_unit_test(split="test")
    >>> clf = SktimeSpectralRidgeClassifier(random_state=0).fit(X_train, y_train)
    >>> bool(clf.score(X_test, y_test) > 0.7)
    True
    """

    _estimator_cls = SpectralRidgeClassifier
    _tags = dict(_TAGS)


class SktimeSpectralRidgeRegressor(_SpectralRidgeDelegate, BaseRegressor):
    """sktime regressor delegating to :class:`~sktdi.SpectralRidgeRegressor`.

    Same parameters. The fast path in sktime's tooling: only a ridge head is trained; use it
    as the baseline, or where :class:`SktimeSSMRegressor` has no time to train. Multivariate
    panels are supported, and so are series of unequal length unless ``rocket="minirocket"``;
    missing values are not.

    Examples
    --------
    >>> from sktdi.datasets import load_ucr
    >>> from sktdi.sktime import SktimeSpectralRidgeRegressor
    >>> X, y = load_ucr("Covid3Month", split="train")
    >>> reg = SktimeSpectralRidgeRegressor(random_state=0).fit(X, y.astype(float))
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    _estimator_cls = SpectralRidgeRegressor
    _tags = dict(_TAGS)


_delegate_signature(SktimeSSMClassifier, SSMClassifier)
_delegate_signature(SktimeSSMRegressor, SSMRegressor)
_delegate_signature(SktimeSpectralRidgeClassifier, SpectralRidgeClassifier)
_delegate_signature(SktimeSpectralRidgeRegressor, SpectralRidgeRegressor)
