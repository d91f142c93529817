"""Command line: ``sktdi benchmark`` (and ``sktdi --version``).

Parsing, ``--help`` and the argument checks that need no data import nothing heavy (no torch,
scikit-learn or sktime), so they answer at once. Every argument and dataset is checked before
the first cell runs: a bad one ends the command with one line naming it and exit status 2.
``--dry-run`` stops after the checks with the plan and its expected time; a run stopped by
Ctrl-C ends with status 130 and the command that summarizes what finished,
``--summarize-only``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from .utils.version import __version__
from .benchmark.estimators import DEFAULT_ESTIMATORS, DEFAULT_RATIOS, ESTIMATORS

# the shipped datasets of the default run, and its positive control: a generated task whose
# information lies in a known band (sktdi.benchmark.statistics.CONTROL_DATASETS)
DEFAULT_DATASETS = ("GunPoint", "ItalyPowerDemand", "ArrowHead", "planted")
DEFAULT_RESAMPLES = 3
# how long to wait for a --scheduler to accept a connection before calling it unreachable
SCHEDULER_TIMEOUT = 5.0
# dask.distributed's default scheduler port, for an address given without one
DASK_SCHEDULER_PORT = 8786
def _benchmark_parser(sub) -> argparse.ArgumentParser:
    names = sorted(ESTIMATORS)
    n_default_cells = (
        len(DEFAULT_DATASETS) * len(DEFAULT_RATIOS) * DEFAULT_RESAMPLES * len(DEFAULT_ESTIMATORS)
    )
    p = sub.add_parser(
        "benchmark",
        help="compare estimators on UCR datasets across training ratios",
        description=(
            "Run datasets x training ratios x resamples x estimators, write one tidy results "
            "table (resumable) and tsml-eval's results files, print and save a summary that "
            "answers 'does TDI help?' with datasets as units (TDI − S4D-Lin and TDI − placebo "
            "with 95% intervals, the positive control apart, what TDI did per cell, ranks "
            "over datasets with critical-difference cliques, warnings per cell), an "
            "accuracy-vs-ratio plot, the paired difference TDI − S4D-Lin and aeon's "
            "critical-difference diagrams. "
            f"With no arguments: the datasets {', '.join(DEFAULT_DATASETS)} (the last the "
            "positive control, a generated task with a known band)"
            f" x {len(DEFAULT_RATIOS)} ratios x {DEFAULT_RESAMPLES} resamples x the "
            f"estimators {', '.join(DEFAULT_ESTIMATORS)} whose packages are installed (up to "
            f"{n_default_cells} cells; the SSM arms train for SSMClassifier's default "
            "max_epochs, --max-epochs to change it)."
        ),
    )
    p.add_argument(
        "--datasets", nargs="+", default=list(DEFAULT_DATASETS), metavar="NAME",
        help="classification datasets: shipped with sktime, in --data-dir, or the built "
        "'digits', 'pixel-digits' (length 1024) and 'planted' (the positive control); 'all' "
        "for every dataset in --data-dir (or shipped with sktime), or @FILE for the names "
        "listed in FILE, one a line. With 'all' or @FILE, a dataset the models cannot take "
        "(missing values, regression targets, an unreadable file) is skipped and listed with "
        "its reason; a name given here must be usable",
    )
    p.add_argument(
        "--data-dir", help="local UCR/UEA archive folder (default: sktime's shipped data)"
    )
    p.add_argument(
        "--ratios", nargs="+", type=float, default=list(DEFAULT_RATIOS), metavar="R",
        help="shares of the training set to train on, each in (0, 1] (default: "
        f"{' '.join(f'{r:g}' for r in DEFAULT_RATIOS)})",
    )
    p.add_argument(
        "--resamples", type=int, default=DEFAULT_RESAMPLES,
        help=f"resample 0 is the official split (default: {DEFAULT_RESAMPLES})",
    )
    p.add_argument(
        "--cv", type=int, metavar="K",
        help="stratified K-fold CV on pooled data instead (2 <= K <= smallest class size)",
    )
    p.add_argument(
        "--estimators", nargs="+", default=None, choices=names, metavar="NAME",
        help=f"from {names}; default: those of {list(DEFAULT_ESTIMATORS)} whose "
        "packages are installed",
    )
    p.add_argument("--min-per-class", type=int, default=1, help="training-ratio floor per class")
    p.add_argument(
        "--params", metavar="FILE",
        help="a JSON file of each arm's parameters, {\"tdi\": {\"input_scaling\": "
        "\"series+scale\"}, ...} (\"*\" for every arm that has the parameter); what a warning "
        "suggests can be passed this way",
    )
    p.add_argument(
        "--max-epochs", type=int,
        help="override the epochs of the SSM models and of the deep peers (InceptionTime, "
        "ResNet), which otherwise train for SSMClassifier's default",
    )
    p.add_argument(
        "--out", default="sktdi-benchmark",
        help="output folder (default: sktdi-benchmark; results are resumed: a cell is reused only when it was computed "
        "with the same settings; cells of other settings are recomputed and their old rows "
        "moved to results_replaced.csv)",
    )
    p.add_argument(
        "--n-jobs", type=int, default=os.cpu_count() or 1,
        help="cells run at once (default: one per core; -1: one per core); 1 runs them one "
        "after another, each with OMP_NUM_THREADS threads when that environment variable is "
        "set, else with every core (with more jobs, OMP_NUM_THREADS caps each cell's share "
        "of the cores)",
    )
    p.add_argument("--backend", choices=["loky", "dask"], default="loky")
    p.add_argument(
        "--scheduler", help="dask.distributed scheduler address, with --backend dask "
        "(default: a LocalCluster)",
    )
    p.add_argument(
        "--no-plot", action="store_true",
        help="draw no figure (and remove those an earlier run left in --out, which would not "
        "show this run's results)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--published", nargs="+", metavar="SPEC",
        help="published results to set beside the run's ratio-1 cells in the summary (a table "
        "per dataset, ranks with a critical-difference diagram, intervals against each arm): "
        "'aeon' (the reference results aeon ships: HIVE-COTE 2, InceptionTime, FreshPRINCE, "
        "WEASEL-2.0), a results table in aeon's layout (a row per dataset, a column per "
        "resample) or of means ('dataset' and 'accuracy' columns), a folder of such tables, "
        "a tsml-eval results folder; NAME=PATH names a table's classifier",
    )
    p.add_argument(
        "--dry-run", action="store_true",
        help="check everything as a run would, then print the grid and its expected time (per "
        "dataset its sizes, per arm its cells and expected seconds, the cells finished in --out "
        "that a resume reuses, the expected wall time) and stop: nothing trains, nothing is "
        "written",
    )
    p.add_argument(
        "--summarize-only", action="store_true",
        help="compute nothing: summarize the cells finished in --out (a stopped run's, say) as "
        "a finished run would (summary, skipped.csv, figures), for the grid its settings.json "
        "records, and say how many of that grid's cells are missing",
    )
    return p


def _unique(values: list) -> list:
    # a repeated name or ratio would make duplicate cells with the same key
    return list(dict.fromkeys(values))


def _check_numbers(args: argparse.Namespace) -> str | None:
    """The first problem with the numeric and backend arguments, or None. Imports nothing."""
    for ratio in args.ratios:
        if not 0 < ratio <= 1:  # NaN fails too
            return (
                f"--ratios: {ratio:g} is not in (0, 1]; a ratio is the share of the training "
                "set to train on (1 = all of it)"
            )
    if args.resamples < 1:
        return f"--resamples must be at least 1, got {args.resamples}"
    if args.cv is not None and args.cv < 2:
        return f"--cv must be at least 2 folds, got {args.cv}"
    if args.min_per_class < 1:
        return f"--min-per-class must be at least 1, got {args.min_per_class}"
    if args.max_epochs is not None and args.max_epochs < 0:
        return f"--max-epochs must be 0 or more, got {args.max_epochs}"
    if args.n_jobs < 1 and args.n_jobs != -1:
        return f"--n-jobs must be at least 1, or -1 for one job per core; got {args.n_jobs}"
    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        return f"--data-dir: {args.data_dir} is not a folder"
    if args.scheduler is not None and args.backend != "dask":
        return "--scheduler is a dask.distributed address: use it with --backend dask"
    if args.backend == "dask":
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            return "--backend dask needs dask.distributed: pip install 'dask[distributed]'"
    return None


def _check_out(out: Path) -> str | None:
    """Whether the output folder can be created and written, without creating it."""
    if out.exists() and not out.is_dir():
        return f"--out: {out} exists and is not a folder"
    existing = out
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        return f"--out: cannot create {out}: {existing} is not a folder"
    try:
        # a real write, not os.access: access() says yes to root on a read-only file system
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        return f"--out: cannot create or write {out} (in {existing}: {exc.strerror or exc})"
    results = out / "results.csv"
    if results.exists():
        from .benchmark.results_file import header_columns

        try:
            with open(results, "a"):
                pass
            # the header alone (None: the first row was cut short, and the run removes it);
            # a row a stopped run cut short further down is no reason to refuse the folder
            columns = header_columns(results)
            missing = [
                c for c in ("dataset", "ratio", "resample", "estimator", "status")
                if columns is not None and c not in columns
            ]
            if missing:
                return (
                    f"--out: {results} is not an sktdi benchmark results file (no "
                    f"{', '.join(missing)} column); choose another --out"
                )
        except OSError as exc:
            return f"--out: cannot update {results}: {exc.strerror or exc}"
    return None


def _dataset_names(values: list[str], data_dir: str | None) -> tuple[list[str], bool] | str:
    """``--datasets`` with 'all' and @FILE expanded: (names, lenient), or a problem.

    Lenient (for 'all' and @FILE): a dataset the models cannot take is skipped with its
    reason rather than ending the command; a name typed on the command line must be usable.
    """
    from .datasets import archive_datasets, shipped_datasets

    names, lenient = [], False
    for value in values:
        if value == "all":
            lenient = True
            names += archive_datasets(data_dir) if data_dir is not None else shipped_datasets()
        elif value.startswith("@"):
            lenient = True
            listed = Path(value[1:])
            try:
                lines = listed.read_text().splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                return f"--datasets {value}: cannot read {listed} ({exc})"
            # one name a line; blank lines and # comments are left out
            listed_names = [line.split("#", 1)[0].strip() for line in lines]
            listed_names = [n for n in listed_names if n]
            if not listed_names:
                return f"--datasets {value}: {listed} lists no dataset name"
            names += listed_names
        else:
            names.append(value)
    if not names:
        where = data_dir if data_dir is not None else "sktime's shipped data"
        return f"--datasets {' '.join(values)}: no dataset found (in {where})"
    return _unique(names), lenient


def _dataset_problem(
    name: str, data_dir: str | None, cv: int | None
) -> tuple[str | None, str | None]:
    """Why the benchmark cannot take dataset ``name`` (or None), and, with ``cv``, the class
    too small for its folds ("class 'x' of NAME has N series", or None)."""
    import numpy as np

    from .datasets import load_dataset_split

    try:
        X_train, y_train, X_test, y_test = load_dataset_split(name, data_dir)
    except Exception as exc:  # a corrupt file: say which, not where in the parser
        return f"cannot read {name}: {type(exc).__name__}: {exc}", None
    y = np.concatenate([y_train, y_test])
    if y.dtype.kind == "f":
        return (f"{name} is a regression dataset (numeric targets); the benchmark compares "
                "classifiers"), None
    missing = sum(bool(np.isnan(np.asarray(x, dtype=np.float64)).any())
                  for X in (X_train, X_test) for x in X)
    if missing:
        return (f"{name} has missing values (NaN inside {missing} series); the models take "
                "complete series (impute them first, or shorten the series)"), None
    labels, counts = np.unique(y, return_counts=True)
    if len(labels) < 2:
        return f"{name} has one class only", None
    if cv is not None and counts.min() < cv:
        return None, f"class {str(labels[counts.argmin()])!r} of {name} has {counts.min()} series"
    return None, None


def _check_datasets(
    names: list[str], data_dir: str | None, cv: int | None, lenient: bool = False
) -> tuple[str | None, list[tuple[str, str]]]:
    """Each name must exist and hold a classification task the models can take (with ``cv``,
    enough series per class). Returns (problem, skipped): ``lenient`` skips the datasets that
    fail, with their reasons, instead of returning a problem."""
    import difflib

    from .datasets import EXTRA_DATASETS, archive_datasets, shipped_datasets

    known = list(EXTRA_DATASETS)
    if data_dir is None:
        known += shipped_datasets()
        where = "shipped with sktime"
    else:
        known += archive_datasets(data_dir)
        where = f"in {data_dir}"
    problems, folds, skipped = [], [], []
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            if lenient:
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                skipped.append((name, f"not found {where}{hint}"))
                continue
            hint = f"did you mean {close[0]!r}? " if close else ""
            problems.append(
                f"{name!r} is not {where} nor a synthetic dataset ({hint}known: "
                f"{', '.join(known)})"
                + ("; pass --data-dir for a local UCR/UEA archive" if data_dir is None else "")
            )
            continue
        problem, fold = _dataset_problem(name, data_dir, cv)
        if lenient and (problem or fold):
            skipped.append((name, problem or _folds_message(cv, [fold])))
        elif problem:
            problems.append(problem)
        elif fold:
            folds.append(fold)
    if problems:
        return "--datasets: " + "; ".join(problems), skipped
    if folds:
        return _folds_message(cv, folds), skipped
    return None, skipped


def _folds_message(cv: int, shortages: list[str]) -> str:
    """``--cv K`` needs K series per class: the classes (of which datasets) that have fewer."""
    return (f"--cv {cv}: stratified {cv}-fold needs at least {cv} series per class, but "
            + "; ".join(shortages))


def _read_params(path: str, estimators: list[str], params: dict) -> tuple[dict, str | None]:
    """``--params FILE``: {arm: parameters} for the arms of this run, or a problem.

    "*" gives its parameters to every arm whose model has them. Each arm's model is built
    with its parameters and checked, so a misspelt name, a bad value, a parameter its arm does
    not read or one the command line already sets ends the command here, not in every cell.
    """
    import json

    from .benchmark.estimators import ESTIMATORS as BUILDERS
    from .benchmark.settings import used_params

    try:
        given = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"--params: cannot read {path} ({exc})"
    except ValueError as exc:
        return {}, f"--params: {path} is not JSON ({exc})"
    if not isinstance(given, dict) or not all(isinstance(v, dict) for v in given.values()):
        return {}, (f"--params: {path} must hold a JSON object of arm -> object of parameters, "
                    'e.g. {"tdi": {"input_scaling": "series+scale"}}')
    unknown = [k for k in given if k != "*" and k not in estimators]
    if unknown:
        return {}, (f"--params: {', '.join(map(repr, unknown))} is not an arm of this run "
                    f"({', '.join(estimators)}; \"*\" for all)")
    for name, values in given.items():
        if "random_state" in values:
            return {}, (f"--params: {name}: random_state is not a setting here: each cell's "
                        "seed is its resample")
        clash = sorted(set(values) & set(params))
        if clash:
            return {}, (f"--params: {name}: {', '.join(clash)} is set on the command line "
                        "too (--max-epochs); give it in one place")
    per_arm, used_by_star = {}, set()
    for name in estimators:
        base = BUILDERS[name][0](0, {})
        # the parameters the arm's builder passes on to its model (settings.used_params):
        # 1-NN and MiniRocket pass none, so a parameter for them would be silently dropped
        known = set(base.get_params()) if hasattr(base, "get_params") else set()
        accepted = set(used_params(name, dict.fromkeys(known))) - {"random_state"}
        star = {k: v for k, v in given.get("*", {}).items() if k in accepted}
        used_by_star |= set(star)
        own = given.get(name, {})
        wrong = sorted(set(own) - accepted)
        if wrong:
            takes = (f"its parameters: {', '.join(sorted(accepted))}" if accepted
                     else "this arm takes no parameters")
            return {}, f"--params: {name} has no parameter {', '.join(map(repr, wrong))} ({takes})"
        arm = {**star, **own}
        if not arm:
            continue
        try:
            model = BUILDERS[name][0](0, arm)
            if hasattr(model, "_parameter_constraints"):
                model._validate_params()
        except (TypeError, ValueError) as exc:  # scikit-learn's InvalidParameterError included
            return {}, f"--params: {name}: {exc}"
        per_arm[name] = arm
    unused = sorted(set(given.get("*", {})) - used_by_star)
    if unused:
        return {}, (f"--params: \"*\" gives {', '.join(map(repr, unused))}, which no arm of "
                    "this run has")
    return per_arm, None


def _check_scheduler(address: str) -> str | None:
    """Whether a TCP connection to the scheduler opens within :data:`SCHEDULER_TIMEOUT`."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme == "inproc":
        return None  # an in-process scheduler has no socket to try
    try:
        host, port = parts.hostname, parts.port or DASK_SCHEDULER_PORT
    except ValueError:  # a port that is not a number
        host = None
    if not host:
        return f"--scheduler: {address!r} is not an address such as tcp://host:8786"
    try:
        socket.create_connection((host, port), timeout=SCHEDULER_TIMEOUT).close()
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        return (
            f"--scheduler: cannot reach {host}:{port} ({reason}, waited up to "
            f"{SCHEDULER_TIMEOUT:g} s); is a dask scheduler running there?"
        )
    # the port answers; make sure a dask scheduler is what answers (a handshake, not a socket)
    from dask.distributed import Client

    try:
        Client(address, timeout=SCHEDULER_TIMEOUT).close()
    except Exception as exc:  # whatever the peer did wrong, the user needs one line
        detail = str(exc).splitlines()[0][:200] if str(exc) else ""
        return (
            f"--scheduler: {address} answers but is not a dask scheduler "
            f"({type(exc).__name__}{': ' + detail if detail else ''})"
        )
    return None


