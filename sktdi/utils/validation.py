"""Every input check in one place, each run once per public call.

- ``as_sequences`` / ``as_labels`` / ``as_targets``: the pure functions' checks (numpy in,
  float64 (n, C, L) out). Public functions call them, then private implementations that
  internal callers (the estimators) use directly on data they validated already.
- ``validate_sequences`` / ``check_lengths``: the estimators' checks, on top of scikit-learn's
  ``validate_data`` (3-D input, the length recorded at fit and checked afterwards, (n, 1, L)
  and (n, L) as the same univariate data). ``validate_padded_sequences``: both, for
  estimators that also take series of unequal length (a list, or padded X with ``lengths``),
  with the record of the fit's padding and the warning for padded series predicted without
  their lengths.
- ``check_state_params``: parameter combinations the parameter constraints cannot express.
- ``keyword_only`` / ``positional_arguments_error`` / ``unexpected_parameters_error``:
  estimator constructors take their own parameters, as keywords only.
- ``restore_on_error``: a failed ``fit`` (``partial_fit``) leaves the estimator as it was.
- ``plain``: a label as the user wrote it, for messages.
"""

from __future__ import annotations

import difflib
import functools
import inspect

import numpy as np
from sklearn.utils.validation import validate_data

from .inputs import fit_padding, pad_sequences, warn_if_padded
from .panels import read_sktime_panel, warn_if_transposed

PAD_HINT = (
    "pad them to one length and pass the true lengths: "
    "`X, lengths = sktdi.datasets.pad_sequences(series)`, then `fit(X, y, lengths=lengths)` "
    "(and lengths= in predict and the sktdi.tdi functions)"
)


# what validating X records on a fitted estimator (validate_sequences, the padding of
# validate_padded_sequences), as the estimators declare it for loading (sktdi.persistence.declared)
INPUT_RECORD_STATE = {
    "n_features_in_": "int",
    "feature_names_in_": "labels[n_features_in_]?",  # fitted on a DataFrame
    "n_channels_": "int",
    "n_timepoints_": "int",
    "_input_ndim": "int",
    "_fit_padding": "data?",
}


def _series_length(series, shape: tuple) -> int:
    # a pandas DataFrame is sktime's (length, channels); anything else ends with the time axis
    if hasattr(series, "to_numpy") and len(shape) == 2:
        return shape[0]
    return shape[-1] if shape else 1


def check_not_text(X, *, name: str = "X") -> None:
    """Refuse series given as text (numpy strings or bytes, or a list of them), as
    scikit-learn's numeric validation does: reading "1.5" as 1.5 would be a guess about what
    the text means, and other text met numpy's "could not convert string to float".

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.validation import check_not_text
    >>> check_not_text(np.ones((2, 3)))  # numbers: fine
    >>> check_not_text(np.ones((2, 3)).astype(str))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: X must be numeric, but holds text (dtype <U32): ...
    """
    first = X
    while isinstance(first, (list, tuple)) and len(first):
        first = first[0]  # a list's first leaf: its series' element type
    if isinstance(first, (str, bytes)):
        kind = type(first).__name__
    elif isinstance(first, np.ndarray) and first.dtype.kind in "US":
        # X itself, or the first of a list's series
        kind = f"{'' if first is X else 'series of '}dtype {first.dtype}"
    else:
        return
    variable = name if name.isidentifier() else "x"  # "update's x" is no Python name
    raise TypeError(
        f"{name} must be numeric, but holds text ({kind}): convert the series to numbers "
        f"first, e.g. np.asarray({variable}, dtype=float) if the text is numbers"
    )


