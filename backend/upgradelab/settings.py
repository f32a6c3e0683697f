"""Upgrade Lab settings, read from UPGRADELAB_* environment variables (pydantic-settings).

Every value has an embedded default, so `make up` on a fresh machine needs no configuration.
"""

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]


class Settings(BaseSettings):
    """Process-wide settings; override any field with UPGRADELAB_<FIELD>."""

    model_config = SettingsConfigDict(env_prefix="UPGRADELAB_", extra="ignore")

    lab_dir: Path = Field(
        Path("/var/lib/upgradelab"),
        description="Where infra/lab/install.sh puts chroots; `{lab_dir}` in target settings expands to it.",
    )
    state_dir: Path = Field(
        Path("/var/lib/upgradelab/state"), description="Metadata database and Redis data of this instance."
    )
    server_dir: str = Field(
        "/var/lib/upgradelab/servers",
        description="Directory, as seen from inside a target's root, holding its datadirs and option files.",
    )
    database_url: str = Field("", description="SQLAlchemy async URL; default: SQLite file in state_dir.")
    redis_url: str = "redis://127.0.0.1:6380/0"
    api_host: str = "127.0.0.1"
    api_port: int = 8700
    frontend_dist: Path = REPO_ROOT / "frontend" / "dist"
    server_start_timeout_s: float = Field(60.0, description="Cap on waiting for SELECT 1 after a start.")
    allowed_hosts: str = Field(
        "",
        description="Non-loopback target hosts an admin allows: names or CIDRs, comma-separated "
        "(UPGRADELAB_ALLOWED_HOSTS); by default a target's host must be a loopback address.",
    )
    existing_hosts: str = Field(
        "",
        description="Hosts an `existing` target may name besides loopback: comma-separated host names "
        "and CIDRs, e.g. 'staging-db.internal,10.20.0.0/16' (targets/existing_hosts.py).",
    )
    dataset_dirs: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="Directories an admin allows datasets to be taken from by path (`datasets add "
        "--on-worker`, POST /api/datasets/{name}/from-path): absolute, comma-separated "
        "(UPGRADELAB_DATASET_DIRS='/srv/dumps,/data/exports'); empty (the default) turns taking a "
        "dataset from a path off.",
    )
    target_lock_ttl_s: int = Field(
        90,
        description="Expiry of a target's run lock (s); renewed by the heartbeat, outlasts a Redis outage.",
    )
    # Every kind of job's (runs, replays, attributions): UPGRADELAB_JOB_*; the older UPGRADELAB_RUN_*
    # names are still read (deprecated).
    job_lease_ttl_s: float = Field(
        15.0,
        validation_alias=AliasChoices(
            "job_lease_ttl_s", "UPGRADELAB_JOB_LEASE_TTL_S", "UPGRADELAB_RUN_LEASE_TTL_S"
        ),
        description="A job's lease (s): a worker silent this long is lost.",
    )
    job_heartbeat_s: float = Field(
        3.0,
        validation_alias=AliasChoices(
            "job_heartbeat_s", "UPGRADELAB_JOB_HEARTBEAT_S", "UPGRADELAB_RUN_HEARTBEAT_S"
        ),
        description="How often the worker renews its job's lease and locks (s).",
    )
    reaper_interval_s: float = Field(
        5.0, description="How often a worker looks for jobs whose lease expired (s)."
    )
    api_reaper_grace_s: float = Field(
        5.0,
        ge=0,
        description="The API reaps a job whose lease expired more than this long ago (s): a live worker's "
        "reaper goes first; with no worker left the job still ends (execution/reaper.py).",
    )
    redis_outage_s: float = Field(
        90.0, description="How long the worker retries a Redis write (stream events) before dropping it (s)."
    )
    pool: str = Field(
        "local",
        pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$",
        description="The worker pool this process belongs to (UPGRADELAB_POOL): a worker takes the runs of "
        "its pool's Celery queue only (pools/routing.py); the API's pool is the default of a new target.",
    )
    api_url: str = Field(
        "",
        description="Where a worker reaches the API (dataset dumps, datasets/fetch.py); default "
        "http://{api_host}:{api_port}. A worker on a second host sets it.",
    )
    worker_token: str = Field(
        "",
        description="The worker credential for GET /api/datasets/{name}/dump; default: a random token kept "
        "in {state_dir}/worker.token (one host). A second host's worker sets the API's value.",
    )
    secret_key: str = Field(
        "",
        description="The key target passwords are sealed with in the metadata database (targets/sealed.py); "
        "default: a random key kept in {state_dir}/secrets/targets.key. A second host's worker sets the "
        "API's value.",
    )
    instance_allowance_mb: int = Field(
        400,
        ge=0,
        description="Memory one server instance needs beyond its buffer pool (MiB), for the pre-run check "
        "of the instances' sum against MemAvailable.",
    )
    spare_instance_s: float = Field(
        0.0,
        ge=0,
        le=3600,
        description="Seconds a spare instance waits, frozen, for the next run of the same local target slot "
        "and options (started fresh from the template right after a run ends: the next run's start is a "
        "SIGCONT and a SELECT 1 instead of a copy and a server start). It holds its memory meanwhile. "
        "0 (default): no spares.",
    )
    dump_max_bytes: int = Field(
        100 * 2**30,
        gt=0,
        description="The decompressed bytes a dataset's dump may have (UPGRADELAB_DUMP_MAX_BYTES); a load "
        "past it fails naming this setting. Default 100 GiB (uploads are 20 GiB, compressed 3-10:1).",
    )
    dump_max_ratio: float = Field(
        1000.0,
        gt=1,
        description="Decompressed bytes a dump may have per byte of its file, checked as it streams once "
        "dump_ratio_after_bytes are decompressed (UPGRADELAB_DUMP_MAX_RATIO): text compresses 3-20:1, a "
        "compression bomb thousands to one.",
    )
    dump_ratio_after_bytes: int = Field(
        64 * 2**20,
        ge=0,
        description="Decompressed bytes before the ratio is checked (UPGRADELAB_DUMP_RATIO_AFTER_BYTES): a "
        "small dump of repetitive rows may compress far better than a large one.",
    )
    dump_min_scan_mib_s: float = Field(
        10.0,
        ge=0,
        description="The slowest a dump's scan may go (UPGRADELAB_DUMP_MIN_SCAN_MIB_S): MiB of dump per CPU "
        "second of the loading thread over each dump_scan_window_s of scanning; below it the load is "
        "refused with the rate measured (a dump built to be slow to read). Legitimate dumps scan at "
        "30-550 MiB/s on the lab's host (bench/dump_scan.py). 0: no bound.",
    )
    dump_scan_window_s: float = Field(
        20.0,
        gt=0,
        description="CPU seconds of scanning each rate of UPGRADELAB_DUMP_MIN_SCAN_MIB_S is measured over "
        "(UPGRADELAB_DUMP_SCAN_WINDOW_S).",
    )
    dump_max_statement_bytes: int = Field(
        2**30,
        gt=0,
        description="The longest statement (and line) of a dump (UPGRADELAB_DUMP_MAX_STATEMENT_BYTES), also "
        "never more than the target's max_allowed_packet: the client holds a statement whole before "
        "sending it. Default 1 GiB, the largest max_allowed_packet a server takes.",
    )
    replay_max_statements: int = Field(
        100_000,
        ge=1,
        description="Statements a replay's query log may hold (UPGRADELAB_REPLAY_MAX_STATEMENTS): a log with "
        "more is refused (422 naming `queries` and this limit) as soon as its statement past the limit is "
        "read, before any is fingerprinted.",
    )
    sign_in_user_limit: str = Field(
        "5/minute;30/hour",
        description="Failed sign-ins allowed per user name (UPGRADELAB_SIGN_IN_USER_LIMIT; the `limits` "
        "library's notation, windows separated by ';'): past it 429 with Retry-After (users/sign_in.py).",
    )
    sign_in_address_limit: str = Field(
        "30/minute;300/hour",
        description="Failed sign-ins allowed per client address (UPGRADELAB_SIGN_IN_ADDRESS_LIMIT).",
    )
    body_max_bytes: int = Field(
        1024 * 1024,
        gt=0,
        description="A request body's bound (bytes) on every route not named below "
        "(UPGRADELAB_BODY_MAX_BYTES; 1 MiB): past it 413 before it is read (api/body_limits.py).",
    )
    body_replay_max_bytes: int = Field(
        128 * 1024 * 1024,
        gt=0,
        description="POST /api/replays' body bound (bytes; UPGRADELAB_BODY_REPLAY_MAX_BYTES, 128 MiB): its "
        "query log, at most replay_max_statements statements (a 100,000-statement slow log is ~30 MB).",
    )
    body_sign_in_max_bytes: int = Field(
        16 * 1024,
        gt=0,
        description="Sign-in's and logout's body bound (bytes; UPGRADELAB_BODY_SIGN_IN_MAX_BYTES, 16 KiB): "
        "the only bodies read without signing in.",
    )
    replay_timing_cpu: Literal["auto", "off"] | Annotated[int, Field(ge=0)] = Field(
        "auto",
        description="The CPU a replay's client thread and every variant's server process share while its "
        "statements are timed (UPGRADELAB_REPLAY_TIMING_CPU): `auto`, the highest CPU the worker may use "
        "when it may use two or more; `off`; or a CPU number. Why: execution/timing_cpu.py.",
    )
    replay_stages: bool = Field(
        True,
        description="Whether a replay reads each timed run's stage events with its statement row "
        "(UPGRADELAB_REPLAY_STAGES; the lab's instances then start with the stage instruments and "
        "consumers on): where the time went, and a cause for a slower or faster query whose counters did "
        "not move. Off: as before stages (measurement/stage_events.py; its cost in bench/README.md).",
    )
    replay_stage_runs: int = Field(
        10,
        ge=0,
        description="How many timed runs of each pass read their stages (UPGRADELAB_REPLAY_STAGE_RUNS; "
        "spread over the pass, measurement/timing.py StageSpread; 0: every run). A read with stages costs "
        "the replay's one timing CPU ~0.3 ms more than one without, and a fast statement runs up to 200 "
        "times a pass: reading every run made a replay 1.36-1.44x slower, 10 a pass 1.08x (bench/README.md, "
        "replay_stage_cost.py).",
    )
    timing_cpu_claims_dir: Path = Field(
        Path("/var/lib/upgradelab/timing-cpus"),
        description="Where jobs claim the CPU they time on (UPGRADELAB_TIMING_CPU_CLAIMS_DIR; a lock file a "
        "CPU, execution/timing_cpu.py): one directory for every worker of the machine, so two jobs timing at "
        "once take different CPUs.",
    )
    replay_result_max_bytes: int = Field(
        64 * 1024 * 1024,
        ge=1,
        description="Result bytes of one replayed statement beyond which its outcome says it was compared "
        "by checksum and row count (UPGRADELAB_REPLAY_RESULT_MAX_BYTES; 64 MiB). Every result is streamed "
        "into its checksums, one row held at a time, whatever its size (measurement/outcomes.py).",
    )

    @field_validator("sign_in_user_limit", "sign_in_address_limit")
    @classmethod
    def _rate_limit(cls, value: str) -> str:
        from limits import parse_many

        parse_many(value)  # ValueError naming what it could not read
        return value

    @field_validator("dataset_dirs", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("dataset_dirs")
    @classmethod
    def _absolute(cls, value: list[Path]) -> list[Path]:
        relative = [str(path) for path in value if not path.is_absolute()]
        if relative:
            raise ValueError(f"UPGRADELAB_DATASET_DIRS: not absolute: {', '.join(relative)}")
        return value

    @property
    def api_base_url(self) -> str:
        """The API's base URL as a worker uses it (no trailing slash)."""
        return (self.api_url or f"http://{self.api_host}:{self.api_port}").rstrip("/")

    @property
    def async_database_url(self) -> str:
        """The metadata database URL for the API (async driver)."""
        return self.database_url or f"sqlite+aiosqlite:///{self.state_dir / 'upgradelab.db'}"

    @property
    def sync_database_url(self) -> str:
        """The same database with its synchronous driver, for the Celery worker and Alembic."""
        url = self.async_database_url
        for async_driver, sync_driver in _SYNC_DRIVERS.items():
            url = url.replace(async_driver, sync_driver, 1) if url.startswith(async_driver) else url
        return url


_SYNC_DRIVERS = {
    "sqlite+aiosqlite": "sqlite+pysqlite",
    "postgresql+asyncpg": "postgresql+psycopg",
    "mysql+aiomysql": "mysql+pymysql",
    "mysql+asyncmy": "mysql+pymysql",
}


@lru_cache
def get_settings() -> Settings:
    """The cached settings of this process."""
    return Settings()
