"""
Early classification: decide as the series arrives
==================================================

BasicMotions: a smartwatch's accelerometer and gyroscope (6 channels, 100 samples) while a
person stands, walks, runs or plays badminton. A monitor should name the activity as soon as
the signal allows, not after the whole recording.

:class:`~sktdi.sktime.SktimeSSMEarlyClassifier` trains one causal network on the whole
series and on every prefix (``prefix_weight``), then reads its class probabilities after every
sample. A series is decided once the predicted class holds a probability of at least
``probability_threshold``. Below: the probabilities over time for a few test series, the
step where each was decided, and the same decisions from a live stream fed sample by sample.
"""

import matplotlib.pyplot as plt
import numpy as np
from sktime.datasets import load_basic_motions

from sktdi import SSMClassifier
from sktdi.sktime import SktimeSSMEarlyClassifier

X_train, y_train = load_basic_motions(split="train", return_type="numpy3D")
X_test, y_test = load_basic_motions(split="test", return_type="numpy3D")

# a short budget for the gallery; the benchmark trains for the default 100 epochs
network = SSMClassifier(max_epochs=30, prefix_weight=0.5)
early = SktimeSSMEarlyClassifier(network, random_state=0).fit(X_train, y_train)

hm, accuracy, earliness = early.score(X_test, y_test)
print(f"accuracy {accuracy:.3f}, decided after {earliness:.0%} of the series on average")
decided_at = early.get_state_info()[:, 3]  # the step of each test series' decision

# %%
# The class probabilities over time, from one pass of the network
# ----------------------------------------------------------------
# ``predict_proba_over_time`` gives the probabilities after every step; the dashed line is
# the step where the early classifier decided.
proba = early.estimator_.predict_proba_over_time(X_test)  # (n, 100, 4)
classes = early.estimator_.classes_
fig, axes = plt.subplots(1, 4, figsize=(12, 3), sharey=True)
for ax, i in zip(axes, (0, 10, 20, 30)):
    for k, name in enumerate(classes):
        ax.plot(np.arange(1, 101), proba[i, :, k], label=name)
    ax.axvline(decided_at[i], color="k", linestyle="--", linewidth=1)
    ax.axhline(early.probability_threshold, color="grey", linewidth=0.5)
    ax.set_title(f"a {y_test[i]} series")
    ax.set_xlabel("samples seen")
axes[0].set_ylabel("class probability")
axes[-1].legend(loc="lower right", fontsize=8)
fig.tight_layout()

# %%
# A live stream
# -------------
# Deployed, the samples arrive one at a time. ``stream`` keeps the network's state for each
# series and updates it with every sample, at a constant cost, without re-reading the past.
live = early.estimator_.stream(n_streams=4)
for t in range(X_test.shape[-1]):
    live.update(X_test[[0, 10, 20, 30], :, t])  # one sample of each series, (4, 6)
    if t + 1 in (10, 25, 100):
        print(f"after {t + 1:3d} samples:", live.predict())

# sphinx_gallery_thumbnail_number = 1
