"""
Streaming inference with the recurrent mode
===========================================

An S4D network is trained in convolution mode (parallel over time, FFT), then fed one sample at
a time with ``step`` — O(1) work per new sample, no recomputation over the history — and its
running prediction is compared with a full forward pass on each prefix. ``initial_state``
computes each layer's discretization once and the state carries it, so a step does no
discretization; create a new state after the parameters change (more training).
"""

import time

import torch

from sktdi.ssm import S4DNetwork, ssm_param_groups

torch.manual_seed(0)
length, n_series = 200, 64
t = torch.arange(length)
# two classes: a slow or a fast oscillation, random phase, in noise
freq = torch.where(torch.arange(n_series) % 2 == 0, 0.02, 0.15)
phase = 2 * torch.pi * torch.rand(n_series, 1)
X = torch.sin(2 * torch.pi * freq[:, None] * t + phase) + 0.5 * torch.randn(n_series, length)
y = torch.arange(n_series) % 2

net = S4DNetwork(n_channels=1, n_outputs=2, d_model=16, d_state=16, n_layers=1)
# A, B and dt in an optimizer group of their own (lower rate, no weight decay)
opt = torch.optim.AdamW(ssm_param_groups(net, ssm_lr=1e-3), lr=1e-2)
for _ in range(60):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(net(X), y)
    loss.backward()
    opt.step()
net.eval()

series = X[:1].unsqueeze(1)  # (1, 1, L)
start = time.perf_counter()
with torch.no_grad():
    state = net.initial_state(batch_size=1)  # caches (Ā, C·B̄) of every layer for the stream
    for k in range(length):
        logits, state = net.step(series[:, :, k], state)
        if (k + 1) % 50 == 0:
            reference = net(series[:, :, : k + 1])
            gap = (logits - reference).abs().max().item()
            prob = logits.softmax(-1)[0, 1].item()
            print(f"after {k + 1:3d} samples: P(fast)={prob:.3f}  |stream - forward| = {gap:.1e}")
elapsed = time.perf_counter() - start
print(f"final training loss {loss.item():.3f}; streamed {length} steps in {elapsed * 1e3:.0f} ms")

# sphinx_gallery_thumbnail_path = "images/ssm_inits.png"
