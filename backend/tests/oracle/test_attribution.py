"""An attribution against the simulated oracle: the product's whole decision path on simulated step runs.

Driven through attribution/runner.py `_body`: ddmin (search.py), the oracle's retests (a subset whose
interval holds the target measured again, all candidates together up to 1 + ROOT_RETESTS runs, pooled
by random effects), the tests beside the found set (screening, confirmation, group splitting under
Holm) and the report. Each step run's share comes from attribution/steps.py `measure` on the step's
rounds (verdicts.py's paired intervals); only the rounds themselves are simulated (simulate.py: every
variant of a step run is the baseline's time x exp(the log effects of what it does not revert)), in
place of create_run / execute / the database. The case is the constructed gap of
tests/attribution/test_constructed_gap.py: the variant 0.5x the baseline, one setting closing 80 % of
the log gap (0.57x alone), one 20 % (0.87x alone: the "0.88x" that stayed undecided on real servers),
five that move nothing.

Asserted: on a quiet host both are named (the set and `also`) in most attributions; whatever the host,
a setting that moves nothing is named in at most ALPHA of them; the budget in runs is never passed;
all candidates together are measured at most 4 times; a null gap ends "unexplained"."""

import contextlib
import math
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.oracle.simulate import LOADED, QUIET, Noise, as_rounds, at_most, simulate
from tests.results.synthetic import resolved
from upgradelab.attribution import runner, search, state, steps
from upgradelab.attribution.candidates import Candidate
from upgradelab.attribution.schemas import CandidateRead
from upgradelab.experiments.variants import ResolvedVariant
from upgradelab.results.store import rounds
from upgradelab.results.store.rounds import Point, RunRounds, VariantRounds
from upgradelab.workloads.base import SECONDS

GAP = math.log(0.5)  # the variant / the baseline, log
MATTERS = {"innodb-file-per-table": 0.8, "skip-log-bin": 0.2}  # share of the log gap each reverts
FIVE = ["max-connections", "table-open-cache", "sort-buffer-size", "join-buffer-size", "thread-cache-size"]
NAMES = [*MATTERS, *FIVE]


# runner.py: "all candidates together, while undecided: up to 4 runs pooled" (1 + ROOT_RETESTS)
TOGETHER_RUNS = 4


