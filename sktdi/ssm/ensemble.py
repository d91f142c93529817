"""Ensembles of independently initialized networks, trained side by side."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from .hybrid import ConvS4DNetwork
from .layers import S4D
from .network import S4DNetwork, StreamState

# the networks an estimator can build, by name: "conv-s4d", causal multi-scale convolutions
# for shape with an S4D layer in every block for the long range; "s4d", a pointwise encoder
# and S4D blocks
NETWORKS = {"conv-s4d": ConvS4DNetwork, "s4d": S4DNetwork}


class S4DEnsemble(nn.Module):
    """``n_members`` independently initialized networks (``network``: a key of
    :data:`NETWORKS`), trained side by side.

    In training mode ``forward`` returns every member's output, (B, n_members, n_outputs),
    so that each member is fitted to the targets on its own (the loss averages the members'
    losses; averaging their outputs first would train one wide network, not an ensemble). In
    eval mode it returns the ensemble's prediction, (B, n_outputs): for
    ``combine="probabilities"`` the log of the members' mean class probabilities (a valid
    logit: its softmax is that mean, as InceptionTime averages its five networks), for
    ``combine="mean"`` the mean output (regression).

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import S4DEnsemble
    >>> ensemble = S4DEnsemble(3, n_channels=2, n_outputs=4, d_model=8, d_state=8)
    >>> ensemble(torch.randn(5, 2, 16)).shape  # training mode: one output per member
    torch.Size([5, 3, 4])
    >>> ensemble.eval()(torch.randn(5, 2, 16)).shape
    torch.Size([5, 4])
    """

    COMBINES = ("probabilities", "mean")

    def __init__(
        self, n_members: int, combine: str = "probabilities", network: str = "s4d", **network_kwargs
    ) -> None:
        super().__init__()
        if n_members < 1:
            raise ValueError(f"n_members must be >= 1, got {n_members}")
        if combine not in self.COMBINES:
            raise ValueError(f"combine must be one of {self.COMBINES}, got {combine!r}")
        self.combine = combine
        if network not in NETWORKS:
            raise ValueError(f"network must be one of {tuple(NETWORKS)}, got {network!r}")
        self.members = nn.ModuleList(
            NETWORKS[network](**network_kwargs) for _ in range(n_members)
        )

    @property
    def ssm_layers(self) -> list[S4D]:
        """Every member's S4D operators, member by member, input side first."""
        return [layer for member in self.members for layer in member.ssm_layers]

    def recomputes_block_outputs(self, X: Tensor) -> bool:
        """Whether the members' forward passes of X drop their block outputs for
        recomputation (:meth:`~sktdi.ssm.ConvS4DNetwork.recomputes_block_outputs`; False for
        members that never do)."""
        recomputes = getattr(self.members[0], "recomputes_block_outputs", None)
        return recomputes is not None and recomputes(X)

    def forward(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) -> (B, n_members, n_outputs) in training, (B, n_outputs) in eval."""
        outputs = torch.stack([member(X, lengths) for member in self.members], dim=1)  # (B, M, O)
        if self.training:
            return outputs
        return self._combined(outputs)

    def outputs_over_time(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) -> (B, L, n_outputs): the ensemble's prediction for every prefix; in
        training mode every member's, (B, n_members, L, n_outputs), as ``forward``."""
        outputs = torch.stack(
            [member.outputs_over_time(X, lengths) for member in self.members], dim=1
        )  # (B, M, L, O)
        if self.training:
            return outputs
        return self._combined(outputs)

    def initial_state(self, batch_size: int) -> StreamState:
        """Every member's state for :meth:`step`, as one :class:`StreamState`."""
        members = [member.initial_state(batch_size) for member in self.members]
        return StreamState(
            streams={"members": [m.streams for m in members]},
            shared={"members": [m.shared for m in members]},
        )

    def step(self, x_k: Tensor, state: StreamState) -> tuple[Tensor, StreamState]:
        """Feed one time step x_k (B, C); get the ensemble's output for the prefix (eval)."""
        states = zip(state.streams["members"], state.shared["members"])
        stepped = [
            member.step(x_k, StreamState(streams, shared))
            for member, (streams, shared) in zip(self.members, states)
        ]
        outputs = torch.stack([out for out, _ in stepped], dim=1)  # (B, M, O)
        return self._combined(outputs), StreamState(
            streams={"members": [s.streams for _, s in stepped]},
            shared={"members": [s.shared for _, s in stepped]},
        )

    def _combined(self, outputs: Tensor) -> Tensor:
        """The members' outputs (B, M, ...) -> the ensemble's (B, ...)."""
        if self.combine == "mean":
            return outputs.mean(dim=1)  # (B, ...)
        log_probs = torch.log_softmax(outputs, dim=-1)  # (B, M, ..., O)
        return torch.logsumexp(log_probs, dim=1) - math.log(len(self.members))  # (B, ..., O)
