"""A concurrent replay's stored shapes (issue 50 items 4-5): what each trial measured
(`TrialRecord`) and the report decided from them (`ConcurrentReport`, decide.py builds it): its
throughput and per-fingerprint p95 verdicts, its error and final-data findings, and each variant's
groups, in the replay report's order (`GROUPS`: breaks, slower, faster, same, undecided)."""

from typing import Literal

from pydantic import Field

from upgradelab.measurement import ErrorSample, ReadShape, ServerLocks, TrialSummary
from upgradelab.results.stats.verdicts import VerdictRead

Group = Literal["breaks", "slower", "faster", "same", "undecided"]
GROUPS: tuple[Group, ...] = ("breaks", "slower", "faster", "same", "undecided")
Metric = Literal["statements/s", "transactions/s", "p95"]
CLOCK = (
    "client: every verdict on the client's clock (perf_counter around each statement and its rows; "
    "the server's p95 shown beside it where the server keeps one)"
)


class TrialRecord(ReadShape):
    """One trial of one variant: `variant` (its name), `round` (1-based: every variant runs one
    trial a round, in the order the stored seed gave, `position` its 0-based place there), the
    copy of the dataset's kept datadir it started from (`copy_s` seconds and `copy_bytes`, timed
    apart from the trial; None: not copied), `start_s` the seconds its server took to start on it,
    what the driver measured (`summary`), what the server
    counted (`locks`; None: not read) and the data at its end (`checksums`: "db.table" -> sha256)."""

    variant: str
    round: int = Field(ge=1)
    position: int = Field(ge=0)
    copy_s: float | None = None
    copy_bytes: int | None = None
    start_s: float | None = None
    summary: TrialSummary
    locks: ServerLocks | None = None
    checksums: dict[str, str] = Field(default_factory=dict)


class ConcurrentVerdict(ReadShape):
    """One time comparison of a variant against the baseline, paired by round: `metric`
    (statements/s and transactions/s: throughput, higher is better; p95: a fingerprint's client
    p95 latency in seconds, lower is better), the fingerprint (`class_id`, `fingerprint`; None for
    throughput), each side's median over its trials, the `verdict` (results/stats/verdicts.py at
    measurement THRESHOLD, floored by the A/A control's interval; None: no paired value), its
    `p_value` and Benjamini-Hochberg `q_value` (None below MIN_ROUNDS rounds), its `group`, the
    `reason` and the `causes` the server's counters name (lock waits, deadlocks, errors). Beside a
    p95 verdict (decided on the client's clock), each side's median of the server's p95 over its
    trials (`baseline_server_p95_s`, `variant_server_p95_s`, seconds; None where that side's server
    clock is not available: ConcurrentReport.server_clocks says why)."""

    variant: str
    metric: Metric
    class_id: str | None = None
    fingerprint: str | None = None
    baseline_median: float | None
    variant_median: float | None
    baseline_server_p95_s: float | None = None
    variant_server_p95_s: float | None = None
    verdict: VerdictRead | None
    p_value: float | None = None
    q_value: float | None = None
    group: Group
    reason: str
    causes: list[str] = Field(default_factory=list)


class ErrorFinding(ReadShape):
    """An error code a variant's trials hit: its count per trial (`per_trial`, in round order),
    `appears` in how many of its `trials`, against the reference (the baseline's trials, with the
    A/A control's for any other variant: `reference_appears` of `reference_trials`); the one-sided
    Fisher exact `p_value` that it appears more often than there, its Benjamini-Hochberg `q_value`,
    the `group` ("breaks": decided; "undecided": new but too few trials; "same": the reference has
    it too and it is not decided more often), the `reason`, and its first failure (`sample`)."""

    variant: str
    code: int
    per_trial: list[int]
    appears: int
    trials: int
    reference_appears: int
    reference_trials: int
    p_value: float
    q_value: float | None = None
    group: Group
    reason: str
    sample: ErrorSample


class TableFinding(ReadShape):
    """A table whose data at a trial's end differed from the reference's (the most common checksum
    of the reference's trials): `differs` in how many of the variant's `trials`, how often the
    reference's own trials differ from it (`reference_differs` of `reference_trials`: a workload whose
    end depends on the interleaving), the one-sided Fisher exact `p_value`, `q_value`, `group`
    ("breaks": decided: the write replay ends with other data) and the `reason`."""

    variant: str
    table: str
    differs: int
    trials: int
    reference_differs: int
    reference_trials: int
    p_value: float
    q_value: float | None = None
    group: Group
    reason: str


class VariantGroups(ReadShape):
    """A variant's findings counted by group (each time comparison, error code and table once), its
    trials, and the medians of its trials' copy and wall seconds."""

    variant: str
    trials: int
    breaks: int = 0
    slower: int = 0
    faster: int = 0
    same: int = 0
    undecided: int = 0
    copy_s: float | None = None
    wall_s: float | None = None


class ConcurrentReport(ReadShape):
    """The decided report: the `baseline` (first variant) and `aa_control` (None: none), its time
    verdicts (`throughput`, `fingerprints`: p95 per fingerprint and variant), its `errors` and
    `tables` findings, each non-baseline variant's `groups`, `fdr` (the false-discovery sentence),
    and `partial` (a cancelled replay's trials so far). `clock`: the one clock every time verdict is
    decided on (CLOCK: the client's); `server_clocks`: per variant, where the server's p95 shown
    beside the client's was read, or why it is not available (its trials' first saying; none for
    trials stored before it was read)."""

    baseline: str
    aa_control: str | None
    clock: str = CLOCK
    server_clocks: dict[str, str] = Field(default_factory=dict)
    throughput: list[ConcurrentVerdict]
    fingerprints: list[ConcurrentVerdict]
    errors: list[ErrorFinding]
    tables: list[TableFinding]
    groups: list[VariantGroups]
    fdr: str
    partial: bool = False
