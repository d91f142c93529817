"""Task-Dependent Initialization: task spectra (numpy/scipy) and their alignment with S4D modes."""

from .align import (
    SpectralPeak,
    TDIReport,
    align_layer,
    alignment_target,
    allocate_modes,
    find_spectral_peaks,
    kernel_energy,
    peak_init_modes,
    refine_modes,
    spectral_alignment_loss,
)
from .reliability import (
    TDI_INITS,
    InitPlan,
    control_spectrum,
    plan_initialization,
    split_half_reliability,
)
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
    "alignment_target",
    "spectral_alignment_loss",
    "refine_modes",
    "align_layer",
    "split_half_reliability",
    "control_spectrum",
    "plan_initialization",
    "InitPlan",
    "TDI_INITS",
]
