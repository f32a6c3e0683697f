"""A concurrent replay's API shapes: the request (ConcurrentReplayCreate), the job as read
(ConcurrentReplayRead) and its progress as stored and streamed (ConcurrentProgress)."""

from datetime import datetime
from typing import Literal

from pydantic import Field

from upgradelab.concurrent_replay.report import ConcurrentReport, TrialRecord
from upgradelab.execution.schedule import RunSchedule
from upgradelab.execution.status import JobStatus
from upgradelab.experiments.schemas import VariantSpec
from upgradelab.measurement import MAX_SESSIONS, CutPart, ReadShape, ReplayVariantSpec
from upgradelab.request_model import RequestModel
from upgradelab.targets.statement_timeout import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S
from upgradelab.users.tokens import SharedFlag, ShownOnce

MAX_LOG_CHARS = 50_000_000
# a break (an error, the data at the end) decides at 5 trials a variant; a time verdict at 10: at 5
# the paired interval (20 % trimmed, 3 rounds kept) is about +-9 % wide at 2 % noise per trial
# (tests/concurrent_replay/test_decide.py)
DEFAULT_ROUNDS = 10

Step = Literal["preparing", "copy", "start", "trial", "checksum", "deciding"]


class ConcurrentProgress(ReadShape):
    """Where a concurrent replay is: `step` (preparing a variant's dataset, or a trial's phase:
    copy, start, trial, checksum; deciding at the end), the `variant` (its name) and its `index` of
    `of` variants, the `round` of `rounds` (None while preparing), and `trials_done` of
    `trials_planned` (every variant's trials together)."""

    step: Step
    variant: str | None = None
    index: int | None = None
    of: int
    round: int | None = None
    rounds: int
    trials_done: int = 0
    trials_planned: int


class ConcurrentReplayCreate(RequestModel):
    """A concurrent replay: the sessions of `log` (the text of a general log, or a slow log written
    with long_query_time=0: `format`) replayed together on dataset `dataset`, each trial from the
    same loaded data, on every variant (experiments/schemas.py VariantSpec: target, preset, name,
    startup `options`; the first is the baseline; lab targets that are disposable only: the replay
    writes), `rounds` interleaved rounds (every variant one trial a round; a break decides from 5, a
    time verdict needs about 10), the gaps between a session's statements kept at `speed` (1 as
    recorded, 0 as fast as possible), every statement bounded by `statement_timeout_s` seconds and a trial by
    `max_trial_s`, at most `max_sessions` sessions at once. `aa_control`: a second instance of the
    baseline, "<baseline> (A/A)" (the last variant): its trials are the noise floor of every verdict
    and the reference errors and data are compared with."""

    name: str | None = Field(None, max_length=200)
    dataset: str = Field(min_length=1, max_length=64)
    log: str = Field(min_length=1, max_length=MAX_LOG_CHARS)
    format: Literal["general", "slow"] = "general"
    variants: list[VariantSpec] = Field(min_length=1, max_length=8)
    rounds: int = Field(DEFAULT_ROUNDS, ge=1, le=100)
    speed: float = Field(1.0, ge=0, le=100)
    statement_timeout_s: float = Field(DEFAULT_TIMEOUT_S, ge=MIN_TIMEOUT_S, le=MAX_TIMEOUT_S)
    max_trial_s: float = Field(600.0, gt=0, le=3600)
    max_sessions: int = Field(256, ge=1, le=MAX_SESSIONS)
    aa_control: bool = False


class ConcurrentReplayRead(ReadShape):
    """A concurrent replay as the API shows it: its spec, the sessions read (`sessions`,
    `statements`, `transactions`, `duration_s` of the source, `cut`: what the source cut,
    listed), its status, progress, schedule, every trial's record so far and the report once
    decided; `share_token` in a share's answer only, `shared` whether a link is live."""

    id: int
    name: str
    dataset_id: int
    status: JobStatus
    error: str | None
    source_format: str
    variants: list[ReplayVariantSpec]
    rounds: int
    speed: float
    statement_timeout_s: float
    max_trial_s: float
    max_sessions: int
    sessions: int
    statements: int
    transactions: int
    duration_s: float
    cut: list[CutPart]
    progress: ConcurrentProgress | None
    schedule: RunSchedule | None
    trials: list[TrialRecord]
    report: ConcurrentReport | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    share_token: ShownOnce = None
    shared: SharedFlag = False
