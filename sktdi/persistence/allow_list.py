"""The allow-list: every class a file may name, as ``"module:Class"`` strings.

Each is imported only when a file names one, never when this package is imported (the
estimators import it)."""

from __future__ import annotations

import importlib
import sys

# The allow-list: every class a file may name, as "module:Class", imported only when a file
# names it (never when this module is imported: the estimators import it). The file chooses
# among these names and never supplies a module path, so loading cannot import or run code
# the file asks for. The top-level estimator must be one of ESTIMATOR_CLASSES.
ESTIMATOR_CLASSES = {
    "sktdi.SSMClassifier": "sktdi.deep_model.estimators:SSMClassifier",
    "sktdi.SSMRegressor": "sktdi.deep_model.estimators:SSMRegressor",
    "sktdi.SpectralAlignmentTransformer": (
        "sktdi.fast_path.transformers:SpectralAlignmentTransformer"
    ),
    "sktdi.sktime.SktimeSSMClassifier": "sktdi.sktime:SktimeSSMClassifier",
    "sktdi.sktime.SktimeSSMRegressor": "sktdi.sktime:SktimeSSMRegressor",
    "sktdi.sktime.SktimeSpectralRidgeClassifier": "sktdi.sktime:SktimeSpectralRidgeClassifier",
    "sktdi.sktime.SktimeSpectralRidgeRegressor": "sktdi.sktime:SktimeSpectralRidgeRegressor",
    "sktdi.sktime.SktimeSSMEarlyClassifier": "sktdi.sktime:SktimeSSMEarlyClassifier",
    "sktdi.SpectralRidgeClassifier": "sktdi.fast_path.ridge:SpectralRidgeClassifier",
    "sktdi.SpectralRidgeRegressor": "sktdi.fast_path.ridge:SpectralRidgeRegressor",
}
# objects inside a fitted estimator or among its parameters: ``get_params()`` and fitted
# attributes, rebuilt by the class's _from_saved_state hook, else as class(**params) given the
# attributes
NESTED_OBJECT_CLASSES = {
    **ESTIMATOR_CLASSES,
    "sktdi.tdi.TDIOptions": "sktdi.tdi.options:TDIOptions",
    "sktdi.TrainingOptions": "sktdi.deep_model.training:TrainingOptions",
    "sklearn.preprocessing.LabelEncoder": "sklearn.preprocessing:LabelEncoder",
    # the ridge models' scaler and head
    "sklearn.preprocessing.StandardScaler": "sklearn.preprocessing:StandardScaler",
    "sklearn.preprocessing.LabelBinarizer": "sklearn.preprocessing:LabelBinarizer",
    "sklearn.linear_model.RidgeClassifierCV": "sklearn.linear_model:RidgeClassifierCV",
    "sklearn.linear_model.RidgeCV": "sklearn.linear_model:RidgeCV",
    # the ridge models' rocket_ (checked by the ridge model's _loaded_problem)
    "sktime.MiniRocketMultivariate": "sktime.transformations.rocket:MiniRocketMultivariate",
    "sktime.MiniRocket": "sktime.transformations.rocket:MiniRocket",
    "sktime.MiniRocketMultivariateVariable": (
        "sktime.transformations.rocket:MiniRocketMultivariateVariable"
    ),
}
# dataclasses rebuilt from their fields
RECORD_CLASSES = {
    "sktdi.tdi.TaskSpectrum": "sktdi.tdi:TaskSpectrum",
    "sktdi.tdi.TDIReport": "sktdi.tdi:TDIReport",
    "sktdi.tdi.SpectralPeak": "sktdi.tdi:SpectralPeak",
}
# enums rebuilt from their member's name (sktime's fit records its input's dtype kinds)
ENUM_CLASSES = {
    "sktime.DtypeKind": "sktime.datatypes._dtypekind:DtypeKind",
}
# classes that encode themselves as a value of their own type (``_saved_value``) and are
# rebuilt by ``_from_saved_value``: the type tag -> the class
VALUE_CLASSES = {
    "s4d_layer": "sktdi.ssm.layers:S4D",
}
SAVED_CLASSES = {
    **NESTED_OBJECT_CLASSES, **RECORD_CLASSES, **ENUM_CLASSES, **VALUE_CLASSES
}  # the whole allow-list


def _registered_name(registry: dict, cls: type) -> str | None:
    """The registry's name for exactly ``cls`` (not a subclass), or None. Only modules that
    are already imported are looked at: an instance's class is always imported."""
    for name, target in registry.items():
        module_name, attribute = target.split(":")
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, attribute, None) is cls:
            return name
    return None


def _registered_class(registry: dict, name, what: str) -> type:
    if not isinstance(name, str) or name not in registry:
        raise ValueError(f"unknown {what} {name!r}; known: {', '.join(sorted(registry))}")
    module_name, attribute = registry[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # an optional dependency: sktime, for MiniRocket
        package = module_name.split(".")[0]
        raise ImportError(
            f"the file holds a {name}, which needs {package}; install it (for sktime: pip "
            f"install 'sktdi[sktime]') to load the file"
        ) from exc
    return getattr(module, attribute)