def check_not_ragged(X, *, name: str = "X") -> None:
    """Refuse a list (or 1-D object array) of series that differ in shape, before numpy
    turns it into "setting an array element with a sequence... inhomogeneous shape", which
    says nothing of unequal lengths or of how to pass them (padding plus ``lengths``).

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.validation import check_not_ragged
    >>> check_not_ragged([np.ones(3), np.ones(3)])  # equal lengths: fine
    >>> check_not_ragged([np.ones(3), np.ones(5)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X holds 2 series of unequal lengths (3 to 5 time steps), ...pad_sequences(series)...
    """
    if isinstance(X, np.ndarray):
        if X.dtype != object or X.ndim != 1:
            return
    elif not isinstance(X, (list, tuple)):
        return
    shapes = []
    for i, series in enumerate(X):
        if isinstance(series, (str, bytes)):
            return  # not sequences: the dtype check names the problem
        try:
            shapes.append(np.shape(series))
        except ValueError:
            raise ValueError(
                f"{name}[{i}] is itself ragged: its channels differ in length; every series "
                f"must be (n_channels, length) with one length for all its channels"
            ) from None
    if len(set(shapes)) <= 1:
        return
    lengths = [_series_length(series, shape) for series, shape in zip(X, shapes)]
    if min(lengths) != max(lengths):
        raise ValueError(
            f"{name} holds {len(shapes)} series of unequal lengths ({min(lengths)} to "
            f"{max(lengths)} time steps), which cannot form one array; {PAD_HINT}"
        )
    distinct = sorted(set(shapes), key=str)
    raise ValueError(
        f"{name} holds series of different shapes ({', '.join(map(str, distinct[:4]))}); give "
        f"every series as (length,) or every series as (n_channels, length) with one channel "
        f"count"
    )


def check_not_1d(X, *, name: str = "X") -> None:
    """Refuse 1-D (or scalar) X with the sequence hint. scikit-learn's "reshape(-1, 1) if
    your data has a single feature" would make n series of length 1, which no sequence
    model can use; one series is ``X.reshape(1, -1)``. The message keeps scikit-learn's
    "Reshape your data", which its conformance check ``check_fit2d_predict1d`` looks for.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.validation import check_not_1d
    >>> check_not_1d(np.arange(4.0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X is 1-D (shape (4,)), ... Reshape your data: one series is X.reshape(1, -1); ...
    """
    # the shape without np.ndim/np.shape: those dispatch through __array_function__, which
    # array-likes may refuse (scikit-learn's _NotAnArray does); __array__ is always allowed
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.asarray(X).shape
        except (TypeError, ValueError):
            return  # ragged or not numeric: the checks after this one name the problem
    ndim = len(shape)
    if ndim == 1 and shape[0] == 0:  # [] is no series, not one series of no steps
        raise ValueError(
            f"{name} holds no series (it is empty); give at least one series: a 2-D array "
            f"(n_samples, length), a 3-D array (n_samples, n_channels, length), or a list "
            f"of series"
        )
    if ndim == 0:
        raise ValueError(
            f"{name} is a scalar, but a batch of sequences is 2-D (n_samples, length) "
            f"or 3-D (n_samples, n_channels, length)"
        )
    if ndim == 1:
        raise ValueError(
            f"{name} is 1-D (shape {tuple(shape)}), but a batch of sequences is 2-D "
            f"(n_samples, length) or 3-D (n_samples, n_channels, length). Reshape your data: "
            f"one series is {name}.reshape(1, -1); several series must be stacked into a 2-D "
            f"or 3-D array"
        )


def plain(value):
    """``value`` as a plain Python scalar when it is a numpy one, for messages: numpy 2
    writes ``repr(np.float64(0.0))`` as ``np.float64(0.0)``, which reads as code, not as
    the label the user gave.

    Examples
    --------
    >>> import numpy as np
    >>> from sktdi.utils.validation import plain
    >>> plain(np.float64(0.0)), plain(np.str_("calm")), plain("calm")
    (0.0, 'calm', 'calm')
    """
    return value.item() if isinstance(value, np.generic) else value


def positional_arguments_error(cls: type, args: tuple) -> TypeError:
    """The error for ``cls(*args)``: name the public class (not the private base whose
    ``__init__`` Python would name) and how to pass parameters. Pure: builds, never raises.

    Examples
    --------
    >>> from sktdi import SpectralAlignmentTransformer
    >>> from sktdi.utils.validation import positional_arguments_error
    >>> print(positional_arguments_error(SpectralAlignmentTransformer, ("tdi",)))
    SpectralAlignmentTransformer takes keyword arguments only: \
SpectralAlignmentTransformer(n_filters=...), not 1 positional argument
    """
    name = cls.__name__
    first = next(iter(inspect.signature(cls).parameters), "...")
    count = f"{len(args)} positional argument{'s' if len(args) > 1 else ''}"
    message = f"{name} takes keyword arguments only: {name}({first}=...), not {count}"
    if any(hasattr(arg, "__len__") and not isinstance(arg, (str, bytes)) for arg in args):
        # scikit-learn takes data in fit, where some libraries take it in the constructor
        message += f"; the data goes to fit: {name}(...).fit(X, y)"
    return TypeError(message)


