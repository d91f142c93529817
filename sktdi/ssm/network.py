"""The S4D network: input projection -> n_layers S4D blocks -> pooling over time -> linear head."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import torch
from torch import Tensor, nn

from .layers import S4D, S4DBlock

# "mean-max" concatenates both (the head sees 2·d_model features): the mean summarizes, the
# max keeps where a short pattern fired, wherever it sits in the series
POOLINGS = ("mean", "max", "mean-max", "last")


def valid_steps(lengths: Tensor, length: int, dtype: torch.dtype) -> Tensor:
    """(B,) lengths -> (B, L, 1) mask, 1 at a series' own steps, 0 at its padding."""
    lengths = lengths.to(dtype=torch.long)  # (B,)
    steps = torch.arange(length, device=lengths.device)  # (L,)
    return (steps < lengths.unsqueeze(-1)).to(dtype).unsqueeze(-1)  # (B, L, 1)


def combine_pooled(pooling: str, mean: Tensor, peak: Tensor, last: Tensor) -> Tensor:
    """The pooled vector from the three running summaries, each (B, H)."""
    if pooling == "mean-max":
        return torch.cat([mean, peak], dim=-1)  # (B, 2H)
    return {"mean": mean, "max": peak, "last": last}[pooling]  # (B, H)


def _map_tensors(tree, fn):
    """``tree`` (nested dicts, lists and tuples) with ``fn`` applied to every tensor in it."""
    if isinstance(tree, dict):
        return {key: _map_tensors(value, fn) for key, value in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_map_tensors(value, fn) for value in tree)
    return fn(tree) if isinstance(tree, Tensor) else tree


def _tensors(tree) -> list[Tensor]:
    """Every tensor in ``tree``, in the order :func:`_map_tensors` visits them."""
    found = []
    _map_tensors(tree, found.append)
    return found


@dataclass(frozen=True, eq=False)  # tensors: no elementwise ==
class StreamState:
    """A network's streaming state: what :meth:`initial_state` makes and every ``step`` takes
    and returns.

    ``streams`` holds what each stream carries, tensors with the streams first (S4D states,
    the convolutions' last inputs, the pooling's running sum and max), in nested dicts and
    lists; ``shared`` what every stream shares (the S4D layers' discretization, computed once
    from the parameters; the number of steps taken).

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import ConvS4DNetwork
    >>> net = ConvS4DNetwork(n_channels=1, n_outputs=2, depth=1, n_filters=4).eval()
    >>> with torch.no_grad():
    ...     state = net.initial_state(batch_size=3)
    ...     out, state = net.step(torch.randn(3, 1), state)
    ...     kept = state.select(torch.tensor([2, 0]))  # streams 2 and 0, in that order
    >>> state.n_streams, kept.n_streams, kept.shared["steps"]
    (3, 2, 1)
    """

    streams: dict
    shared: dict = field(default_factory=dict)

    def select(self, index) -> StreamState:
        """The state of the streams ``index`` (indices, one index, or a boolean mask) only,
        in that order; what they share is kept as it is. One index keeps its stream as a
        state of one stream."""
        if isinstance(index, int) or (isinstance(index, Tensor) and index.ndim == 0):
            index = [int(index)]  # t[0] would drop the streams' dimension
        return replace(self, streams=_map_tensors(self.streams, lambda t: t[index]))

    def to(self, device) -> StreamState:
        """Every tensor of the state on ``device``."""
        move = lambda t: t.to(device)  # noqa: E731
        return StreamState(_map_tensors(self.streams, move), _map_tensors(self.shared, move))

    def __repr__(self) -> str:
        found = _tensors(self.streams)
        shown = found[0] if found else None
        where = f", {shown.dtype}, {shown.device}" if shown is not None else ""
        steps = self.shared.get("steps")
        return (
            f"StreamState(n_streams={shown.shape[0] if shown is not None else 0}, "
            f"steps={steps}, {len(found)} per-stream tensors{where})"
        )

    @property
    def n_streams(self) -> int:
        """The number of streams: the first dimension of the per-stream tensors."""
        found = _tensors(self.streams)
        if not found:
            raise ValueError("this StreamState holds no per-stream tensor to count streams by")
        return found[0].shape[0]


def initial_pool_state(batch_size: int, width: int, like: Tensor) -> dict:
    """The running pooling's per-stream state before a stream's first step (sum 0, max
    -inf), on ``like``'s device and dtype: what both networks' ``initial_state`` hold."""
    factory = {"dtype": like.dtype, "device": like.device}
    return {
        "sum": torch.zeros(batch_size, width, **factory),  # (B, H)
        "max": torch.full((batch_size, width), float("-inf"), **factory),  # (B, H)
    }


def pool_step(pooling: str, pool: dict, x: Tensor, steps: int) -> tuple[Tensor, dict]:
    """One step of the running pooling: x (B, H), the features of the new step, ``steps``
    the prefix's length with it -> the pooled vector of the prefix so far, (B, H) or (B, 2H),
    and the pooling's new state."""
    total, peak = pool["sum"] + x, torch.maximum(pool["max"], x)  # (B, H)
    return combine_pooled(pooling, total / steps, peak, x), {"sum": total, "max": peak}


