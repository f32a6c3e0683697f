"""A replay's time verdicts against the simulated oracle: false-discovery control across fingerprints
(replay/compare.py `compare`, findings.py Benjamini-Hochberg over fdr.py's p-values) and the extension
for the still-undecided fingerprints (engine.py `extension_steps` asking extension.py
`still_undecided`). The statements' timed passes are simulated (simulate.py); everything that reads
them is the product's. Asserted: among many unchanged fingerprints a false slower/faster comes out in
at most q of the replays (under the complete null the FDR is the chance of any false discovery), with
planted slowdowns among them the false share of the discoveries stays at most q and the slowdowns are
found; the extension spends rounds only on undecided fingerprints, never past max_rounds, stops when
nothing is open, and brings unchanged fingerprints to "same" without a false verdict."""

import itertools

import numpy as np

from tests.oracle.simulate import LOADED, REPLAY, Noise, at_least, at_most, simulate
from upgradelab.execution.schedule import plan
from upgradelab.measurement.engine import Extension, VariantReplay, extension_steps
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.sources import SourceStatement, parse_source
from upgradelab.replay import findings
from upgradelab.replay.compare import compare
from upgradelab.replay.extension import still_undecided

RAN = Outcome(None, None, row_count=1, checksum_ordered="o", checksum_unordered="u")
PASSES = 2
PLANNED, MAX_ROUNDS = 20, 60  # a replay's default rounds and its extension's budget (3x)
DECIDED_SLOWER = ("slower", "slower, plan changed")
DECIDED_FASTER = ("faster", "faster, plan changed")


def _statements(count: int) -> list[SourceStatement]:
    """`count` statements, one fingerprint each."""
    names = ("".join(letters) for letters in itertools.product("abcdefgh", repeat=2))
    source = parse_source(";\n".join(f"SELECT c FROM t_{next(names)}" for _ in range(count)) + ";")
    assert len({s.fingerprint_id for s in source.statements}) == count
    return source.statements


def _replays(values: np.ndarray) -> list[VariantReplay]:
    """values (fingerprints, variants, rounds, passes) seconds -> one VariantReplay per variant, the
    passes of round k at times[statement][k * PASSES:(k + 1) * PASSES], as engine.py keeps them."""
    count, variants = values.shape[:2]
    return [
        VariantReplay(
            f"v{v}",
            "1",
            None,
            [],
            [RAN] * count,
            [[float(x) for x in values[s, v].ravel()] for s in range(count)],
            PASSES,
        )
        for v in range(variants)
    ]


def _time(rng: np.random.Generator, ratios: np.ndarray, rounds: int, noise: Noise) -> np.ndarray:
    """(fingerprints, 2, rounds, PASSES) pass seconds: the baseline, then the variant at ratios[f]."""
    values = simulate(rng, [1.0, 1.0], rounds, PASSES, noise, len(ratios))
    values[:, 1] *= ratios[:, None, None]
    return values


def _groups(statements: list[SourceStatement], replays: list[VariantReplay]) -> list[str]:
    return [report.variants["v1"].group for report in compare(statements, replays)]


def test_among_unchanged_fingerprints_a_false_slower_or_faster_comes_out_in_at_most_q_of_replays() -> None:
    """15 unchanged fingerprints, 10 rounds on a loaded host (where a 10 % excursion of the ratio is
    common, so the threshold alone does not hold the false verdicts: Benjamini-Hochberg does)."""
    replays, count = 20, 15
    statements = _statements(count)
    rng = np.random.default_rng(31)
    with_any = 0
    for _ in range(replays):
        groups = _groups(statements, _replays(_time(rng, np.ones(count), 10, LOADED)))
        with_any += any(g in DECIDED_SLOWER + DECIDED_FASTER for g in groups)
    assert with_any / replays <= at_most(findings.FDR_Q, replays)


