"""S4D core: convolution vs recurrence, closed-form response vs FFT, inits, gradients, training."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import sktdi.ssm.kernel as ssm_kernel
import sktdi.ssm.layers as ssm_layers
from sktdi.ssm import (
    INIT_NAMES,
    S4D,
    SSM_PARAMETER_NAMES,
    S4DEnsemble,
    S4DNetwork,
    init_modes,
    ssm_param_groups,
    ssm_parameters,
    vandermonde_kernel,
)
from sktdi.ssm.inits import (
    s4d_inv_eigenvalues,
    s4d_legs_eigenvalues,
    s4d_lin_eigenvalues,
    s4d_real_eigenvalues,
)

LENGTHS = [1, 2, 7, 64, 257]
DISCRETIZATIONS = ["zoh", "bilinear"]


def _scan(layer: S4D, u: torch.Tensor) -> torch.Tensor:
    """Run the recurrence over u (B, L, H) step by step."""
    state = layer.initial_state(u.shape[0])
    outputs = []
    for k in range(u.shape[1]):
        y_k, state = layer.step(u[:, k], state)
        outputs.append(y_k)
    return torch.stack(outputs, dim=1)


@pytest.mark.parametrize("init", INIT_NAMES)
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("discretization", DISCRETIZATIONS)
@pytest.mark.parametrize("dtype,atol", [(torch.float32, 1e-5), (torch.float64, 1e-11)])
def test_convolution_equals_recurrence(init, length, discretization, dtype, atol):
    torch.manual_seed(0)
    layer = S4D(6, 16, init=init, discretization=discretization).to(dtype)
    u = torch.randn(3, length, 6, dtype=dtype)
    with torch.no_grad():
        conv = layer(u)
        scan = _scan(layer, u)
    assert conv.dtype == dtype
    # errors relative to the output's peak: float32 phase error grows like l·|β·dt|·eps in both
    # paths alike, so an absolute bound would depend on the (init-dependent) output scale
    scale = scan.abs().max()
    torch.testing.assert_close(conv / scale, scan / scale, atol=atol, rtol=0)


def test_kernel_matches_explicit_sum():
    """The vectorized Vandermonde kernel equals a plain loop over modes in numpy."""
    torch.manual_seed(1)
    layer = S4D(3, 8, init="s4d-inv").double()
    length = 50
    with torch.no_grad():
        K = layer.kernel(length).numpy()
        _, A_bar, CB_bar = (t.numpy() for t in layer.discrete())
    expected = np.zeros((3, length))
    for h in range(3):
        for n in range(4):
            expected[h] += 2 * np.real(CB_bar[h, n] * A_bar[h, n] ** np.arange(length))
    np.testing.assert_allclose(K, expected, rtol=1e-10, atol=1e-12)


# 7 and 13: odd FFT sizes (next_fast_len(14) = 15, next_fast_len(26) = 27)
@pytest.mark.parametrize("length", [1, 6, 7, 13, 33])
@pytest.mark.parametrize("two_sided", [False, True])
@pytest.mark.parametrize("group_bytes", [None, 1])
def test_fft_conv_values_and_gradients_match_a_direct_convolution(
    length, two_sided, group_bytes, monkeypatch
):
    """fft_conv's hand-written backward (real transforms only) against autograd through a
    plain double loop of the same sums, for u, K, K_back and D; the batch's spectra at once
    (short series) and one series at a time (``group_bytes=1``, as long series go)."""
    from sktdi.ssm import fft_conv, kernel

    if group_bytes is not None:
        monkeypatch.setattr(kernel, "SPECTRUM_GROUP_BYTES", group_bytes)

    gen = torch.Generator().manual_seed(4)
    u = torch.randn(2, length, 3, dtype=torch.float64, generator=gen, requires_grad=True)
    K = torch.randn(3, length, dtype=torch.float64, generator=gen, requires_grad=True)
    K_back = torch.randn(3, length, dtype=torch.float64, generator=gen, requires_grad=True)
    D = torch.randn(3, dtype=torch.float64, generator=gen, requires_grad=True)
    weights = torch.randn(2, length, 3, dtype=torch.float64, generator=gen)

    def direct():
        rows = []
        for l in range(length):
            y_l = D * u[:, l]  # (B, H)
            for j in range(l + 1):
                y_l = y_l + K[:, l - j] * u[:, j]
            if two_sided:
                for j in range(l, length):
                    y_l = y_l + K_back[:, j - l] * u[:, j]
            rows.append(y_l)
        return torch.stack(rows, dim=1)  # (B, L, H)

    inputs = (u, K, K_back, D)
    fast = fft_conv(u, K, K_back if two_sided else None, D=D)
    expected = direct()
    torch.testing.assert_close(fast, expected, atol=1e-10, rtol=0)
    grads_fast = torch.autograd.grad((fast * weights).sum(), inputs, allow_unused=True)
    grads_direct = torch.autograd.grad((expected * weights).sum(), inputs, allow_unused=True)
    for name, a, b in zip(("u", "K", "K_back", "D"), grads_fast, grads_direct):
        if name == "K_back" and not two_sided:
            assert a is None and b is None
            continue
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0, msg=f"gradient of {name}")
    # and torch's own numerical check of the custom backward, batched and unbatched
    assert torch.autograd.gradcheck(
        lambda u, K, D: fft_conv(u, K, D=D), (u, K, D), eps=1e-6, atol=1e-7
    )
    assert torch.autograd.gradcheck(
        lambda u, K: fft_conv(u, K), (u[0].detach().requires_grad_(), K), eps=1e-6, atol=1e-7
    )
    # only u needing a gradient (an odd FFT size must not shorten it)
    (grad_u,) = torch.autograd.grad((fft_conv(u, K.detach()) * weights).sum(), (u,))
    assert grad_u.shape == u.shape
    # one input channel through H kernels (the filter bank's use): H output channels
    with torch.no_grad():
        one = u[..., :1]  # (B, L, 1)
        torch.testing.assert_close(
            fft_conv(one, K), fft_conv(one.expand(-1, -1, 3).contiguous(), K), atol=1e-12, rtol=0
        )


def test_zoh_discretization_matches_matrix_exponential():
    """B̄ = A⁻¹(exp(dtA) - 1)B is the exact integral of exp(sA)B over one step."""
    A = torch.tensor([[-0.5 + 3.0j, -2.0 + 0.0j]], dtype=torch.complex128)
    B = torch.tensor([[1.0 + 0.5j, 2.0 + 0.0j]], dtype=torch.complex128)
    dt = torch.tensor([0.01], dtype=torch.float64)
    from sktdi.ssm import discretize

    _, A_bar, B_bar = discretize(A, B, dt, "zoh")
    s = np.linspace(0, 0.01, 20001)
    integral = np.trapezoid(np.exp(np.outer(A.numpy()[0], s)), s, axis=1) * B.numpy()[0]
    np.testing.assert_allclose(A_bar.numpy()[0], np.exp(A.numpy()[0] * 0.01), rtol=1e-12)
    np.testing.assert_allclose(B_bar.numpy()[0], integral, rtol=1e-8)


@pytest.mark.parametrize("init", INIT_NAMES)
@pytest.mark.parametrize("discretization", DISCRETIZATIONS)
def test_frequency_response_matches_fft_of_impulse_response(init, discretization):
    torch.manual_seed(2)
    layer = S4D(3, 16, init=init, discretization=discretization).double()
    length = 2**16  # long enough that the slowest mode (α·dt = 5e-4) has decayed to ~1e-14
    with torch.no_grad():
        impulse = layer.kernel(length)  # (H, L)
        impulse[:, 0] += layer.D
    fft_mag = np.abs(np.fft.rfft(impulse.numpy(), axis=-1))  # (H, L/2+1)
    fft_freqs = np.fft.rfftfreq(length)
    idx = np.linspace(0, len(fft_freqs) - 1, 700).astype(int)
    freqs, closed = layer.frequency_response(torch.from_numpy(fft_freqs[idx]))
    np.testing.assert_allclose(closed.numpy(), fft_mag[:, idx], rtol=1e-2, atol=1e-9)
    assert closed.shape == (3, 700)


def test_frequency_response_default_grid():
    freqs, mag = S4D(4, 8).frequency_response(33)
    assert freqs.shape == (33,) and mag.shape == (4, 33)
    assert freqs[0] == 0 and math.isclose(float(freqs[-1]), 0.5)
    assert bool((mag >= 0).all())


def test_documented_eigenvalues():
    N = 16
    n = np.arange(N // 2)
    np.testing.assert_allclose(s4d_lin_eigenvalues(N).numpy(), -0.5 + 1j * np.pi * n)
    np.testing.assert_allclose(
        s4d_inv_eigenvalues(N).numpy(), -0.5 + 1j * (N / np.pi) * (N / (2 * n + 1) - 1)
    )
    np.testing.assert_allclose(s4d_real_eigenvalues(N).numpy(), -(n + 1.0) + 0j)


def test_legs_eigenvalues_match_dense_normal_hippo():
    """Independent check: eigenvalues of A_LegS + PPᵀ built as a dense matrix."""
    N = 12
    q = np.arange(N)
    A = np.zeros((N, N))
    for i in range(N):
        for k in range(N):
            if i > k:
                A[i, k] = -np.sqrt((2 * i + 1) * (2 * k + 1))
            elif i == k:
                A[i, k] = -(i + 1)
    P = np.sqrt(q + 0.5)
    eig = np.linalg.eigvals(A + np.outer(P, P))
    upper = np.sort_complex(eig[eig.imag > 0])
    got = s4d_legs_eigenvalues(N).numpy()
    np.testing.assert_allclose(got.real, -0.5, atol=1e-10)
    np.testing.assert_allclose(np.sort(got.imag), np.sort(upper.imag), rtol=1e-8)


@pytest.mark.parametrize("init", INIT_NAMES)
def test_init_stable_dt_in_range_and_shapes(init):
    gen = torch.Generator().manual_seed(0)
    modes = init_modes(init, 32, 16, dt_min=1e-3, dt_max=1e-1, generator=gen)
    assert modes.A.shape == modes.B.shape == modes.C.shape == (32, 8)
    assert modes.dt.shape == (32,)
    assert bool((modes.A.real < 0).all())
    assert bool((modes.dt >= 1e-3 * (1 - 1e-12)).all() and (modes.dt <= 1e-1 * (1 + 1e-12)).all())
    # the module stores exactly these modes
    layer = S4D(32, 16, init=init).double()
    layer.set_modes(modes)
    stored = layer.modes()
    torch.testing.assert_close(stored.A, modes.A)
    torch.testing.assert_close(stored.dt, modes.dt)
    assert bool((stored.A.real < 0).all())


def test_random_init_is_seeded_and_in_band():
    a = init_modes("random", 2, 32, generator=torch.Generator().manual_seed(3))
    b = init_modes("random", 2, 32, generator=torch.Generator().manual_seed(3))
    c = init_modes("random", 2, 32, generator=torch.Generator().manual_seed(4))
    torch.testing.assert_close(a.A, b.A)
    assert not torch.equal(a.A, c.A)
    assert bool((a.A.imag >= 0).all() and (a.A.imag < math.pi * 16).all())


def test_bad_init_arguments():
    with pytest.raises(ValueError, match="unknown initialization"):
        S4D(4, 8, init="s4d-foo")
    with pytest.raises(ValueError, match="d_state must be an even"):
        S4D(4, 7)
    with pytest.raises(ValueError, match="discretization"):
        S4D(4, 8, discretization="euler")
    with pytest.raises(ValueError, match="dt_min"):
        S4D(4, 8, dt_min=0.2, dt_max=0.1)
    layer = S4D(4, 8)
    modes = init_modes("s4d-lin", 3, 8)
    with pytest.raises(ValueError, match="shape"):
        layer.set_modes(modes)
    unstable = init_modes("s4d-lin", 4, 8)
    unstable = type(unstable)(A=-unstable.A, B=unstable.B, C=unstable.C, dt=unstable.dt)
    with pytest.raises(ValueError, match="stable"):
        layer.set_modes(unstable)


@pytest.mark.parametrize("init", INIT_NAMES)
def test_gradients_finite_on_long_sequences(init):
    torch.manual_seed(0)
    layer = S4D(4, 16, init=init)
    u = torch.randn(1, 16384, 4)
    layer(u).pow(2).mean().backward()
    for name, p in layer.named_parameters():
        assert p.grad is not None and bool(torch.isfinite(p.grad).all()), name


@pytest.mark.parametrize("decay", [-np.pi / 2, -1.0, -2.0, -3.3])
def test_kernel_gradient_is_finite_where_a_mode_decays_below_float32s_range(decay):
    """A fast mode (TDI's spread modes: dt·Re A = -π/2) reaches subnormal float32 magnitudes
    within the kernel, where the gradient of exp as a magnitude and a phase (torch.polar's,
    through the phase of a subnormal number) was infinite, and a NaN reached every SSM
    parameter: a d_model=8 network with a given spectrum trained to a NaN loss within one
    epoch. The gradient is float64's, and the kernel itself unchanged."""
    grads = {}
    for dtype in (torch.complex64, torch.complex128):
        # one mode at a time: the subnormal lanes of a vectorized loop are what failed
        z = torch.tensor([[decay + 2.638672j]], dtype=dtype, requires_grad=True)  # (H, N)
        K = vandermonde_kernel(z, torch.tensor([[0.0179 - 0.1542j]], dtype=dtype), 128)
        K.sum().backward()
        grads[dtype] = z.grad
    assert bool(torch.isfinite(grads[torch.complex64]).all())
    torch.testing.assert_close(
        grads[torch.complex64].to(torch.complex128), grads[torch.complex128],
        rtol=1e-5, atol=1e-6,
    )
    # the forward pass is the one before: exp as a magnitude and a phase
    z = torch.tensor([[decay + 2.638672j]]).unsqueeze(-1) * torch.arange(0.0, 128.0, 12.0)
    torch.testing.assert_close(
        ssm_kernel._complex_exp(z), torch.polar(torch.exp(z.real), z.imag), rtol=0, atol=0
    )


def test_a_training_step_leaves_no_tensor_behind():
    """Each step's kernel once stayed alive after its backward pass: the finite-gradient hook
    held the very tensor it was registered on, a cycle (tensor, its hooks, the hook, tensor)
    that Python's collector cannot see through, and a long fit's memory grew with every step
    (4.4 MiB an epoch at 2,000 steps, 20 series)."""
    import gc

    torch.manual_seed(0)
    layer = S4D(d_model=4, d_state=8)
    u = torch.randn(2, 64, 4)  # (B, L, H)

    def live_tensors() -> int:
        gc.collect()
        # type(), not isinstance(): isinstance on a dead weak proxy among the collector's
        # objects raises ReferenceError, and which proxies exist depends on what ran before.
        return sum(issubclass(type(obj), torch.Tensor) for obj in gc.get_objects())

    def step() -> None:
        layer.zero_grad()
        layer(u).pow(2).mean().backward()

    step()  # the gradients' own tensors now exist
    before = live_tensors()
    for _ in range(5):
        step()
    assert live_tensors() == before


@pytest.mark.parametrize("init", INIT_NAMES)
def test_no_nan_after_adam_steps(init):
    torch.manual_seed(0)
    net = S4DNetwork(n_channels=2, n_outputs=3, d_model=16, d_state=16, n_layers=2, init=init)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    X, y = torch.randn(8, 2, 128), torch.randn(8, 3)
    for _ in range(50):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(X), y)
        loss.backward()
        opt.step()
    assert math.isfinite(loss.item())
    assert all(bool(torch.isfinite(p).all()) for p in net.parameters())
    assert all(bool((layer.modes().A.real < 0).all()) for layer in net.ssm_layers)


