"""A replay spread over the hosts of its worker pool (issue 51, item 4): one replay job, one status,
cancel, progress and report; its statements in shards, each run on one host with every variant, so
every comparison stays paired on one machine.

One concept: the coordinator's side of a sharded replay (choosing the hosts, sending and watching the
shards, their progress summed, their results sealed, awaited and merged), one lifecycle read top to
bottom; the shards' own side is shard_runner.py, the pure split and merge shards.py.

Who runs what. The replay's own task (runner.py execute_replay, its lease and target locks as
always) is the coordinator: when the replay asks for shards (ReplayRun.shards: 0 as many as the
pool's live workers, N at most N) and its pool has more than one live worker (pools/heartbeat.py),
`plan_shards` picks the hosts: its own worker first, then the others by name, one shard per worker,
no more shards than fingerprints. The statements are split by shards.split (whole fingerprints,
balanced by cost). A `replay_shard` row per shard (models.py ReplayShard); shard 0 runs in the
coordinator's own worker, every other is sent to its worker's own queue (Celery's worker_direct
queue `<node>.dq2`, worker.py) as a task of its own kind (jobs.py REPLAY_SHARD_JOBS, shard_runner.py):
its own lease and heartbeat, its rounds on its own instances (slots after the ones another shard on
the same machine takes), its result stored sealed in its row.

One replay. Progress is the sum of the shards' rounds, written to the replay's row (its stream, its
page). A cancel of the replay is seen by every shard's own cancel watch (the replay's flag, or the
replay or the shard final): each ends its statement with KILL QUERY and stops. The coordinator waits
for every shard; the replay fails, naming the shard and its worker, when a shard fails, when no
worker took a shard within SHARD_START_S, or when a shard's lease expired (its worker gone: the
coordinator ends that shard as the reaper would, "worker lost", within SHARD_POLL_S of the expiry;
a coordinator gone is reaped as any replay, and its end ends its shards: jobs.py end_shards). A
failure found while shard 0 runs makes the replay and every shard final at once (lifecycle.py
end_now), and only then are shard 0's servers stopped (its statement killed, its instances ended,
the sweep): the other hosts' shards stop meanwhile, as they do when the reaper ends a replay whose
own worker is gone (jobs.py: `ends_first`). Once
all succeeded, shards.merge and compare run once over every statement: Benjamini-Hochberg and the
summary over every fingerprint, each fingerprint net of its own host's `DO 0`.

A cancelled one keeps what every shard measured, marked partial, as an unsharded one does (the
statements each shard captured on every variant). The report's per-statement cost has one line per
variant and host, each on its host's own null statement (document.statement_costs). Every shard
plans the same rounds from the replay's id and extends its own undecided fingerprints, so each
shard's schedule is the first rounds of the longest: the one stored (runner._longest, once the
shards are merged; shard 0's extensions are stored as they come); the report says where each shard
ran, its fingerprints and rounds (`sharding`), and each fingerprint its host and rounds.

A shard's result crosses hosts through the metadata database as pickled VariantReplays (they hold
arrays and dataclasses no JSON schema reads back), sealed with an HMAC-SHA256 keyed by the worker
credential (pools/credential.py): a row not written by a worker of the lab is refused, never
unpickled. The API never reads it.
"""

import hashlib
import hmac
import logging
import os
import pickle
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from celery.utils import worker_direct
from redis import Redis
from sqlalchemy import select

from upgradelab.db import sync_session, utcnow
from upgradelab.execution import leases
from upgradelab.execution.kinds import Ending
from upgradelab.execution.periodic import Periodic
from upgradelab.execution.status import JobStatus
from upgradelab.execution.task import send_job
from upgradelab.measurement import Interrupt, ReplayCancelled, SourceStatement, VariantReplay
from upgradelab.pools.credential import worker_token
from upgradelab.pools.heartbeat import live_workers_now
from upgradelab.pools.schemas import WorkerRead
from upgradelab.replay import shards, state
from upgradelab.replay.jobs import REPLAY_SHARD_JOBS, REPLAY_SHARDS
from upgradelab.replay.models import ReplayShard
from upgradelab.replay.schemas import ReplayProgress, ShardProgress
from upgradelab.settings import Settings
from upgradelab.workloads.base import DatasetProgress