def pool_steps(x: Tensor, pooling: str, lengths: Tensor | None = None) -> Tensor:
    """x: (B, L, H) -> (B, H), or (B, 2H) for "mean-max", over the first ``lengths[b]``
    steps of each series."""
    if lengths is None:
        mean, peak, last = x.mean(dim=-2), x.amax(dim=-2), x[:, -1]  # (B, H) each
    else:
        lengths = lengths.to(device=x.device, dtype=torch.long)  # (B,)
        mask = valid_steps(lengths, x.shape[-2], x.dtype)  # (B, L, 1)
        mean = (x * mask).sum(dim=-2) / lengths.unsqueeze(-1).to(x.dtype)  # (B, H)
        peak = x.masked_fill(mask == 0, float("-inf")).amax(dim=-2)  # (B, H)
        last = x[torch.arange(x.shape[0], device=x.device), lengths - 1]  # (B, H)
    return combine_pooled(pooling, mean, peak, last)


def running_pool(x: Tensor, pooling: str) -> Tensor:
    """x: (B, L, H) -> (B, L, H) or (B, L, 2H): at every step t, what :func:`pool_steps` gives
    for the first t + 1 steps (a running mean, a running max, the step itself)."""
    steps = torch.arange(1, x.shape[-2] + 1, device=x.device, dtype=x.dtype).unsqueeze(-1)
    mean = x.cumsum(dim=-2) / steps  # (B, L, H)
    peak = x.cummax(dim=-2).values  # (B, L, H)
    return combine_pooled(pooling, mean, peak, x)


def hold_after_end(outputs: Tensor, lengths: Tensor | None) -> Tensor:
    """outputs (B, L, O) per step -> the same, with each padded series' steps from its end on
    holding the output of its last step (a series says nothing more once it has ended)."""
    if lengths is None:
        return outputs
    steps = torch.arange(outputs.shape[1], device=outputs.device)  # (L,)
    last = lengths.to(device=outputs.device, dtype=torch.long).unsqueeze(-1) - 1  # (B, 1)
    index = torch.minimum(steps, last)  # (B, L)
    return outputs.gather(1, index.unsqueeze(-1).expand(-1, -1, outputs.shape[-1]))


def outputs_over_time(network: nn.Module, X: Tensor, lengths: Tensor | None = None) -> Tensor:
    """A causal network's output after every step, (B, L, n_outputs), from one forward pass:
    its per-step features pooled as they run, then its head. Step t equals ``network`` on
    the first t + 1 steps (eval mode)."""
    features = network.sequence_features(X, lengths)  # (B, L, H)
    return hold_after_end(network.head(running_pool(features, network.pooling)), lengths)