def _validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """Check everything before any cell runs; return the estimators to compare.

    The cheap checks go first so that a mistyped number fails at once, before the datasets
    are read. Each problem ends the command through ``parser.error`` (exit status 2).
    """
    from .benchmark.estimators import available

    args.ratios = _unique(args.ratios)
    problem = _check_numbers(args) or _check_out(Path(args.out))
    if problem:
        parser.error(problem)
    expanded = _dataset_names(args.datasets, args.data_dir)
    if isinstance(expanded, str):
        parser.error(expanded)
    args.datasets, lenient = expanded
    estimators = _unique(args.estimators or [e for e in DEFAULT_ESTIMATORS if available(e)])
    missing = [e for e in estimators if not available(e)]
    if missing:
        packages = ", ".join(f"{e} needs {ESTIMATORS[e][2]}" for e in missing)
        estimators = [e for e in estimators if available(e)]
        if not estimators:
            parser.error(f"--estimators: none can run ({packages}, not installed)")
        print(f"skipping {packages}, which is not installed", file=sys.stderr)
    args.arm_params = {}
    if args.params is not None:
        given = {"max_epochs": args.max_epochs} if args.max_epochs is not None else {}
        args.arm_params, problem = _read_params(args.params, estimators, given)
        if problem:
            parser.error(problem)
    problem, args.skipped = _check_datasets(args.datasets, args.data_dir, args.cv, lenient)
    skipped = {name for name, _ in args.skipped}
    args.datasets = [name for name in args.datasets if name not in skipped]
    if problem is None and not args.datasets:
        problem = "--datasets: every dataset was skipped: " + "; ".join(
            f"{n}: {r}" for n, r in args.skipped)
    if problem is None and args.scheduler is not None:
        problem = _check_scheduler(args.scheduler)
    if problem:
        parser.error(problem)
    for name, reason in args.skipped:
        print(f"skipping dataset {name}: {reason}", file=sys.stderr)
    args.published_table = _read_published(parser, args.published)
    if args.published and (args.cv or 1.0 not in args.ratios):
        # said before anything trains, not only in the summary at the end
        print("--published: published results sit beside ratio-1 cells of the official split "
              "and its resamples, and this run has none (" + ("--cv" if args.cv else
              "--ratios without 1") + "): nothing will sit beside it", file=sys.stderr)
    return estimators