log = logging.getLogger(__name__)

SHARD_POLL_S = 0.5  # how often the coordinator reads its shards' rows
SHARD_START_S = 120.0  # a shard no worker took by then fails the replay (its worker is gone)
CANCEL_WAIT_S = 30.0  # how long a cancelled coordinator waits for its shards to stop
_ROUND = re.compile(r"round (\d+) of (?:at most )?(\d+)")  # engine.replay_rounds' round phases

_written: dict[int, str] = {}  # replay id -> its progress phase last written (_sum_progress)
# (report, step) of engine.replay_rounds: a variant's dump progress and each phase it enters
Progress = tuple[Callable[[str, DatasetProgress], None], Callable[[str, str], None]]


class ShardFailed(RuntimeError):
    """A shard of the replay failed; the message names it, its worker and why."""


@dataclass
class Own:
    """What one worker runs of a replay (runner.run_rounds): its statements, the slot its first
    variant takes on each target, whether it stores the extension's schedules (the replay's own
    worker only) and where its progress goes (None: the replay's row, as an unsharded replay's)."""

    statements: list[SourceStatement]
    first_slot: int = 0
    stores_schedule: bool = True
    progress: Progress | None = None


@dataclass(frozen=True)
class ShardPlan:
    """Shard `number` of a replay: its statements' indexes (shards.split), the worker it runs on
    (Celery node name) and the first slot its instances take (module docstring)."""

    number: int
    statements: list[int]
    worker: WorkerRead
    first_slot: int


def plan_shards(
    replay_id: int, asked: int, statements: list[SourceStatement], variants: int, settings: Settings
) -> list[ShardPlan] | None:
    """The replay's shards (module docstring) or None: run unsharded, as always (asked 1; the pool
    has one live worker; this worker is not among the live ones; one fingerprint). asked: 0 as many
    as the pool's live workers, N at most N."""
    if asked == 1:
        return None
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        workers = [w for w in live_workers_now(redis) if w.pool == settings.pool]
    finally:
        redis.close()
    me = next(
        (w for w in workers if w.pid in (os.getpid(), os.getppid()) and w.host == socket.gethostname()), None
    )
    fingerprints = len({s.fingerprint_id for s in statements})
    count = min(len(workers) if asked == 0 else asked, len(workers), fingerprints)
    if me is None or count < 2:
        log.info(
            "replay %s: %d shards asked, %d live workers in pool %s (this one %s): not sharded",
            replay_id, asked, len(workers), settings.pool, "listed" if me else "not listed",
        )  # fmt: skip
        return None
    chosen = [me, *[w for w in workers if w is not me][: count - 1]]
    split = shards.split(statements, count)
    out, on_host = [], dict[str, int]()
    for number, (worker, indexes) in enumerate(zip(chosen, split, strict=True)):
        before = on_host.get(worker.host, 0)  # shards before this one on the same machine
        on_host[worker.host] = before + 1
        out.append(ShardPlan(number, indexes, worker, before * variants))
    return out


def seal(replays: list[VariantReplay], settings: Settings, captured: int | None = None) -> bytes:
    """A shard's result for its row: the HMAC-SHA256 (32 bytes, keyed by the worker credential)
    then the pickled (replays, captured): `captured` the statements a cancelled shard captured on
    every variant (engine.ReplayCancelled; None: it ran to its end)."""
    body = pickle.dumps((replays, captured), protocol=pickle.HIGHEST_PROTOCOL)
    return hmac.new(worker_token(settings).encode(), body, hashlib.sha256).digest() + body


def unseal(sealed: bytes, settings: Settings) -> tuple[list[VariantReplay], int | None]:
    """seal's (replays, captured); ShardFailed when its seal is not the worker credential's (never
    unpickled)."""
    mac, body = sealed[:32], sealed[32:]
    if not hmac.compare_digest(mac, hmac.new(worker_token(settings).encode(), body, hashlib.sha256).digest()):
        raise ShardFailed("a shard's result is not sealed by this lab's worker credential: refused")
    replays, captured = pickle.loads(body)  # sealed by a worker: checked above
    return replays, captured


