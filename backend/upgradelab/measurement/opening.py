"""Opening a replay's variant: its server with the dataset loaded or reused, the variant's settings
applied (variant_settings.py), its tables analysed, the replay's own account connected, and the clock
that times it (timing.py: the server's where it gives TIMER_WAIT, said per variant)."""

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from upgradelab.datasets.accounts import definer_access, replay_account
from upgradelab.datasets.loader import LoadResult, TableStats, table_stats
from upgradelab.measurement.counters import WorkTally
from upgradelab.measurement.dataset_load import DumpDataset, ensure_dataset
from upgradelab.measurement.outcomes import Outcome
from upgradelab.measurement.settle import analyze_tables
from upgradelab.measurement.stage_events import StageTally
from upgradelab.measurement.timing import Clock, ServerClock, clock_options, server_clock
from upgradelab.measurement.variant_settings import (
    VariantSettings,
    apply_server_settings,
    apply_session_settings,
)
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.provisioners.base import (
    ADMIN_READ_TIMEOUT_S,
    STATEMENT_READ_MARGIN_S,
    ServerConnection,
)
from upgradelab.targets.statement_timeout import DEFAULT_TIMEOUT_S
from upgradelab.workloads.base import DatasetProgress, scalar


@dataclass
class VariantReplay:
    """One variant's replay: server version, whether the dataset was loaded (LoadResult) or reused
    (None), its tables, one Outcome per statement, and per statement the seconds of each of its timed
    runs in execution order (None where it errored or was not run, math.inf where it timed out):
    `passes` per round, so times[statement][k] is from round k // passes + 1; each the median of the
    pass's repeated runs (timing.py), `repeats[statement]` the runs of its last pass. flavor: the
    server's (mysql, mariadb); statistics_at: when ANALYZE TABLE ran on its `analyzed` tables (UTC);
    clock: which clock timed it ("server": performance_schema TIMER_WAIT, "client"); client_times: as
    `times`, by the client's clock (the same as `times` when that is its clock: a pair of variants on
    different clocks is compared on the client's, timing.py `pair_clock`); performance_schema:
    @@performance_schema at its opening (None: not read); null_statement: the index in `outcomes` /
    `times` of the null statement the engine times beside the user's (statement_cost.py; None: not
    timed); work[statement]: its work counters over its timed runs (measurement/counters.py; empty tallies on
    the client's clock); timing_cpu: how the timing was placed on the CPUs, the same sentence on every
    variant (execution/timing_cpu.py `plan`; None: not said); stages[statement]: its stages per timed
    pass (measurement/stage_events.py StageTally, one entry per entry of its `times`; the user's statements
    only, not the null statement; [] where the replay keeps none: a fix search's arms), stage_events:
    whether its server keeps the stage events a timed run reads (None: not said); stage_runs: how many
    runs of a pass read their stages (None: every run; settings `replay_stage_runs`)."""

    name: str
    version: str
    load: LoadResult | None
    tables: list[TableStats]
    outcomes: list[Outcome] = field(default_factory=list)
    times: list[list[float | None]] = field(default_factory=list)
    passes: int = 1
    flavor: str = ""
    statistics_at: datetime | None = None
    analyzed: int = 0
    clock: Clock = "client"
    repeats: list[int] = field(default_factory=list)
    settings: VariantSettings | None = None
    client_times: list[list[float | None]] = field(default_factory=list)
    performance_schema: bool | None = None
    null_statement: int | None = None
    work: list[WorkTally] = field(default_factory=list)
    timing_cpu: str | None = None
    stages: list[StageTally] = field(default_factory=list)
    stage_events: bool | None = None
    stage_runs: int | None = None


