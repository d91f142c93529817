"""S4D in PyTorch: kernels, named initializations, layers and the network. Knows nothing of
scikit-learn or TDI."""

from .inits import INIT_NAMES, ModeParams, init_modes
from .kernel import discretize, fft_conv, transfer_function, vandermonde_kernel
from .layers import (
    S4D,
    SSM_PARAMETER_NAMES,
    ChannelDropout,
    S4DBlock,
    ssm_param_groups,
    ssm_parameters,
)
from .hybrid import ConvS4DNetwork
from .ensemble import NETWORKS, S4DEnsemble
from .network import POOLINGS, S4DNetwork, StreamState

__all__ = [
    "NETWORKS",
    "ConvS4DNetwork",
    "INIT_NAMES",
    "ModeParams",
    "init_modes",
    "discretize",
    "fft_conv",
    "transfer_function",
    "vandermonde_kernel",
    "S4D",
    "S4DBlock",
    "S4DNetwork",
    "S4DEnsemble",
    "StreamState",
    "POOLINGS",
    "ChannelDropout",
    "SSM_PARAMETER_NAMES",
    "ssm_parameters",
    "ssm_param_groups",
]