def unexpected_parameters_error(cls: type, unknown, valid) -> TypeError:
    """The error for ``cls(**params)`` with parameters ``cls`` does not have (``unknown``;
    ``valid``: its parameters): name the public class (not the private base whose
    ``__init__`` Python would name), each unknown keyword and, where one is close, the
    parameter it was probably meant to be. Pure: builds, never raises.

    Examples
    --------
    >>> from sktdi import SSMClassifier
    >>> from sktdi.utils.validation import unexpected_parameters_error
    >>> print(unexpected_parameters_error(SSMClassifier, ["n_epochs"], ["max_epochs", "lr"]))
    SSMClassifier got an unexpected parameter 'n_epochs' (did you mean max_epochs?); \
SSMClassifier().get_params() lists its parameters
    """
    name = cls.__name__
    unknown = sorted(unknown)
    valid = list(valid)
    guesses = []
    for keyword in unknown:
        # 0.7: close enough for typos and near-names (n_epochs -> max_epochs, batchsize ->
        # batch_size), not for different parameters that share a prefix (n_filter -> n_layers)
        close = difflib.get_close_matches(keyword, valid, n=1, cutoff=0.7)
        if close:
            guesses.append(close[0] if len(unknown) == 1 else f"{close[0]} for {keyword}")
    if len(unknown) == 1:
        opening = f"{name} got an unexpected parameter {unknown[0]!r}"
    else:
        opening = f"{name} got unexpected parameters {', '.join(map(repr, unknown))}"
    hint = f" (did you mean {', '.join(guesses)}?)" if guesses else ""
    renamed = [renamed_parameter_hint(cls, keyword) for keyword in unknown]
    renamed = "; ".join(hint for hint in renamed if hint)
    if renamed:  # an earlier sktdi's name: say where it went rather than guess
        hint = f" ({renamed})"
    return TypeError(f"{opening}{hint}; {name}().get_params() lists its parameters")


def renamed_parameter_hint(cls: type, keyword: str) -> str | None:
    """Where an earlier sktdi's parameter went (``tdi_spread`` → ``tdi=TDIOptions(spread=...)``),
    from the class's ``_parameters_moved`` / ``_parameters_removed``; None for other names.

    Examples
    --------
    >>> from sktdi import SSMClassifier
    >>> from sktdi.utils.validation import renamed_parameter_hint
    >>> renamed_parameter_hint(SSMClassifier, "tdi_spread")
    'tdi_spread is now tdi=TDIOptions(spread=...), or tdi__spread in set_params and grids'
    """
    source = getattr(cls, "_estimator_cls", cls)  # an sktime adapter: its estimator's
    moved = getattr(source, "_parameters_moved", {}).get(keyword)
    if moved is not None:
        group, _, field = moved.partition("__")
        group_class = getattr(source, "_option_groups", {}).get(group)
        spelled = f"{group_class.__name__}({field}=...)" if group_class else "..."
        return f"{keyword} is now {group}={spelled}, or {moved} in set_params and grids"
    if keyword in getattr(source, "_parameters_removed", ()):
        return f"{keyword} was removed"
    return None


def keyword_only(init):
    """Decorate a keyword-only ``__init__`` so that a positional argument raises
    :func:`positional_arguments_error` instead of Python's "_Base.__init__() takes 1
    positional argument but 2 were given", and an unknown keyword
    :func:`unexpected_parameters_error` instead of "_SpectralRidge.__init__() got an
    unexpected keyword argument".

    ``functools.wraps`` keeps the wrapped signature visible (``inspect.signature`` follows
    ``__wrapped__``), so scikit-learn's ``get_params``, ``clone`` and conformance checks still
    read the keyword-only parameters and their defaults. The parameters are read from the
    decorated constructor's signature at each call, so an ``__init__(self, **params)`` given
    its ``__signature__`` after decoration (the SSM models' shared constructor, the sktime
    adapters') is checked against that signature.
    """

    @functools.wraps(init)
    def __init__(self, *args, **params):
        if args:
            raise positional_arguments_error(type(self), args)
        if params:
            signature = inspect.signature(__init__).parameters.values()
            if not any(p.kind is p.VAR_KEYWORD for p in signature):
                valid = [p.name for p in signature if p.name != "self"]
                unknown = set(params) - set(valid)
                if unknown:
                    raise unexpected_parameters_error(type(self), unknown, valid)
        init(self, **params)

    return __init__


