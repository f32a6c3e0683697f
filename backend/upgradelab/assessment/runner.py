"""An assessment's body: a job on jobs. Each step is the existing kind's job, created through that
kind's service (its own row, its own page and share link) and run inline through the kind's runner
in this worker process (a busy pool cannot deadlock it: no step waits for a free worker; a step
another worker took first, from the message its service queued, is awaited instead):

    1. the capture of the team's server (`target`, read-only), or the succeeded capture given, or
       the option file stored as a capture (`my_cnf`);
    2. per new version: its check (captures' check), then its replay of the captured workload (or the
       query log given) on the baseline and the new version, each with the team's settings
       (captures/team_variant.py), with an A/A control;
    3. per version: a fix search for each fingerprint slower there, the largest slowdown first
       (fix_search_order), while the budget lasts;
    4. the report (assessment/report.py build_report) from the children's read models.

One status, progress and cancel: the assessment's cancel watch (execution/cancel.py) and its budget
watch (its minutes from the start) each end the running child through that child's own cancel
(execution/cancel_request.py request_cancel: a queued child is cancelled at once, a started one's
worker ends it); no step starts after either, and the report says which steps were not evaluated
and why. A cancelled assessment ends `cancelled` with the report of what its children said. The
child the budget ended is named (AssessmentChildren.stopped_by_budget): the report says "out of
budget" for it. A slower fingerprint's fix search gets the assessment's tolerance, at most half the
gap the replay decided (fix_tolerance).

One concept: the assessment's steps in order and the one child running now (made, run or awaited,
ended by the cancel or the budget), beside the state they write.
"""

import logging
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from redis import Redis
from sqlalchemy import select

from upgradelab.assessment.jobs import ASSESSMENT_JOBS
from upgradelab.assessment.models import Assessment
from upgradelab.assessment.report import OUT_OF_BUDGET, SLOWER, AssessmentReport, finding_kinds
from upgradelab.assessment.schemas import (
    AssessmentChildren,
    AssessmentProgress,
    StoppedChild,
    VersionChildren,
)
from upgradelab.captures.jobs import CAPTURE_JOBS, CHECK_JOBS
from upgradelab.db import sync_session
from upgradelab.execution.cancel import CancelWatch
from upgradelab.execution.kinds import Ending, JobKind, write_unless_final
from upgradelab.execution.leases import Lease
from upgradelab.execution.lifecycle import execute
from upgradelab.execution.locks import TargetsBusy
from upgradelab.execution.status import FINAL_STATUSES, JobStatus
from upgradelab.fixsearch.jobs import FIX_SEARCH_JOBS
from upgradelab.replay.jobs import REPLAY_JOBS
from upgradelab.settings import Settings
from upgradelab.streaming.publisher import publish_status

# The children's services (and the web framework their errors are) load when an assessment runs, not
# when the worker starts (tests/contract/test_import_cost.py).
if TYPE_CHECKING:
    from upgradelab.captures.schemas import CaptureRead
    from upgradelab.replay.report import FingerprintResult
    from upgradelab.results.stats.verdicts import VerdictRead

log = logging.getLogger(__name__)

POLL_S = 0.5  # how often a child another worker runs is read until it ends
FIX_MINUTES = 30.0  # a fix search's own budget at most (the assessment's remaining minutes bound it too)
MIN_TOLERANCE = 0.01  # the fix search's smallest (fixsearch/schemas.py FixSearchCreate.tolerance)
NOT_STARTED = f"not started: {OUT_OF_BUDGET}"


def execute_assessment(assessment_id: int, redis: Redis, settings: Settings) -> str | None:
    """Run assessment `assessment_id` to its final status (None when it was not queued); see the
    module docstring."""
    return execute(
        ASSESSMENT_JOBS,
        assessment_id,
        [],
        redis,
        settings,
        lambda lease: Assessor(assessment_id, redis, settings, lease).run(),
    )


