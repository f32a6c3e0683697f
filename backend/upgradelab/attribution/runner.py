"""Executes one attribution: ddmin (attribution/search.py) with an oracle that runs steps
(attribution/steps.py), then the tests beside the found set (search.beside), within its budgets, then
the report (attribution/report.py).

lifecycle (execution/lifecycle.py) holds the attribution's lease and heartbeat and writes its final
state on every exit path; it locks no target (each step run locks its own). Out of budget, cancelled
or failed, the result holds what was measured so far.
"""

import logging
import time

from redis import Redis

from upgradelab.attribution import report, search, state, steps
from upgradelab.attribution.candidates import Candidate, reverted
from upgradelab.attribution.jobs import ATTRIBUTION_JOBS
from upgradelab.attribution.models import Attribution
from upgradelab.attribution.schemas import (
    AttributionProgress,
    AttributionResult,
    CandidateRead,
    RefusedSetting,
    StepRead,
    StepTest,
)
from upgradelab.db import sync_session
from upgradelab.execution.kinds import Ending
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.status import JobStatus
from upgradelab.runs.models import Experiment, Run
from upgradelab.settings import Settings

log = logging.getLogger(__name__)
TESTS_PER_RUN = 2  # subsets tested in one step run, beside the baseline and the variant
# all candidates together, while undecided: up to 4 runs pooled. With 2, the constructed gap (both
# settings reverted close all of it) ended "unexplained" in 2 of 14 test runs on a busy host: the
# pooled point under the 80 % target decided it.
ROOT_RETESTS = 3


def execute_attribution(attribution_id: int, redis: Redis, settings: Settings) -> str | None:
    """Run attribution `attribution_id` to a final status and return it; None when it was not queued."""
    return execute(
        ATTRIBUTION_JOBS,
        attribution_id,
        [],
        redis,
        settings,
        lambda lease: _body(attribution_id, redis, settings, lease),
    )


class _Oracle:
    """Answers ddmin's batches with step runs; counts runs and minutes against the budgets."""

    def __init__(
        self, row: Attribution, origin: Experiment, redis: Redis, settings: Settings, lease: Lease
    ) -> None:
        self.row, self.origin, self.redis, self.settings, self.lease = row, origin, redis, settings, lease
        self.started = time.monotonic()
        self.steps: list[StepRead] = []
        self.stopped: tuple[JobStatus, str | None] | None = None
        self.phase = "step"  # "beside" once ddmin is done (search.beside)
        self.refused: dict[str, str] = {}  # candidates the server refused during the search, with its words
        self.candidates = {c.name: _candidate(c) for c in row.candidates}
        variants = origin.variants
        self.baseline = next(v for v in variants if v.name == row.baseline)
        self.variant = next(v for v in variants if v.name == row.variant)

    @property
    def minutes(self) -> float:
        return (time.monotonic() - self.started) / 60

    def _progress(self, phase: str, current: int | None, message: str) -> AttributionProgress:
        return AttributionProgress(
            phase=phase,
            runs_done=sum(1 for s in self.steps if s.tests_done),
            runs_budget=self.row.budget_runs,
            minutes=round(self.minutes, 2),
            current_run_id=current,
            message=message,
        )

    def __call__(self, subsets: list[search.Subset]) -> dict[search.Subset, search.Outcome]:
        """ddmin's oracle; a cancel or a broken step ends the search like an empty budget (search keeps
        what it found), with the reason in `stopped`."""
        return self._guarded(subsets, retest=True)

    def confirm(self, subsets: list[search.Subset]) -> dict[search.Subset, search.Outcome]:
        """The oracle beside the found set (search.beside): each subset measured once per call, never
        retested on its outcome (that phase fixes its number of runs in advance); errors as __call__."""
        return self._guarded(subsets, retest=False)

    def _guarded(self, subsets: list[search.Subset], retest: bool) -> dict[search.Subset, search.Outcome]:
        try:
            return self._step(subsets, retest)
        except steps.StepCancelled:
            self.stopped = (JobStatus.cancelled, None)
        except search.OutOfBudget:
            raise
        except Exception as failure:
            log.exception("attribution %s", self.row.id)
            self.stopped = (JobStatus.failed, f"{type(failure).__name__}: {failure}")
        raise search.OutOfBudget()

    def _step(self, subsets: list[search.Subset], retest: bool) -> dict[search.Subset, search.Outcome]:
        """One step run for `subsets`; with `retest`, those whose interval holds the target share are
        measured once more in a second run (if the budget allows) and the measurements pooled
        (search.pooled_all: random effects, so runs that disagree widen the interval). All
        the candidates together (ddmin's first test) are measured up to ROOT_RETESTS more times while
        their pooled interval still holds the target: below it, the search ends "unexplained", a claim a
        team acts on, so it is made only when decided (or when the budget or the retests run out)."""
        target = self.row.target_share
        out = self._run(subsets)
        # A test the server refused names the setting in its error: that candidate cannot be tested;
        # its subsets are measured again without it (the search still sees the subset it asked for).
        for _ in range(3):  # a retry may meet the next refused setting
            named = {
                n: out[s].error
                for s in subsets
                for n in s
                if out[s].error and n.replace("-", "_") in str(out[s].error)
            }
            fresh = {n: str(e) for n, e in named.items() if n not in self.refused}
            if not fresh:
                break
            self.refused.update(fresh)
            out.update(self._run([s for s in subsets if out[s].error]))
        everything = set(self.candidates)
        limit = {s: ROOT_RETESTS if set(s) == everything else 1 for s in subsets} if retest else {}
        runs = {s: [out[s]] for s in subsets}
        for done in range(max(limit.values(), default=0)):
            again = [
                s
                for s in subsets
                if limit[s] > done and out[s].error is None and search.undecided(out[s], target)
            ]
            if not again:
                break
            try:
                more = self._run(again)
            except search.OutOfBudget:
                return out
            for s in again:
                if more[s].error is None:
                    runs[s].append(more[s])
                    out[s] = search.pooled_all(runs[s], target)
        return out

    def _run(self, subsets: list[search.Subset]) -> dict[search.Subset, search.Outcome]:
        self.lease.check()
        if state.cancel_requested(self.row.id):
            raise steps.StepCancelled()
        if len(self.steps) >= self.row.budget_runs or self.minutes >= self.row.budget_minutes:
            raise search.OutOfBudget()
        number = len(self.steps) + 1
        tests = [
            reverted(
                self.variant,
                [self.candidates[n] for n in subset if n not in self.refused],
                _test_name(number, index, subset),
            )
            for index, subset in enumerate(subsets, 1)
        ]
        name = f"attribution {self.row.id} step {number}: {self.row.variant}"
        run_id = steps.create_run(
            self.origin,
            [self.baseline, self.variant, *tests],
            self.row.rounds,
            self.row.block,
            name,
            self.row.created_by,
        )
        step = StepRead(step=number, run_id=run_id, subsets=[list(s) for s in subsets], phase=self.phase)
        self.steps.append(step)
        state.write(
            self.row.id, steps=list(self.steps), progress=self._progress(self.phase, run_id, f"step {number}")
        )
        failed = steps.execute(run_id, self.redis, self.settings, lambda: state.cancel_requested(self.row.id))
        gap, measured = steps.measure(run_id, self.row.group, self.row.metric, failed)
        out = {}
        step.gap = gap
        measured_tests: list[StepTest] = []
        for subset, one in zip(subsets, measured, strict=True):
            if isinstance(one, str):  # the server refused the reverted values: that subset cannot be tested
                out[subset] = search.Outcome(0.0, 0.0, 0.0, False, error=one)
                none = {"share": None, "low": None, "high": None}
                measured_tests.append(StepTest(subset=list(subset), **none, closes=False, error=one))
                continue
            closes = one.share >= self.row.target_share
            out[subset] = search.Outcome(one.share, one.low, one.high, closes)
            measured_tests.append(StepTest(subset=list(subset), share=one.share, low=one.low, high=one.high,
                                           closes=closes, verdict=one.verdict))  # fmt: skip
        step.tests, step.tests_done = measured_tests, True
        state.write(
            self.row.id,
            steps=list(self.steps),
            progress=self._progress(self.phase, None, f"step {number} measured"),
        )
        return out