def shard_progress(shard_id: int, replay_id: int | None = None) -> Progress:
    """(report, step) writing shard `shard_id`'s row progress ({"phase", "round", "rounds"}: the
    rounds its step phases name); with `replay_id`, the replay's summed progress too (shard 0's,
    run by the coordinator)."""

    def step(variant: str, phase: str) -> None:
        rounds = _ROUND.match(phase)
        with sync_session() as session:
            row = session.get(ReplayShard, shard_id)
            if row is None or JobStatus(row.status).is_final:
                return
            now = row.progress or ShardProgress()
            if rounds:  # round N begins: N - 1 done
                now = now.model_copy(update={"round": int(rounds[1]) - 1, "rounds": int(rounds[2])})
            row.progress = now.model_copy(update={"phase": f"{variant}: {phase}"})
            session.commit()
        if replay_id is not None:
            _sum_progress(replay_id, variant)

    def report(variant: str, progress: DatasetProgress) -> None:
        step(variant, str(progress.as_dict().get("phase", "loading the dataset")))

    return report, step


def coordinate(
    replay_id: int,
    plans: list[ShardPlan],
    run_own: Callable[[Own], list[VariantReplay]],
    report: Callable[[list[VariantReplay], list[int | None], shards.Spread], Ending],
    interrupt: Interrupt,
    settings: Settings,
    statements: list[SourceStatement],
    partial: Callable[[list[SourceStatement], list[VariantReplay], list[int | None], shards.Spread], None],
    end_now: Callable[[Ending], object],
) -> Ending:
    """The sharded replay in its own worker (module docstring): the shard rows made, shards 1.. sent
    to their workers, shard 0 run here (`run_own`) while a watch reads the others every SHARD_POLL_S
    (a failed or lost one interrupts it, once `end_now(ending)` wrote the replay's final state and
    its shards'), the others awaited, the results merged and
    `report(replays, null_of, spread)` called (spread: where they ran, shards.Spread); its Ending.
    Cancelled once `interrupt` is set by a cancel: what every shard captured merged and given to
    `partial(statements kept, replays, null_of, spread)` (the partial report);
    ShardFailed (the replay fails with its words) when a shard fails or is lost. Every shard not
    final when it returns is ended (cancelled, or failed "the replay ended")."""
    ids = _make_rows(replay_id, plans)
    for plan in plans[1:]:
        send_job(REPLAY_SHARD_JOBS, ids[plan.number], worker_direct(plan.worker.name).name)
    log.info("replay %s: %d shards on %s", replay_id, len(plans), ", ".join(p.worker.name for p in plans))
    others = _Others(replay_id, plans, ids, settings)
    ended = Ending(JobStatus.failed, "the replay ended")
    try:
        own = Own(
            [statements[i] for i in plans[0].statements],
            plans[0].first_slot,
            progress=shard_progress(ids[0], replay_id),
        )

        def watch() -> bool:  # while shard 0 runs: a failed shard ends the replay, then stops it
            failure = others.failure()
            if failure is not None:
                end_now(Ending(JobStatus.failed, failure))
                interrupt.set()
                return False
            _sum_progress(replay_id)
            return True

        try:
            with Periodic(f"shards-of-replay-{replay_id}", SHARD_POLL_S, watch):
                mine = run_own(own)
        except ReplayCancelled as cancelled:
            others.raise_failure()
            ended = _cancelled(
                ids, plans, statements, (cancelled.replays, cancelled.captured), partial, settings
            )
            return ended
        _finish(ids[0], JobStatus.succeeded)
        while not others.succeeded():
            others.raise_failure()
            if interrupt.is_set:
                ended = _cancelled(ids, plans, statements, (mine, None), partial, settings)
                return ended
            _sum_progress(replay_id)
            time.sleep(SHARD_POLL_S)
        split = [p.statements for p in plans]
        merged = shards.merge(statements, split, [mine, *others.results()])
        ended = report(
            merged.replays, merged.null_of, shards.spread(statements, split, merged, _hosts(plans))
        )
        return ended
    finally:
        _written.pop(replay_id, None)
        end_status = JobStatus.cancelled if ended.status == JobStatus.cancelled else JobStatus.failed
        for shard_id in ids.values():
            _finish(shard_id, end_status, None if end_status == JobStatus.cancelled else ended.error)