def _read_published(parser: argparse.ArgumentParser, specs: list[str] | None):
    """``--published``'s results, read before any cell runs (None without it); a file that is
    not results ends the command with one line naming it."""
    if not specs:
        return None
    from .benchmark.published import read_all_published

    try:
        return read_all_published(specs)
    except ValueError as exc:
        parser.error(f"--published: {exc}")


def _recorded_specs(specs: list[str] | None) -> list[str]:
    """``--published``'s specs as settings.json keeps them: paths made absolute, so that
    ``--summarize-only`` reads them from any folder."""
    from .benchmark.published import split_spec

    recorded = []
    for spec in specs or []:
        name, location = split_spec(spec)
        if location != "aeon":
            location = str(Path(location).expanduser().resolve())
        recorded.append(f"{name}={location}" if name else location)
    return recorded


def run_benchmark_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``sktdi benchmark``: 0 when at least one cell succeeded, 1 when all failed; 130 when
    stopped by Ctrl-C (143 by SIGTERM), its finished cells on disk and its session recorded.
    With ``--dry-run``, print the plan (:func:`~sktdi.benchmark.progress.plan_report`) and
    return 0 before anything trains or is written."""
    estimators = _validate(parser, args)

    from dataclasses import replace

    from .benchmark.progress import expected_seconds, plan_report
    from .benchmark.results_file import repair_results, write_atomic
    from .benchmark.runner import make_cells, resume_plan, run_benchmark, worker_threads
    from .benchmark.sessions import StopSignals, add_session

    params = {"max_epochs": args.max_epochs} if args.max_epochs is not None else {}
    cells = make_cells(
        args.datasets,
        args.ratios,
        args.resamples,
        estimators,
        cv=args.cv,
        min_per_class=args.min_per_class,
        data_dir=args.data_dir,
        params=params,
        threads=worker_threads(args.n_jobs),
    )
    # each arm's own parameters (--params) beside the run's (--max-epochs)
    cells = [
        replace(c, params={**c.params, **args.arm_params.get(c.estimator, {})}) for c in cells
    ]
    out = Path(args.out)
    path = out / "results.csv"
    if args.dry_run:
        todo, stale = _said(resume_plan, cells, path)
        print(plan_report(cells, todo, args.n_jobs, stale=len(stale), results_path=path))
        print("dry run: nothing was trained or written")
        return 0
    # a row a stopped run cut short goes first, so that it is said once (here) and its cell
    # counts among those to compute
    _said(repair_results, path)
    # cells finished with other settings are recomputed (run_benchmark says so, once)
    todo = resume_plan(cells, path)[0]
    n_computed = len(todo)
    expected = expected_seconds(todo, args.n_jobs)
    # what this run compares, on disk from its start: a stopped run's folder says what was
    # asked, and --summarize-only reads its grid
    from .benchmark.settings import run_record

    settings = run_record(
        args.datasets, args.ratios, args.resamples, estimators, params, cv=args.cv,
        min_per_class=args.min_per_class, arm_params=args.arm_params,
    )
    if args.cv:
        settings["grid"]["cv_folds"] = args.cv  # the grid's "cv" says only whether
    if args.skipped:
        settings["skipped"] = dict(args.skipped)
    if args.published:
        settings["published"] = _recorded_specs(args.published)
    write_atomic(out / "settings.json", json.dumps(settings, indent=1) + "\n")
    session = {
        "command": "sktdi " + " ".join(sys.argv[1:]) if sys.argv[1:] else "sktdi benchmark",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    start = time.perf_counter()
    try:
        with StopSignals() as stop:
            results = run_benchmark(
                cells,
                path,
                n_jobs=args.n_jobs,
                backend=args.backend,
                scheduler=args.scheduler,
                progress=not args.quiet,
                tsml_out=out,
            )
    except KeyboardInterrupt:
        return _stopped(args, cells, todo, session, time.perf_counter() - start, expected,
                        stop.exit_status)
    wall = time.perf_counter() - start
    if n_computed:  # a rerun that computed nothing adds no session to run.json
        add_session(out / "run.json", _session(args, session, wall, expected, len(cells),
                                               n_computed, interrupted=False))
    reused = len(cells) - n_computed
    ran = f"{n_computed} computed now in {wall:.0f} s" if n_computed else "0 computed now"
    counts = f"{len(cells)} cells: {ran}, {reused} taken from {path}"
    from .benchmark.report import summarize_results

    return summarize_results(
        results, {c.key() for c in cells}, out, skipped=args.skipped, counts=counts,
        no_plot=args.no_plot, published=args.published_table,
    )


def _said(call, *args):
    """``call(*args)``, a results file's cut-short row said in one line on stderr (a warning
    would add its file and source line, which mean nothing to the command's user)."""
    import warnings

    from .benchmark.results_file import TruncatedResultsWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TruncatedResultsWarning)
        result = call(*args)
    for warning in caught:
        if issubclass(warning.category, TruncatedResultsWarning):
            print(f"warning: {warning.message}", file=sys.stderr)
        else:  # not ours to reword: shown as it would have been
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)
    return result