class StepRuns:
    """Simulated step runs: create_run remembers each variant's true log time, rounds.load returns
    seeded rounds of them; state writes kept (the last `steps` written is the attribution's record)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rng = np.random.default_rng(0)
        self.noise: Noise = QUIET
        self.effects: dict[str, float] = {}
        self.gap = GAP
        self.runs: dict[int, list[float]] = {}
        self.recorded: list[dict[str, Any]] = []

        def create_run(_origin: Any, variants: list[ResolvedVariant], *_: Any) -> int:
            run_id = len(self.runs) + 1
            self.runs[run_id] = [self._log_time(v) for v in variants]
            return run_id

        @contextlib.contextmanager
        def session() -> Iterator[Any]:
            yield SimpleNamespace(get=lambda _model, run_id: SimpleNamespace(id=run_id))

        def load(_session: Any, run: Any, warmup: int = 0) -> RunRounds:
            ratios = np.exp(self.runs[run.id])
            values = simulate(self.rng, list(ratios), self.row.rounds, self.row.block, self.noise)[0]
            variants = []
            for index, one in enumerate(values):
                points = [Point(0, r, v, {}) for r, vs in as_rounds(one).items() for v in vs]
                variants.append(VariantRounds(run.id, index, f"v{index}", False, points, {"": points}))
            return RunRounds(run, variants, [""], (SECONDS,))

        def write(_id: int, **fields: Any) -> None:
            if "steps" in fields:  # the stored steps' JSON (StepRead each, attribution.steps)
                self.recorded = [step.model_dump(mode="json") for step in fields["steps"]]

        self.row = SimpleNamespace(
            id=1,
            baseline="base",
            variant="var",
            target_share=0.8,
            rounds=10,
            block=5,
            budget_runs=16,
            budget_minutes=60.0,
            group="",
            metric="seconds",
            created_by=None,
            candidates=[  # as the column reads them (CandidateRead each, attribution.candidates)
                CandidateRead.model_validate(
                    Candidate(n, "option", "off", "on", revert={"add_options": {n: "baseline"}}).as_dict()
                )
                for n in NAMES
            ],
        )
        origin = SimpleNamespace(
            variants=[
                resolved("base", target="t"),
                resolved("var", {n: "variant" for n in NAMES}, target="t"),
            ]
        )
        monkeypatch.setattr(steps, "create_run", create_run)
        monkeypatch.setattr(steps, "execute", lambda *_: {})
        monkeypatch.setattr(steps, "sync_session", session)
        monkeypatch.setattr(rounds, "load", load)
        monkeypatch.setattr(state, "write", write)
        monkeypatch.setattr(state, "cancel_requested", lambda _id: False)
        monkeypatch.setattr(runner, "_load", lambda _id: (self.row, origin))

    def _log_time(self, variant: ResolvedVariant) -> float:
        """The baseline 0; the variant the gap; a test the gap less what its reverted settings close."""
        options = variant.options
        if variant.name == "base":
            return 0.0
        reverted = [n for n, value in options.items() if value == "baseline"]
        return self.gap * (1 - sum(self.effects.get(n, 0.0) for n in reverted))

    def attribute(self, seed: int, noise: Noise, effects: dict[str, float]) -> dict[str, Any]:
        """One attribution to its end; its result (attribution/report.py)."""
        self.rng, self.noise, self.effects, self.runs = np.random.default_rng(seed), noise, effects, {}
        ending = runner._body(1, None, None, SimpleNamespace(check=lambda: None))  # type: ignore[arg-type]
        assert ending.status == "succeeded", ending
        result: dict[str, Any] = ending.fields["result"].model_dump(mode="json")  # as stored
        return result


def named(result: dict[str, Any]) -> set[str]:
    """The settings an attribution names: its set and those named beside it."""
    return set(result["set"]) | {a["name"] for a in result.get("also", [])}


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> StepRuns:
    return StepRuns(monkeypatch)


def test_on_a_quiet_host_both_settings_that_matter_are_named_and_none_of_the_five(runs: StepRuns) -> None:
    trials = 20
    exact = wrong = 0
    for trial in range(trials):
        result = runs.attribute(100 + trial, QUIET, MATTERS)
        assert result["outcome"] == "explained", result["outcome"]
        exact += named(result) == set(MATTERS)
        wrong += bool(named(result) & set(FIVE))
        assert result["runs"] <= runs.row.budget_runs
        everything = [s for s in runs.recorded if sorted(s["subsets"][0]) == sorted(NAMES)]
        assert 1 <= len(everything) <= TOGETHER_RUNS
    assert exact / trials >= 0.9
    assert wrong / trials <= at_most(search.ALPHA, trials)


def test_on_a_loaded_host_a_setting_that_moves_nothing_is_named_at_most_alpha_of_the_time(
    runs: StepRuns,
) -> None:
    """At this noise the 20 % setting is often left undecided (said so, not guessed) and the search may
    run out of budget; what it names beside the set must still be real."""
    trials = 20
    wrong = 0
    for trial in range(trials):
        result = runs.attribute(200 + trial, LOADED, MATTERS)
        wrong += bool(named(result) & set(FIVE))
        assert result["runs"] <= runs.row.budget_runs
        measured = Counter(
            tuple(sorted(x)) for one in runs.recorded if one["phase"] == "step" for x in one["subsets"]
        )
        together = measured.pop(tuple(sorted(NAMES)))
        assert 1 <= together <= TOGETHER_RUNS
        assert max(measured.values(), default=1) <= 2  # any other subset: one retest while undecided
    assert wrong / trials <= at_most(search.ALPHA, trials)


def test_all_candidates_together_are_measured_again_while_undecided_and_at_most_four_times(
    runs: StepRuns,
) -> None:
    """Together they close 70 % of the gap (under the 80 % target) on a loaded host: their first run's
    interval often holds the target. Re-measured while it does, up to 1 + ROOT_RETESTS runs pooled;
    "unexplained" only once the pooled interval has left the target or the retests ran out."""
    trials = 10
    retested = 0
    for trial in range(trials):
        result = runs.attribute(300 + trial, LOADED, {"innodb-file-per-table": 0.7})
        together = [s for s in runs.recorded if sorted(s["subsets"][0]) == sorted(NAMES)]
        assert 1 <= len(together) <= TOGETHER_RUNS
        retested += len(together) > 1
        pooled = result["all_share"]
        if result["outcome"] == "unexplained":
            assert pooled["high"] < 0.8 or len(together) == TOGETHER_RUNS, pooled
    assert retested > 0  # the retests were exercised


def test_a_gap_no_candidate_closes_ends_unexplained_naming_nothing(runs: StepRuns) -> None:
    for trial in range(5):
        result = runs.attribute(400 + trial, QUIET, {})
        assert result["outcome"] == "unexplained" and named(result) == set()
        assert len(runs.recorded) == 1  # decided at the first run: no retest spent


def _honest(effects: dict[str, float], half: float, rng: np.random.Generator) -> search.Oracle:
    """search.py's seam itself (its Oracle: subsets -> Outcome), for many trials at little cost: a
    subset's share is the sum of its members' effects plus normal noise of 95 % half-width `half`, its
    interval honest about it (as steps.measure's would be on rounds of that noise)."""

    def oracle(subsets: list[search.Subset]) -> dict[search.Subset, search.Outcome]:
        out = {}
        for subset in subsets:
            share = sum(effects.get(n, 0.0) for n in subset) + float(rng.normal(0, half / 1.96))
            out[subset] = search.Outcome(share, share - half, share + half, share >= 0.8)
        return out

    return oracle


@pytest.mark.parametrize("half", [0.19, 0.5], ids=["quiet: +/- 19 % per run", "loaded: +/- 50 %"])
@pytest.mark.parametrize("alone", [False, True], ids=["as ddmin measured them", "each measured alone"])
def test_among_many_settings_that_move_nothing_holm_names_one_beside_the_set_at_most_alpha_of_the_time(
    half: float, alone: bool
) -> None:
    """One setting closes the gap, twelve move nothing: beside the set, screening and confirmation each
    hold the family-wise error to ALPHA / 2 (Holm), so one of the twelve is named in at most ALPHA of
    the attributions. `alone`: every one of the twelve already measured alone by the search (the
    largest screening family; without Holm's correction one of twelve at 2.5 % each is named in about
    a quarter of them). Per-run share half-widths as measured (bench/README.md, attribution_cost.py:
    +/- 19 % at 6 rounds on a quiet host, +/- 30-50 % on a busy one)."""
    rng = np.random.default_rng(41)
    nothing = [f"s{k}" for k in range(12)]
    trials = 500
    wrong = 0
    for _ in range(trials):
        oracle = _honest({"f": 0.9}, half, rng)
        if alone:
            found = search.Search(("f", *nothing), found=("f",), complete=True)
            found.tested = oracle([("f",), *[(n,) for n in nothing]])
        else:
            found = search.search(["f", *nothing], oracle)
        search.beside(found, oracle)
        named = {b.subset[0] for b in found.beside or [] if b.decided and len(b.subset) == 1}
        wrong += bool(named & set(nothing))
    assert wrong / trials <= at_most(search.ALPHA, trials)


def _pooled_misses(runs: int, between: float, trials: int, seed: int) -> float:
    """Share of `trials` in which search.pooled_all's interval over `runs` measurements of a subset
    whose true share is 0 misses it: each run's interval honest about its own rounds (95 % half-width
    0.1, se 0.05), the runs apart by a between-run sd `between` their intervals do not see."""
    rng = np.random.default_rng(seed)
    se, missed = 0.05, 0
    for _ in range(trials):
        shares = rng.normal(0, between, runs) + rng.normal(0, se, runs)
        pooled = search.pooled_all(
            [search.Outcome(s, s - 1.96 * se, s + 1.96 * se, False) for s in shares], 0.8
        )
        missed += not (pooled.low <= 0 <= pooled.high)
    return missed / trials


@pytest.mark.parametrize("runs", [2, 3, 4])
def test_runs_that_agree_pool_into_an_interval_that_holds_the_true_share(runs: int) -> None:
    trials = 1000
    assert _pooled_misses(runs, 0.0, trials, 50 + runs) <= at_most(0.05, trials)


@pytest.mark.xfail(
    strict=True,
    reason="DerSimonian-Laird with 2-4 runs undercovers when the runs disagree (between-run sd = the "
    "runs' own se: 10 %, 9 %, 8 % misses at 2, 3, 4 runs; 3x: 25 %, 17 %, 14 %): a known property of "
    "the estimator with few studies (Hartung-Knapp-Sidik-Jonkman's t interval keeps 95 %). Reported, "
    "not changed here: the fix widens every retested interval",
)
@pytest.mark.parametrize("runs", [2, 4])
def test_runs_that_disagree_beyond_their_intervals_pool_into_an_interval_that_holds_the_true_share(
    runs: int,
) -> None:
    trials = 1000
    assert _pooled_misses(runs, 0.05, trials, 60 + runs) <= at_most(0.05, trials)