class _Others:
    """The shards other than the coordinator's, as their rows say (read anew by each call)."""

    def __init__(
        self, replay_id: int, plans: list[ShardPlan], ids: dict[int, int], settings: Settings
    ) -> None:
        self.replay_id, self.plans, self.settings = replay_id, plans, settings
        self.ids = [ids[p.number] for p in plans[1:]]
        self.sent = time.monotonic()
        self._failure: str | None = None
        self._rows: dict[int, ReplayShard] = {}

    def _read(self) -> dict[int, ReplayShard]:
        with sync_session() as session:
            rows = {r.id: r for r in session.scalars(select(ReplayShard).where(ReplayShard.id.in_(self.ids)))}
            for row in rows.values():
                session.expunge(row)
        self._rows = rows
        return rows

    def failure(self) -> str | None:
        """Why a shard failed (naming it and its worker), None while none did: a shard failed by its
        worker, not taken within SHARD_START_S, or whose lease expired (ended here
        as the reaper ends a job: failed, "worker lost"). Kept once found."""
        if self._failure is not None:
            return self._failure
        for shard_id, row in self._read().items():
            where = f"shard {row.shard + 1} of {len(self.plans)} (worker {row.worker})"
            if row.status == JobStatus.failed:  # a cancelled one: the replay's cancel, seen by its own watch
                self._failure = f"{where}: {row.error or 'failed'}"
            elif row.status == JobStatus.queued and time.monotonic() - self.sent > SHARD_START_S:
                self._failure = f"{where}: no worker took it within {SHARD_START_S:.0f} s"
            elif row.status == JobStatus.running and _lost(shard_id):
                self._failure = f"{where}: worker lost (its lease expired)"
            if self._failure is not None:
                log.warning("replay %s: %s", self.replay_id, self._failure)
                return self._failure
        return None

    def raise_failure(self) -> None:
        """ShardFailed with failure()'s words when a shard failed."""
        found = self.failure()
        if found is not None:
            raise ShardFailed(found)

    def succeeded(self) -> bool:
        """Whether every other shard succeeded (its rows as read by the last failure())."""
        return bool(self._rows) and all(r.status == JobStatus.succeeded for r in self._rows.values())

    def results(self) -> list[list[VariantReplay]]:
        """Their results in shard order (unsealed); once succeeded()."""
        by_id = self._rows
        return [unseal(by_id[shard_id].result or b"", self.settings)[0] for shard_id in self.ids]


def _make_rows(replay_id: int, plans: list[ShardPlan]) -> dict[int, int]:
    """shard number -> its row's id; shard 0 `running` (the coordinator's), the others `queued`."""
    with sync_session() as session:
        rows = {
            plan.number: ReplayShard(
                replay_id=replay_id,
                shard=plan.number,
                statements=plan.statements,
                worker=plan.worker.name,
                first_slot=plan.first_slot,
                status=JobStatus.running if plan.number == 0 else JobStatus.queued,
                started_at=utcnow() if plan.number == 0 else None,
            )
            for plan in plans
        }
        session.add_all(rows.values())
        session.commit()
        return {number: row.id for number, row in rows.items()}


def _finish(shard_id: int, status: str, error: str | None = None) -> None:
    """End shard `shard_id` with `status` unless it is final already (its lease dropped: its worker's
    next renewal finds it lost, its cancel watch stops it)."""
    with sync_session() as session:
        row = session.get(ReplayShard, shard_id)
        if row is None or JobStatus(row.status).is_final:
            return
        row.status, row.error, row.finished_at = status, error, utcnow()
        row.lease_owner = row.lease_expires_at = None
        if status == JobStatus.succeeded and row.progress and row.progress.rounds:
            row.progress = row.progress.model_copy(update={"round": row.progress.rounds})
        session.commit()