def _session(
    args, session: dict, wall: float, expected: float, n_cells: int, n_computed: int, *,
    interrupted: bool,
) -> dict:
    """One session of ``run.json`` (:mod:`sktdi.benchmark.sessions`)."""
    from .benchmark.sessions import library_versions, processor

    return {
        **session,
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "wall_seconds": round(wall, 1),
        # the progress's first time left, from the cost model (progress.expected_seconds)
        "expected_seconds": round(expected, 1),
        "cells": n_cells, "cells_computed": n_computed, "interrupted": interrupted,
        "n_jobs": args.n_jobs, "cpu_count": os.cpu_count(), "cpu": processor(),
        "versions": library_versions(),
    }


def _stopped(args, cells, todo, session, wall, expected, status: int) -> int:
    """A run stopped by Ctrl-C or a signal: its session recorded, one line saying what
    finished and the command that summarizes it; the shell's status of the signal."""
    import shlex

    from .benchmark.cells import cell_keys
    from .benchmark.results_file import read_results
    from .benchmark.sessions import add_session

    out = Path(args.out)
    path = out / "results.csv"
    table = read_results(path)
    keys = cell_keys(table)
    # the rows of the cells to compute were removed when the run started: any now is new
    computed = len({c.key() for c in todo} & set(keys))
    ok = {k for k, status_ in zip(keys, table["status"]) if status_ == "ok"}
    finished = len({c.key() for c in cells} & ok)
    add_session(out / "run.json", _session(args, session, wall, expected, len(cells), computed,
                                           interrupted=True))
    command = ["sktdi", "benchmark", "--summarize-only", "--out", str(out)]
    if args.no_plot:
        command.append("--no-plot")
    print(
        f"stopped: {finished} of {len(cells)} cells finished ({computed} computed in this "
        f"session, in {path}); summarize them with: {shlex.join(command)}",
        file=sys.stderr,
    )
    return status