class S4DNetwork(nn.Module):
    """Sequence-to-vector S4D model for classification (logits) or regression.

    Parameters
    ----------
    n_channels : int
        Input channels C (1 for univariate series).
    n_outputs : int
        Size of the head: number of classes, or of regression targets.
    d_model, d_state, n_layers : int
        Width, state size per channel (even) and depth.
    dropout : float
        Channel dropout inside each block.
    prenorm : bool
        LayerNorm before (True) or after (False) each block's residual sum.
    pooling : {"mean", "max", "mean-max", "last"}
        How the sequence of features becomes one vector ("mean-max": both, concatenated).
    bidirectional : bool
        Every S4D layer adds an anti-causal kernel (see :class:`~sktdi.ssm.layers.S4D`): the
        features at each step see the whole series. Such a network cannot stream.
    init, dt_min, dt_max, discretization
        Passed to every :class:`~sktdi.ssm.layers.S4D` layer.
    device, dtype
        Where and in which real dtype every parameter is created (as for ``nn.Linear``);
        torch's defaults when None.

    Notes
    -----
    ``forward`` takes X of shape (B, C, L) — or (B, L) for univariate series — and optional
    ``lengths`` (B,) for right-padded batches of unequal length: the activations at padded
    steps are zeroed before every block, so padding never reaches a series' valid outputs
    (a causal layer could not see it anyway; a bidirectional one would), and pooling ignores
    the padding.

    :meth:`initial_state` and :meth:`step` stream a series one sample at a time; the state
    caches each layer's discretization, so create a new state after the parameters change.

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import S4DNetwork
    >>> net = S4DNetwork(n_channels=3, n_outputs=5, d_model=16)
    >>> net(torch.randn(4, 3, 64)).shape
    torch.Size([4, 5])
    """

    def __init__(
        self,
        n_channels: int = 1,
        n_outputs: int = 1,
        d_model: int = 64,
        d_state: int = 64,
        n_layers: int = 2,
        dropout: float = 0.0,
        prenorm: bool = False,
        pooling: str = "mean",
        bidirectional: bool = False,
        init: str = "s4d-lin",
        dt_min: float = 1e-3,
        dt_max: float = 1e-1,
        discretization: str = "zoh",
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        if n_layers < 1:
            raise ValueError(f"n_layers must be >= 1, got {n_layers}")
        self.pooling = pooling
        self.bidirectional = bidirectional
        factory = {"device": device, "dtype": dtype}
        self.encoder = nn.Linear(n_channels, d_model, **factory)
        self.blocks = nn.ModuleList(
            S4DBlock(
                d_model,
                d_state,
                dropout=dropout,
                prenorm=prenorm,
                init=init,
                dt_min=dt_min,
                dt_max=dt_max,
                discretization=discretization,
                bidirectional=bidirectional,
                **factory,
            )
            for _ in range(n_layers)
        )
        pooled = 2 * d_model if pooling == "mean-max" else d_model
        self.head = nn.Linear(pooled, n_outputs, **factory)

    @property
    def ssm_layers(self) -> list[S4D]:
        """The S4D operator of each block, input side first."""
        return [block.ssm for block in self.blocks]

    def sequence_features(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) or (B, L) -> per-step features (B, L, d_model) of the last block;
        zero at the padded steps when ``lengths`` (B,) is given."""
        if X.dim() == 2:
            X = X.unsqueeze(1)  # (B, 1, L)
        mask = None if lengths is None else valid_steps(lengths, X.shape[-1], X.dtype)
        x = self.encoder(X.transpose(-1, -2))  # (B, L, H)
        for block in self.blocks:
            if mask is not None:
                x = x * mask  # (B, L, H): the encoder's bias and the norms fill the padding
            x = block(x)  # (B, L, H)
        return x if mask is None else x * mask

    def pool(self, x: Tensor, lengths: Tensor | None = None) -> Tensor:
        """x: (B, L, H) -> (B, H), or (B, 2H) for "mean-max", over the first ``lengths[b]``
        steps of each series."""
        return pool_steps(x, self.pooling, lengths)

    def forward(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) or (B, L) -> (B, n_outputs)."""
        return self.head(self.pool(self.sequence_features(X, lengths), lengths))

    def outputs_over_time(self, X: Tensor, lengths: Tensor | None = None) -> Tensor:
        """X: (B, C, L) -> (B, L, n_outputs): the output for every prefix, from one pass."""
        self._check_causal()
        return outputs_over_time(self, X, lengths)

    def _check_causal(self) -> None:
        check_streamable(self.bidirectional)

    def initial_state(self, batch_size: int) -> StreamState:
        """State for :meth:`step`: each layer's SSM state, its discretization, the pooling sum.

        The discretization (Ā, C·B̄) of every layer is computed here, once for the whole
        stream, under the caller's grad mode, and :meth:`step` reuses it. It is a snapshot of
        the parameters: after they change (a training step, ``set_modes``, ``.to(...)``) call
        ``initial_state`` again rather than continuing an old state.
        """
        self._check_causal()
        ref = self.blocks[0].mix.weight  # (2H, H)
        return StreamState(
            streams={
                "ssm": [layer.initial_state(batch_size) for layer in self.ssm_layers],
                "pool": initial_pool_state(batch_size, ref.shape[1], ref),
            },
            shared={"discrete": [layer.step_parameters() for layer in self.ssm_layers], "steps": 0},
        )

    def step(self, x_k: Tensor, state: StreamState) -> tuple[Tensor, StreamState]:
        """Streaming inference: feed one time step x_k (B, C); get the output for the prefix.

        After feeding all L steps of a series, the output equals ``forward`` on the whole series
        (in eval mode), at O(1) cost per step instead of recomputing the convolution. ``state``
        comes from :meth:`initial_state` (or the previous step); its cached discretization is
        passed on unchanged.

        Examples
        --------
        >>> import torch
        >>> from sktdi.ssm import S4DNetwork
        >>> net = S4DNetwork(n_channels=2, n_outputs=3, d_model=8, d_state=8).eval()
        >>> X = torch.randn(4, 2, 20)  # (B, C, L)
        >>> with torch.no_grad():
        ...     state = net.initial_state(batch_size=4)
        ...     for k in range(20):
        ...         out, state = net.step(X[:, :, k], state)
        ...     bool(torch.allclose(out, net(X), atol=1e-5))
        True
        """
        x = self.encoder(x_k)  # (B, H)
        new_ssm = []
        layers = zip(self.blocks, state.streams["ssm"], state.shared["discrete"])
        for block, layer_state, discrete in layers:
            x, layer_state = block.step(x, layer_state, discrete)  # (B, H)
            new_ssm.append(layer_state)
        steps = state.shared["steps"] + 1
        pooled, pool = pool_step(self.pooling, state.streams["pool"], x, steps)  # (B, H|2H)
        return self.head(pooled), StreamState(
            {"ssm": new_ssm, "pool": pool}, {**state.shared, "steps": steps}
        )


def check_streamable(bidirectional: bool) -> None:
    """A clear error where a network that sees the whole series is asked for prefixes."""
    if bidirectional:
        raise ValueError(
            "a bidirectional network sees the whole series at every step, so it has no "
            "output for a prefix and cannot stream; build it with bidirectional=False for "
            "predictions over time or step-by-step inference"
        )
