"""S4D layer (the diagonal SSM operator) and the residual S4D block around it.

Layout: activations are (B, L, H) — batch, time, channels — so LayerNorm and Linear act on
the last axis and the FFT runs over time (dim -2).
"""

from __future__ import annotations

from collections.abc import Iterator

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .inits import ModeParams, init_modes
from .kernel import DISCRETIZATIONS, discretize, fft_conv, transfer_function, vandermonde_kernel

# Names of the parameters that make up (A, B, dt). Optimizers put them in a group of their own
# (lr ≈ 1e-3, no weight decay): they set the kernel's time scales and are easily destabilized.
SSM_PARAMETER_NAMES = ("log_neg_real_A", "imag_A", "B", "log_dt")


# the dtypes a saved layer may have (sktdi.persistence)
SAVED_DTYPES = {"float32": torch.float32, "float64": torch.float64}


class S4D(nn.Module):
    """Diagonal state space operator y = K * u + D·u, applied independently to each channel.

    Parameters
    ----------
    d_model : int
        Number of channels H.
    d_state : int
        State size N per channel (even); N/2 complex modes are stored.
    init : str
        Named initialization, see :mod:`sktdi.ssm.inits`.
    dt_min, dt_max : float
        Range of the log-uniform step size.
    discretization : {"zoh", "bilinear"}
    generator : torch.Generator, optional
        Source of randomness for D, C and dt; the global torch RNG when None.
    bidirectional : bool, default=False
        Add an anti-causal kernel: y = K * u + K_back ⋆ u + D·u, where K_back runs over the
        reversed sequence, so every output sees the whole series (a classifier's view). The
        backward kernel shares the modes (A, B, dt) — hence the poles, and where its frequency
        response peaks, which is what TDI sets — and has its own output weights
        ``C_backward``. A bidirectional layer cannot stream (:meth:`step` raises).
    device : torch.device or str, optional
        Where the parameters are created (as for ``nn.Linear``).
    dtype : torch.dtype, optional
        Real dtype of the parameters; torch's default dtype when None. Creating a float64
        layer directly keeps the float64 modes exactly, which ``.double()`` after a float32
        construction cannot (the modes were already rounded to float32).

    Examples
    --------
    >>> import math, torch
    >>> from sktdi.ssm import S4D
    >>> layer = S4D(d_model=4, d_state=8, init="s4d-inv")
    >>> layer(torch.randn(2, 100, 4)).shape
    torch.Size([2, 100, 4])
    >>> S4D(4, 8, init="s4d-lin", dtype=torch.float64).imag_A[0, 1].item() == math.pi
    True
    """

    def __init__(
        self,
        d_model: int,
        d_state: int = 64,
        init: str = "s4d-lin",
        dt_min: float = 1e-3,
        dt_max: float = 1e-1,
        discretization: str = "zoh",
        generator: torch.Generator | None = None,
        *,
        bidirectional: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if discretization not in DISCRETIZATIONS:
            raise ValueError(
                f"discretization must be one of {DISCRETIZATIONS}, got {discretization!r}"
            )
        self.d_model = d_model
        self.d_state = d_state
        self.discretization = discretization
        n_modes = d_state // 2
        factory = {"device": device, "dtype": dtype}
        self.log_neg_real_A = nn.Parameter(torch.empty(d_model, n_modes, **factory))  # (H, N)
        self.imag_A = nn.Parameter(torch.empty(d_model, n_modes, **factory))  # (H, N)
        self.B = nn.Parameter(torch.empty(d_model, n_modes, 2, **factory))  # (H, N, 2) real view
        self.C = nn.Parameter(torch.empty(d_model, n_modes, 2, **factory))  # (H, N, 2) real view
        self.log_dt = nn.Parameter(torch.empty(d_model, **factory))  # (H,)
        # drawn exactly as before (default dtype and device), then cast: the same values from
        # the same seed whatever dtype/device is asked for, and a CPU generator still works
        D = torch.randn(d_model, generator=generator)  # (H,)
        self.D = nn.Parameter(D.to(**factory))  # (H,)
        modes = init_modes(
            init, d_model, d_state, dt_min=dt_min, dt_max=dt_max, generator=generator
        )
        self.set_modes(modes)
        self.bidirectional = bidirectional
        if bidirectional:
            # drawn after the forward modes, so a causal layer's draws are unchanged
            C_backward = torch.randn(d_model, n_modes, dtype=torch.complex128, generator=generator)
            self.C_backward = nn.Parameter(torch.empty(d_model, n_modes, 2, **factory))  # (H, N, 2)
            with torch.no_grad():
                self.C_backward.copy_(torch.view_as_real(C_backward))

    @torch.no_grad()
    def set_modes(self, modes: ModeParams) -> None:
        """Overwrite A, B, C and dt with explicit continuous-time values (TDI uses this)."""
        shape = (self.d_model, self.d_state // 2)
        for name in ("A", "B", "C"):
            value = getattr(modes, name)
            if tuple(value.shape) != shape:
                raise ValueError(f"modes.{name} must have shape {shape}, got {tuple(value.shape)}")
        if tuple(modes.dt.shape) != (self.d_model,):
            raise ValueError(f"modes.dt must have shape ({self.d_model},), got {tuple(modes.dt.shape)}")
        A = modes.A.to(torch.complex128)
        if not bool((A.real < 0).all()) or not bool((modes.dt > 0).all()):
            raise ValueError("modes must be stable (Re A < 0) with dt > 0")
        self.log_neg_real_A.copy_(torch.log(-A.real))
        self.imag_A.copy_(A.imag)
        self.B.copy_(torch.view_as_real(modes.B.to(torch.complex128)))
        self.C.copy_(torch.view_as_real(modes.C.to(torch.complex128)))
        self.log_dt.copy_(torch.log(modes.dt.to(torch.float64)))

    def modes(self) -> ModeParams:
        """Current continuous-time parameters (a differentiable view of the module's state)."""
        A = torch.complex(-torch.exp(self.log_neg_real_A), self.imag_A)  # (H, N)
        B = torch.view_as_complex(self.B)  # (H, N)
        C = torch.view_as_complex(self.C)  # (H, N)
        return ModeParams(A=A, B=B, C=C, dt=torch.exp(self.log_dt))

    def _discretized(self) -> tuple[Tensor, Tensor, Tensor]:
        """(log Ā, Ā, B̄), each complex (H, N): the modes in discrete time, before any C."""
        m = self.modes()
        return discretize(m.A, m.B, m.dt, self.discretization)

    def discrete(self) -> tuple[Tensor, Tensor, Tensor]:
        """(log Ā, Ā, C·B̄), each complex (H, N): all that the kernel and the recurrence need."""
        log_A_bar, A_bar, B_bar = self._discretized()
        return log_A_bar, A_bar, torch.view_as_complex(self.C) * B_bar

    def step_parameters(self) -> tuple[Tensor, Tensor]:
        """(Ā, C·B̄), each complex (H, N): what :meth:`step` needs, computed once per stream.

        Computed under the caller's grad mode. The values are a snapshot of the current
        parameters: compute them again after the parameters change (a training step,
        ``set_modes``, ``.to(...)``).

        Examples
        --------
        >>> import torch
        >>> from sktdi.ssm import S4D
        >>> layer = S4D(2, 8)
        >>> A_bar, CB_bar = layer.step_parameters()
        >>> A_bar.shape, CB_bar.dtype
        (torch.Size([2, 4]), torch.complex64)
        """
        _, A_bar, CB_bar = self.discrete()  # (H, N), (H, N)
        return A_bar, CB_bar

    def kernel(self, length: int) -> Tensor:
        """Convolution kernel K, real (H, length); the causal one of a bidirectional layer."""
        log_A_bar, _, CB_bar = self.discrete()
        return vandermonde_kernel(log_A_bar, CB_bar, length)

    def kernels(self, length: int) -> tuple[Tensor, Tensor | None]:
        """(K, K_back): the causal kernel and the anti-causal one (None for a causal layer),
        each real (H, length), from one discretization. K_back[j] weighs u_{l+j} in y_l."""
        if not self.bidirectional:
            return self.kernel(length), None
        log_A_bar, _, B_bar = self._discretized()  # (H, N) each
        C = torch.stack([torch.view_as_complex(self.C), torch.view_as_complex(self.C_backward)])
        both = vandermonde_kernel(
            log_A_bar.repeat(2, 1), (C * B_bar).flatten(0, 1), length
        )  # (2H, L): one batched Vandermonde product for both directions
        return both[: self.d_model], both[self.d_model :]

    def forward(self, u: Tensor) -> Tensor:
        """u: (B, L, H) -> y: (B, L, H), convolution mode."""
        K, K_back = self.kernels(u.shape[-2])  # (H, L), (H, L) or None
        return fft_conv(u, K, K_back, D=self.D)  # (B, L, H)

    def initial_state(self, batch_size: int) -> Tensor:
        """Zero state, complex (B, H, N), on the module's device and precision."""
        ctype = torch.complex(self.log_dt[:1], self.log_dt[:1]).dtype
        return torch.zeros(
            batch_size, self.d_model, self.d_state // 2, dtype=ctype, device=self.log_dt.device
        )

    def step(
        self, u_k: Tensor, state: Tensor, discrete: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        """One recurrent step: x_k = Ā x_{k-1} + B̄ u_k, y_k = 2·Re(C x_k) + D u_k.

        u_k: (B, H) real; state: (B, H, N) complex (C folded into the state update, so the
        state here is C·x). ``discrete``: :meth:`step_parameters`, computed once for a whole
        stream — the discretization is the same at every step, and recomputing it per sample
        was about half the time of a streamed network step; None computes it here (a one-off
        step).
        Returns y_k (B, H) and the new state.

        Examples
        --------
        >>> import torch
        >>> from sktdi.ssm import S4D
        >>> layer = S4D(3, 8).eval()
        >>> u = torch.randn(2, 10, 3)  # (B, L, H)
        >>> with torch.no_grad():
        ...     discrete = layer.step_parameters()  # once, not once per step
        ...     state = layer.initial_state(2)
        ...     for k in range(10):
        ...         y_k, state = layer.step(u[:, k], state, discrete)
        ...     bool(torch.allclose(y_k, layer(u)[:, -1], atol=1e-5))
        True
        """
        if self.bidirectional:
            raise ValueError(
                "a bidirectional S4D layer sees the future of the series and cannot stream; "
                "build it with bidirectional=False for step-by-step (recurrent) inference"
            )
        A_bar, CB_bar = self.step_parameters() if discrete is None else discrete  # (H, N)
        state = A_bar * state + CB_bar * u_k.unsqueeze(-1)  # (B, H, N)
        y_k = 2 * state.sum(dim=-1).real + self.D * u_k  # (B, H)
        return y_k, state

    def frequency_response(self, freqs: Tensor | int = 512) -> tuple[Tensor, Tensor]:
        """``|H(e^{2πif})|`` per channel in closed form.

        ``freqs``: frequencies in cycles/sample, or a count for a uniform grid on [0, 0.5].
        Returns (freqs (F,), magnitude (H, F)), detached.
        """
        with torch.no_grad():
            _, A_bar, CB_bar = self.discrete()
            if isinstance(freqs, int):
                freqs = torch.linspace(0, 0.5, freqs, dtype=self.log_dt.dtype)
            freqs = torch.as_tensor(freqs, device=self.log_dt.device)
            response = transfer_function(A_bar, CB_bar, self.D, freqs)  # (H, F)
        return freqs, response.abs()

    # ---- in the sktdi file format (sktdi.persistence): a filter bank's layer ---------------

    def _saved_value(self, writer, key: str) -> dict:
        """The layer as the file records it: its construction settings and its state's
        tensors (stored aside by ``writer``)."""
        state = self.state_dict()
        dtype_name = str(next(iter(state.values())).dtype).removeprefix("torch.")
        if dtype_name not in SAVED_DTYPES:
            raise writer.unsupported(self, key)
        return {
            "d_model": self.d_model,
            "d_state": self.d_state,
            "discretization": self.discretization,
            "bidirectional": self.bidirectional,
            "dtype": dtype_name,
            "requires_grad": any(p.requires_grad for p in self.parameters()),
            "training": self.training,
            "state": {
                name: writer.store_tensor(f"{key}/{name}", tensor)
                for name, tensor in state.items()
            },
        }

    @classmethod
    def _from_saved_value(cls, reader, record: dict) -> S4D:
        """The layer of ``record`` (:meth:`_saved_value`), built once and given the saved
        tensors, each checked against its own parameter's shape and dtype."""
        dtype = SAVED_DTYPES.get(record["dtype"])
        if dtype is None:
            raise reader.altered(f"invalid filter bank dtype {record['dtype']!r}")
        layer = cls(
            int(record["d_model"]),
            int(record["d_state"]),
            discretization=record["discretization"],
            # any initialization: the saved parameters replace it (a seeded generator, so the
            # caller's torch RNG is left alone)
            generator=torch.Generator().manual_seed(0),
            bidirectional=bool(record["bidirectional"]),
            dtype=dtype,
        )
        reader.load_module_state(layer, record["state"])
        layer.requires_grad_(bool(record["requires_grad"]))
        layer.train(bool(record["training"]))
        return layer


class ChannelDropout(nn.Module):
    """Drops whole channels (the same ones at every time step) with probability p.

    Independent time-step dropout would punch holes in the signal the convolution integrates;
    tying the mask across time keeps each surviving channel's sequence intact.

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import ChannelDropout
    >>> ChannelDropout(0.5).eval()(torch.ones(1, 3, 2)).sum().item()
    6.0
    """

    def __init__(self, p: float = 0.0) -> None:
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"dropout must be in [0, 1), got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        """x: (B, L, H) -> (B, L, H)."""
        if not self.training or self.p == 0:
            return x
        mask = F.dropout(x.new_ones(x.shape[0], 1, x.shape[-1]), self.p, training=True)  # (B, 1, H)
        return x * mask


class S4DBlock(nn.Module):
    """Residual block: [LayerNorm] -> S4D -> GELU -> dropout -> Linear+GLU -> dropout -> + x [-> LayerNorm].

    ``prenorm=True`` normalizes the block's input; otherwise its output (post-norm).

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import S4DBlock
    >>> S4DBlock(8, 16, dropout=0.1)(torch.randn(2, 50, 8)).shape
    torch.Size([2, 50, 8])
    >>> {p.dtype for p in S4DBlock(8, 16, dtype=torch.float64).parameters()}
    {torch.float64}
    """

    def __init__(
        self,
        d_model: int,
        d_state: int = 64,
        dropout: float = 0.0,
        prenorm: bool = False,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
        **ssm_kwargs,
    ) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.prenorm = prenorm
        self.ssm = S4D(d_model, d_state, **factory, **ssm_kwargs)
        self.activation = nn.GELU()
        self.dropout = ChannelDropout(dropout)
        self.mix = nn.Linear(d_model, 2 * d_model, **factory)  # GLU halves it back to d_model
        self.norm = nn.LayerNorm(d_model, **factory)

    def _pointwise(self, z: Tensor) -> Tensor:
        """Everything after the SSM; acts on each time step alone, so conv and step share it."""
        z = self.dropout(self.activation(z))  # (..., H)
        return self.dropout(F.glu(self.mix(z), dim=-1))  # (..., H)

    def forward(self, x: Tensor) -> Tensor:
        """x: (B, L, H) -> (B, L, H)."""
        z = self.norm(x) if self.prenorm else x  # (B, L, H)
        x = x + self._pointwise(self.ssm(z))  # (B, L, H)
        return x if self.prenorm else self.norm(x)

    def step(
        self, x_k: Tensor, state: Tensor, discrete: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        """x_k: (B, H), state: (B, H, N) complex -> (B, H), new state. Eval mode only.

        ``discrete``: the SSM's :meth:`S4D.step_parameters`, cached for the stream (None
        computes them for this step alone).
        """
        z = self.norm(x_k) if self.prenorm else x_k  # (B, H)
        y_k, state = self.ssm.step(z, state, discrete)  # (B, H)
        # _pointwise expects a time axis for the dropout mask; add and drop one
        x_k = x_k + self._pointwise(y_k.unsqueeze(1)).squeeze(1)  # (B, H)
        return (x_k if self.prenorm else self.norm(x_k)), state


def ssm_parameters(module: nn.Module) -> Iterator[tuple[str, nn.Parameter]]:
    """(name, parameter) for every A, B and dt parameter of the S4D layers inside ``module``.

    Examples
    --------
    >>> from sktdi.ssm import S4D, ssm_parameters
    >>> [name for name, _ in ssm_parameters(S4D(2, 4))]
    ['log_neg_real_A', 'imag_A', 'B', 'log_dt']
    """
    for name, param in module.named_parameters():
        if name.rsplit(".", 1)[-1] in SSM_PARAMETER_NAMES:
            yield name, param


def ssm_param_groups(
    module: nn.Module, ssm_lr: float = 1e-3, ssm_weight_decay: float = 0.0
) -> list[dict]:
    """Two optimizer groups: the SSM parameters (own lr, no weight decay) and the rest.

    Examples
    --------
    >>> import torch
    >>> from sktdi.ssm import S4DNetwork, ssm_param_groups
    >>> net = S4DNetwork(d_model=8, d_state=8, n_layers=2)
    >>> optimizer = torch.optim.AdamW(ssm_param_groups(net, ssm_lr=1e-3), lr=1e-2)
    >>> [group["lr"] for group in optimizer.param_groups]
    [0.001, 0.01]
    """
    ssm_ids = {id(p) for _, p in ssm_parameters(module)}
    ssm = [p for p in module.parameters() if id(p) in ssm_ids]
    rest = [p for p in module.parameters() if id(p) not in ssm_ids]
    return [
        {"params": ssm, "lr": ssm_lr, "weight_decay": ssm_weight_decay},
        {"params": rest},
    ]

