"""The measurement library's result shapes, as stored in a replay's report and read by the API and the
fix search: a statement's diff against the baseline (`StatementDiff`, its known `Cause`), a fingerprint's
work counters (`CounterRange`, `WorkCounters`, `CounterChange`) and the per-statement cost
(`StatementCost`), and a variant as stored (`ReplayVariantSpec`: what its instance starts with and
applies). replay/report.py builds its document from them.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from upgradelab.results.stats.verdicts import VerdictRead

ErrorChange = Literal["new", "resolved", "changed", "same"]


class ReadShape(BaseModel):
    """A shape the API sends: fields with defaults (for rows stored by older versions) are still
    always present in the JSON, so the generated client types them as required."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class Cause(ReadShape):
    """A known cause of a break (causes.py KNOWN_CAUSES): its id, title and the MySQL Shell upgrade
    checker's check of it (None: it has none)."""

    id: str
    title: str
    check: str | None


class CounterRange(ReadShape):
    """One work counter per execution (measurement/counters.py): `mean`, and the smallest (`low`) and
    largest (`high`) of its executions (equal: every execution did the same work). Rows, tables, scans
    and passes are counts; CPU time is in seconds."""

    mean: float
    low: float
    high: float


class WorkCounters(ReadShape):
    """A fingerprint's work on one variant (measurement/counters.py `fingerprint_work`): per counter name
    (rows_examined, rows_sent, created_tmp_tables, created_tmp_disk_tables, select_full_join,
    select_scan, sort_rows, sort_merge_passes, no_index_used, cpu_time_s where the server has it) its
    range per execution of the fingerprint's `statements` counted on every variant, over
    `executions` timed runs (the sum over those statements)."""

    statements: int
    executions: int
    counters: dict[str, CounterRange]


class CounterChange(ReadShape):
    """A counter that differs between the baseline and a variant: its name and label, both ranges,
    `ratio` variant / baseline (None from 0), `moved` (beyond the threshold, measurement/counters.py) and
    the text ("rows examined 16,049 -> 802,450, 50x")."""

    counter: str
    label: str
    base: CounterRange
    other: CounterRange
    ratio: float | None
    moved: bool
    text: str


class StatementDiff(ReadShape):
    """One statement on one variant against the baseline (compare.py's module docstring): which of
    error code, warning codes, result (rows or the order-insensitive checksum), ordering only (with
    `unordered_query` when it has no ORDER BY) and plan differ, whether it was refused as a write
    (`refused`) or timed out (`timed_out`) on one of the two only; `breaks` = error, result, or an
    order the query never asked for (a refusal or a timeout is not a break). `error_change`: "new"
    (errors on the variant only), "resolved" (on the baseline only), "changed" (another code),
    "same" (the same code on both), None (neither errored). `plan_compared`: False across flavors
    (MySQL's and MariaDB's plans differ in form; both are in `outcomes`, `plan` is then False).
    `cause`: the known cause of the break, if one matches."""

    variant: str
    error: bool
    refused: bool = False
    timed_out: bool = False
    warnings: bool
    result: bool
    ordering_only: bool
    unordered_query: bool
    plan: bool
    error_change: ErrorChange | None = None
    plan_compared: bool = True
    cause: Cause | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def breaks(self) -> bool:
        return self.error or self.result or (self.ordering_only and self.unordered_query)


class StatementCost(ReadShape):
    """The per-statement cost on one non-baseline variant (statement_cost.py): the null statement
    `sql` ("DO 0") timed in every pass on every variant, read on `clock` (the pair's: "server" when
    both have TIMER_WAIT, else "client"). `median_s` / `baseline_s`: its median round value on the
    variant / the baseline (seconds; None: not timed); `difference_us`: variant - baseline in
    microseconds with its 95 % interval [difference_low_us, difference_high_us] (None below 2 paired
    rounds); `ratio`: variant / baseline with its interval and verdict (None without rounds);
    `aa_control`: `variant` is the replay's A/A control: its line is the noise floor the others'
    ratios are read against, its verdict no finding (False in reports from before);
    `host`: the host whose null statement the line read (a sharded replay's worker, its Celery node
    name: one line per variant and host, each host's its own measurement; None: one host);
    `text`: the sentence the report opens with ("every statement costs +45 us [+40, +50] on ...";
    a host's line begins "on <host>: ")."""

    variant: str
    sql: str
    clock: str
    median_s: float | None
    baseline_s: float | None
    difference_us: float | None
    difference_low_us: float | None
    difference_high_us: float | None
    ratio: VerdictRead | None
    aa_control: bool = False
    host: str | None = None
    text: str


class ReplayVariantSpec(ReadShape):
    """One variant as stored (service.py): its name (default TARGET[:PRESET]), target, preset
    (presets joined with '+'), the option-file lines its server starts with (the presets' and its
    own), its SET GLOBAL and SET SESSION (variable -> value) and instance statements (canonical
    spelling; a redo-off preset's among them), all applied to its own instance
    (measurement/variant_settings.py); `aa_control`: it is the A/A control (a second instance of the
    baseline, with the baseline's settings). Rows stored before settings read with none."""

    name: str
    target: str
    preset: str
    options: list[str]
    set_global: dict[str, str] = Field(default_factory=dict)
    set_session: dict[str, str] = Field(default_factory=dict)
    instance: list[str] = Field(default_factory=list)
    aa_control: bool = False
