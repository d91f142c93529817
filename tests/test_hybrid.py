"""The default classifier network: causal multi-scale convolutions with S4D layers
(:class:`sktdi.ssm.ConvS4DNetwork`), and the ``network`` parameter that chooses it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sktdi import SSMClassifier, SSMRegressor, load
from sktdi.datasets import planted_frequency_task
from sktdi.ssm import ConvS4DNetwork, S4DEnsemble

FAST = {"d_model": 8, "n_layers": 3, "d_state": 8, "max_epochs": 3, "batch_size": 16}


def _trained_like(net: ConvS4DNetwork, seed: int = 0) -> ConvS4DNetwork:
    """Random BatchNorm statistics, so eval mode is not the identity affine map."""
    gen = torch.Generator().manual_seed(seed)
    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm1d):
            module.running_mean.copy_(torch.randn(module.num_features, generator=gen))
            module.running_var.copy_(torch.rand(module.num_features, generator=gen) + 0.5)
    return net.eval()


def _features_when_the_end_changes(net: ConvS4DNetwork) -> tuple[torch.Tensor, torch.Tensor]:
    """The per-step features of 3 series, and of the same series with steps 40.. redrawn."""
    X = torch.randn(3, 2, 60)
    changed = X.clone()
    changed[..., 40:] = torch.randn(3, 2, 20)
    with torch.no_grad():
        return net.sequence_features(X), net.sequence_features(changed)


@pytest.mark.parametrize("long_range", ["s4d", "conv"])
def test_the_network_is_causal(long_range):
    net = _trained_like(ConvS4DNetwork(2, 3, n_filters=4, long_range=long_range))
    a, b = _features_when_the_end_changes(net)
    assert torch.allclose(a[:, :40], b[:, :40], atol=1e-5)
    assert not torch.allclose(a[:, 40:], b[:, 40:], atol=1e-3)


@pytest.mark.parametrize("pooling", ["mean", "mean-max", "last"])
def test_streamed_steps_equal_the_forward_pass_on_every_prefix(pooling):
    net = _trained_like(ConvS4DNetwork(2, 3, n_filters=4, pooling=pooling), seed=1).double()
    X = torch.randn(2, 2, 45, dtype=torch.float64)
    with torch.no_grad():
        state = net.initial_state(2)
        for k in range(45):
            out, state = net.step(X[:, :, k], state)
            if k in (0, 9, 39, 44):  # before and after the widest convolution's reach
                assert torch.allclose(out, net(X[:, :, : k + 1]), atol=1e-8), k


def test_padding_never_reaches_a_series_outputs():
    net = _trained_like(ConvS4DNetwork(1, 2, n_filters=4))
    X = torch.randn(2, 1, 30)
    padded = torch.cat([X, torch.randn(2, 1, 10)], dim=-1)
    with torch.no_grad():
        whole = net(X)
        masked = net(padded, lengths=torch.tensor([30, 30]))
    assert torch.allclose(whole, masked, atol=1e-5)


def test_the_classifier_defaults_to_the_conv_s4d_network_and_tdi_aligns_it():
    X, y = planted_frequency_task(12, random_state=0)
    clf = SSMClassifier(**FAST, random_state=0).fit(X, y)
    assert clf.network == "conv-s4d" and SSMRegressor().network == "s4d"
    assert isinstance(clf.net_.module_, ConvS4DNetwork)
    assert clf.init_report_["chosen"] == "tdi" and len(clf.tdi_reports_) == 1
    _, magnitude = clf.frequency_response(n_freqs=64)
    assert magnitude.shape == (FAST["d_model"] // 4, 64)  # a block's S4D runs on a quarter
    assert clf.predict(X).shape == y.shape


def test_an_ensemble_of_conv_s4d_networks_saves_and_loads(tmp_path):
    X, y = planted_frequency_task(8, random_state=1)
    clf = SSMClassifier(**FAST, n_estimators=2, random_state=0).fit(X, y)
    assert isinstance(clf.net_.module_, S4DEnsemble)
    assert all(isinstance(m, ConvS4DNetwork) for m in clf.net_.module_.members)
    path = tmp_path / "model.sktdi"
    clf.save(path)
    np.testing.assert_allclose(load(path).predict_proba(X), clf.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("params, message", [({"d_model": 6}, "multiple of 4")])
def test_parameters_the_conv_s4d_network_cannot_honour_are_named(params, message):
    X, y = planted_frequency_task(4, random_state=0)
    with pytest.raises(ValueError, match=message):
        SSMClassifier(**{**FAST, **params}).fit(X, y)
    SSMClassifier(**{**FAST, **params, "network": "s4d", "max_epochs": 0}).fit(X, y)


def test_a_file_saved_before_the_network_parameter_loads_as_the_s4d_network(tmp_path):
    """Files written before ``network`` existed hold the S4D network and no ``network``
    parameter: they load as that network, not as the new default."""
    import json
    import zipfile

    X, y = planted_frequency_task(6, random_state=2)
    old = SSMClassifier(**{**FAST, "network": "s4d"}, random_state=0).fit(X, y)
    path = tmp_path / "old.sktdi"
    old.save(path)
    with zipfile.ZipFile(path) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(contents["metadata.json"])
    del meta["estimator"]["params"]["network"]  # as the previous version wrote it
    contents["metadata.json"] = json.dumps(meta).encode()
    older = tmp_path / "older.sktdi"
    with zipfile.ZipFile(older, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    loaded = load(older)
    assert loaded.network == "s4d"
    np.testing.assert_allclose(loaded.predict_proba(X), old.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("part_values", [None, 4 * 60])
def test_the_cpu_convolution_and_max_pool_give_torchs_values_and_gradients(
    causal, part_values, monkeypatch
):
    # the block's own backward passes (sktdi.ssm.conv_ops) against torch's kernels, in
    # float64, with ReLU-like ties in the max-pool's input (the gradient goes to the earliest
    # maximum of a window, as torch's max-pool sends it)
    from torch.nn.functional import conv1d, max_pool1d, pad, relu

    from sktdi.ssm.conv_ops import conv1d_same_length, max_pool3_same_length

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, 40, dtype=torch.float64, generator=gen).requires_grad_()
    w = torch.randn(5, 4, 8, dtype=torch.float64, generator=gen).requires_grad_()
    left = 7 if causal else 3
    ours, theirs = conv1d_same_length(x, w, left), conv1d(pad(x, (left, 7 - left)), w)
    g = torch.randn(ours.shape, dtype=torch.float64, generator=gen)
    for a, b in zip(torch.autograd.grad(ours, (x, w), g), torch.autograd.grad(theirs, (x, w), g)):
        assert torch.allclose(a, b, rtol=0, atol=1e-12)
    assert torch.equal(ours, theirs)

    tied = relu(torch.randn(3, 4, 60, dtype=torch.float64, generator=gen)).requires_grad_()
    left = 2 if causal else 1
    ours = max_pool3_same_length(tied, left)
    theirs = max_pool1d(pad(tied, (left, 2 - left), value=float("-inf")), 3, stride=1)
    assert torch.equal(ours, theirs)
    g = torch.randn(ours.shape, dtype=torch.float64, generator=gen)
    (a,), (b,) = torch.autograd.grad(ours, tied, g), torch.autograd.grad(theirs, tied, g)
    assert torch.allclose(a, b, rtol=0, atol=1e-12)

    # the max-pool and its 1×1 projection in one step, the pooled series recomputed for
    # the backward pass (a few series at a time: with part_values, one series a part):
    # torch's max-pool then convolution
    from sktdi.ssm import conv_ops
    from sktdi.ssm.conv_ops import max_pool3_project, pointwise_conv

    if part_values:
        monkeypatch.setattr(conv_ops, "PART_VALUES", part_values)

    w = torch.randn(5, 4, 1, dtype=torch.float64, generator=gen).requires_grad_()
    theirs = max_pool1d(pad(tied, (left, 2 - left), value=float("-inf")), 3, stride=1)
    ours, theirs = max_pool3_project(tied, w, left), conv1d(theirs, w)
    assert torch.allclose(ours, theirs, rtol=0, atol=1e-12)
    g = torch.randn(ours.shape, dtype=torch.float64, generator=gen)
    for a, b in zip(torch.autograd.grad(ours, (tied, w), g),
                    torch.autograd.grad(theirs, (tied, w), g)):
        assert torch.allclose(a, b, rtol=0, atol=1e-12)

    # a 1×1 convolution as a matrix product per series
    ours, theirs = pointwise_conv(tied, w), conv1d(tied, w)
    assert torch.allclose(ours, theirs, rtol=0, atol=1e-12)
    for a, b in zip(torch.autograd.grad(ours, (tied, w), g),
                    torch.autograd.grad(theirs, (tied, w), g)):
        assert torch.allclose(a, b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("left", [2, 1])
def test_the_compiled_max_pool_follows_its_rule_at_nan_infinity_and_ties(dtype, left):
    # the compiled max-pool (sktdi.ssm.pool_kernels) against the rule written out as a loop:
    # each window's maximum (NaN where it holds one), its gradient to the earliest maximum,
    # a window with a NaN sending it to its last step, a window of -inf only to its padding
    # (nowhere); on a non-contiguous input, and a gradient that is inf where it is not taken
    from sktdi.ssm.conv_ops import max_pool3_same_length

    values = [0.0, 1.0, 1.0, -np.inf, -np.inf, -np.inf, np.nan, 2.0, 2.0, 2.0, 0.5, np.nan]
    gen = np.random.default_rng(0)
    x = np.stack([
        values,
        gen.permutation(values),
        np.maximum(gen.normal(size=12), 0),
        [-np.inf, -np.inf] + values[:-2],  # its first window holds -inf only
    ])
    x = x.astype(torch.empty((), dtype=dtype).numpy().dtype).astype(np.float64)  # dtype's values
    g = gen.normal(size=x.shape)
    L = x.shape[1]
    padded = np.pad(x, ((0, 0), (left, 2 - left)), constant_values=-np.inf)
    expected_y, expected_grad = np.empty_like(x), np.zeros((len(x), L + 2))
    for r in range(len(x)):
        for t in range(L):
            window = padded[r, t:t + 3]
            if np.isnan(window).any():
                expected_y[r, t], k = np.nan, 2
            else:
                expected_y[r, t] = window.max()
                k = int(np.flatnonzero(window == window.max())[0])
            expected_grad[r, t + k] += g[r, t]
    expected_grad = expected_grad[:, left:left + L]

    # channels-last storage: the (1, R, L) input is a non-contiguous view
    xt = torch.tensor(x.T.copy(), dtype=dtype).T.unsqueeze(0).requires_grad_()
    assert not xt.is_contiguous()
    y = max_pool3_same_length(xt, left)
    np.testing.assert_array_equal(y[0].detach().numpy(), expected_y)
    (grad,) = torch.autograd.grad(y, xt, torch.tensor(g, dtype=dtype).unsqueeze(0))
    np.testing.assert_allclose(grad[0].numpy(), expected_grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("part_values", [None, 60])
def test_the_residual_join_gives_torchs_values_gradients_and_statistics(
    momentum, part_values, monkeypatch
):
    # relu(relu(a) + BatchNorm(W r)) in one step (sktdi.ssm.conv_ops.residual_join) against
    # torch's modules, in float64, over two training steps (BatchNorm's running statistics
    # and batch count move as torch's do, a cumulative average too), with exact zeros in a;
    # the batch in one part and one series at a time (part_values=60, as long series go)
    import copy

    from sktdi.ssm import conv_ops
    from sktdi.ssm.conv_ops import residual_join

    if part_values is not None:
        monkeypatch.setattr(conv_ops, "PART_VALUES", part_values)

    gen = torch.Generator().manual_seed(0)
    ours = torch.nn.Sequential(
        torch.nn.Conv1d(4, 6, 1, bias=False), torch.nn.BatchNorm1d(6, momentum=momentum)
    ).double()
    with torch.no_grad():
        ours[1].weight.uniform_(-2, 2, generator=gen)
        ours[1].bias.uniform_(-1, 1, generator=gen)
    theirs = copy.deepcopy(ours)
    for _ in range(2):
        a = torch.randn(3, 6, 50, dtype=torch.float64, generator=gen)
        a = a.masked_fill(a.abs() < 0.2, 0.0).requires_grad_()
        r = torch.randn(3, 4, 50, dtype=torch.float64, generator=gen).requires_grad_()
        g = torch.randn(3, 6, 50, dtype=torch.float64, generator=gen)
        joined = residual_join(a, r, ours)
        expected = torch.relu(torch.relu(a) + theirs(r))
        assert torch.allclose(joined, expected, rtol=0, atol=1e-12)
        mine = torch.autograd.grad(joined, (a, r, *ours.parameters()), g)
        torchs = torch.autograd.grad(expected, (a, r, *theirs.parameters()), g)
        for x, y in zip(mine, torchs):
            assert torch.allclose(x, y, rtol=0, atol=1e-10)
    for name, buffer in theirs[1].named_buffers():
        assert torch.allclose(dict(ours[1].named_buffers())[name], buffer, rtol=0, atol=1e-12)
    # eval mode: the running statistics, as torch
    ours.eval(), theirs.eval()
    with torch.no_grad():
        assert torch.allclose(
            residual_join(a, r, ours), torch.relu(torch.relu(a) + theirs(r)), rtol=0, atol=1e-12
        )


def test_the_residual_join_keeps_no_full_float_array_but_its_input():
    # what the backward pass keeps: torch's ops keep relu(a), the BatchNorm's input and the
    # join's output (three (B, C, L) float arrays); the join keeps r and two bool masks
    from sktdi.ssm.conv_ops import residual_join

    shortcut = torch.nn.Sequential(torch.nn.Conv1d(2, 8, 1, bias=False), torch.nn.BatchNorm1d(8))
    a = torch.randn(4, 8, 100, requires_grad=True)
    r = torch.randn(4, 2, 100, requires_grad=True)

    def kept_float_bytes(join) -> int:
        storages = {}

        def pack(t):
            if t.is_floating_point():
                storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            join(a, r, shortcut)
        return sum(storages.values())

    full = a.numel() * a.element_size()
    assert kept_float_bytes(lambda a, r, s: torch.relu(torch.relu(a) + s(r))) >= 3 * full
    assert kept_float_bytes(residual_join) < r.numel() * r.element_size() + full / 10


@pytest.mark.parametrize("depth, pooling, dropout", [(6, "mean", 0.0), (4, "max", 0.0),
                                                     (6, "mean-max", 0.3)])
@pytest.mark.parametrize("padded", [False, True])
def test_recomputed_block_outputs_give_the_same_training_step(
    depth, pooling, dropout, padded, monkeypatch
):
    # a CPU training step drops the outputs of the blocks without a shortcut and recomputes
    # them from their BatchNorm's input (sktdi.ssm.conv_ops.RecomputedActivations): the same
    # loss, gradients and running statistics as the network that keeps them, in float64
    import copy

    from sktdi.ssm import conv_ops, hybrid

    monkeypatch.setattr(conv_ops, "MMAP_THRESHOLD_BYTES", 0)  # as long series' outputs are
    net = ConvS4DNetwork(2, 3, depth=depth, n_filters=4, pooling=pooling, dropout=dropout,
                         dtype=torch.float64)
    kept = copy.deepcopy(net)
    gen = torch.Generator().manual_seed(0)
    X = torch.randn(5, 2, 40, dtype=torch.float64, generator=gen)
    y = torch.tensor([0, 1, 2, 0, 1])
    lengths = torch.tensor([40, 31, 40, 12, 25]) if padded else None
    remade = []
    remake = hybrid._normalized_relu
    monkeypatch.setattr(hybrid, "_normalized_relu", lambda *a: remade.append(1) or remake(*a))

    def step(network):
        torch.manual_seed(1)  # the same dropout masks
        loss = torch.nn.functional.cross_entropy(network(X, lengths), y)
        loss.backward()
        return loss

    loss = step(net)
    dropped = [d for d in range(depth) if not net._closes_group(d)]
    masked = [d for d in dropped if padded and d < depth - 1]  # the next block's masked input
    # each dropped output recomputed once, and each masked copy of one
    assert len(remade) == len(dropped) + len(masked) or dropout > 0
    assert remade
    monkeypatch.setattr(hybrid, "recompute_block_outputs", lambda x, channels: False)
    torch.testing.assert_close(loss, step(kept), rtol=0, atol=1e-12)
    for (name, a), b in zip(net.named_parameters(), kept.parameters()):
        torch.testing.assert_close(a.grad, b.grad, rtol=0, atol=1e-12, msg=name)
    for a, b in zip(net.buffers(), kept.buffers()):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-12)


def test_only_outputs_the_heap_would_not_serve_again_are_recomputed():
    from sktdi.ssm.conv_ops import recompute_block_outputs

    x = torch.zeros(16, 1, 16000)  # its blocks' outputs: 125 MiB each in float32
    assert recompute_block_outputs(x, 128)
    assert not recompute_block_outputs(x[..., :1000], 128)  # 8 MiB: reused from the heap
    with torch.no_grad():  # nothing is kept for a backward pass
        assert not recompute_block_outputs(x, 128)


def test_a_recomputed_activation_is_read_where_it_was_saved_and_released_memory_is_not():
    from sktdi.ssm.conv_ops import RecomputedActivations

    x = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    calls = []
    with RecomputedActivations() as recompute:
        h = torch.tanh(x)
        recompute.drop(h, lambda: calls.append(1) or torch.tanh(x.detach()))
        loss = (h[:, 1:4].t() ** 3).sum()  # keeps a transposed slice of h
        recompute.release(h)
        other = torch.sigmoid(x)  # kept as torch keeps it, wherever its memory lies
        loss = loss + (other * other).sum()
    loss.backward()
    expected = torch.zeros_like(x)
    t = torch.tanh(x.detach())
    expected[:, 1:4] = 3 * t[:, 1:4] ** 2 * (1 - t[:, 1:4] ** 2)
    s = torch.sigmoid(x.detach())
    expected += 2 * s * s * (1 - s)
    torch.testing.assert_close(x.grad, expected, rtol=0, atol=1e-12)
    # tanh's own backward and the power's both read h: recomputed once for both
    assert calls == [1]
    with pytest.raises(ValueError, match="contiguous"):
        RecomputedActivations().drop(h.t(), lambda: h.t())


def test_the_bidirectional_network_sees_the_whole_series_and_refuses_to_stream():
    net = _trained_like(ConvS4DNetwork(2, 3, n_filters=4, bidirectional=True))
    a, b = _features_when_the_end_changes(net)
    assert not torch.allclose(a[:, :40], b[:, :40], atol=1e-3)  # the past sees the future
    X = torch.randn(3, 2, 60)
    for call in (lambda: net.initial_state(3), lambda: net.outputs_over_time(X)):
        with pytest.raises(ValueError, match="bidirectional network .* cannot stream"):
            call()


@pytest.mark.parametrize("bidirectional", [False, True])
def test_padding_changes_nothing_in_either_network(bidirectional):
    # the centred convolutions and max-pool would read the padding after a series' end (and
    # the max-pool a zero where a series alone has -inf) if it were not masked
    net = _trained_like(ConvS4DNetwork(1, 2, n_filters=4, bidirectional=bidirectional))
    gen = torch.Generator().manual_seed(1)
    short, long_ = -torch.rand(1, 1, 10, generator=gen) - 1, torch.randn(1, 1, 17, generator=gen)
    padded = torch.cat([torch.nn.functional.pad(short, (0, 7), value=5.0), long_])
    with torch.no_grad():
        out = net(padded, lengths=torch.tensor([10, 17]))
        torch.testing.assert_close(out[0], net(short)[0], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(out[1], net(long_)[0], atol=1e-5, rtol=1e-5)


def test_a_bidirectional_classifier_fits_saves_and_names_what_it_cannot_do(tmp_path):
    X, y = planted_frequency_task(4, random_state=0)
    clf = SSMClassifier(**FAST, bidirectional=True, random_state=0).fit(X, y)
    assert clf.net_.module_.bidirectional
    path = tmp_path / "model.sktdi"
    clf.save(path)
    np.testing.assert_allclose(load(path).predict_proba(X), clf.predict_proba(X), atol=1e-6)
    with pytest.raises(ValueError, match="bidirectional network"):
        clf.predict_proba_over_time(X[:2])
    with pytest.raises(ValueError, match="bidirectional network"):
        clf.stream()
