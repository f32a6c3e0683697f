"""A trial summed up (measurement/trial_summary.py): client p50/p95/p99 per fingerprint over the
statements that ran without error, errors by code with the first failure's statement, session and
thread, rows changed by writes only, and a trial summed with another source's sessions refused."""

from typing import Any

import pytest

from upgradelab.measurement import (
    Session,
    SessionStatement,
    StatementRun,
    TrialRun,
    summarize_trial,
)


def _session(number: int, thread: int, *sqls: str) -> Session:
    statements = [SessionStatement(sql=sql, order=n, offset_s=0, line=n + 1) for n, sql in enumerate(sqls)]
    return Session(number=number, thread_id=thread, statements=statements)


def _run(session: int, order: int, fingerprint: str, **fields: Any) -> StatementRun:
    return StatementRun(
        session=session, order=order, fingerprint=fingerprint, class_id=fingerprint[:6], started_s=0, **fields
    )


SESSIONS = [
    _session(0, 11, "BEGIN", "SELECT v FROM c WHERE id = 1", "UPDATE c SET v = v + 1 WHERE id = 1", "COMMIT"),
    _session(1, 12, "UPDATE c SET v = v + 1 WHERE id = 1", "SELECT v FROM c WHERE id = 2"),
]


def test_percentiles_errors_and_rows_changed() -> None:
    select, update = "select v from c where id = ?", "update c set v = v ? ? where id = ?"
    runs = [
        _run(0, 0, "begin", latency_s=0.0001, rows=0),
        _run(0, 1, select, latency_s=0.001, rows=1),
        _run(0, 2, update, latency_s=0.5, error_code=1020, error="Record has changed since last read"),
        _run(0, 3, "commit", latency_s=0.0002, rows=0),
        _run(1, 0, update, latency_s=0.002, rows=1),
        _run(1, 1, select, latency_s=0.003, rows=1),
    ]
    trial = TrialRun(
        statements=runs, sessions=2, wall_s=2.0, transactions=2, statements_per_s=3.0, transactions_per_s=1.0
    )
    summary = summarize_trial(trial, SESSIONS)
    assert summary.statements == 6 and summary.rows_changed == 1  # T2's update; T1's failed
    [error] = summary.errors
    assert (error.code, error.count, error.session, error.thread_id, error.order) == (1020, 1, 0, 11, 2)
    assert error.sql == "UPDATE c SET v = v + 1 WHERE id = 1" and error.message.startswith("Record has")
    by = {one.fingerprint: one for one in summary.latencies}
    assert (by[select].statements, by[select].errors) == (2, 0)
    assert by[select].p50_s == pytest.approx(0.002) and by[select].p95_s == pytest.approx(0.0029)
    assert (by[update].statements, by[update].errors) == (1, 1)
    assert by[update].p99_s == pytest.approx(0.002)  # the failed one's 0.5 s is not a latency
    assert summary.behind_s is None and summary.stopped is None


def test_a_timeout_is_code_0_and_a_foreign_statement_is_refused() -> None:
    runs = [_run(1, 1, "select v from c where id = ?", error="timed out after 5 s", timed_out=True)]
    trial = TrialRun(
        statements=runs, sessions=2, wall_s=5.0, transactions=0, statements_per_s=0.2, transactions_per_s=0
    )
    summary = summarize_trial(trial, SESSIONS)
    assert [(e.code, e.count) for e in summary.errors] == [(0, 1)] and summary.statements == 1
    assert summary.latencies[0].p95_s is None
    foreign = TrialRun(
        statements=[_run(7, 0, "x")],
        sessions=1,
        wall_s=1,
        transactions=0,
        statements_per_s=1,
        transactions_per_s=0,
    )
    with pytest.raises(ValueError, match="statement 0 of session 7: not in the trial's sessions"):
        summarize_trial(foreign, SESSIONS)
