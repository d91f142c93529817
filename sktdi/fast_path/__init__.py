"""The fast path: the untrained filter bank (:class:`~sktdi.SpectralAlignmentTransformer`),
the ridge models on its features (:class:`~sktdi.SpectralRidgeClassifier`,
:class:`~sktdi.SpectralRidgeRegressor`), its compiled scan, and the kernel-regression
experiment. Built on ``ssm/``, ``tdi/``, ``persistence/`` and ``utils/``; never on the deep
model.
"""
