"""Regenerate docs/images/ssm_inits.png (the S4D page's figure):
python docs/images/make_ssm_figures.py"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from sktdi.plotting import plot_frequency_response  # noqa: E402
from sktdi.ssm import INIT_NAMES, S4D  # noqa: E402

torch.manual_seed(0)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
for name in INIT_NAMES:
    layer = S4D(64, 64, init=name, dtype=torch.float64)
    freqs, magnitude = layer.frequency_response(512)
    plot_frequency_response(freqs.numpy(), magnitude.numpy(), ax=left, label=name)
left.set_yscale("log")
left.set_title("Σ|H|² over 64 channels, per named init")
left.legend(fontsize=8)
layer = S4D(4, 64, init="s4d-lin", dtype=torch.float64)
with torch.no_grad():
    kernel = layer.kernel(300).numpy()
right.plot(kernel.T, lw=0.9)
right.set(title="S4D-Lin kernels K[l] of 4 channels", xlabel="lag l", ylabel="K[l]")
fig.tight_layout()
fig.savefig(Path(__file__).with_name("ssm_inits.png"), dpi=110)