def test_planted_slowdowns_are_found_and_the_false_share_of_the_discoveries_stays_within_q() -> None:
    """8 fingerprints 2x slower among 24, 10 rounds on a loaded host. Benjamini-Hochberg keeps the
    expected false share of the discoveries at most q x 16/24; pooled over the replays, that share
    is held to q with its binomial tolerance (each discovery counted as a draw that is false with
    chance at most q)."""
    replays, count, planted = 6, 24, 8
    statements = _statements(count)
    ratios = np.array([2.0] * planted + [1.0] * (count - planted))
    rng = np.random.default_rng(32)
    false = discoveries = found = 0
    for _ in range(replays):
        groups = _groups(statements, _replays(_time(rng, ratios, 10, LOADED)))
        decided = [i for i, g in enumerate(groups) if g in DECIDED_SLOWER + DECIDED_FASTER]
        discoveries += len(decided)
        false += sum(i >= planted for i in decided)
        found += sum(groups[i] in DECIDED_SLOWER for i in range(planted))
    assert false / discoveries <= at_most(findings.FDR_Q, discoveries)
    assert found / (replays * planted) >= 0.9


def _extended(
    statements: list[SourceStatement], ratios: np.ndarray, rng: np.random.Generator, seed: int
) -> tuple[list[VariantReplay], int]:
    """A replay of PLANNED rounds, then engine.py's extension steps with the simulated passes of the
    statements each step chooses (as round_turns times them); (the replays, the rounds reached)."""
    replays = _replays(_time(rng, ratios, PLANNED, REPLAY))
    schedule = plan("interleaved", PLANNED, PASSES, seed, 2)
    extension = Extension(MAX_ROUNDS, lambda now: still_undecided(statements, now))
    rounds, before = PLANNED, set(range(len(statements)))
    for longer, chosen in extension_steps(schedule, extension, lambda: replays):
        assert longer.rounds <= MAX_ROUNDS and chosen
        assert set(chosen) <= before  # never a statement decided at an earlier look
        before = set(chosen)
        added = _time(rng, ratios[chosen], longer.rounds - rounds, REPLAY)
        for index, statement in enumerate(chosen):
            for variant, replay in enumerate(replays):
                replay.times[statement].extend(float(x) for x in added[index, variant].ravel())
        rounds = longer.rounds
    return replays, rounds


def test_the_extension_times_only_the_undecided_stops_at_max_rounds_and_brings_the_unchanged_to_same() -> (
    None
):
    """20 planned rounds x 2 passes, max 60 (a replay's default 3x), 10 fingerprints: 8 unchanged, one
    1.5x slower, one 0.75x faster, at a busy host's per-round scatter (simulate.REPLAY)."""
    count, trials = 10, 5
    statements = _statements(count)
    ratios = np.array([1.5, 0.75] + [1.0] * (count - 2))
    rng = np.random.default_rng(33)
    same = wrong = right = 0
    spent: list[int] = []
    for trial in range(trials):
        replays, rounds = _extended(statements, ratios, rng, trial)
        reports = compare(statements, replays)
        groups = [r.variants["v1"].group for r in reports]
        spent += [r.rounds or 0 for r in reports]
        assert all(PLANNED <= (r.rounds or 0) <= MAX_ROUNDS for r in reports)
        if rounds < MAX_ROUNDS:  # stopped before the budget: nothing was open any more
            assert still_undecided(statements, replays) == []
        right += (groups[0] in DECIDED_SLOWER) + (groups[1] in DECIDED_FASTER)
        same += sum(g == "same" for g in groups[2:])
        wrong += sum(g in DECIDED_SLOWER + DECIDED_FASTER for g in groups[2:])
    unchanged = trials * (count - 2)
    # the rounds went where a verdict was open: some fingerprints extended, most stopped before the budget
    assert max(spent) > PLANNED and np.median(spent) < MAX_ROUNDS
    assert right == 2 * trials
    assert same / unchanged >= at_least(0.9, unchanged)
    assert wrong / unchanged <= at_most(0.05, unchanged)
