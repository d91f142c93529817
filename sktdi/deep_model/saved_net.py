"""A fitted SSM estimator's skorch network in the sktdi file format (:mod:`sktdi.persistence`).

The file holds what rebuilding the network needs beyond the estimator's parameters (its
module's keyword arguments, the validation split's seed), then its weights, optimizer state
and history. Loading rebuilds the network the way ``fit`` builds it, from the loaded
estimator's parameters (:func:`sktdi.deep_model.training.build_net`), checks that it is the saved
one, builds its module once and gives it the saved tensors, each checked against the module's own
shapes and dtypes. The estimator's hooks (``SSMClassifier._saved_state``, ...) call these.
"""

from __future__ import annotations

import torch
from skorch.history import History

from ..persistence import changed_since_fit_error
from ..persistence.declared import saved_numel, network_size_problem
from ..utils.options import resolve_options
from ..utils.seeding import seeded
from .training import TrainingOptions, build_net, network_parameters, resolved_network_params

# module keywords a network of a file written by an older sktdi may hold that the estimator's
# parameters no longer give, and the value a network built now has: a saved network keeps a
# different one (a prenorm=True network loads, predicts and saves again as it was)
REMOVED_MODULE_KWARGS = {"prenorm": False}


def module_kwargs(net) -> dict:
    """The keyword arguments ``net`` builds its module with."""
    prefix = "module__"
    return {
        name[len(prefix):]: value
        for name, value in net.get_params(deep=False).items()
        if name.startswith(prefix)
    }


def _split_seed(net) -> int | None:
    split = net.train_split
    return None if split is None else int(split.random_state)


def _as_built_now(kwargs: dict, spec: dict) -> dict:
    """``kwargs`` without the removed module keywords that ``spec`` (what the estimator's
    parameters give now) does not hold: what they are compared on."""
    return {
        name: value for name, value in kwargs.items()
        if name in spec or name not in REMOVED_MODULE_KWARGS
    }


def check_network_as_fitted(owner, net) -> None:
    """Loading rebuilds the network from the estimator's parameters, so they must still be
    the ones it was built with: a parameter changed by set_params after fit would give a
    different network (or none that takes the saved weights). The error names the changed
    parameters as the estimator has them (``d_model``, ``n_layers``, ...), not the network's
    own keyword arguments. The estimator's network spec is compared with the net's (no second
    network is built)."""
    saved = module_kwargs(net)
    module, spec = owner._network_spec(saved["n_channels"], saved["n_outputs"])
    saved = _as_built_now(saved, spec)
    if module is net.module and saved == spec:
        return
    fitted = network_parameters(net.module, saved)
    now = network_parameters(module, spec)
    # a parameter of one network only (bidirectional, when network changed) follows the others
    changed = sorted(
        name for name in fitted.keys() & now.keys() if fitted[name] != now[name]
    ) or sorted(fitted.keys() ^ now.keys())
    # a parameter left at "auto" follows the network: where the network changed, it is the
    # change to name (set back, the "auto" ones follow it)
    changed = [name for name in changed if getattr(owner, name, None) != "auto"] or changed
    if "init" in changed:  # the layers hold the base init; the fit's own init is reported
        requested = getattr(owner, "init_report_", {}).get("requested")
        if requested is not None:
            fitted["init"] = requested
    raise changed_since_fit_error(
        owner,
        changed,
        {name: getattr(owner, name, now.get(name)) for name in changed},
        fitted,
        "its fitted network",
        "loading rebuilds the network from them",
    )


def net_record(writer, owner, net, key: str) -> dict:
    """The file's record of ``owner``'s fitted skorch ``net``: its module's settings, the
    validation split's seed, then its weights, optimizer state and history."""
    module_state = {
        name: writer.store_tensor(f"{key}/module/{name}", tensor)
        for name, tensor in net.module_.state_dict().items()
    }
    optimizer = net.optimizer_.state_dict()
    optimizer_state = {}  # parameter index -> {"exp_avg": tensor key, ...}
    for index, entries in optimizer["state"].items():
        optimizer_state[str(index)] = {}
        for name, value in entries.items():
            location = f"{key}/optimizer/{index}/{name}"
            if not torch.is_tensor(value):
                raise writer.unsupported(value, location)
            optimizer_state[str(index)][name] = writer.store_tensor(location, value)
    record = {
        "__sktdi_type__": "skorch_net",
        "class": type(net).__name__,
        "module_class": type(net.module_).__name__,
        "module_kwargs": writer.encode(module_kwargs(net), f"{key}/module_kwargs"),
        "split_seed": _split_seed(net),
        "device": str(net.device),  # for information: load follows the device parameter
        "module_state": module_state,
        "module_training": net.module_.training,
        "optimizer_param_groups": writer.encode(optimizer["param_groups"], f"{key}/groups"),
        "optimizer_state": optimizer_state,
        "history": writer.encode(net.history.to_list(), f"{key}/history"),
    }
    if hasattr(net, "classes_inferred_"):
        record["classes_inferred_"] = writer.encode(net.classes_inferred_, f"{key}/classes")
    return record


def load_net(reader, owner, record: dict):
    """The fitted network of ``record`` (:func:`net_record`), rebuilt from the loaded
    ``owner``'s parameters, which must build the saved one."""
    if not isinstance(record, dict) or record.get("__sktdi_type__") != "skorch_net":
        raise reader.altered("the network's record is not one")
    saved = reader.decode(record["module_kwargs"])
    n_channels, n_outputs = saved["n_channels"], saved["n_outputs"]
    # the sizes the network is built with, against the weights the file holds: before
    # anything is allocated by them (a file may say d_model=10**9 beside a few weights)
    network = resolved_network_params(owner)
    sizes = {
        "d_model": network["d_model"], "d_state": owner.d_state,
        "n_layers": network["n_layers"], "n_estimators": owner.n_estimators,
    }
    problem = network_size_problem(
        {**sizes, "n_channels": n_channels, "n_outputs": n_outputs},
        saved_numel(record.get("module_state"), reader.tensors),
    )
    if problem is not None:
        raise reader.altered(problem)
    module, spec = owner._network_spec(n_channels, n_outputs)
    net = build_net(
        owner, resolve_options(owner.training, TrainingOptions), n_channels, n_outputs,
        record["split_seed"], **owner._fitted_stopping(),
    )
    if (
        type(net).__name__ != record["class"]
        or module.__name__ != record["module_class"]
        or _as_built_now(saved, spec) != spec
    ):
        raise reader.altered(
            f"the saved network ({record['class']} of {record['module_class']}) does not "
            f"match the one the saved parameters build"
        )
    kept = {
        name: saved[name] for name, now in REMOVED_MODULE_KWARGS.items()
        if name in saved and name not in spec and saved[name] != now
    }
    if any(type(value) is not type(REMOVED_MODULE_KWARGS[name]) for name, value in kept.items()):
        raise reader.altered(f"the saved network's {sorted(kept)} are not of their type")
    net.set_params(**{f"module__{name}": value for name, value in kept.items()})
    # initialize draws the base initialization from torch's RNG, which the saved weights
    # then replace: a fixed, forked seed leaves the caller's RNG as it was
    with seeded(0):
        net.initialize()
    reader.load_module_state(net.module_, record["module_state"])
    net.module_.train(bool(record["module_training"]))
    _load_optimizer_state(reader, net, record)
    net.history_ = History(reader.decode(record["history"]))
    if "classes_inferred_" in record:
        net.classes_inferred_ = reader.decode(record["classes_inferred_"])
    return net


def _load_optimizer_state(reader, net, record: dict) -> None:
    groups = reader.decode(record["optimizer_param_groups"])
    saved_ids = [index for group in groups for index in group["params"]]
    parameters = [p for group in net.optimizer_.param_groups for p in group["params"]]
    if len(saved_ids) != len(parameters):
        raise reader.altered(
            f"the saved optimizer state covers {len(saved_ids)} parameters, the network has "
            f"{len(parameters)}"
        )
    parameter_of = dict(zip(saved_ids, parameters))
    state = {}
    for index, keys in record["optimizer_state"].items():
        parameter = parameter_of[int(index)]
        entries = {}
        for name, key in keys.items():
            tensor = reader.take_tensor(key)
            if tensor.dim() and tensor.shape != parameter.shape:  # "step" is a scalar
                raise reader.altered(
                    f"the optimizer's {name!r} for a parameter of shape "
                    f"{tuple(parameter.shape)} is {tuple(tensor.shape)}"
                )
            entries[name] = tensor
        state[int(index)] = entries
    try:
        net.optimizer_.load_state_dict({"state": state, "param_groups": groups})
    except (ValueError, RuntimeError) as exc:
        raise ValueError(f"{reader.source}: invalid optimizer state ({exc})") from exc