class Assessor:
    """One assessment's steps, its children and the child running now (which a cancel ends)."""

    def __init__(self, assessment_id: int, redis: Redis, settings: Settings, lease: Lease) -> None:
        from upgradelab.assessment import children

        self.make = children
        self.id, self.redis, self.settings, self.lease = assessment_id, redis, settings, lease
        with sync_session() as session:
            row = session.get(Assessment, assessment_id)
            if row is None:
                raise LookupError(f"assessment {assessment_id} is gone")
            session.expunge(row)
        self.row = row
        self.owner = row.created_by
        self.children: AssessmentChildren = row.children.model_copy(deep=True)
        if not self.children.versions:
            self.children.versions = [VersionChildren(version=name) for name in row.versions]
        self.started = time.monotonic()
        self.deadline = self.started + row.budget_min * 60
        self.current: tuple[JobKind, int] | None = None
        self.lock = threading.Lock()
        self.done = 0
        self.steps = 1 + 2 * len(row.versions)

    # -- the steps ---------------------------------------------------------------------------------

    def run(self) -> Ending:
        """Every step while neither a cancel nor the budget stops it, then the report."""
        cancel = CancelWatch.of(ASSESSMENT_JOBS, self.id, self._end_current)
        budget = CancelWatch(f"assessment {self.id} budget", self._out_of_budget, self._end_for_budget)
        with cancel, budget:
            self._steps(lambda: cancel.cancelled() or budget.cancelled())
        report: AssessmentReport = self.make.report(self.children)
        fields = {"report": report, "children": self.children, "progress": None}
        if cancel.requested:
            return Ending(JobStatus.cancelled, fields=fields)
        return Ending(JobStatus.succeeded, completed=True, fields=fields)

    def _steps(self, stopped: Callable[[], bool]) -> None:
        capture = self._capture(stopped)
        if capture is None:
            return
        for version in self.children.versions:
            self._check(version, capture.id, stopped)
            self._replay(version, capture, stopped)
        for version in self.children.versions:
            self._fix_searches(version, stopped)

    def _capture(self, stopped: Callable[[], bool]) -> "CaptureRead | None":
        """The capture the checks and replays read (None: none succeeded; every later step says why)."""
        children = self.children
        if children.capture_id is None:
            if stopped():
                return self._no_capture(self._why_stopped())
            refused = self._child(
                CAPTURE_JOBS,
                "capture",
                lambda: self.make.create_capture(self.row.target, self.row.my_cnf, self.owner),
                lambda made: setattr(children, "capture_id", made),
            )
            if refused is not None or children.capture_id is None:
                return self._no_capture(refused or "not made")
        else:  # the capture given: its step is done
            self.done += 1
        capture = self.make.read_capture(children.capture_id)
        if capture.status != JobStatus.succeeded:
            return self._no_capture(f"capture {capture.id} {capture.status}" + _said(capture.error))
        return capture

    def _no_capture(self, why: str) -> "CaptureRead | None":
        """No capture to read: every step says `why`; None."""
        self.children.why_no_capture = why
        for version in self.children.versions:
            version.why_no_check = version.why_no_replay = f"no capture: {why}"
        self._save()
        return None

    def _check(self, version: VersionChildren, capture_id: int, stopped: Callable[[], bool]) -> None:
        if version.check_id is not None:
            return
        if stopped():
            version.why_no_check = self._why_stopped()
            self._save()
            return
        refused = self._child(
            CHECK_JOBS,
            f"check {version.version}",
            lambda: self.make.create_check(capture_id, version.version, self.owner),
            lambda made: setattr(version, "check_id", made),
        )
        if refused is not None:
            version.why_no_check = refused
            self._save()

    def _replay(self, version: VersionChildren, capture: "CaptureRead", stopped: Callable[[], bool]) -> None:
        if version.replay_id is not None:
            return
        why = self._no_replay_because(capture)
        if why is None and stopped():
            why = self._why_stopped()
        if why is not None:
            version.why_no_replay = why
            self._save()
            return
        refused = self._child(
            REPLAY_JOBS,
            f"replay {version.version}",
            lambda: self.make.create_replay(
                capture.id,
                f"assessment {self.id}: {version.version}",
                self.row.baseline or "",
                version.version,
                self.row.dataset,
                self.row.queries,
                self.owner,
                self.settings.instance_allowance_mb,
            ),
            lambda made: setattr(version, "replay_id", made),
        )
        if refused is not None:
            version.why_no_replay = refused
            self._save()

    def _no_replay_because(self, capture: "CaptureRead") -> str | None:
        """Why no replay can be made (None: one can)."""
        if self.row.baseline is None:
            return "no baseline: the lab target of the team's current version was not given"
        if self.row.dataset is None and capture.dataset_id is None:
            return "no dataset: the capture stored no dump and none was given"
        if self.row.queries is None and (capture.workload is None or not capture.workload.digests):
            return "no workload: the capture holds no statements and no query log was given"
        return None

    def _fix_searches(self, version: VersionChildren, stopped: Callable[[], bool]) -> None:
        """A fix search for each fingerprint slower on `version`, while neither stops it."""
        if version.replay_id is None or version.fix_search_ids:
            return
        replay_id = version.replay_id
        replay = self.make.read_replay(replay_id)
        if replay.status != JobStatus.succeeded or replay.report is None:
            return
        slower = [
            (fp.fingerprint_id, fix_tolerance(self.row.fix_tolerance, fp.ratios.get(version.version)))
            for fp in fix_search_order(replay.report.fingerprints, version.version)
        ]
        self.steps += len(slower)
        for fingerprint_id, tolerance in slower:
            if stopped():
                return
            minutes = max(1.0, min(FIX_MINUTES, (self.deadline - time.monotonic()) / 60))
            step = f"fix search {version.version} {fingerprint_id[:16]}"
            refused = self._child(
                FIX_SEARCH_JOBS,
                step,
                partial(
                    self.make.create_fix_search,
                    replay_id,
                    fingerprint_id,
                    version.version,
                    minutes,
                    tolerance,
                    self.owner,
                ),
                version.fix_search_ids.append,
            )
            if refused is not None:  # its fingerprint's item says "no fix search ran for it"
                log.warning("assessment %s: no %s: %s", self.id, step, refused)

    # -- children ----------------------------------------------------------------------------------

    def _child(
        self, kind: JobKind, step: str, create: Callable[[], int], keep: Callable[[int], None]
    ) -> str | None:
        """One step: its child made by `create` (its id given to `keep`, saved with the progress),
        then run to its end (`_run`). None once it ended; "refused: <the service's words>" when its
        kind's service refused it."""
        try:
            child_id = create()
        except self.make.Refused as refused:
            return f"refused: {refused}"
        keep(child_id)
        self._progress(step)
        self._run(kind, child_id)
        self._progress(step, done=True)
        return None

    def _run(self, kind: JobKind, child_id: int) -> None:
        """Child `child_id` of `kind` run inline through its kind's runner, or awaited when another
        worker took it (or holds a target it needs) until it is final. The cancel and budget watches
        end it meanwhile (`_end_current`)."""
        with self.lock:
            self.current = (kind, child_id)
        try:
            try:
                kind.load_runner()(child_id, self.redis, self.settings)
            except TargetsBusy:
                log.info("assessment %s: %s %s waits for its targets", self.id, kind.name, child_id)
            while not _final(kind, child_id):
                self.lease.check()
                time.sleep(POLL_S)
        finally:
            with self.lock:
                self.current = None

    def _end_current(self) -> None:
        """The watches' call: cancel the running child through its own cancel."""
        with self.lock:
            current = self.current
        if current is not None:
            self.make.cancel(*current)

    def _end_for_budget(self) -> None:
        """The budget watch's call: the running child, unless it ended already, is named the one the
        budget stopped (AssessmentChildren.stopped_by_budget: the report says "out of budget", where
        its own status says cancelled), then cancelled through its own cancel."""
        with self.lock:
            current = self.current
        if current is None:
            return
        kind, child_id = current
        if self.children.stopped_by_budget is None and not _final(kind, child_id):
            self.children.stopped_by_budget = StoppedChild(kind=kind.api_name, id=child_id)
        self.make.cancel(kind, child_id)

    def _out_of_budget(self) -> bool:
        return time.monotonic() > self.deadline

    def _why_stopped(self) -> str:
        return NOT_STARTED if self._out_of_budget() else "not started: cancelled"

    # -- state -------------------------------------------------------------------------------------

    def _progress(self, step: str, done: bool = False) -> None:
        if done:
            self.done += 1
        minutes = round((time.monotonic() - self.started) / 60, 2)
        self._save(AssessmentProgress(step=step, done=self.done, steps=self.steps, minutes=minutes))

    def _save(self, progress: AssessmentProgress | None = None) -> None:
        """The children (and progress) written unless the assessment is final, and published."""
        fields: dict[str, Any] = {"children": self.children}
        if progress is not None:
            fields["progress"] = progress
        if write_unless_final(Assessment, self.id, fields) is not None:
            shown = {key: value.model_dump(mode="json") for key, value in fields.items()}
            publish_status(self.id, shown, kind=ASSESSMENT_JOBS.name)


