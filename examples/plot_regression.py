"""
Regression with SSMRegressor
============================

Tecator (shipped with sktime): predict the fat content of meat from a 100-channel
near-infrared absorbance spectrum, read as a sequence. TDI uses the input–output
cross-spectrum; targets are standardized inside and predictions mapped back.
"""

import matplotlib.pyplot as plt
import numpy as np

from sktdi import SSMRegressor
from sktdi.datasets import load_ucr_split

X_train, y_train, X_test, y_test = load_ucr_split("Tecator")
y_train, y_test = y_train.astype(float), y_test.astype(float)

reg = SSMRegressor(d_model=32, max_epochs=40, batch_size=32, random_state=0).fit(X_train, y_train)
pred = reg.predict(X_test)
rmse = float(np.sqrt(np.mean((pred - y_test) ** 2)))
print(reg.init_report_["reason"])
print(f"test R² {reg.score(X_test, y_test):.3f}, RMSE {rmse:.2f} (std of y: {y_test.std():.2f})")

fig, ax = plt.subplots(figsize=(4, 4))
ax.scatter(y_test, pred, s=12)
lims = [min(y_test.min(), pred.min()), max(y_test.max(), pred.max())]
ax.plot(lims, lims, color="0.5", lw=0.8)
ax.set(xlabel="true fat content", ylabel="predicted", title="Tecator, test split")
fig.tight_layout()
