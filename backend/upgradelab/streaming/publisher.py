"""The worker's side: append each stored iteration and each status change to the job's Redis Stream
(a run's; a replay's and an attribution's through `publish_status` and `publish` with their kind).

Called only after the database commit, so every stream entry is already readable from the database
(the SSE endpoint relies on this at the snapshot/stream seam). Publishing never fails a run: while
Redis is unreachable an event is retried (in order, the run waiting) for up to `redis_outage_s`
seconds, so a Redis restart loses no event; after that it is logged and dropped, and the viewers
fall back to the stored results.
"""

import json
import logging
import time
from functools import lru_cache
from typing import Any

from redis import Redis, RedisError
from tenacity import Retrying, before_sleep_log, retry_if_exception_type, stop_after_delay, wait_exponential

from upgradelab.settings import get_settings
from upgradelab.streaming.keys import STREAM_MAXLEN, STREAM_TTL_S, stream_key

log = logging.getLogger(__name__)


@lru_cache
def _redis() -> Redis:
    # Timeouts: a Redis that stops answering must end in a RedisError (and a retry), not a hang.
    return Redis.from_url(get_settings().redis_url, socket_timeout=5, socket_connect_timeout=5)


def publish(
    kind: str, job_id: int, event: dict[str, Any], *, final: bool = False, retry_for_s: float | None = None
) -> None:
    """XADD `event` (JSON, with its "type") to the stream of job `job_id` of `kind` ("run", "replay",
    "attribution"), and with `final` (the job's last event) its expiry STREAM_TTL_S seconds later;
    retried on RedisError for retry_for_s seconds (default: settings.redis_outage_s), then logged
    and dropped."""
    key = stream_key(job_id, kind)
    patience = get_settings().redis_outage_s if retry_for_s is None else retry_for_s
    try:
        for attempt in Retrying(
            retry=retry_if_exception_type(RedisError),
            stop=stop_after_delay(patience),
            wait=wait_exponential(max=2),
            before_sleep=before_sleep_log(log, logging.WARNING),
            reraise=True,
        ):
            with attempt:
                # An XADD that reached Redis just before the connection broke is added again by
                # the retry; the SSE endpoint sends such a repeated iteration as a cursor only.
                pipe = _redis().pipeline()
                pipe.xadd(key, {"data": json.dumps(event)}, maxlen=STREAM_MAXLEN, approximate=True)
                if final:
                    pipe.expire(key, STREAM_TTL_S)
                pipe.execute()
    except RedisError:
        log.exception("publishing %s of %s %s", event.get("type"), kind, job_id)


def forget(kind: str, job_id: int) -> None:
    """Delete the stream of job `job_id` of `kind` (DEL of streaming/keys.py stream_key): called as a
    new job is queued (execution/task.py send_job), so its stream starts empty. SQLite gives a deleted
    job's id to the next job made, and the deleted job's stream outlives it by STREAM_TTL_S: without
    this a viewer resuming from 0-0 read that job's final status first and stopped there. A Redis
    error is logged, never raised (the job is queued regardless; its viewers fall back to the
    database)."""
    try:
        _redis().delete(stream_key(job_id, kind))
    except RedisError:
        log.exception("clearing the stream of %s %s", kind, job_id)


def publish_iteration(
    run_id: int, variant_index: int, variant: str, iteration: int, elapsed_s: float, round_number: int = 1
) -> None:
    """XADD {"type": "iteration", variant_index, variant, iteration, round, elapsed_s, published_at}.

    elapsed_s: seconds, the sum of the iteration's statements (client-side perf_counter); round:
    1-based round of the run's schedule. published_at: Unix seconds (time.time()), for the
    worker-to-browser latency bench.
    """
    publish(
        "run",
        run_id,
        {
            "type": "iteration",
            "variant_index": variant_index,
            "variant": variant,
            "iteration": iteration,
            "round": round_number,
            "elapsed_s": float(elapsed_s),
            "published_at": time.time(),
        },
    )


def publish_status(
    run_id: int,
    fields: dict[str, Any],
    retry_for_s: float | None = None,
    *,
    final: bool = False,
    kind: str = "run",
) -> None:
    """XADD {"type": "status", status?, current_variant?, error?, progress?} when a job's status,
    variant or progress changes (a run's dataset preparation: runs.progress, phase, rows, rows_total,
    bytes, elapsed_s, estimate_s; a replay's step: replay_run.progress; an attribution's:
    attribution.progress; null when done); other fields are left out. `run_id`: the job's id, of
    `kind`. `final`: the caller says the status is one the job never leaves; the stream then
    expires STREAM_TTL_S seconds later."""
    if not fields.keys() & {"status", "current_variant", "progress"}:
        return
    event: dict[str, Any] = {"type": "status"}
    for name in ("status", "current_variant", "error", "progress"):
        if name in fields:
            value = fields[name]
            event[name] = str(value) if name == "status" else value
    publish(kind, run_id, event, final=final, retry_for_s=retry_for_s)
