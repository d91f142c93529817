"""A cell's settings: what, besides its key, changes its result, as its "config" column holds it.

A cell's key (dataset, mode, ratio, resample, estimator) names the experiment; its settings say
how it was run. They are the model overrides the estimator reads (``--max-epochs`` and any other
entry of :attr:`Cell.params <sktdi.benchmark.Cell>`) and the harness settings that change the
training or test series: ``min_per_class`` (when not 1), ``n_folds`` (in CV mode) and
``data_dir`` (when the data come from a local archive). Resource settings (threads, ``n_jobs``,
the backend) are not settings: they change the clock, not the result.

The results file stores them as a JSON object with sorted keys, defaults left out, in its
"config" column (``{}`` for a run with every default). A resumed run reuses a finished cell only
when its stored settings equal the cell's; files written before the harness settings were
recorded hold the model overrides alone there, which reads as the defaults for the rest.

This module imports only the standard library (the CLI's parser path stays light).
"""

from __future__ import annotations

import json

import numpy as np

#: the harness's own settings in a config, beside the model overrides
HARNESS_SETTINGS = ("min_per_class", "n_folds", "data_dir")


def used_params(estimator: str, params: dict) -> dict:
    """The entries of ``params`` that the builder of ``estimator`` reads.

    A builder may declare ``params_used``: the names it reads (a tuple), or a function returning
    them. Without it every override counts. So ``--max-epochs`` is a setting of the SSM arms
    and the deep peers, and not of 1-NN or MiniRocket, whose cells it leaves alone.

    Examples
    --------
    >>> from sktdi.benchmark.settings import used_params
    >>> used_params("tdi", {"max_epochs": 5}), used_params("1nn-euclidean", {"max_epochs": 5})
    ({'max_epochs': 5}, {})
    """
    from .estimators import ESTIMATORS

    build = ESTIMATORS[estimator][0] if estimator in ESTIMATORS else None
    used = getattr(build, "params_used", None)
    if used is None:
        return dict(params)
    names = set(used() if callable(used) else used)
    return {k: v for k, v in params.items() if k in names}


# the modes whose ``resample`` is a fold: "cv" over the pooled splits (the field's standard
# cross-validation), "train-cv" inside the official training split alone (for choosing a
# default without ever reading a test split: benchmarks/shared/transfer_protocol.py)
CV_MODES = ("cv", "train-cv")


def cell_settings(
    estimator: str,
    params: dict,
    *,
    mode: str = "resample",
    n_folds: int = 0,
    min_per_class: int = 1,
    data_dir: str | None = None,
) -> dict:
    """The settings of one cell (defaults left out); see the module docstring.

    Examples
    --------
    >>> from sktdi.benchmark.settings import cell_settings
    >>> cell_settings("tdi", {"max_epochs": 5}, mode="cv", n_folds=3)
    {'max_epochs': 5, 'n_folds': 3}
    >>> cell_settings("1nn-euclidean", {"max_epochs": 5})
    {}
    """
    clash = set(params) & set(HARNESS_SETTINGS)
    if clash:
        raise ValueError(f"params {sorted(clash)} name harness settings, not model parameters")
    # an option group (training=TrainingOptions(...)) is written as the dict of its fields
    settings = {key: _json_value(value) for key, value in used_params(estimator, params).items()}
    if mode in CV_MODES:
        settings["n_folds"] = int(n_folds)
    if int(min_per_class) != 1:
        settings["min_per_class"] = int(min_per_class)
    if data_dir is not None:
        settings["data_dir"] = str(data_dir)
    return settings


def parse_config(config) -> dict:
    """A config cell of a results file as a dict (empty or missing: ``{}``)."""
    if not isinstance(config, str) or not config.strip():
        return {}
    try:
        value = json.loads(config)
    except ValueError:  # not written by the harness: matches no cell's settings
        return {"config": config}
    return value if isinstance(value, dict) else {"config": config}