def _candidate(stored: CandidateRead) -> Candidate:
    """The candidate as attribution/candidates.py works with it, from its stored model."""
    return Candidate(**{**stored.model_dump(), "revert": stored.revert.model_dump(exclude_none=True)})


def _test_name(step: int, index: int, subset: search.Subset) -> str:
    names = ", ".join(subset)
    label = f"baseline's {names}" if len(names) <= 120 else f"baseline's {len(subset)} settings"
    return f"step {step}.{index}: {label}"


def _load(attribution_id: int) -> tuple[Attribution, Experiment]:
    with sync_session() as session:
        row = session.get(Attribution, attribution_id)
        assert row is not None
        run = session.get(Run, row.run_id)
        assert run is not None
        origin = run.experiment
        session.expunge_all()
        return row, origin


def _body(attribution_id: int, redis: Redis, settings: Settings, lease: Lease) -> Ending:
    row, origin = _load(attribution_id)
    oracle = _Oracle(row, origin, redis, settings, lease)
    names = [c.name for c in row.candidates]
    found = search.search(names, oracle, batch=TESTS_PER_RUN) if names else search.Search((), complete=True)
    if oracle.stopped is None and found.complete and found.found is not None:
        oracle.phase = "beside"
        state.write(attribution_id, progress=oracle._progress("beside", None, "tests beside the set"))
        search.beside(found, oracle.confirm, batch=TESTS_PER_RUN)
    status, error = oracle.stopped or (JobStatus.succeeded, None)
    runs = sum(1 for s in oracle.steps if s.tests_done)
    built = report.build(
        found, {c.name: c.model_dump() for c in row.candidates}, row.target_share, runs, oracle.minutes
    )
    if not names:
        built["outcome"] = "no candidates"
    refused = [RefusedSetting(name=n, reason=r[-500:]) for n, r in oracle.refused.items()]
    result = AttributionResult.model_validate({**built, "refused": refused})
    return Ending(
        status,
        error,
        completed=found.complete,
        fields={"result": result, "progress": oracle._progress("done", None, result.outcome)},
    )