def _train(net, X, y, steps=150, lr=1e-2):
    opt = torch.optim.Adam(ssm_param_groups(net, ssm_lr=1e-3), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(X), y)
        loss.backward()
        opt.step()
    return loss.item()


def test_network_overfits_tiny_dataset():
    torch.manual_seed(0)
    X, y = torch.randn(16, 1, 40), torch.arange(16) % 2
    net = S4DNetwork(n_channels=1, n_outputs=2, d_model=32, d_state=16, n_layers=2)
    loss = _train(net, X, y)
    net.eval()
    assert loss < 0.05
    assert bool((net(X).argmax(-1) == y).all())


def test_network_is_deterministic_under_seed():
    X, y = torch.randn(12, 2, 30), torch.arange(12) % 3
    outputs = []
    for _ in range(2):
        torch.manual_seed(123)
        net = S4DNetwork(n_channels=2, n_outputs=3, d_model=8, d_state=8, dropout=0.1)
        _train(net, X, y, steps=5)
        outputs.append(net.eval()(X).detach())
    torch.testing.assert_close(outputs[0], outputs[1], rtol=0, atol=0)
    torch.manual_seed(124)
    other = S4DNetwork(n_channels=2, n_outputs=3, d_model=8, d_state=8, dropout=0.1)
    assert not torch.equal(other.eval()(X), outputs[0])


@pytest.mark.parametrize("pooling", ["mean", "max", "mean-max", "last"])
@pytest.mark.parametrize("prenorm", [False, True])
@pytest.mark.parametrize("dtype,atol", [(torch.float32, 1e-5), (torch.float64, 1e-11)])
def test_network_streaming_equals_forward(pooling, prenorm, dtype, atol):
    torch.manual_seed(0)
    net = S4DNetwork(3, 4, d_model=8, d_state=8, n_layers=2, pooling=pooling, prenorm=prenorm)
    net = net.to(dtype).eval()
    X = torch.randn(2, 3, 33, dtype=dtype)
    state = net.initial_state(2)
    with torch.no_grad():
        full = net(X)
        for k in range(33):
            out, state = net.step(X[:, :, k], state)
            # the prefix output equals forward on the prefix
            if k in (0, 10):
                torch.testing.assert_close(out, net(X[:, :, : k + 1]), atol=atol, rtol=atol)
    torch.testing.assert_close(out, full, atol=atol, rtol=atol)


@pytest.mark.parametrize("pooling", ["mean", "max", "mean-max", "last"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_lengths_mask_padding(pooling, bidirectional):
    # a bidirectional layer would read the padding after a series' end if it were not masked
    torch.manual_seed(0)
    net = S4DNetwork(
        1, 2, d_model=8, d_state=8, pooling=pooling, bidirectional=bidirectional
    ).eval()
    short, long_ = torch.randn(1, 1, 10), torch.randn(1, 1, 17)
    padded = torch.cat([torch.nn.functional.pad(short, (0, 7), value=5.0), long_])
    with torch.no_grad():
        out = net(padded, lengths=torch.tensor([10, 17]))
        torch.testing.assert_close(out[0], net(short)[0], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(out[1], net(long_)[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("length", [1, 2, 5])
def test_any_length_and_batch_size(length):
    net = S4DNetwork(1, 2, d_model=4, d_state=4, n_layers=1)
    assert net(torch.randn(1, 1, length)).shape == (1, 2)
    assert net(torch.randn(3, length)).shape == (3, 2)  # 2-D = univariate


def test_float64_network():
    net = S4DNetwork(2, 1, d_model=4, d_state=4).double()
    out = net(torch.randn(2, 2, 9, dtype=torch.float64))
    assert out.dtype == torch.float64
    out.sum().backward()


def test_ssm_param_groups_split_exactly_the_ssm_parameters():
    net = S4DNetwork(1, 2, d_model=4, d_state=4, n_layers=3)
    names = [name for name, _ in ssm_parameters(net)]
    assert len(names) == 3 * len(SSM_PARAMETER_NAMES)
    assert all(name.split(".")[-1] in SSM_PARAMETER_NAMES for name in names)
    assert not any(name.endswith((".C", ".D")) for name in names)
    groups = ssm_param_groups(net, ssm_lr=5e-4)
    assert len(groups) == 2
    assert groups[0]["lr"] == 5e-4 and groups[0]["weight_decay"] == 0.0
    assert set(groups[1]) == {"params"}  # the rest takes the optimizer's defaults
    named = dict(net.named_parameters())
    ssm = sorted(name for name in named if name.split(".")[-1] in SSM_PARAMETER_NAMES)
    rest = sorted(name for name in named if name not in ssm)
    by_id = {id(p): name for name, p in named.items()}
    assert sorted(by_id[id(p)] for p in groups[0]["params"]) == ssm
    assert sorted(by_id[id(p)] for p in groups[1]["params"]) == rest
    assert len(rest) > 0
    # one mechanism only: no per-parameter hint that nothing reads
    assert not hasattr(ssm_layers, "SSM_OPTIM_HINT")
    assert not any(hasattr(p, "_optim") for p in net.parameters())


def test_parameters_created_in_the_requested_dtype():
    layer = S4D(4, 8, init="s4d-lin", dtype=torch.float64)
    # π survives only if the parameter never passed through float32
    assert layer.imag_A[0, 1].item() == math.pi
    assert S4D(4, 8, init="s4d-lin").double().imag_A[0, 1].item() != math.pi
    assert {p.dtype for p in layer.parameters()} == {torch.float64}
    gen = torch.Generator().manual_seed(0)
    torch.randn(4, generator=gen)  # D is drawn first, then the modes
    modes = init_modes("s4d-lin", 4, 8, generator=gen)
    exact = S4D(4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    assert torch.equal(torch.view_as_complex(exact.C), modes.C)
    assert torch.equal(exact.log_dt, torch.log(modes.dt))
    # D is drawn as before and only then cast: float64 and float32 layers share it
    single = S4D(4, 8, generator=torch.Generator().manual_seed(0))
    assert torch.equal(exact.D, single.D.double())
    # the default is unchanged: float32, D first from the global RNG, then the modes
    torch.manual_seed(7)
    default = S4D(4, 8)
    torch.manual_seed(7)
    D = torch.randn(4)  # (H,)
    modes = init_modes("s4d-lin", 4, 8)
    assert {p.dtype for p in default.parameters()} == {torch.float32}
    assert torch.equal(default.D, D)
    assert torch.equal(default.C, torch.view_as_real(modes.C).float())


def test_network_parameters_created_in_the_requested_dtype_and_device():
    default = S4DNetwork(2, 3, d_model=4, d_state=4)
    assert {p.dtype for p in default.parameters()} == {torch.float32}
    net = S4DNetwork(2, 3, d_model=4, d_state=4, n_layers=2, dtype=torch.float64)
    assert {p.dtype for p in net.parameters()} == {torch.float64}
    assert all(layer.imag_A[0, 1].item() == math.pi for layer in net.ssm_layers)
    out = net(torch.randn(2, 2, 9, dtype=torch.float64))
    assert out.dtype == torch.float64
    # the meta device allocates nothing, so this checks the device path on any machine
    meta = S4DNetwork(2, 3, d_model=4, d_state=4, n_layers=2, device="meta")
    assert {p.device.type for p in meta.parameters()} == {"meta"}


@pytest.mark.parametrize("network", ["s4d", "conv-s4d", "ensemble"])
def test_selected_streams_go_on_as_if_streamed_alone(network):
    """StreamState.select keeps some streams, in a new order, mid-stream: their outputs from
    then on are those of the same series streamed alone, and the shared cache is untouched."""
    from sktdi.ssm import ConvS4DNetwork, S4DEnsemble, StreamState

    torch.manual_seed(0)
    if network == "s4d":
        net = S4DNetwork(2, 3, d_model=4, d_state=4, n_layers=2)
    elif network == "conv-s4d":
        net = ConvS4DNetwork(2, 3, depth=3, n_filters=4)
    else:
        net = S4DEnsemble(2, network="s4d", n_channels=2, n_outputs=3, d_model=4, d_state=4)
    net = net.eval().double()
    X = torch.randn(4, 2, 12, dtype=torch.float64)
    keep = torch.tensor([3, 1])
    with torch.no_grad():
        state = net.initial_state(4)
        for k in range(5):
            _, state = net.step(X[:, :, k], state)
        kept = state.select(keep)
        alone = net.initial_state(2)
        for k in range(12):
            out_alone, alone = net.step(X[keep, :, k], alone)
            if k >= 5:
                out_kept, kept = net.step(X[keep, :, k], kept)
                torch.testing.assert_close(out_kept, out_alone, atol=1e-12, rtol=0)
    assert isinstance(kept, StreamState) and kept.n_streams == 2 and state.n_streams == 4
    assert kept.to("cpu").n_streams == 2


def test_streaming_discretizes_once_per_layer(monkeypatch):
    calls = []
    original = ssm_layers.discretize

    def counting_discretize(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(ssm_layers, "discretize", counting_discretize)
    torch.manual_seed(0)
    n_layers, length = 3, 20
    net = S4DNetwork(2, 3, d_model=4, d_state=4, n_layers=n_layers).eval()
    X = torch.randn(2, 2, length)
    with torch.no_grad():
        state = net.initial_state(2)
        cached = state.shared["discrete"]
        for k in range(length):
            out, state = net.step(X[:, :, k], state)
        assert len(calls) == n_layers  # at initial_state, not n_layers·length
        assert state.shared["discrete"] is cached
        torch.testing.assert_close(out, net(X), atol=1e-5, rtol=1e-5)


def test_layer_step_with_and_without_cached_discretization():
    torch.manual_seed(0)
    layer = S4D(3, 8).double()
    u = torch.randn(2, 5, 3, dtype=torch.float64)
    with torch.no_grad():
        discrete = layer.step_parameters()
        state_a = state_b = layer.initial_state(2)
        for k in range(5):
            y_a, state_a = layer.step(u[:, k], state_a, discrete)
            y_b, state_b = layer.step(u[:, k], state_b)
        assert torch.equal(y_a, y_b) and torch.equal(state_a, state_b)
        torch.testing.assert_close(y_a, layer(u)[:, -1], atol=1e-12, rtol=0)


def test_bidirectional_layer_matches_explicit_two_sided_sum():
    # y_l = Σ_{j<=l} K[l-j] u_j + Σ_{j>=l} K_back[j-l] u_j + D u_l, with both kernels from
    # their own closed form 2·Re Σ_n C_n B̄_n Ā_n^k, computed here mode by mode
    torch.manual_seed(0)
    layer = S4D(3, 8, bidirectional=True, dtype=torch.float64)
    L = 25
    u = torch.randn(2, L, 3, dtype=torch.float64)
    with torch.no_grad():
        m = layer.modes()
        A_bar = torch.exp(m.A * m.dt.unsqueeze(-1))  # ZOH, (H, N)
        B_bar = (A_bar - 1) / m.A * m.B  # (H, N)
        powers = A_bar.unsqueeze(-1) ** torch.arange(L)  # (H, N, L)
        C_back = torch.view_as_complex(layer.C_backward)
        K = 2 * ((m.C * B_bar).unsqueeze(-1) * powers).sum(1).real  # (H, L)
        K_back = 2 * ((C_back * B_bar).unsqueeze(-1) * powers).sum(1).real  # (H, L)
        expected = layer.D * u
        for l in range(L):
            for j in range(L):
                if j <= l:
                    expected[:, l] += K[:, l - j] * u[:, j]
                if j >= l:
                    expected[:, l] += K_back[:, j - l] * u[:, j]
        torch.testing.assert_close(layer(u), expected, atol=1e-10, rtol=1e-10)
        # the backward kernel shares the poles: its spectrum peaks where the forward one does
        assert torch.equal(layer.kernels(L)[0], layer.kernel(L))


def test_bidirectional_sees_the_future_and_cannot_stream():
    torch.manual_seed(0)
    causal = S4DNetwork(1, 2, d_model=8, d_state=8).eval()
    both = S4DNetwork(1, 2, d_model=8, d_state=8, bidirectional=True).eval()
    X = torch.randn(1, 1, 30)
    later = X.clone()
    later[..., 20:] += 1.0  # change only the future of step 10
    with torch.no_grad():
        torch.testing.assert_close(  # FFT rounding only
            causal.sequence_features(X)[:, :10], causal.sequence_features(later)[:, :10]
        )
        seen, changed = both.sequence_features(X), both.sequence_features(later)
        assert not torch.allclose(seen[:, :10], changed[:, :10])
    with pytest.raises(ValueError, match="cannot stream"):
        both.initial_state(1)
    with pytest.raises(ValueError, match="cannot stream"):
        both.ssm_layers[0].step(torch.randn(1, 8), both.ssm_layers[0].initial_state(1))


def test_causal_layers_draw_the_same_modes_as_before_bidirectional_existed():
    # the backward weights are drawn after everything else: a causal layer is unchanged
    a = S4D(4, 8, generator=torch.Generator().manual_seed(3))
    b = S4D(4, 8, generator=torch.Generator().manual_seed(3), bidirectional=True)
    for name, value in a.named_parameters():
        assert torch.equal(value, dict(b.named_parameters())[name])


def test_ensemble_trains_members_apart_and_averages_probabilities():
    torch.manual_seed(0)
    ensemble = S4DEnsemble(3, n_channels=1, n_outputs=4, d_model=8, d_state=8)
    X = torch.randn(5, 1, 20)
    members = torch.stack([member.eval()(X) for member in ensemble.members], dim=1)
    ensemble.train()
    assert ensemble(X).shape == (5, 3, 4)
    ensemble.eval()
    with torch.no_grad():
        probs = torch.softmax(ensemble(X), dim=-1)
        torch.testing.assert_close(probs, torch.softmax(members, dim=-1).mean(dim=1))
        regression = S4DEnsemble(2, combine="mean", n_channels=1, n_outputs=1, d_model=4, d_state=4)
        regression.eval()
        torch.testing.assert_close(
            regression(X), torch.stack([m(X) for m in regression.members]).mean(dim=0)
        )
    assert len(ensemble.ssm_layers) == 3 * 2
    with pytest.raises(ValueError, match="combine"):
        S4DEnsemble(2, combine="vote")
    with pytest.raises(ValueError, match="n_members"):
        S4DEnsemble(0)


def test_bad_network_arguments():
    with pytest.raises(ValueError, match="pooling"):
        S4DNetwork(pooling="median")
    with pytest.raises(ValueError, match="n_layers"):
        S4DNetwork(n_layers=0)
    with pytest.raises(ValueError, match="dropout"):
        S4DNetwork(dropout=1.0)


def test_channel_dropout_drops_whole_channels():
    torch.manual_seed(0)
    from sktdi.ssm import ChannelDropout

    drop = ChannelDropout(0.5).train()
    out = drop(torch.ones(4, 20, 16))
    per_channel = out.std(dim=1)  # zero std: each channel is all-kept or all-dropped
    assert bool((per_channel == 0).all())
    assert bool(((out == 0) | (out == 2)).all())
    assert torch.equal(drop.eval()(torch.ones(2, 3, 4)), torch.ones(2, 3, 4))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_matches_cpu():
    torch.manual_seed(0)
    net = S4DNetwork(2, 3, d_model=8, d_state=8).eval()
    X = torch.randn(4, 2, 50)
    cpu = net(X)
    gpu = net.to("cuda")(X.to("cuda")).cpu()
    torch.testing.assert_close(cpu, gpu, atol=1e-4, rtol=1e-4)