def restore_on_error(method):
    """Decorate ``fit`` (``partial_fit``) so that an exception leaves the estimator exactly as
    it was before the call: a fitted model still predicts as before, a never-fitted one still
    raises NotFittedError. Without it, the checks that record the input (``n_features_in_``,
    ``n_channels_``, ``classes_``, the padding record) before a later check fails would leave
    a model half of one fit and half of another.

    The restore is shallow (``vars(self)`` as it was, each value the same object), which is
    exact because ``fit`` never changes a fitted object in place: it builds fresh ones (the
    network, the filter bank, the scaler, the ridge head, the label encoder) and assigns
    them, so the previous objects are untouched until the assignment, which the restore
    undoes. The one exception is training an existing network (``warm_start``, a
    ``partial_fit`` after the first), which updates its weights in place once the input has
    passed every check: an interruption during that training keeps the epochs and steps
    already taken (copying the network on every call to undo them is not worth it).

    Apply it outside scikit-learn's ``_fit_context`` (its ``__name__`` is kept, which
    ``_fit_context`` reads), so that the restore comes after that context's own clean-up.
    """

    @functools.wraps(method)
    def restoring(self, *args, **kwargs):
        state = dict(vars(self))
        try:
            return method(self, *args, **kwargs)
        except BaseException:  # KeyboardInterrupt too: never half a fit
            vars(self).clear()
            vars(self).update(state)
            raise

    return restoring


def as_sequences(X, *, name: str = "X", min_length: int = 1) -> np.ndarray:
    """Validate a batch of sequences and return it as float64 of shape (n, n_channels, length).

    2-D input is (n_samples, length), univariate; 3-D is (n_samples, n_channels, length).
    Raises ValueError / TypeError that name the problem (dtype, shape, NaN, length, series
    of unequal length).
    """
    X = read_sktime_panel(X)  # sktime's nested frames and lists of frames: a list of series
    if hasattr(X, "to_numpy"):  # pandas
        X = X.to_numpy()
    check_not_ragged(X, name=name)
    check_not_text(X, name=name)
    arr = np.asarray(X)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} is complex ({arr.dtype}); complex data is not supported")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must be numeric; got dtype {arr.dtype} that cannot be converted to float"
            ) from exc
    if arr.ndim == 2:
        arr = arr[:, np.newaxis, :]
    elif arr.ndim < 2:
        check_not_1d(arr, name=name)
    elif arr.ndim != 3:
        raise ValueError(
            f"{name} must be 2-D (n_samples, length) or 3-D (n_samples, n_channels, length); "
            f"got an array of shape {arr.shape}"
        )
    n_samples, n_channels, length = arr.shape
    if n_samples == 0:
        raise ValueError(f"{name} has 0 samples (shape {arr.shape}); at least 1 is required")
    if n_channels == 0:
        raise ValueError(f"{name} has 0 channels (shape {arr.shape})")
    if length < min_length:
        raise ValueError(
            f"{name} holds sequences of length {length}, too short: at least {min_length} "
            f"time step{'s are' if min_length > 1 else ' is'} required"
        )
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all():
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(np.isinf(arr).sum())
        raise ValueError(
            f"{name} contains NaN ({n_nan} values) or infinity ({n_inf} values); "
            f"fill or drop missing values first"
        )
    return arr


