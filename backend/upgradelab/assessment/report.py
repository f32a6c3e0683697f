"""The assessment's one report, built by a pure function (`build_report`) from its children's read
models: the capture, per new version its check (captures/schemas.py CheckRead), its replay with the
A/A control (replay/schemas.py ReplayRead, its `report`) and the fix searches of its slower
fingerprints (fixsearch/schemas.py FixSearchRead).

Per version: a one-line verdict ("mariadb-11.8: 2 blockers, 1 query slower with a proven fix, 5
defaults change under you") and the ordered to-do list, most urgent first (AREAS):

    not_evaluated       a step that did not give its answer (failed, cancelled, out of budget, not
                        startable): what the rest of the report cannot say, and why
    does_not_start      settings the new binary refuses (the check's does_not_start)
    locks_out           accounts that cannot log in (the check's locks_out)
    does_not_load       schema or statements the new version refuses (the check's does_not_load)
    changes_results     statements that return other results or errors (the replay's breaks) and names,
                        sql_mode values, character sets and result defaults that change (the check's)
    slower              fingerprints slower on the new version (the replay's slower findings): ratio,
                        cause, the proven fix (its fix search restored the old time) or "no fix found"
    changes_behaviour   settings that no longer act as the team set them, and changed defaults of the
                        settings it leaves unset (the check's changes_behaviour and changes_performance)

Blockers are the first three areas (what stops the upgrade); the check's notes stay in the evidence
sections below the list (not a to-do). Each item is one line with its action and a link to its
evidence: the child job's page and an anchor.

`exit_bits`: `upgradelab assess --json`'s exit status, the replay's bit scheme (1 breaks, 2
regressions, 4 plan changes, 8 could not run) plus 16 for blockers from the check, OR-ed over the
versions.

One concept: the report's shapes and the one function that builds them from the children, each
area's reading beside the others so the to-do list's order and words stay in one place.
"""

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from upgradelab.captures.findings import Finding
from upgradelab.captures.schemas import CaptureRead, CheckRead
from upgradelab.execution.status import JobStatus
from upgradelab.fixsearch.schemas import FixSearchRead
from upgradelab.measurement import ReadShape
from upgradelab.replay.report import FingerprintResult, ReplayReport, VariantFinding
from upgradelab.replay.schemas import ReplayRead

Area = Literal[
    "not_evaluated",
    "does_not_start",
    "locks_out",
    "does_not_load",
    "changes_results",
    "slower",
    "changes_behaviour",
]
AREAS: tuple[Area, ...] = get_args(Area)  # the to-do list's order, most urgent first
BLOCKERS: tuple[Area, ...] = ("does_not_start", "locks_out", "does_not_load")
# the check's severities in the to-do list's areas (its notes stay in the evidence)
_CHECK_AREA: dict[str, Area] = {
    "does_not_start": "does_not_start",
    "locks_out": "locks_out",
    "does_not_load": "does_not_load",
    "changes_results": "changes_results",
    "changes_behaviour": "changes_behaviour",
    "changes_performance": "changes_behaviour",
}
BREAKS, REGRESSIONS, PLAN_CHANGES, CANNOT_RUN, BLOCKED = 1, 2, 4, 8, 16
NO_FIX = "no fix found"
OUT_OF_BUDGET = "out of budget"  # a child the assessment's budget ended (its own status: cancelled)
SLOWER = ("slower", "slower (timed out)", "slower, plan changed")  # a replay's findings a fix is searched for


class TodoItem(ReadShape):
    """One line of a version's to-do list: its `area` (AREAS), `subject` (a setting, accounts, a
    fingerprint), `text` (what happens, one line), `action` (what to do, one line; "" where none is
    known) and `evidence`: the child job's page with an anchor ("/captures/3/checks/5#findings",
    "/replays/7#fp-<fingerprint_id>", "/fixsearches/4"); `kind`/`job_id`: that child."""

    area: Area
    subject: str
    text: str
    action: str
    evidence: str
    kind: str
    job_id: int | None


class VersionReport(ReadShape):
    """One new version's answer: `version` (the lab target it was checked and replayed on), its
    `verdict` line, the counts the line says (`blockers`, `other_results`, `slower`, `slower_fixed`:
    of them with a proven fix, `behaviour`: defaults and settings that change under the team,
    `plan_changes`), its `exit_bits` and the ordered `todo`; `server`: the new version's binary as
    its check read it, `dataset_sha256`: the dump its replay loaded (None: no such child)."""

    version: str
    server: str | None = None
    dataset_sha256: str | None = None
    verdict: str
    blockers: int
    other_results: int
    slower: int
    slower_fixed: int
    behaviour: int
    plan_changes: int
    exit_bits: int
    todo: list[TodoItem]


class AssessmentReport(ReadShape):
    """The report: the capture it rests on (`capture_id`, the team's `source_version`), one
    VersionReport per new version in the order asked, and `exit_bits` (the versions' OR-ed)."""

    capture_id: int | None
    source_version: str | None
    versions: list[VersionReport]
    exit_bits: int


@dataclass
class VersionEvidence:
    """What the children said about one new version: the check and the replay (None: not made, `why`
    says why: "not started: out of budget"), the fix searches of the replay's slower fingerprints."""

    version: str
    check: CheckRead | None = None
    replay: ReplayRead | None = None
    fix_searches: list[FixSearchRead] = field(default_factory=list)
    why_no_check: str = "not started"
    why_no_replay: str = "not started"
    stopped_by_budget: tuple[str, int] | None = None  # (kind's API name, id): build_report sets it


def build_report(
    capture: CaptureRead | None,
    versions: list[VersionEvidence],
    why_no_capture: str = "not started",
    stopped_by_budget: tuple[str, int] | None = None,
) -> AssessmentReport:
    """The assessment's report from its children (see the module docstring). A child that is None,
    not succeeded or without its findings is a `not_evaluated` item naming the step and why (its
    error, its status, `why_no_*`); a version without a check or replay still lists what the other
    said. `stopped_by_budget`: the child the budget ended, (its kind's API name: capture, check,
    replay, fix_search; its id): said "out of budget" where its own status says cancelled. Pure: no
    database, no server."""
    reports = [
        _version(capture, replace(evidence, stopped_by_budget=stopped_by_budget), why_no_capture)
        for evidence in versions
    ]
    bits = 0
    for one in reports:
        bits |= one.exit_bits
    return AssessmentReport(
        capture_id=capture.id if capture else None,
        source_version=capture.version if capture else None,
        versions=reports,
        exit_bits=bits,
    )


def _version(capture: CaptureRead | None, evidence: VersionEvidence, why_no_capture: str) -> VersionReport:
    todo: list[TodoItem] = []
    bits = 0
    if capture is None or capture.status != JobStatus.succeeded:
        todo.append(
            _not_evaluated(
                "capture", "capture", capture.id if capture else None, why_no_capture, capture, evidence
            )
        )
        bits |= CANNOT_RUN
    todo += _check_items(evidence)
    replay_items, replay_bits = _replay_items(evidence)
    todo += replay_items
    bits |= replay_bits
    if evidence.check is None or evidence.check.status != JobStatus.succeeded:
        bits |= CANNOT_RUN
    todo.sort(key=lambda item: AREAS.index(item.area))  # stable: each child's own order kept
    count = Counter(item.area for item in todo)
    blockers = sum(count[area] for area in BLOCKERS)
    if blockers:
        bits |= BLOCKED
    slower = [item for item in todo if item.area == "slower"]
    fixed = sum(1 for item in slower if not item.action.startswith(NO_FIX))
    plan_changes = _plan_changes(evidence.replay)
    verdict = _verdict(
        evidence.version,
        blockers,
        count["changes_results"],
        len(slower),
        fixed,
        count["changes_behaviour"],
        count["not_evaluated"],
    )
    return VersionReport(
        version=evidence.version,
        server=evidence.check.server if evidence.check else None,
        dataset_sha256=evidence.replay.dataset_sha256 if evidence.replay else None,
        verdict=verdict,
        blockers=blockers,
        other_results=count["changes_results"],
        slower=len(slower),
        slower_fixed=fixed,
        behaviour=count["changes_behaviour"],
        plan_changes=plan_changes,
        exit_bits=bits,
        todo=todo,
    )


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _verdict(
    version: str, blockers: int, results: int, slower: int, fixed: int, behaviour: int, missing: int
) -> str:
    """The one line: "mariadb-11.8: 2 blockers, 1 query slower with a proven fix, 5 defaults change
    under you" ("nothing to do" when every count is 0 and every step answered)."""
    parts = []
    if missing:
        parts.append(_plural(missing, "step not evaluated", "steps not evaluated"))
    if blockers:
        parts.append(_plural(blockers, "blocker", "blockers"))
    if results:
        parts.append(_plural(results, "change of results", "changes of results"))
    if slower:
        with_fix = f" ({fixed} with a proven fix)" if 0 < fixed < slower else ""
        words = "with a proven fix" if fixed == slower else ("without a proven fix" if not fixed else "")
        parts.append(f"{_plural(slower, 'query', 'queries')} slower" + (f" {words}" if words else with_fix))
    if behaviour:
        verb = "changes" if behaviour == 1 else "change"
        parts.append(f"{_plural(behaviour, 'default or setting', 'defaults and settings')} {verb} under you")
    return f"{version}: " + (", ".join(parts) if parts else "nothing to do")


def _out_of_budget(kind: str, child: object | None, evidence: VersionEvidence) -> bool:
    """Whether `child` (of link kind `kind`) is the one the assessment's budget ended."""
    job_id, status = getattr(child, "id", None), getattr(child, "status", None)
    api_name = "check" if kind == "capture_check" else kind
    return status == JobStatus.cancelled and evidence.stopped_by_budget == (api_name, job_id)


def _not_evaluated(
    step: str, kind: str, job_id: int | None, why: str, child: object | None, evidence: VersionEvidence
) -> TodoItem:
    """A step that gave no answer: its status and error when it ran ("out of budget" for the child
    the budget ended), else `why`."""
    status = getattr(child, "status", None)
    error = getattr(child, "error", None)
    said = f"{status}: {error}" if status and error else (str(status) if status else why)
    action = f"run the {step} again once the cause is fixed" if status else f"start the {step}"
    if _out_of_budget(kind, child, evidence):
        said = f"{OUT_OF_BUDGET}: the assessment's budget ended it"
        action = "assess again with a larger budget (--budget-min)"
    return TodoItem(
        area="not_evaluated",
        subject=step,
        text=f"the {step} could not evaluate this version ({said})",
        action=action,
        evidence=_link(kind, job_id, None),
        kind=kind,
        job_id=job_id,
    )


def _link(kind: str, job_id: int | None, anchor: str | None, parent: int | None = None) -> str:
    """The child's page (the UI's routes) with an anchor; "" for a child never made."""
    if job_id is None:
        return ""
    page = {
        "capture": f"/captures/{job_id}",
        "capture_check": f"/captures/{parent}#check-{job_id}",
        "replay": f"/replays/{job_id}",
        "fix_search": f"/fixsearches/{job_id}",
    }[kind]
    return page + (f"#{anchor}" if anchor else "")


def _check_items(evidence: VersionEvidence) -> list[TodoItem]:
    check = evidence.check
    if check is None or check.status != JobStatus.succeeded:
        return [
            _not_evaluated(
                "check", "capture_check", check.id if check else None, evidence.why_no_check, check, evidence
            )
        ]
    items = []
    for finding in check.ordered:
        area = _CHECK_AREA.get(finding.severity)
        if area is None:
            continue
        items.append(_check_item(check, finding, area))
    return items


def _check_item(check: CheckRead, finding: Finding, area: Area) -> TodoItem:
    first_line = finding.evidence.strip().splitlines()[0] if finding.evidence.strip() else finding.outcome
    return TodoItem(
        area=area,
        subject=finding.subject,
        text=f"{finding.kind} {finding.subject}: {first_line}",
        action=finding.action,
        evidence=_link("capture_check", check.id, None, check.capture_id),
        kind="capture_check",
        job_id=check.id,
    )


def _new_variant(report: ReplayReport) -> str | None:
    """The replay's new version: its one non-baseline variant that is not the A/A control."""
    names = [one.variant for one in report.summary if one.variant != report.aa_control]
    return names[0] if names else None


def _replay_items(evidence: VersionEvidence) -> tuple[list[TodoItem], int]:
    replay = evidence.replay
    if replay is None or replay.report is None or replay.status != JobStatus.succeeded:
        why = evidence.why_no_replay
        if replay is not None and replay.status == JobStatus.succeeded:
            why = "succeeded without a report"
        return [
            _not_evaluated("replay", "replay", replay.id if replay else None, why, replay, evidence)
        ], CANNOT_RUN
    report = replay.report
    variant = _new_variant(report)
    bits = report.exit_bits
    if variant is None:
        return [
            _not_evaluated("replay", "replay", replay.id, "it compared no new version", None, evidence)
        ], bits | CANNOT_RUN
    items = []
    for fingerprint in report.fingerprints:
        finding = fingerprint.variants.get(variant)
        if finding is None:
            continue
        items += _fingerprint_items(replay.id, variant, fingerprint, finding, evidence)
    return items, bits


def _fingerprint_items(
    replay_id: int,
    variant: str,
    fingerprint: FingerprintResult,
    finding: VariantFinding,
    version: VersionEvidence,
) -> list[TodoItem]:
    subject = f"{_cut(fingerprint.fingerprint, 100)} ({fingerprint.fingerprint_id[:16]})"
    evidence = _link("replay", replay_id, f"fp-{fingerprint.fingerprint_id}")
    kinds = finding_kinds(finding)
    items = []
    if "breaks" in kinds:
        cause = ", ".join(one.title for one in finding.causes) or "no known cause"
        action = "; ".join(
            f"{one.title}: see {one.check}" if one.check else one.title for one in finding.causes
        )
        items.append(
            TodoItem(
                area="changes_results",
                subject=subject,
                text=f"returns other results or errors on {variant} ({cause})",
                action=action or "compare the outcomes on the replay's page and change the statement",
                evidence=evidence,
                kind="replay",
                job_id=replay_id,
            )
        )
    slower = next(
        (kind for kind in kinds if kind in ("slower", "slower (timed out)", "slower, plan changed")), None
    )
    if slower is not None:
        ratio = fingerprint.ratios.get(variant)
        times = f"{ratio.ratio:.2f}x" if ratio else "timed out" if "timed out" in slower else "slower"
        cause = finding.cause.text if finding.cause else "cause not measured"
        action, search_id = _fix(fingerprint.fingerprint_id, variant, version)
        items.append(
            TodoItem(
                area="slower",
                subject=subject,
                text=f"{times} slower on {variant}: {cause}",
                action=action,
                evidence=_link("fix_search", search_id, None) if search_id else evidence,
                kind="fix_search" if search_id else "replay",
                job_id=search_id or replay_id,
            )
        )
    return items


def finding_kinds(finding: VariantFinding) -> list[str]:
    """A fingerprint's findings on a variant (replay/report.py FingerprintFinding kinds), its group
    alone in reports stored before findings."""
    return [str(one.kind) for one in finding.findings] or [str(finding.group)]


def _fix(fingerprint_id: str, variant: str, evidence: VersionEvidence) -> tuple[str, int | None]:
    """The proven fix of a slower fingerprint ("apply: <remedy>") and its newest search's id, or why
    there is none ("no fix found: <outcome>"; "no fix found: out of budget" for the search the
    budget ended; "no fix found: no fix search ran for it", None)."""
    searches = evidence.fix_searches
    mine = [s for s in searches if s.fingerprint_id == fingerprint_id and s.variant == variant]
    if not mine:
        return f"{NO_FIX}: no fix search ran for it", None
    search = max(mine, key=lambda s: s.id)
    result = search.result
    if result is not None and result.remedy:
        extra = f" (or globally: {result.global_remedy})" if result.global_remedy else ""
        return f"apply: {result.remedy}{extra}", search.id
    if result is not None and result.global_remedy:
        return f"apply globally: {result.global_remedy}", search.id
    if _out_of_budget("fix_search", search, evidence):
        return f"{NO_FIX}: {OUT_OF_BUDGET} (the assessment's budget ended its search)", search.id
    if result is not None:
        return f"{NO_FIX}: {result.outcome}", search.id
    return f"{NO_FIX}: the search {search.status}" + (f": {search.error}" if search.error else ""), search.id


def _plan_changes(replay: ReplayRead | None) -> int:
    if replay is None or replay.report is None:
        return 0
    variant = _new_variant(replay.report)
    return sum(one.plan_changes for one in replay.report.summary if one.variant == variant)


def _cut(text: str, chars: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[:chars] + " ..."