@dataclass(frozen=True)
class ReplayVariant:
    """One variant to replay on: its name, its own server instance (a provisioner slot), the
    option-file lines its instance starts with (`options`), and the variant's own settings as it
    gave them (variant_settings.py: its option lines, reported; the SET GLOBAL, SET SESSION and
    instance statements applied once started)."""

    name: str
    provisioner: Provisioner
    options: list[str]
    settings: VariantSettings = field(default_factory=VariantSettings)


@dataclass
class OpenVariant:
    """A variant opened: its connection as the replay's account, what it measured, its clock, and
    the statements whose default database it lacks."""

    variant: ReplayVariant
    connection: ServerConnection
    replay: VariantReplay
    clock: ServerClock | None = None  # its admin connection is closed with the replay's
    missing: dict[int, Outcome] = field(default_factory=dict)  # statements whose database is absent


def open_variant(
    variant: ReplayVariant,
    dataset: DumpDataset,
    report: Callable[[DatasetProgress], None],
    *,
    writes: bool,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cancelled: Callable[[], bool] = lambda: False,
) -> OpenVariant:
    """The variant's server with the dataset, and a connection as the replay's own account: the
    reader (SELECT, SHOW VIEW, EXECUTE on the dataset's databases), or with `writes` the writer;
    the dump's definer cut to the same access first, so a routine cannot write on its behalf. The
    account's reads wait the statement bound `timeout_s` plus STATEMENT_READ_MARGIN_S (the bound ends
    a slow statement, not the socket); the clock's admin connection ADMIN_READ_TIMEOUT_S. The dump's
    load stops when `cancelled()` answers True (datasets/loader.py)."""
    loaded = ensure_dataset(variant.provisioner, variant.options, dataset, report, cancelled)
    admin = loaded.admin
    try:
        version = str(scalar(admin, "SELECT VERSION()"))
        performance_schema = bool(int(scalar(admin, "SELECT @@performance_schema") or 0))
        tables = [one for database in loaded.databases for one in table_stats(admin, database)]
        apply_server_settings(admin, variant.name, variant.settings, variant.provisioner)
        analyzed_at = analyze_tables(admin, tables)
        definer_access(admin, loaded.databases, writes=writes)
        user, password = replay_account(admin, loaded.databases, writes=writes)
    finally:
        admin.close()
    account = replace(loaded.endpoint, user=user, password=password)
    connection = account.connect(dataset.database, read_timeout_s=timeout_s + STATEMENT_READ_MARGIN_S)
    try:
        apply_session_settings(connection, variant.name, variant.settings)
    except BaseException:
        connection.close()
        raise
    replay = VariantReplay(
        variant.name,
        version,
        loaded.load,
        tables,
        settings=variant.settings,
        performance_schema=performance_schema,
    )
    replay.flavor, replay.statistics_at, replay.analyzed = (
        variant.provisioner.flavor,
        analyzed_at,
        len(tables),
    )
    clock_admin = loaded.endpoint.connect(read_timeout_s=ADMIN_READ_TIMEOUT_S)
    clock = server_clock(clock_admin, connection)
    if clock is None:
        clock_admin.close()
    return OpenVariant(variant, connection, replay, clock)


def with_clock_options(variant: ReplayVariant) -> ReplayVariant:
    """The variant with timing.py CLOCK_OPTIONS before its own options when the lab starts its server
    (not on an existing server): its own options come last and win, so a variant may still turn
    performance_schema off (it is then timed by the client's clock)."""
    extra = clock_options(variant.provisioner.kind, get_settings().replay_stages)
    return replace(variant, options=[*extra, *variant.options]) if extra else variant


def say_clocks(opened: list[OpenVariant]) -> None:
    """Each variant's clock, said in its replay: "server" where it gives TIMER_WAIT, else "client",
    and whether its timed runs can read their stages (`stage_events`). A pair on different clocks is
    compared on the client's (timing.py `pair_clock`), so every server clock is kept."""
    for one in opened:
        one.replay.clock = "server" if one.clock is not None else "client"
        one.replay.stage_events = one.clock is not None and one.clock.stage_size is not None