def as_targets(y, n_samples: int, *, name: str = "y") -> np.ndarray:
    """Validate numeric regression targets; returns float64 (n_samples, n_outputs)."""
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    arr = np.asarray(y)
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric for regression; got dtype {arr.dtype}") from exc
    if arr.ndim == 1:
        arr = arr[:, np.newaxis]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D; got shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} samples but X has {n_samples}")
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def as_labels(y, n_samples: int, *, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Validate class labels; returns (classes, integer codes). Needs at least 2 classes."""
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D class labels; got shape {arr.shape}")
    if arr.shape[0] != n_samples:
        raise ValueError(f"{name} has {arr.shape[0]} labels but X has {n_samples} samples")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    classes, codes = np.unique(arr, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"{name} has only 1 class ({plain(classes[0])!r}); a class contrast needs at least 2"
        )
    return classes, codes


def check_two_classes(classes, *, name: str = "y") -> None:
    """Refuse fewer than 2 classes (``classes``: the distinct labels) with the classifiers'
    one message, naming the label as the user wrote it.

    Examples
    --------
    >>> from sktdi.utils.validation import check_two_classes
    >>> check_two_classes(["calm", "ringing"])
    >>> check_two_classes(["calm"])
    Traceback (most recent call last):
    ...
    ValueError: y has only 1 class ('calm'); a classifier needs at least 2
    """
    if len(classes) < 2:
        label = f" ({plain(classes[0])!r})" if len(classes) else ""
        raise ValueError(
            f"{name} has only {len(classes)} class{label}; a classifier needs at least 2"
        )


def validate_sequences(
    estimator,
    X,
    y="no_validation",
    *,
    reset: bool,
    min_length: int = 1,
    check_length: bool = True,
    **kwargs,
):
    """Validate X (and y) for ``estimator``; returns (X as float (n, C, L), y).

    At fit (``reset=True``) records ``n_features_in_`` (the length for 2-D input, the channel
    count for 3-D input, as ``validate_data`` does), ``n_channels_`` and ``n_timepoints_``.
    Afterwards, a different channel count or length is an error naming both
    (``check_length=False``: padded series of unequal length, only channels must match).
    A ragged list of series and 1-D X are refused first, with the sequence-specific hint
    (``validate_data``'s would be numpy's "inhomogeneous shape", or "reshape(-1, 1)", which
    makes series of length 1).
    """
    check_not_ragged(X)
    check_not_1d(X)
    check_not_text(X)
    if not reset:
        shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
        fitted_ndim = estimator._input_ndim
        if len(shape) == 3 and fitted_ndim == 2 and shape[1] == 1:
            X = np.asarray(X)[:, 0, :]
        elif len(shape) == 2 and fitted_ndim == 3 and estimator.n_channels_ == 1:
            X = np.asarray(X)[:, np.newaxis, :]
        elif len(shape) == 3 and fitted_ndim == 3:
            _check_fitted_shape(estimator, shape[1], shape[2] if check_length else None)
        elif len(shape) == 2 and fitted_ndim == 3:
            # validate_data would say "X has {L} features ... expecting {C} features": the
            # length read as a channel count
            raise ValueError(
                f"X is 2-D {tuple(shape)}, a panel of univariate series (n_samples, length), "
                f"but {type(estimator).__name__} was fitted on {estimator.n_channels_} "
                f"channels: pass X as a 3-D array (n_samples, {estimator.n_channels_}, length)"
            )
        univariate = len(shape) == 2 or (len(shape) == 3 and shape[1] == 1)
        expected = estimator.n_features_in_
        if check_length and fitted_ndim == 2 and univariate and shape[-1] != expected:
            # validate_data's own message would say "features" and nothing of lengths=; this
            # one keeps its opening, which scikit-learn's conformance checks look for
            raise _length_error(
                estimator,
                shape[-1],
                f"X has {shape[-1]} features, but {type(estimator).__name__} is expecting "
                f"{expected} features as input (series of length {expected})",
            )
    kwargs.setdefault("dtype", [np.float64, np.float32])
    if not reset and not check_length:
        # for 2-D input validate_data would compare the padded length with n_features_in_
        # (the length at fit); padded series may have any length, only channels must match
        kwargs.setdefault("ensure_2d", False)
    if isinstance(y, str) and y == "no_validation":
        X = validate_data(estimator, X, reset=reset, allow_nd=True, **kwargs)
    else:
        X, y = validate_data(estimator, X, y, reset=reset, allow_nd=True, **kwargs)
    if X.ndim not in (2, 3):
        raise ValueError(
            f"X must be 2-D (n_samples, length) or 3-D (n_samples, n_channels, length); "
            f"got an array of shape {X.shape}"
        )
    X3 = X[:, np.newaxis, :] if X.ndim == 2 else X
    n_channels, length = X3.shape[1], X3.shape[2]
    name = type(estimator).__name__
    if reset:
        estimator._input_ndim = X.ndim
        estimator.n_channels_ = n_channels
        estimator.n_timepoints_ = length
        if length < min_length:
            raise ValueError(
                f"X holds sequences of length {length} (n_features = {length}), too short for "
                f"{name}: at least {min_length} time "
                f"step{'s are' if min_length > 1 else ' is'} required"
            )
    else:
        _check_fitted_shape(estimator, n_channels, length if check_length else None)
    return X3, y


def _check_fitted_shape(estimator, n_channels: int, length: int | None) -> None:
    name = type(estimator).__name__
    if n_channels != estimator.n_channels_:
        raise ValueError(
            f"X has {n_channels} channel{'s' if n_channels != 1 else ''}, but {name} was "
            f"fitted on {estimator.n_channels_}"
        )
    if length is not None and length != estimator.n_timepoints_:
        raise _length_error(
            estimator,
            length,
            f"X has sequences of length {length}, but {name} was fitted on length "
            f"{estimator.n_timepoints_}",
        )


def _length_error(estimator, length: int, opening: str) -> ValueError:
    """The error for an array of series whose length is not the fit's, given without
    ``lengths``: ``opening`` and the way out where the model has one.

    A model whose outputs pool each series over time (the SSM models, the ridge models
    without MiniRocket, the transformer's pooled features) takes series of any length with
    their lengths: a list of series, or an array with ``lengths=``. A plain array must keep
    the fit's length (scikit-learn's ``n_features_in_`` contract for 2-D X); the message
    says how to give other lengths, and, for a model fitted on padded series, that an array
    padded to another length needs its ``lengths=``. A model that needs the fit's length
    (``estimator._fixed_length_reason()``: MiniRocket's features, ``features="sequence"``)
    says why.
    """
    name = type(estimator).__name__
    shortest = getattr(estimator, "_min_series_length", None)
    minimum = shortest() if shortest is not None else 1
    if length < minimum:  # no lengths= can help: the advice would be refused in turn
        return ValueError(
            f"{opening}: {name} needs series of at least {minimum} time "
            f"step{'s' if minimum > 1 else ''}"
        )
    fixed = getattr(estimator, "_fixed_length_reason", None)
    reason = fixed() if fixed is not None else None
    if reason is not None:
        return ValueError(f"{opening}: {reason}")
    if getattr(estimator, "_fit_padding", None) is not None:
        return ValueError(
            f"{opening}, the length its series were padded to (fit with lengths=, or a list of "
            f"series of unequal length). {name} takes series of any length with their "
            f"lengths: pass lengths= with X (each series' true length; lengths=np.full(len(X), "
            f"{length}) for series that are whole), or a list of series"
        )
    return ValueError(
        f"{opening}. An array without lengths= must have the fit's length, but {name} takes "
        f"series of any length with their lengths: pass lengths= with X (lengths=np.full("
        f"len(X), {length}) for series that are whole), or a list of series"
    )


def check_lengths(lengths, X3: np.ndarray) -> np.ndarray | None:
    """Validate per-series lengths of right-padded X (n, C, L): integers in [1, L]."""
    if lengths is None:
        return None
    arr = np.asarray(lengths)
    if arr.shape != (X3.shape[0],):
        raise ValueError(
            f"lengths must have shape ({X3.shape[0]},), one per series; got {arr.shape}"
        )
    if arr.dtype.kind not in "iu" and not (
        arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
    ):
        detail = ""
        if arr.dtype.kind == "f":
            detail = " with a fraction" if np.all(np.isfinite(arr)) else " with NaN or infinity"
        raise TypeError(
            f"lengths must be whole numbers (integers, or floats without a fraction); got "
            f"dtype {arr.dtype}{detail}"
        )
    arr = arr.astype(np.int64)
    if arr.min() < 1 or arr.max() > X3.shape[-1]:
        first = int(np.flatnonzero((arr < 1) | (arr > X3.shape[-1]))[0])
        raise ValueError(
            f"lengths must lie in [1, {X3.shape[-1]}] (the padded length; a series needs at "
            f"least 1 time step); got [{arr.min()}, {arr.max()}], first series {first}: "
            f"{arr[first]}"
        )
    return arr


def _float_values(X) -> np.ndarray | None:
    """X's values as a float (n, C, L) array (a view where X is one) for the checks of
    non-finite values, or None where X is no 2-D or 3-D numeric array or frame (text, ragged
    lists, ...: later checks name those)."""
    if hasattr(X, "to_numpy") and getattr(X, "ndim", None) == 2:  # a pandas frame
        try:
            X = X.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            return None
    if not isinstance(X, np.ndarray) or X.ndim not in (2, 3):
        return None
    if X.dtype.kind == "O":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            return None
    if X.dtype.kind != "f":
        return None
    return X[:, np.newaxis, :] if X.ndim == 2 else X


def _missing_kind(value) -> str:
    """What a non-finite value is, in words."""
    return "NaN" if np.isnan(value) else "infinity"


def _zero_missing_padding(X, lengths):
    """X with NaN or infinity past each series' length set to 0, where ``lengths`` says where
    its padding begins: sktime's unequal-length panels and the UCR archive's files pad with
    NaN, and the models read padding as zeros whatever it holds. NaN or infinity within a
    series' length is refused, naming the first place; anything else (text, a bad
    ``lengths``) goes on unchanged to the checks that name it."""
    X3 = _float_values(X)
    if X3 is None:
        return X
    finite = np.isfinite(X3)  # (n, C, L)
    if finite.all():
        return X
    lengths = check_lengths(lengths, X3)
    inside = np.broadcast_to(np.arange(X3.shape[-1]) < lengths[:, None, None], X3.shape)
    bad = ~finite & inside  # (n, C, L)
    if bad.any():
        i, c, t = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"X contains {_missing_kind(X3[i, c, t])} within series {i}'s length "
            f"({lengths[i]} steps): channel {c}, step {t}; a series needs finite values (only "
            f"right-padding past a series' length, where lengths= says it begins, may be NaN)"
        )
    zeroed = np.where(finite, X3, 0.0)  # (n, C, L): the padding's NaN and infinity as zeros
    if hasattr(X, "to_numpy"):  # a frame keeps its columns (its feature names)
        return X.__class__(zeroed[:, 0, :], index=X.index, columns=X.columns)
    return zeroed[:, 0, :] if np.ndim(X) == 2 else zeroed


def _check_finite(X) -> None:
    """Refuse NaN or infinity in X (given without ``lengths``) naming the first place; NaN
    that ends series in some or all channels, as right-padding does, gets the way to pass it
    (``lengths=``). Other X goes on to scikit-learn's checks."""
    X3 = _float_values(X)
    if X3 is None:
        return
    finite = np.isfinite(X3)  # (n, C, L)
    if finite.all():
        return
    missing = ~finite
    # NaN to the end of each (series, channel) row that has one: a right-padding
    nan = np.isnan(X3)
    tails = np.flip(np.cumprod(np.flip(nan, -1), axis=-1), -1).astype(bool)  # (n, C, L)
    starts = np.where(tails.any(axis=-1), np.argmax(tails, axis=-1), X3.shape[-1])  # (n, C)
    ends = starts.min(axis=1)  # (n,): where each series' NaN begins
    # a padding leaves every series a step: NaN from the first step on is no padding
    if np.array_equal(missing, tails) and ends.min() > 0:
        padded = np.flatnonzero(ends < X3.shape[-1])
        raise ValueError(
            f"X contains NaN at the end of {len(padded)} series (series {padded[0]} from step "
            f"{int(ends[padded[0]])} on), as right-padding to one length does. Pass each "
            f"series' true length with lengths= (the NaN past it is read as padding), or give "
            f"the series as a list"
        )
    i, c, t = (int(v) for v in np.argwhere(missing)[0])
    raise ValueError(
        f"X contains {_missing_kind(X3[i, c, t])}: series {i}, channel {c}, step {t}; a series "
        f"needs finite values"
    )


def _series_shapes(X) -> list[tuple] | None:
    """The shapes of the series of X when X is a list (tuple, 1-D object array) of 1-D or 2-D
    array-like series, else None. pandas frames are left to :func:`check_not_ragged` (their
    time axis comes first), scalars to :func:`check_not_1d`."""
    if isinstance(X, np.ndarray):
        if X.dtype != object or X.ndim != 1:
            return None
    elif not isinstance(X, (list, tuple)):
        return None
    if len(X) == 0 or any(isinstance(s, (str, bytes)) or hasattr(s, "to_numpy") for s in X):
        return None
    try:
        shapes = [np.shape(s) for s in X]
    except ValueError:  # a series ragged in itself: check_not_ragged names it
        return None
    return shapes if all(len(shape) in (1, 2) for shape in shapes) else None


def validate_padded_sequences(
    estimator, X, y="no_validation", *, lengths=None, reset: bool, **kwargs
):
    """:func:`validate_sequences` and :func:`check_lengths` for estimators that take series of
    unequal length; returns (X float (n, C, L), y, lengths (n,) or None).

    Unequal lengths arrive either as a list of series, each (length_i,) or (n_channels,
    length_i), which carries its own lengths and is right-padded with zeros here
    (:func:`sktdi.datasets.pad_sequences`), or as right-padded X with its ``lengths``. A
    list given with ``lengths`` is an error, whatever its series' lengths: ``lengths`` would
    cut each series to its value. Such series may have any length, not only the one seen in
    ``fit``. ``lengths`` comes back None when no series is padded (nothing to mask).

    What padded the series is recorded in ``fit`` (``reset=True``; merged with the record so
    far when ``y`` is given without ``reset``: ``partial_fit``, ``warm_start``) as
    ``estimator._fit_padding`` (:func:`sktdi.utils.inputs.fit_padding`); a prediction (no ``y``)
    of X given without ``lengths`` then warns when its series end as that padding did
    (:func:`sktdi.utils.inputs.warn_if_padded`, :class:`~sktdi.PaddedSeriesWarning`). A list of
    series of unequal length carries its lengths: it never warns.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from sktdi.utils.validation import validate_padded_sequences
    >>> X, _, lengths = validate_padded_sequences(
    ...     BaseEstimator(), [np.ones(3), np.ones(5)], reset=True)
    >>> X.shape, lengths.tolist()
    ((2, 1, 5), [3, 5])
    """
    # sktime's nested frames and lists of frames: a list of series (a likely time column is
    # named once, when the model is fitted, not at every prediction)
    X = read_sktime_panel(X, warn=reset)
    given = lengths
    check_not_text(X)  # before padding turns numeric text into numbers
    shapes = _series_shapes(X)
    if shapes is not None and lengths is not None:
        # even when the series are of one length: lengths would cut each to its value
        raise ValueError(
            "lengths is for right-padded X given as one array; X is a list of series, which "
            "carry their own lengths: pass lengths=None"
        )
    if shapes is not None:
        warn_if_transposed(shapes)
        X, lengths = pad_sequences(X)  # padded with zeros: a NaN lies within its series
    if lengths is not None:
        X = _zero_missing_padding(X, lengths)
    else:
        _check_finite(X)
    X3, y = validate_sequences(
        estimator, X, y, reset=reset, check_length=lengths is None, **kwargs
    )
    lengths = check_lengths(lengths, X3)
    if lengths is not None and np.all(lengths == X3.shape[-1]):
        lengths = None  # every series is whole
    if reset or not (isinstance(y, str) and y == "no_validation"):  # fit, partial_fit
        previous = None if reset else getattr(estimator, "_fit_padding", None)
        estimator._fit_padding = fit_padding(X3, lengths, previous)
    elif given is None and lengths is None:  # a prediction of series that may be padded
        warn_if_padded(estimator, X3)
    return X3, y, lengths


def check_state_params(d_state: int, dt_min: float, dt_max: float) -> None:
    """Cross-parameter checks of an S4D layer's settings: an even state size (complex modes
    come in conjugate pairs) and a non-empty step-size range."""
    if d_state % 2:
        raise ValueError(f"d_state must be even, got {d_state}")
    if dt_min > dt_max:
        raise ValueError(f"dt_min={dt_min} must not exceed dt_max={dt_max}")
