"""A seeded simulated oracle of concurrent trials (no server, no timing): what each trial of each
variant measured, drawn from a known truth with the noise of a loaded machine, so the decisions
(upgradelab/concurrent_replay/decide.py) are tested deterministically.

Each round shares a load factor (every variant's trial of that round sees it, as interleaved
trials do); each trial adds its own noise. `truth[variant]` scales throughput (`rate`) and every
fingerprint's p95 (`p95`), adds error codes (`errors`: code -> (probability a trial hits it, count
when it does)), lock time (`lock_ms`) and a final checksum per table (`tables`: name -> checksum);
`server_p95`: the server's own p95 per fingerprint as a factor (its base 3 ms; None: the server
keeps no digest quantiles, as MariaDB, said in the summary's `server_clock`).
"""

from dataclasses import dataclass, field

import numpy as np

from upgradelab.concurrent_replay.report import TrialRecord
from upgradelab.execution.schedule import plan
from upgradelab.measurement import (
    DIGEST_SOURCE,
    ErrorSample,
    FingerprintLatency,
    LockCounters,
    ServerLocks,
    TrialSummary,
)

FINGERPRINTS = {"c1": "select v from c where id = ?", "c2": "update c set v = v ? ? where id = ?"}


@dataclass
class Truth:
    """What a variant really does (module docstring)."""

    rate: float = 1.0
    p95: dict[str, float] = field(default_factory=dict)
    errors: dict[int, tuple[float, int]] = field(default_factory=dict)
    lock_ms: float = 100.0
    tables: dict[str, str] = field(default_factory=lambda: {"shop.c": "same"})
    server_p95: dict[str, float] | None = None


def trials(
    truths: dict[str, Truth], rounds: int = 5, seed: int = 7, noise: float = 0.02, load: float = 0.15
) -> list[TrialRecord]:
    """Every variant's trials over `rounds` interleaved rounds (execution/schedule.py plan, `seed`)."""
    rng = np.random.default_rng(seed)
    names = list(truths)
    schedule = plan("interleaved", rounds, 1, seed, len(names))
    out: list[TrialRecord] = []
    for number, order in enumerate(schedule.order, start=1):
        round_load = float(np.exp(rng.normal(0, load)))
        for position, index in enumerate(order):
            truth = truths[names[index]]
            out.append(_trial(names[index], number, position, truth, round_load, rng, noise))
    return out


def _trial(
    variant: str,
    number: int,
    position: int,
    truth: Truth,
    round_load: float,
    rng: np.random.Generator,
    noise: float,
) -> TrialRecord:
    own = float(np.exp(rng.normal(0, noise)))
    rate = 1000.0 * truth.rate / round_load * own
    wall = 10.0
    errors = []
    for code, (chance, count) in sorted(truth.errors.items()):
        if rng.random() < chance:
            errors.append(
                ErrorSample(
                    code=code,
                    count=count,
                    sql="UPDATE c SET v = v + 1 WHERE id = 1",
                    session=0,
                    thread_id=11,
                    order=2,
                    message=f"error {code}",
                )
            )
    latencies = [
        FingerprintLatency(
            class_id=class_id,
            fingerprint=text,
            statements=500,
            errors=0,
            p50_s=0.001 * round_load * own,
            p95_s=0.004 * truth.p95.get(class_id, 1.0) * round_load * float(np.exp(rng.normal(0, noise))),
            p99_s=0.01 * round_load * own,
            server_p95_s=None
            if truth.server_p95 is None
            else 0.003 * truth.server_p95.get(class_id, 1.0) * own,
            server_statements=None if truth.server_p95 is None else 500,
        )
        for class_id, text in FINGERPRINTS.items()
    ]
    clock = (
        DIGEST_SOURCE
        if truth.server_p95 is not None
        else "server clock not available: performance_schema is OFF"
    )
    summary = TrialSummary(
        sessions=8, statements=int(rate * wall), transactions=int(rate * wall / 5), wall_s=wall,
        statements_per_s=rate, transactions_per_s=rate / 5, behind_s=None, stopped=None,
        errors=errors, latencies=latencies, rows_changed=int(rate), server_clock=clock,
    )  # fmt: skip
    locks = ServerLocks(
        counters=LockCounters(
            row_lock_waits=10, row_lock_time_ms=int(truth.lock_ms * own * round_load), deadlocks=0
        ),
        waits=None,
        last_deadlock=None,
    )
    return TrialRecord(
        variant=variant, round=number, position=position, copy_s=0.2, copy_bytes=1 << 27,
        summary=summary, locks=locks, checksums=dict(truth.tables),
    )  # fmt: skip
