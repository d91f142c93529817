"""TDI's options: one object, the ``tdi`` parameter of every estimator that runs TDI."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from ..utils.options import OptionGroup
from ..utils.validation import keyword_only
from .align import COVERAGES, DECAYS
from .spectra import TaskSpectrum


class TDIOptions(OptionGroup):
    """How Task-Dependent Initialization aligns the SSM modes; the defaults suit most tasks.

    Pass it as ``tdi=TDIOptions(...)`` to :class:`~sktdi.SSMClassifier`,
    :class:`~sktdi.SSMRegressor`, :class:`~sktdi.SpectralAlignmentTransformer` and the
    spectral ridge models; ``GridSearchCV`` reaches a field as ``tdi__<field>``. The fields
    take effect with ``init`` in ``{"tdi", "auto", "tdi-control"}``. :doc:`/choosing_init`
    says when to change them.

    Parameters
    ----------
    spectrum : TaskSpectrum or None, default=None
        A statistic to align to instead of estimating one from X: domain knowledge
        (:meth:`TaskSpectrum.from_frequencies`) or one estimated on a larger, related
        dataset. Every channel is aligned; it works even with one series per class.
    subsample : int, float or None, default=None
        Series the statistic is estimated from: a count, a fraction in (0, 1], or all (None).
        Lower it when estimating on a large training set is slow.
    reliability : bool, default=True
        Align only a share of the channels equal to the statistic's split-half reliability,
        so that an unreliable statistic changes little. False aligns every channel.
    spread : float in [0, 1] or "auto", default="auto"
        Share of each aligned channel's modes kept off the statistic's peaks: the base's
        lowest-frequency modes, as built (``coverage="base"``), or modes tiling the band
        (``"tiled"``); 1 moves no mode. "auto": 0.25 for a deep model given a ``spectrum``,
        0.5 otherwise (:func:`resolve_spread`).
    max_peaks : int, default=8
        Most peaks of the statistic that get modes.
    channel_share : float in [0, 1], default=1.0
        The largest share of each aligned layer's channels TDI aligns; the others keep the
        base initialization (S4D-Lin). ``reliability`` shrinks it further.
    coverage : {"auto", "base", "alias", "tiled", "gain"}, default="auto"
        Which modes move to the peaks: a share (1 − ``spread``) of each aligned channel's,
        beside the base's own ("base"); only the base's aliased modes ("alias": the least any form moves); every
        mode ("tiled", the earlier default); none, gains only ("gain"). "auto": "alias" for the
        filter bank's classification, "base" otherwise (:func:`resolve_coverage`).
    decay : {"band", "base"}, default="band"
        The aligned modes' decays: from their peak's band ("band") or the base modes'
        ("base": only frequencies move).
    refine_steps : int, default=0
        Gradient steps on the spectral-alignment loss after the peak initialization.
    layers : {"first", "all"}, default="first"
        The S4D layers of a network that TDI aligns (deeper layers see features, not the
        input the statistic describes). The transformer's bank is one layer.

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sktdi import SSMClassifier
    >>> from sktdi.tdi import TDIOptions
    >>> clf = SSMClassifier(tdi=TDIOptions(spread=0.75))
    >>> clf.get_params()["tdi__spread"]
    0.75
    >>> search = GridSearchCV(SSMClassifier(), {"tdi__spread": [0.5, 0.75]})
    >>> SSMClassifier().set_params(tdi__max_peaks=2).tdi.max_peaks
    2
    """

    # the fields whose defaults have changed, as a file of each earlier era was fitted with
    # where it did not say (its flat tdi_* parameters, or tdi=None; the file's
    # ``option_defaults``, sktdi.persistence.current_params): 1, before issue 35, every mode
    # moved; 2, until coverage="auto", every model moved half of its modes beside the base's
    _defaults_of_era = {1: {"spread": 0.25, "coverage": "tiled"}, 2: {"coverage": "base"}}

    _parameter_constraints: dict = {
        "spectrum": [None, TaskSpectrum],
        "subsample": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
        ],
        "reliability": ["boolean"],
        "spread": [Interval(Real, 0, 1, closed="both"), StrOptions({"auto"})],
        "max_peaks": [Interval(Integral, 1, None, closed="left")],
        "channel_share": [Interval(Real, 0, 1, closed="both")],
        "coverage": [StrOptions({"auto", *COVERAGES})],
        "decay": [StrOptions(set(DECAYS))],
        "refine_steps": [Interval(Integral, 0, None, closed="left")],
        "layers": [StrOptions({"first", "all"})],
    }

    @keyword_only
    def __init__(
        self,
        *,
        spectrum=None,
        subsample=None,
        reliability=True,
        spread="auto",
        max_peaks=8,
        channel_share=1.0,
        coverage="auto",
        decay="band",
        refine_steps=0,
        layers="first",
    ):
        self.spectrum = spectrum
        self.subsample = subsample
        self.reliability = reliability
        self.spread = spread
        self.max_peaks = max_peaks
        self.channel_share = channel_share
        self.coverage = coverage
        self.decay = decay
        self.refine_steps = refine_steps
        self.layers = layers


def resolve_coverage(
    coverage: str, *, trained: bool, given: bool = False, task: str = "classification"
) -> str:
    """The form ``coverage`` names: itself, or for "auto" the form measured best
    (``docs/tdi_real.md``: chosen on its choice datasets, confirmed on the others).

    - "base" for a layer that is ``trained`` after TDI (the deep models): training corrects
      what TDI moves, and half of an aligned channel's modes on the peaks learned fastest;
    - "base" for a statistic the user ``given`` (``TDIOptions.spectrum``): trusted, committed to;
    - "alias" for a classification statistic estimated for a layer never trained (the filter
      bank): nothing corrects a displaced mode there, so only the modes the base wastes move
      (and where the base is blind to a peak, the form falls back to "base":
      :func:`~sktdi.tdi.align_modes`);
    - "base" for regression's cross-spectrum: "alias" was measured on classification only.

    Examples
    --------
    >>> from sktdi.tdi import resolve_coverage
    >>> resolve_coverage("auto", trained=True), resolve_coverage("auto", trained=False)
    ('base', 'alias')
    >>> resolve_coverage("auto", trained=False, given=True)
    'base'
    >>> resolve_coverage("auto", trained=False, task="regression")
    'base'
    >>> resolve_coverage("tiled", trained=False)
    'tiled'
    """
    if coverage != "auto":
        return coverage
    return "alias" if not (trained or given) and task == "classification" else "base"


def resolve_spread(spread, *, trained: bool, given: bool = False) -> float:
    """The share ``spread`` names: itself, or for "auto" the share measured best
    (``docs/tdi_real.md``, where the base is blind: chosen on the planted task, confirmed on
    real datasets' test splits with a spectrum of related data):

    - 0.25 for a layer that is ``trained`` after TDI, aligned to a statistic the user
      ``given`` (``TDIOptions.spectrum``): three quarters of each aligned channel's modes on
      its peaks gained more than half where the base is thin there, and lost nothing
      measurable on real series;
    - 0.5 otherwise: an estimated statistic (half beside the base, the deep models' choice),
      and the filter bank, where 0.25 was not measured.

    Examples
    --------
    >>> from sktdi.tdi import resolve_spread
    >>> resolve_spread("auto", trained=True, given=True), resolve_spread("auto", trained=True)
    (0.25, 0.5)
    >>> resolve_spread("auto", trained=False, given=True), resolve_spread(0.75, trained=True)
    (0.5, 0.75)
    """
    if isinstance(spread, str):
        if spread != "auto":
            raise ValueError(f"spread must be a float in [0, 1] or 'auto', got {spread!r}")
        return 0.25 if trained and given else 0.5
    return float(spread)  # a numpy scalar too: the alignment assigns it into tensors


# an earlier sktdi's flat parameters, each now a field (``tdi_spread`` -> ``tdi__spread``): the
# estimators' ``_parameters_moved``, for files written then and for the errors that name them
FLAT_TDI_PARAMETERS = {
    f"tdi_{name}": f"tdi__{name}"
    for name in (
        "subsample", "spread", "max_peaks", "refine_steps", "reliability", "spectrum",
        "channel_share", "coverage", "decay",
    )
}
