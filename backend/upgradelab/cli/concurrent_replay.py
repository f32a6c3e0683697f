"""`upgradelab replay --concurrent`: a general or slow log's sessions replayed together on a dataset
across variants (the concurrent replay kind, /api/concurrent-replays), for CI pipelines.

Exit status, a bitmask of what the report decided (as `upgradelab replay`'s):
  1  breaks (an error code a variant's trials hit more often than the baseline's and the A/A's,
     or a table that ends with other data)
  2  slower (throughput or a fingerprint's p95, decided over the trials)
  8  the replay could not run (refused, failed, cancelled, API unreachable, timed out waiting)
"""

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import httpx
import typer

from upgradelab.cli.client import auth_headers, error_text

if TYPE_CHECKING:
    from upgradelab.concurrent_replay.report import ConcurrentReport, ConcurrentVerdict
    from upgradelab.concurrent_replay.schemas import ConcurrentReplayRead

CANNOT_RUN = 8
_SLOW_MARKS = ("# Time:", "# User@Host:")

# `upgradelab replay`'s options that route it here
ConcurrentOption = Annotated[
    bool,
    typer.Option(
        "--concurrent",
        help="Replay the log's sessions together, writes included, each trial from the same data "
        "(disposable lab targets; --rounds trials per variant: a break decides from 5, a time verdict ~10).",
    ),
]
SpeedOption = Annotated[
    float,
    typer.Option(min=0, help="With --concurrent: the gaps' factor (1 as recorded, 0 as fast as possible)."),
]


def body(
    dataset: str | None, log: Path, variants: list[Any], rounds: int, speed: float, aa_control: bool
) -> dict[str, Any]:
    """The API's ConcurrentReplayCreate for `upgradelab replay --concurrent`: the log's text and its
    format (`log_format`), the rest as given."""
    text = log.read_text(errors="replace")
    return {
        "dataset": dataset, "log": text, "format": log_format(text), "variants": variants, "rounds": rounds,
        "speed": speed, "aa_control": aa_control,
    }  # fmt: skip


def log_format(text: str) -> str:
    """ "slow" when the log's first 64 KiB hold a slow log's header (`# Time:`, `# User@Host:`),
    else "general"."""
    head = text[:65536]
    return "slow" if any(mark in head for mark in _SLOW_MARKS) else "general"


def report_lines(report: "ConcurrentReport") -> list[str]:
    """The report as the CLI prints it: per variant its groups, then each break (an error code with
    its count per trial and sample, a table), each slower or faster verdict with its causes (a p95's
    client and server medians beside), the clock the verdicts are on and each variant's server
    clock, and the false-discovery sentence."""
    lines = [
        f"{g.variant}: {g.breaks} breaks, {g.slower} slower, {g.faster} faster, {g.same} same, "
        f"{g.undecided} undecided over {g.trials} trials "
        f"(copy {g.copy_s or 0:.2f} s, trial {g.wall_s or 0:.1f} s)"
        for g in report.groups
    ]
    for error in report.errors:
        if error.group == "breaks":
            sample = error.sample
            lines.append(
                f"break {error.variant}: {error.reason}; per trial {error.per_trial}; first in session "
                f"{sample.session} (thread {sample.thread_id}): {sample.sql}: {sample.message}"
            )
    lines += [f"break {t.variant}: {t.reason}" for t in report.tables if t.group == "breaks"]
    for one in [*report.throughput, *report.fingerprints]:
        if one.group in ("slower", "faster"):
            what = f"p95 of {one.fingerprint}" if one.metric == "p95" else one.metric
            causes = f" ({'; '.join(one.causes)})" if one.causes else ""
            lines.append(f"{one.group} {one.variant}: {what}: {one.reason}{causes}{_p95_beside(one)}")
    lines.append(f"clock: {report.clock}")
    lines += [f"  {variant}: {said}" for variant, said in report.server_clocks.items()]
    lines.append(report.fdr)
    return lines


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.2f}"


def _p95_beside(one: "ConcurrentVerdict") -> str:
    """A p95 verdict's medians, baseline -> variant in ms: the client's (its verdict's clock), then
    the server's where it has one; "" for a throughput verdict."""
    if one.metric != "p95":
        return ""
    return (
        f"; client p95 {_ms(one.baseline_median)} -> {_ms(one.variant_median)} ms, "
        f"server p95 {_ms(one.baseline_server_p95_s)} -> {_ms(one.variant_server_p95_s)} ms"
    )


def exit_bits(report: "ConcurrentReport") -> int:
    """The exit status's bits of a decided report (module docstring)."""
    found = {e.group for e in report.errors} | {t.group for t in report.tables}
    found |= {v.group for v in [*report.throughput, *report.fingerprints]}
    return (1 if "breaks" in found else 0) | (2 if "slower" in found else 0)


def run(base: str, body: dict[str, Any], timeout: float, token: str | None, as_json: bool) -> int:
    """Submit the concurrent replay `body` (ConcurrentReplayCreate's fields), wait for it (progress on
    stderr), print its report; the exit status (module docstring)."""
    from upgradelab.concurrent_replay.schemas import ConcurrentReplayRead
    from upgradelab.execution.status import FINAL_STATUSES

    try:
        with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
            created = client.post("/api/concurrent-replays", json=body)
            if created.status_code != 201:
                typer.echo(f"concurrent replay refused: {error_text(created)}", err=True)
                return CANNOT_RUN
            job_id = ConcurrentReplayRead.model_validate(created.json()).id
            typer.echo(f"concurrent replay {job_id} queued", err=True)
            deadline = time.monotonic() + timeout
            shown = None
            while True:
                result = ConcurrentReplayRead.model_validate(
                    client.get(f"/api/concurrent-replays/{job_id}").json()
                )
                if result.status in FINAL_STATUSES or time.monotonic() > deadline:
                    break
                if result.progress and result.progress != shown:
                    shown = result.progress
                    typer.echo(_progress_text(result), err=True)
                time.sleep(1.0)
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        return CANNOT_RUN
    return _print(result, as_json)


def _progress_text(result: "ConcurrentReplayRead") -> str:
    progress = result.progress
    assert progress is not None
    where = f"round {progress.round}/{progress.rounds} " if progress.round else ""
    return (
        f"{where}{progress.variant or ''}: {progress.step} "
        f"({progress.trials_done}/{progress.trials_planned} trials done)"
    )


def _print(result: "ConcurrentReplayRead", as_json: bool) -> int:
    report = result.report
    if as_json:
        typer.echo(result.model_dump_json())
    elif report is not None:
        for line in report_lines(report):
            typer.echo(line)
    if result.status != "succeeded" or report is None:
        why = result.error or ("cancelled" if result.status == "cancelled" else "timed out waiting")
        typer.echo(f"concurrent replay {result.id}: {result.status}: {why}", err=True)
        return CANNOT_RUN
    return exit_bits(report)
