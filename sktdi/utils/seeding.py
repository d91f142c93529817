"""Randomness: independent seeds for the parts of a fit, and torch's RNG forked around it.

One root seed is drawn from ``random_state`` (scikit-learn's convention: None uses numpy's
global RNG); numpy's SeedSequence spawns independent seeds from it, so that changing one
part's settings (a validation split, a TDI option) does not shift another part's draws.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.utils import check_random_state


def spawn_seeds(random_state, n: int) -> list[int]:
    """``n`` independent int32 seeds from one root seed drawn from ``random_state``.

    Examples
    --------
    >>> from sktdi.utils.seeding import spawn_seeds
    >>> spawn_seeds(0, 3) == spawn_seeds(0, 3), len(set(spawn_seeds(0, 3)))
    (True, 3)
    """
    root = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    seeds = np.random.SeedSequence(root).generate_state(n) % np.iinfo(np.int32).max
    return [int(seed) for seed in seeds]


@dataclass(frozen=True)
class RandomStreams:
    """Independent seeds for the parts of a fit that draw random numbers.

    ``torch``: torch's global RNG during the fit (weights, the S4D base modes, shuffling,
    dropout); ``tdi``: TDI's subsample, reliability splits, control arm and alignment jitter;
    ``split``: the validation split; ``fast_path``: the fast path's bank and MiniRocket, where
    the deep model adds them (a fourth seed of the same sequence: the first three are as they
    were before it).
    """

    torch: int
    tdi: int
    split: int
    fast_path: int


def random_streams(random_state) -> RandomStreams:
    """Draw one root seed from ``random_state`` (scikit-learn's convention: None uses
    numpy's global RNG) and spawn independent streams from it (numpy's SeedSequence).

    Examples
    --------
    >>> from sktdi.utils.seeding import random_streams
    >>> streams = random_streams(0)
    >>> streams == random_streams(0), len(set(vars(streams).values()))
    (True, 4)
    """
    return RandomStreams(*spawn_seeds(random_state, 4))


@contextlib.contextmanager
def seeded(seed: int):
    """Seed torch's global RNG (CPU and every CUDA device) for a block and restore every
    state afterwards, so that a fit neither depends on nor changes the caller's RNG."""
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield
