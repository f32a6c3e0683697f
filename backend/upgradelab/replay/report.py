"""The replay report document as stored and sent (replay/compare.py `report_document` builds it): per
variant its server and summary, per fingerprint its group, times and verdicts, per statement its
outcomes and diffs. Every shape reads reports stored by older versions (defaults and the validators
below).

One concept: the stored report document (the JSON's schema, read from the top-level ReplayReport
down to a statement's result) in one module, as the API reads it by its keys; the shapes the
measurement library produces (a statement's diff, work counters, the per-statement cost) are its
own (measurement/shapes.py), used here.
"""

import math
from datetime import datetime
from typing import Literal

from pydantic import field_validator

from upgradelab.datasets.loader import LoadResult, TableStats
from upgradelab.execution.schedule import RunSchedule
from upgradelab.measurement import (
    Cause,
    CounterChange,
    Outcome,
    ReadShape,
    StatementCost,
    StatementDiff,
    VariantSettings,
    WorkCounters,
)
from upgradelab.replay.groups import Group
from upgradelab.results.stats.verdicts import VerdictRead

CauseKind = Literal["known cause", "plan change", "work", "per-statement cost", "stage", "time only"]


class ChangeCause(ReadShape):
    """Why a fingerprint changed on a variant, from what was measured (replay/change_causes.py), the
    first of: "known cause" (of a break, causes.py), "plan change" (which part), "work" (which counter
    moved, by how much), "per-statement cost" (its time net of the null statement's is the same),
    "stage" (which stages of its time moved, replay/stages.py), "time only"; `text` says it ("more
    work: rows examined 16,049 -> 802,450, 50x", "time in stages: optimizing 12 -> 48 us, 4.0x")."""

    kind: CauseKind
    text: str


FindingKind = Literal[  # in severity order (findings.FINDINGS)
    "breaks",
    "slower (timed out)",
    "slower",
    "plan changed",
    "faster",
    "slower: per-statement cost only",
    "faster: per-statement cost only",
]


class FingerprintFinding(ReadShape):
    """One finding of a fingerprint on a variant (replay/findings.py `variant_findings`): a fingerprint
    may have several, each counted in the summary's own column: "breaks" (an error, result or
    unasked-for order difference; `cause` its known cause, None when none matches), its time ("slower",
    "slower (timed out)", "faster", or "... : per-statement cost only"; `cause` why, change_causes.py,
    never the break's known cause) and "plan changed" (`cause` the plan's parts). In severity order
    (findings.FINDINGS); the fingerprint's group on the variant is the most severe one's."""

    kind: FindingKind
    cause: ChangeCause | None = None


class StageTimes(ReadShape):
    """Where a fingerprint's time went on one variant (replay/stages.py `fingerprint_stages`): per stage
    of its statements (performance_schema stage events, nested in the statement's own event by
    NESTING_EVENT_ID; names lower-cased, "stage/sql/" left out; "outside any stage": the statement's
    TIMER_WAIT not covered by its stages) the seconds per execution (replay/stages.py `per_execution`:
    the mean over the middle half of its passes, each the mean of the middle half of the pass's runs,
    summed over the fingerprint's statements; the stages add up to `total_s`), largest first; `total_s`
    the fingerprint's time per execution on the same passes (near its median time); `cpu_s` its CPU
    time per execution where the server has it (MySQL 8.0.28+'s CPU_TIME, None elsewhere);
    `executions` the timed runs whose stages were read, `passes` the passes they make up; `incomplete`
    the runs whose stage history was full (the earliest stages of such a run may be missing:
    performance_schema_events_stages_history_size)."""

    executions: int
    passes: int
    total_s: float
    stages: dict[str, float]
    cpu_s: float | None = None
    incomplete: int = 0


class StageChange(ReadShape):
    """One stage (or "CPU time") of a fingerprint on a variant against the baseline (replay/stages.py
    `stage_changes`): seconds per execution on both sides (None: never in that stage there), `ratio`
    variant / baseline read over the paired rounds at stages.THRESHOLD with its Bonferroni confidence
    and against the A/A control's interval of the same stage (None: on one side only), `share` its
    change as a fraction of the fingerprint's change (positive: along it), `moved` (stages.py's rule)
    and the text ("optimizing 12 -> 48 us, 4.0x")."""

    stage: str
    base_s: float | None
    other_s: float | None
    ratio: VerdictRead | None
    share: float | None
    moved: bool
    text: str


class StatementResult(ReadShape):
    """One sampled statement: its text and default database, its outcome per variant name (error,
    warnings, rows, checksums, plan, kind; outcomes.py; the baseline first), its diffs, one per
    non-baseline variant, and per variant how many of its timed runs timed out."""

    sql: str
    database: str | None
    outcomes: dict[str, Outcome]
    diffs: list[StatementDiff]
    timed_out_runs: dict[str, int] = {}


class VariantFinding(ReadShape):
    """A fingerprint on one variant against the baseline: its group there (first match of breaks,
    slower (timed out), timed out, refused, slower, plan changed [with slower or faster: "slower,
    plan changed", "faster, plan changed"], faster, same, undecided), the causes of its breaks, and
    for its time verdict the p-value of the paired rounds and its Benjamini-Hochberg adjusted value
    across the replay's comparisons (None: no test). A regression or improvement whose adjusted
    value exceeds the replay's `fdr_q` is read "inconclusive". `work`: the work counters that
    differ from the baseline's (measurement/counters.py; [] without counters); `cause`: why it changed,
    for a slower or faster fingerprint and a break of a known cause (None otherwise).
    `clock`: the clock its ratio was read on ("server" when both sides had TIMER_WAIT, else
    "client"; timing.py pair_clock; None in reports from before); `net`: its verdict net of the
    per-statement cost (statement_cost.py: the variant's time with the change of the null
    statement's time taken out, against the baseline's; None without the null statement);
    `per_statement_cost_only`: slower or faster by the variant's per-statement cost, with no change
    of its own decided net of it (statement_cost.py cost_only; grouped "slower: per-statement cost
    only" / "faster: ..."; the cause such a change gets). `findings`: every finding on the variant,
    each with its own cause (FingerprintFinding; the group is the first's; [] in reports from before), so a
    regression inside a break is counted and explained too; `stages`: the stages whose change the
    report shows for its time finding (replay/stages.py: those that moved, then the largest others;
    [] without a time finding or without stage events)."""

    group: Group
    causes: list[Cause] = []
    p_value: float | None = None
    q_value: float | None = None
    work: list[CounterChange] = []
    cause: ChangeCause | None = None
    clock: str | None = None
    net: VerdictRead | None = None
    per_statement_cost_only: bool = False
    findings: list[FingerprintFinding] = []
    stages: list[StageChange] = []


class FixSearchBrief(ReadShape):
    """A fix search of a fingerprint (fixsearch/, issue 34), as its report row shows it: its id, the
    variant it fixes, its status, its outcome ("restored", "no remedy found", ...; None until it
    ends) and the remedy that restores (None: none), the global one beside. Not stored in the
    report: the API adds the replay's fix searches when it reads the replay (api/replay.py)."""

    id: int
    variant: str
    status: str
    outcome: str | None = None
    remedy: str | None = None
    global_remedy: str | None = None


class FingerprintResult(ReadShape):
    """A fingerprint: its group (first match of breaks, timed out, refused, plan changes, slower,
    faster, same), median seconds per variant (median of its round values; None: no round),
    `ratios` per non-baseline variant that has an interval (results/stats/verdicts.py VerdictRead, from
    round values paired by round), and its sampled statements; `variants`: its finding per
    non-baseline variant; `floor`: the A/A control's interval against the baseline (its noise floor;
    None without a control); `rounds`: the rounds its statements were timed (more than the replay's
    planned rounds when the extension timed it again; None in reports made before); `work`: per
    variant its work counters per execution (measurement/counters.py; {} without counters: the client's
    clock); `fix_searches`: its fix searches, newest first (FixSearchBrief; added when read);
    `class_id`: its pt-query-digest class ID (the last 16 hex digits of its fingerprint's MD5: the
    team's pt-query-digest report lists the class as `0x...<class_id>`; measurement/pt_fingerprint.py),
    the same as `fingerprint_id` since issue 47; None in reports from before, whose fingerprint is
    the lab's own normalization and whose id is not a pt class; `stages`: per variant where its time
    went (StageTimes; {} without stage events and in reports from before); `host`: the host that
    timed it (a sharded replay's worker, its Celery node name; None: the replay ran on one host)."""

    fingerprint_id: str
    fingerprint: str
    group: Group
    median_s: dict[str, float | None]
    ratios: dict[str, VerdictRead] = {}
    statements: list[StatementResult]
    variants: dict[str, VariantFinding] = {}
    floor: VerdictRead | None = None
    rounds: int | None = None
    work: dict[str, WorkCounters] = {}
    fix_searches: list[FixSearchBrief] = []
    class_id: str | None = None
    stages: dict[str, StageTimes] = {}
    host: str | None = None

    @field_validator("ratios", mode="before")
    @classmethod
    def _stored_before(cls, ratios: object) -> object:
        # Reports stored before one verdict shape: a variant without an interval was all None but
        # `rounds` (now: no ratio), and reports from before rounds hold ratio, low, high and verdict
        # only, from one block's timings (now: what the within-block bootstrap says, rounds 1).
        if not isinstance(ratios, dict):
            return ratios
        out = {}
        for name, value in ratios.items():
            if isinstance(value, dict) and value.get("ratio") is None:
                continue
            if isinstance(value, dict) and value.get("method") is None:
                value = {
                    "rounds": 1,
                    "method": "within-block bootstrap",
                    "mde": math.sqrt(value["high"] / value["low"]) - 1,
                    "reason": "stored before replays ran in rounds: one block's timings",
                    **{k: v for k, v in value.items() if v is not None},
                }
                value.setdefault("verdict", "insufficient rounds")
            out[name] = value
        return out


class VariantReport(ReadShape):
    """A variant's server as replayed: SELECT VERSION(), the dump load (None: the kept datadir
    already held the dataset) and its tables after the load; its flavor, when ANALYZE TABLE
    computed the statistics of its `analyzed` tables (UTC; None in reports from before), and the
    clock that timed it ("server": performance_schema TIMER_WAIT, "client"); `settings`: the
    variant's own startup options, SET GLOBAL, SET SESSION and instance statements in force while
    it was replayed (measurement/variant_settings.py; None in reports from before them); `performance_schema`:
    whether it was ON on that server (every instance the lab starts for a replay has it ON; None in
    reports from before); `counters`: the work counter columns its statement
    events have (measurement/counters.py; [] on the client's clock); `stages`: whether its timed runs' stage
    events were read (replay/stages.py; False: its server keeps none, said in the report's `stages`
    sentence; None in reports from before)."""

    name: str
    version: str
    loaded: LoadResult | None
    tables: list[TableStats]
    flavor: str | None = None
    statistics_at: datetime | None = None
    analyzed: int | None = None
    clock: str | None = None
    settings: VariantSettings | None = None
    performance_schema: bool | None = None
    counters: list[str] = []
    stages: bool | None = None


class VariantSummary(ReadShape):
    """One variant against the baseline, counted in fingerprints, each finding in its own column
    (replay/findings.py `summarise`; a fingerprint with several findings is in each: a regression
    inside a break is in `breaks` and in `slower`): breaks (of them with a new error, with a result
    change), slower (of them with a plan change, timed out on the variant only, and
    `slower_also_break` also a break), faster (of them with a plan change, `faster_also_break` also a
    break), same, undecided (with the median smallest detectable change of their intervals, a
    fraction), plan changes, refused writes and timeouts (a statement timed out on either). `slower`
    and `faster` leave out the fingerprints that changed by the per-statement cost only, counted apart
    in `slower_cost_only` / `faster_cost_only` (0 in reports from before); `slower_causes` /
    `faster_causes`: every slower (faster) finding, the timed-out and per-statement-cost-only ones
    included, counted by the kind of its cause (ChangeCause.kind), most first; `text`: the line as the
    CLI prints it ("... slower 1 (1 also a break, plan changed 1, timed out 0) ..."; "" in reports
    from before). Reports stored before findings counted a break's regression in no column (their
    `*_also_break` are 0)."""

    variant: str
    version: str
    breaks: int
    new_errors: int
    resolved_errors: int
    result_changes: int
    slower: int
    slower_plan_changed: int
    slower_timed_out: int
    faster: int
    faster_plan_changed: int = 0  # 0 in reports stored before the group
    slower_cost_only: int = 0
    faster_cost_only: int = 0
    same: int
    undecided: int
    undecided_median_mde: float | None
    plan_changes: int
    refused: int
    timeouts: int
    slower_causes: dict[CauseKind, int] = {}
    faster_causes: dict[CauseKind, int] = {}
    slower_also_break: int = 0
    faster_also_break: int = 0
    text: str = ""


class ReplayReport(ReadShape):
    """The stored report (document.report_document): the baseline's name, the variants, how many
    fingerprints fell in each group, `exit_bits` (`upgradelab replay`'s exit status: 1 breaks, 2
    regressions, 4 plan changes), statements replayed, rounds and passes per block, the schedule
    (None before rounds), the verdict threshold (a fraction) and every fingerprint in source order.
    Seconds are wall-clock around execute + fetch. `partial`: the replay was cancelled, and this is
    what it measured (the statements captured on every variant, the rounds every variant completed);
    `statement_timeout_s`: the bound every statement ran under (None in reports made before it).
    `summary`: one VariantSummary per non-baseline variant (read first); `aa_control`: the A/A
    control variant's name (None: no control; each fingerprint's `floor` is its interval); `clock`:
    the clock every variant was timed by; `fdr`: how false discoveries were controlled (a
    sentence), at `fdr_q`. `rounds` is the most any fingerprint got; `planned_rounds`: the rounds
    every statement got; `max_rounds`: the extension's budget (None: no extension) and `extension`
    how it went and what it means for the statistics (a sentence; None without an extension).
    `per_statement_cost`: one StatementCost per non-baseline variant, read first (empty in reports
    from before; a sharded replay's: one per variant and host); `sharding`: where a sharded replay's
    fingerprints ran, each shard's rounds and which schedule is stored (a sentence; None: one host);
    `timing`: how it was timed, each variant's clock and performance_schema (a
    sentence; None in reports from before).
    `work_counters`: where the work counters come from and when one moved, or why they are
    unavailable (a sentence; None in reports made before them); `stages`: where the time by stage
    comes from and when a stage moved (replay/stages.py's thresholds), or where it is unavailable (a
    sentence; None in reports made before stages)."""

    baseline: str
    partial: bool = False
    statement_timeout_s: float | None = None
    variants: list[VariantReport]
    groups: dict[Group, int]
    exit_bits: int
    statements: int
    rounds: int | None = None
    passes: int | None = None
    schedule: RunSchedule | None = None
    threshold: float | None = None
    fingerprints: list[FingerprintResult]
    summary: list[VariantSummary] = []
    aa_control: str | None = None
    clock: str | None = None
    fdr: str | None = None
    fdr_q: float | None = None
    planned_rounds: int | None = None
    max_rounds: int | None = None
    extension: str | None = None
    per_statement_cost: list[StatementCost] = []
    sharding: str | None = None
    timing: str | None = None
    work_counters: str | None = None
    stages: str | None = None