def _cancelled(
    ids: dict[int, int],
    plans: list[ShardPlan],
    statements: list[SourceStatement],
    own: tuple[list[VariantReplay], int | None],
    partial: Callable[[list[SourceStatement], list[VariantReplay], list[int | None], shards.Spread], None],
    settings: Settings,
) -> Ending:
    """A cancelled replay's end: its shards awaited until each stopped or stored what it measured
    (their watches see the replay's flag, and a shard stores it before its servers stop:
    shard_runner.py; at most CANCEL_WAIT_S), then what each captured on every variant (shard 0's
    `own`: its replays and captured statements, None: all) merged and given to `partial`; none when
    no statement was captured on every variant of a shard. A shard that stored nothing by then is
    left out (its statements are not in the partial report)."""
    deadline = time.monotonic() + CANCEL_WAIT_S
    others = [ids[p.number] for p in plans[1:]]
    waited = select(ReplayShard.status, ReplayShard.result.is_not(None)).where(ReplayShard.id.in_(others))
    while time.monotonic() < deadline:
        with sync_session() as session:
            rows = session.execute(waited).all()
        if not any(status == JobStatus.running and not kept for status, kept in rows):  # queued: ended after
            break
        time.sleep(SHARD_POLL_S)
    with sync_session() as session:
        sealed = {
            r.id: r.result for r in session.scalars(select(ReplayShard).where(ReplayShard.id.in_(others)))
        }
    parts = [own, *(unseal(found, settings) if (found := sealed.get(i)) else ([], 0) for i in others)]
    kept = [
        plan.statements[: len(plan.statements) if n is None else n]
        for plan, (_, n) in zip(plans, parts, strict=True)
    ]
    if any(kept):
        keep = sorted(i for indexes in kept for i in indexes)
        position = {index: place for place, index in enumerate(keep)}
        kept_statements = [statements[i] for i in keep]
        split = [[position[i] for i in indexes] for indexes in kept]
        try:
            merged = shards.merge(
                kept_statements,
                split,
                [replays if indexes else [] for indexes, (replays, _) in zip(kept, parts, strict=True)],
            )
            spread = shards.spread(kept_statements, split, merged, _hosts(plans))
            partial(kept_statements, merged.replays, merged.null_of, spread)
        except shards.ShardMismatch as mismatch:  # a shard cut while its servers started
            log.warning("a cancelled sharded replay keeps no partial report: %s", mismatch)
    return Ending(JobStatus.cancelled)


def _hosts(plans: list[ShardPlan]) -> list[str]:
    """Each shard's worker (its Celery node name), in shard order."""
    return [plan.worker.name for plan in plans]


def _lost(shard_id: int) -> bool:
    """Whether the shard's lease expired (its worker gone); it is then taken and ended failed."""
    owner = "coordinator:" + leases.new_owner()
    if not leases.take_over_expired(shard_id, owner, 60.0, REPLAY_SHARDS):
        return False
    leases.finish(
        shard_id, owner, REPLAY_SHARDS, status=JobStatus.failed, error="worker lost", finished_at=utcnow()
    )
    return True


def _sum_progress(replay_id: int, variant: str | None = None) -> None:
    """The replay's progress: its shards' rounds summed, each shard's phase after them ("3 of 10
    rounds on 2 hosts (shard 1: mariadb-11.8: round 2 of 5; shard 2: ...)"); `variant` the one shard 0
    is on (None: as its phase says). Written only when it changed since the last write."""
    with sync_session() as session:
        rows = session.scalars(
            select(ReplayShard).where(ReplayShard.replay_id == replay_id).order_by(ReplayShard.shard)
        ).all()
        parts = [r.progress or ShardProgress() for r in rows]
    done = sum(p.round for p in parts)
    planned = sum(p.rounds or 0 for p in parts)
    each = "; ".join(f"shard {n + 1}: {p.phase}" for n, p in enumerate(parts))
    phase = (
        f"{done} of {planned} rounds on {len(parts)} hosts ({each})"
        if planned
        else f"{len(parts)} hosts ({each})"
    )
    if _written.get(replay_id) == phase:
        return
    _written[replay_id] = phase
    name = variant or (parts[0].phase.split(":")[0] if parts else "") or "shards"
    progress = ReplayProgress(variant=name, index=1, of=1, phase=phase)
    state.write(replay_id, progress=progress.model_dump(mode="json"))
