"""Seeded noise of the sizes measured on the lab machine, and the binomial bounds the oracle tests judge
error rates with.

A simulated iteration's time (seconds) is BASE_S x the variant's planted ratio x, in log terms, the sum of

- round drift (`round_sd`): shared by every variant's block of one round (the host's load moving
  between rounds); the paired verdict cancels it, an unpaired one (across runs) does not;
- block drift (`block_sd`): one per block, independent between variants: what the paired rounds
  cannot cancel. Measured (bench/README.md, verdict_robustness.py / verdict_methods.py): sd ~0.04 on a
  quiet host, ~0.16 on this 2-core host with other test suites running (per-round ratios +/- 20-40 %;
  two blocks of the same loop then differ by more than 45 % in one round of ten);
- a load burst (`stall_rate`): a block hit by U(0.3, 0.9) more (results/stats/verdicts.py: "a load
  burst that starts or ends inside a round ... throws that round's ratio 30-90 % off");
- a load window (`load_window`): as bench/verdict_methods.py's synthetic runs, the middle third of the
  run's blocks in execution order (each round's variant order shuffled) pay U(0.3, 0.9) more, drawn
  once per run, with extra sd 0.15: the rounds where it starts or ends load one variant's block only;
- within-block jitter (`iteration_sd`) and outliers (`outlier_rate` of the iterations stalled
  x1.5-4: a checkpoint, a page fault storm).

Replay passes (REPLAY): "each round's ratio scatters about 10 %" on a quiet host, more on a busy one
(bench/README.md, replay_resolution.py: 20 planned rounds left most fingerprints undecided there), so
a block sd of 0.10 (log ratio sd 0.14).

Everything is numpy (PCG64 from a seed the test names): the same seed gives the same trials, so a test
built on it is deterministic, and vectorised over trials so many trials stay fast.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

BASE_S = 0.1  # a simulated iteration's median seconds before any effect (the size does not matter)
BOUND_CONFIDENCE = 0.999  # of the binomial bounds below: an honest procedure fails a bound 1 time in 1000


@dataclass(frozen=True)
class Noise:
    """Sizes of the noise, as log-scale standard deviations and rates (module docstring)."""

    block_sd: float
    round_sd: float = 0.10
    iteration_sd: float = 0.05
    outlier_rate: float = 0.01
    stall_rate: float = 0.0
    load_window: bool = False


QUIET = Noise(block_sd=0.04)
LOADED = Noise(block_sd=0.16, round_sd=0.25, iteration_sd=0.10, outlier_rate=0.02, stall_rate=0.05)
BURSTS = Noise(block_sd=0.04, load_window=True)  # bench/verdict_methods.py's synthetic load window
REPLAY = Noise(block_sd=0.10, round_sd=0.10, iteration_sd=0.03)


def simulate(
    rng: np.random.Generator,
    ratios: Sequence[float],
    rounds: int,
    block: int,
    noise: Noise,
    trials: int = 1,
) -> NDArray[np.float64]:
    """Iteration seconds, shape (trials, variants, rounds, block): variant v's true time is BASE_S x
    ratios[v] (ratios[0] is the baseline's, usually 1.0); noise as the module docstring says."""
    variants = len(ratios)
    shape = (trials, variants, rounds)
    logs = np.log(BASE_S) + np.log(np.asarray(ratios, dtype=float))[None, :, None]
    logs = logs + rng.normal(0, noise.round_sd, (trials, 1, rounds))
    logs = logs + rng.normal(0, noise.block_sd, shape)
    if noise.stall_rate:
        logs = logs + (rng.random(shape) < noise.stall_rate) * rng.uniform(0.3, 0.9, shape)
    if noise.load_window:
        # execution position of each block: round-major, the variants of a round in a shuffled order
        order = rng.random(shape).argsort(axis=1).argsort(axis=1)
        position = np.arange(rounds)[None, None, :] * variants + order
        total = rounds * variants
        loaded = (position >= total // 3) & (position < 2 * total // 3)
        penalty = rng.uniform(0.3, 0.9, (trials, 1, 1)) + rng.normal(0, 0.15, shape)
        logs = logs + loaded * penalty
    per_iteration = logs[..., None] + rng.normal(0, noise.iteration_sd, (*shape, block))
    stalled = rng.random(per_iteration.shape) < noise.outlier_rate
    per_iteration = per_iteration + stalled * np.log(rng.uniform(1.5, 4.0, per_iteration.shape))
    out: NDArray[np.float64] = np.exp(per_iteration)
    return out


def as_rounds(values: NDArray[np.float64], first: int = 1) -> dict[int, list[float]]:
    """One variant's (rounds, block) seconds as results/stats/verdicts.py reads them: round number
    (from `first`) -> that round's iteration values."""
    return {first + r: [float(v) for v in row] for r, row in enumerate(values)}


def at_most(rate: float, trials: int, confidence: float = BOUND_CONFIDENCE) -> float:
    """The largest share of `trials` an event of true probability `rate` reaches with chance at least
    `confidence` (binomial upper quantile / trials): an observed share above it says the true rate is
    above `rate`."""
    return float(stats.binom.ppf(confidence, trials, rate)) / trials


def at_least(rate: float, trials: int, confidence: float = BOUND_CONFIDENCE) -> float:
    """The smallest share of `trials` an event of true probability `rate` reaches with chance at least
    `confidence` (binomial lower quantile / trials)."""
    return float(stats.binom.ppf(1 - confidence, trials, rate)) / trials
