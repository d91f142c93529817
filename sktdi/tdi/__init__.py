"""Task-Dependent Initialization: task spectra (numpy/scipy) and their alignment with S4D modes.

Entry point: :func:`initialize_layers` (what the estimators call); the steps are public too.
"""

from .align import (
    aliased_modes,
    align_layer,
    align_modes,
    kernel_energy,
    mode_frequencies,
    peak_init_modes,
)
from .initialize import (
    BASE_INIT,
    TDI_INITS,
    InitPlan,
    InitRequest,
    control_spectrum,
    initialize_layers,
    plan_initialization,
    read_init,
)
from .options import TDIOptions, resolve_coverage, resolve_spread
from .peaks import SpectralPeak, allocate_modes, find_spectral_peaks
from .refine import alignment_target, refine_modes, spectral_alignment_loss
from .reliability import split_half_reliability
from .report import TDIReport
from .spectra import TaskSpectrum, cross_spectrum, fisher_log_power, task_spectrum

__all__ = [
    "TaskSpectrum",
    "fisher_log_power",
    "cross_spectrum",
    "task_spectrum",
    "SpectralPeak",
    "TDIReport",
    "find_spectral_peaks",
    "allocate_modes",
    "peak_init_modes",
    "kernel_energy",
    "aliased_modes",
    "mode_frequencies",
    "alignment_target",
    "spectral_alignment_loss",
    "refine_modes",
    "align_modes",
    "align_layer",
    "split_half_reliability",
    "control_spectrum",
    "plan_initialization",
    "initialize_layers",
    "InitPlan",
    "InitRequest",
    "read_init",
    "TDIOptions",
    "resolve_coverage",
    "resolve_spread",
    "TDI_INITS",
    "BASE_INIT",
]
