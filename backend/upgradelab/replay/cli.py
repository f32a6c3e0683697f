"""`upgradelab replay`: replay a query file on a dataset across variants, for CI pipelines.

Exit status, as pt-upgrade's, a bitmask of what the report found:
  1  result or error differences (breaks: an error, other rows, or an order the query never asked for)
  2  regressions (slower: over at least 5 rounds, a 95% interval above 1 and a ratio of at least 1.10)
  4  plan changes
  8  the replay could not run (refused, failed, API unreachable, timed out)
0 means the variants agree with the baseline (the first --variant).
"""

import json
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from upgradelab.api_client import TokenOption, _default_api, _error_text, _headers
from upgradelab.replay.schemas import (
    DEFAULT_PASSES,
    DEFAULT_ROUNDS,
    FINAL_REPLAY_STATUSES,
    GROUPS,
    ReplayProgress,
    ReplayRead,
    ReplayReport,
)

CANNOT_RUN = 8


def replay(
    dataset: Annotated[str, typer.Option(help="Dataset name (`upgradelab datasets add`).")],
    queries: Annotated[Path, typer.Option(help="Plain SQL file, slow query log or general query log.")],
    variant: Annotated[list[str], typer.Option(help="TARGET[:PRESET]; the first is the baseline.")],
    rounds: Annotated[
        int, typer.Option(min=1, help="Interleaved rounds; each times every statement once per variant.")
    ] = DEFAULT_ROUNDS,
    repeats: Annotated[int | None, typer.Option(min=1, help="Older name of --rounds.")] = None,
    passes: Annotated[
        int, typer.Option(min=1, help="Passes over the statements per block; a round is their median.")
    ] = DEFAULT_PASSES,
    sample: Annotated[int, typer.Option(min=1, help="At most this many statements per fingerprint.")] = 10,
    allow_writes: Annotated[bool, typer.Option(help="Replay writes too (disposable targets only).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole report as JSON.")] = False,
    api: Annotated[str | None, typer.Option(help="API base URL; default from settings.")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the replay.")] = 3600.0,
    token: TokenOption = None,
) -> None:
    """Replay QUERIES on DATASET on every --variant and report what changes (exit status: bitmask)."""
    body = {
        "dataset": dataset,
        "queries": queries.read_text(errors="replace"),
        "variants": variant,
        "rounds": repeats or rounds,
        "passes": passes,
        "sample": sample,
        "allow_writes": allow_writes,
    }
    base = api or _default_api()
    try:
        result = _submit_and_wait(base, body, timeout, token)
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(CANNOT_RUN) from unreachable
    report = result.report
    if result.status != "succeeded" or report is None:
        typer.echo(f"replay {result.id}: {result.status}: {result.error or 'timed out'}", err=True)
        raise typer.Exit(CANNOT_RUN)
    if as_json:
        skipped = [s.model_dump(mode="json") for s in result.skipped_writes]
        typer.echo(
            json.dumps({"replay_id": result.id, "skipped_writes": skipped, **report.model_dump(mode="json")})
        )
    else:
        _print_summary(result, report)
    raise typer.Exit(report.exit_bits)


def _submit_and_wait(base: str, body: dict[str, Any], timeout: float, token: str | None) -> ReplayRead:
    with httpx.Client(base_url=base, timeout=60, headers=_headers(token)) as client:
        created = client.post("/api/replays", json=body)
        if created.status_code != 201:
            typer.echo(f"replay refused: {_error_text(created)}", err=True)
            raise typer.Exit(CANNOT_RUN)
        replay_id = ReplayRead.model_validate(created.json()).id
        typer.echo(f"replay {replay_id} queued: {base}/replays/{replay_id}", err=True)
        deadline = time.monotonic() + timeout
        shown: ReplayProgress | None = None
        while True:
            result = ReplayRead.model_validate(client.get(f"/api/replays/{replay_id}").json())
            if result.status in FINAL_REPLAY_STATUSES or time.monotonic() > deadline:
                return result
            if result.progress and result.progress != shown:
                shown = result.progress
                typer.echo(_progress_text(shown), err=True)
            time.sleep(1.0)


def _progress_text(progress: ReplayProgress) -> str:
    """`variant k/n name: phase, MB fed / MB, rows, elapsed, estimate` on stderr (the loader's
    `rows_total` is the dump's size in bytes)."""
    parts = [f"variant {progress.index}/{progress.of} {progress.variant}: {progress.phase}"]
    if progress.rows_total:
        parts.append(f"{(progress.bytes or 0) / 1048576:.1f} / {progress.rows_total / 1048576:.1f} MB")
        parts.append(f"{progress.rows or 0:,} rows")
    if progress.elapsed_s is not None:
        parts.append(f"{progress.elapsed_s:.1f} s")
    if progress.estimate_s is not None:
        parts.append(f"~{progress.estimate_s:.0f} s estimated")
    return ", ".join(parts)


def _print_summary(result: ReplayRead, report: ReplayReport) -> None:
    typer.echo(
        f"replay {result.id}: {result.statements} statements, {report.rounds} rounds, "
        f"baseline {report.baseline}"
    )
    typer.echo("  " + ", ".join(f"{group}: {report.groups.get(group, 0)}" for group in GROUPS))
    for one in report.fingerprints:
        if one.group != "same":
            typer.echo(f"  [{one.group}] {one.fingerprint[:100]}")
    if result.skipped_writes:
        typer.echo(f"  {len(result.skipped_writes)} writes skipped (read-only replay)")
