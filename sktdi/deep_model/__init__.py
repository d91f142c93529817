"""The deep model: :class:`~sktdi.SSMClassifier` and :class:`~sktdi.SSMRegressor`, their
skorch training, the saved network, inference, streaming (with its compiled step), early
classification and training-time augmentation. Built on ``ssm/``, ``tdi/``, ``persistence/``
and ``utils/``.
"""