def normalize_config(estimator: str, config) -> str:
    """``config`` (a results-file cell or a dict) as :func:`cell_settings` writes it for
    ``estimator``: the overrides the estimator reads, the harness settings, sorted JSON.

    Older files recorded every override for every estimator; this is what lets their 1-NN rows
    of a ``--max-epochs 20`` run count as 1-NN rows of any run.

    Examples
    --------
    >>> from sktdi.benchmark.settings import normalize_config
    >>> normalize_config("1nn-euclidean", '{"max_epochs": 20}'), normalize_config("tdi", None)
    ('{}', '{}')
    """
    settings = dict(config) if isinstance(config, dict) else parse_config(config)
    harness = {k: settings.pop(k) for k in HARNESS_SETTINGS if k in settings}
    return json.dumps({**used_params(estimator, settings), **harness}, sort_keys=True)


def describe_settings(config) -> str:
    """Settings as a reader wants them: "max_epochs=20, min_per_class=2", or "default settings".

    Examples
    --------
    >>> from sktdi.benchmark.settings import describe_settings
    >>> describe_settings('{"min_per_class": 2, "max_epochs": 20}'), describe_settings("{}")
    ('max_epochs=20, min_per_class=2', 'default settings')
    """
    settings = dict(config) if isinstance(config, dict) else parse_config(config)
    if not settings:
        return "default settings"
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items()))


def run_record(
    datasets, ratios, resamples: int, estimators, params: dict, *, cv: bool = False,
    min_per_class: int = 1, arm_params: dict | None = None,
) -> dict:
    """What a run compared and how: its grid and every estimator's full parameters as built
    (each ``get_params()`` value as JSON: numbers, strings, booleans and None as they are, an
    option group as its fields, an option group left at None as its defaults' fields, other
    objects as their ``repr``; the seed left out, as the cells' seeds come from the
    resample), as ``sktdi benchmark`` writes them to ``settings.json`` beside its
    results.

    A committed run whose settings differ from those the code builds today was made by other
    code: ``benchmarks/default_benchmark/results/default_benchmark_settings.json`` is checked against the defaults so
    (``tests/test_docs.py``).

    Examples
    --------
    >>> from sktdi.benchmark.settings import run_record
    >>> s = run_record(["GunPoint"], [1.0], 1, ["1nn-euclidean"], {})
    >>> s["grid"]["ratios"], s["estimators"]["1nn-euclidean"]["n_neighbors"]
    ([1.0], 1)
    """
    from .estimators import ESTIMATORS

    built = {}
    for name in estimators:
        try:
            own = {**params, **(arm_params or {}).get(name, {})}
            estimator = ESTIMATORS[name][0](0, used_params(name, own))
        except Exception as exc:  # its cells fail too, and report it with a traceback
            built[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        get_params = getattr(estimator, "get_params", lambda deep: {})
        groups = getattr(estimator, "_option_groups", {})  # None: the group's defaults
        built[name] = {
            key: _json_value(groups[key]() if value is None and key in groups else value)
            for key, value in sorted(get_params(deep=False).items())
            if key != "random_state"
        }
    grid = {
        "datasets": list(datasets), "ratios": [float(r) for r in ratios],
        "resamples": int(resamples), "cv": bool(cv), "min_per_class": int(min_per_class),
    }
    record = {"grid": grid, "params": dict(params), "estimators": built}
    if arm_params:
        record["arm_params"] = {k: dict(v) for k, v in arm_params.items()}
    return record


def _json_value(value):
    """A parameter value as JSON: itself when JSON has it, an object with parameters (an
    option group) as the dict of its fields, else its ``repr``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):  # a numpy scalar: the Python number it holds
        return value.item()
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in sorted(value.items())}
    if hasattr(value, "get_params"):
        return {k: _json_value(v) for k, v in sorted(value.get_params(deep=False).items())}
    if isinstance(value, (list, tuple)) and all(
        v is None or isinstance(v, (bool, int, float, str)) for v in value
    ):
        return list(value)
    return repr(value)