# the options that make a grid or run one: --summarize-only takes its grid from settings.json
GRID_OPTIONS = (
    "datasets", "data_dir", "ratios", "resamples", "cv", "estimators", "min_per_class",
    "params", "max_epochs", "n_jobs", "backend", "scheduler", "dry_run",
)


def summarize_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``sktdi benchmark --summarize-only --out DIR``: the summary, skip list and figures of
    the cells finished in DIR, for the grid its settings.json records (how many of its cells
    are missing is said). 0 when a cell of the grid succeeded, 1 otherwise."""
    given = [
        "--" + dest.replace("_", "-") for dest in GRID_OPTIONS
        if getattr(args, dest) != parser.get_default(dest)
    ]
    if given:
        parser.error(f"--summarize-only takes the grid from --out's settings.json: "
                     f"{', '.join(given)} cannot be given with it")
    out = Path(args.out)
    path, recorded = out / "results.csv", out / "settings.json"
    if not recorded.is_file():
        parser.error(f"--summarize-only: no {recorded} (a run into --out {out} writes it when "
                     "it starts)")
    problem = _check_out(out)
    if problem:
        parser.error(problem)

    from .benchmark.cells import cell_keys, recorded_grid
    from .benchmark.report import summarize_results
    from .benchmark.results_file import read_results
    from .benchmark.settings import parse_config

    results = _said(read_results, path)
    try:
        settings = json.loads(recorded.read_text())
        folds = [parse_config(c).get("n_folds", 0) for c in results.get("config", [])]
        wanted = set(recorded_grid(settings, [f for f in folds if isinstance(f, int)]))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        parser.error(f"--summarize-only: cannot read the grid in {recorded}: {exc}")
    have = wanted & set(cell_keys(results))
    missing = len(wanted) - len(have)
    counts = (f"{len(wanted)} cells in the grid of {recorded}: {len(have)} finished, "
              f"{missing} missing")
    if missing:
        counts += " (not computed yet: rerun the run's command, in its run.json, to compute them)"
    if not have:  # results.csv too may be missing: a run stopped before its first cell ended
        print(f"no cell of the grid in {recorded} has finished yet (no row in {path})",
              file=sys.stderr)
        return 1
    skipped = list(settings.get("skipped", {}).items())
    # the published results given now, else those the run recorded
    published = _read_published(parser, args.published or settings.get("published"))
    return summarize_results(results, wanted, out, skipped=skipped, counts=counts,
                             no_plot=args.no_plot, published=published)


def _missing_benchmark_packages() -> list[str]:
    """The harness's own dependencies (the benchmark extra's) that are not installed."""
    import importlib.util

    return [name for name in ("pandas", "tqdm") if importlib.util.find_spec(name) is None]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sktdi`` command.

    Examples
    --------
    >>> from sktdi.cli import main
    >>> main(["benchmark", "--cv", "1"])
    Traceback (most recent call last):
    ...
    SystemExit: 2
    """
    parser = argparse.ArgumentParser(prog="sktdi", description="sktdi command line tools")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    benchmark = _benchmark_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "benchmark":
        missing = _missing_benchmark_packages()
        if missing:  # before a cell runs, not as a traceback from the middle of the run
            benchmark.error(
                f"sktdi benchmark needs {', '.join(missing)}, which the benchmark extra installs: "
                f"pip install 'sktdi[benchmark]'"
            )
        try:
            if args.summarize_only:
                return summarize_command(args, benchmark)
            return run_benchmark_command(args, benchmark)
        except KeyboardInterrupt:  # before the cells or after them: the run says what finished
            print("sktdi benchmark: interrupted", file=sys.stderr)
            return 130
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())