def fix_search_order(fingerprints: "list[FingerprintResult]", version: str) -> "list[FingerprintResult]":
    """The fingerprints of a replay's report (`fingerprints`, in its order) whose fix searches an
    assessment runs for new version `version` (a slower finding there: report.py SLOWER), in the
    order it runs them: the largest slowdown first, so a budget that ends before the last search
    has spent itself where the gap is largest. The slowdown is the replay's ratio on `version` (its
    time / the baseline's, the point estimate); a fingerprint without one (timed out there: slower
    than the statement's bound) before every ratio; equal ratios in the report's order."""
    slower = [
        fp
        for fp in fingerprints
        if version in fp.variants and any(kind in SLOWER for kind in finding_kinds(fp.variants[version]))
    ]

    def gap(fp: "FingerprintResult") -> float:
        ratio = fp.ratios.get(version)
        return float("inf") if ratio is None else ratio.ratio

    return sorted(slower, key=gap, reverse=True)  # stable: ties keep the report's order


def fix_tolerance(asked: float, gap: "VerdictRead | None") -> float:
    """The tolerance a slower fingerprint's fix search is given: the assessment's (`asked`), but at
    most half the gap the replay decided (`gap`: the new version / the baseline, its interval's low
    end above 1), so a remedy restores only when it takes back at least half of it: a tolerance at
    or past the gap would take the statement as it is (or any candidate) for a fix (a 1.30x query
    "restored" within 0.5 by a switch that cannot touch it was seen). At least MIN_TOLERANCE; the
    asked one when the replay has no interval for it (a timed-out statement)."""
    if gap is None or gap.low <= 1:
        return asked
    return max(MIN_TOLERANCE, min(asked, (gap.low - 1) / 2))


def _final(kind: JobKind, child_id: int) -> bool:
    """Whether the child is final (or gone)."""
    model: Any = kind.lease.model
    with sync_session() as session:
        status = session.scalar(select(model.status).where(model.id == child_id))
    return status is None or status in FINAL_STATUSES


def _said(error: str | None) -> str:
    return f": {error}" if error else ""
