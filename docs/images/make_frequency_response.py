"""Regenerate docs/images/frequency_response.png (the README's figure):
python docs/images/make_frequency_response.py"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from sktdi import SSMClassifier  # noqa: E402
from sktdi.datasets import planted_frequency_task  # noqa: E402
from sktdi.plotting import plot_alignment  # noqa: E402

X, y = planted_frequency_task(16, random_state=0)
responses = {}
for init in ("s4d-lin", "s4d-inv", "tdi"):
    model = SSMClassifier(init=init, max_epochs=0, random_state=0).fit(X, y)
    # the response of the kernel over the series' length, what the layer does to these
    # series: a mode remembering far longer than the series would dominate the infinite
    # kernel's |H| at its frequency with a gain no series of this length sees
    layer = model.net_.module_.ssm_layers[0]
    with torch.no_grad():
        kernel = layer.kernel(X.shape[-1]).double().numpy()  # (H, L)
    magnitude = np.abs(np.fft.rfft(kernel, n=1022, axis=-1))  # (H, 512)
    responses[init] = (np.fft.rfftfreq(1022), magnitude)
    spectrum = model.task_spectrum_ if init == "tdi" else None
fig, ax = plt.subplots(figsize=(7, 3.2))
plot_alignment(spectrum, responses, ax=ax)
ax.set_title("Initial Σ|H|² of the first S4D layer (over the series' length) vs the statistic")
fig.tight_layout()
fig.savefig(Path(__file__).with_name("frequency_response.png"), dpi=110)
