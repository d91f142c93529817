"""
Quickstart: SSMClassifier with TDI on GunPoint
==============================================

GunPoint ships with sktime (no download). ``fit`` estimates the Fisher log-power statistic
between the classes, initializes the S4D modes where it peaks, then trains; ``tdi_reports_``
says what TDI did.
"""

import time

from sktime.datasets import load_gunpoint

from sktdi import SSMClassifier

X_train, y_train = load_gunpoint(split="train", return_type="numpy3D")  # (50, 1, 150)
X_test, y_test = load_gunpoint(split="test", return_type="numpy3D")  # (150, 1, 150)

start = time.perf_counter()
clf = SSMClassifier(init="tdi", random_state=0).fit(X_train, y_train)
print(f"fit in {time.perf_counter() - start:.1f} s, {clf.n_epochs_} epochs")
print(clf.tdi_reports_[0])
print(f"test accuracy: {clf.score(X_test, y_test):.3f}")

# sphinx_gallery_thumbnail_path = "images/frequency_response.png"
