"""`upgradelab replay`: replay a query file on a dataset across variants, for CI pipelines;
`upgradelab replay cancel ID` cancels one.

Exit status, as pt-upgrade's, a bitmask of what the report found:
  1  result or error differences (breaks: an error, other rows, or an order the query never asked for)
  2  regressions (slower: over at least 5 rounds, a 95% interval above 1 and a ratio of at least 1.10;
     or a statement that timed out on a variant and not on the baseline)
  4  plan changes
  8  the replay could not run (refused, failed, cancelled, API unreachable, timed out waiting)
0 means the variants agree with the baseline (the first --variant). Statements the server refused
as writes in a read-only replay are listed and set no bit.
"""

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import httpx
import typer

from upgradelab.cli import concurrent_replay
from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text
from upgradelab.cli.variants import variants_from_file
from upgradelab.replay.defaults import DEFAULT_PASSES, DEFAULT_ROUNDS
from upgradelab.replay.groups import GROUPS
from upgradelab.targets.timeout_bounds import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S

# The API's schemas import the statistics (scipy) and the models (sqlalchemy): read inside the
# commands that parse an answer, so `upgradelab --help` and the other commands start without them.
if TYPE_CHECKING:
    from upgradelab.replay.report import CauseKind, ReplayReport, VariantFinding
    from upgradelab.replay.schemas import ReplayProgress, ReplayRead

CANNOT_RUN = 8

replay_app = typer.Typer(
    help="Replay a query file on a dataset across variants (options below), or `cancel ID`.",
    invoke_without_command=True,
)


@replay_app.command("cancel")
def cancel(
    replay_id: Annotated[int, typer.Argument(help="The replay's id.")],
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Cancel replay ID: a queued one at once, a running one within seconds (what it measured is
    kept). Exit 0 once asked (status printed), 2 when refused (unknown id, already ended, not allowed)."""
    base = api or default_api()
    try:
        with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
            answer = client.post(f"/api/replays/{replay_id}/cancel")
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(2) from unreachable
    if answer.status_code != 200:
        typer.echo(f"cancel refused ({answer.status_code}): {error_text(answer)}", err=True)
        raise typer.Exit(2)
    from upgradelab.replay.schemas import ReplayRead

    result = ReplayRead.model_validate(answer.json())
    said = "cancelled" if result.status == "cancelled" else f"{result.status}, cancelling"
    typer.echo(f"replay {result.id}: {said}")


@replay_app.callback()
def replay(
    ctx: typer.Context,
    dataset: Annotated[str | None, typer.Option(help="Dataset name (`upgradelab datasets add`).")] = None,
    queries: Annotated[
        Path | None, typer.Option(help="Plain SQL file, slow query log or general query log.")
    ] = None,
    variant: Annotated[
        list[str] | None, typer.Option(help="TARGET[:PRESET]; the first is the baseline.")
    ] = None,
    variants_file: Annotated[
        Path | None,
        typer.Option(
            help="JSON or YAML list of full variant specs (target, preset, name, options, set_global, "
            "set_session, instance; or TARGET[:PRESET]), after the --variant ones.",
        ),
    ] = None,
    rounds: Annotated[
        int, typer.Option(min=1, help="Interleaved rounds; each times every statement once per variant.")
    ] = DEFAULT_ROUNDS,
    repeats: Annotated[int | None, typer.Option(min=1, help="Older name of --rounds.")] = None,
    passes: Annotated[
        int, typer.Option(min=1, help="Passes per round: each statement timed this often on every variant.")
    ] = DEFAULT_PASSES,
    max_rounds: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Rounds in all that a fingerprint still undecided after --rounds may get (more rounds "
            "for it alone, 5 at a time, until it is same, slower or faster); default 3 x --rounds; "
            "equal to --rounds: no extension.",
        ),
    ] = None,
    sample: Annotated[int, typer.Option(min=1, help="At most this many statements per fingerprint.")] = 10,
    allow_writes: Annotated[bool, typer.Option(help="Replay writes too (disposable targets only).")] = False,
    aa_control: Annotated[
        bool,
        typer.Option("--aa-control", help="Add a second instance of the baseline (A/A): the noise floor."),
    ] = False,
    statement_timeout: Annotated[
        float,
        typer.Option(
            min=MIN_TIMEOUT_S,
            max=MAX_TIMEOUT_S,
            help="Seconds a statement may run; past it, it is ended and reported as timed out.",
        ),
    ] = DEFAULT_TIMEOUT_S,
    shards: Annotated[
        str,
        typer.Option(
            help="Spread the fingerprints over this many hosts of the pool (each runs every variant for "
            "its share), or 'auto': as many as the pool has live workers; 1: this replay on one host.",
        ),
    ] = "1",
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole report as JSON.")] = False,
    api: ApiOption = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the replay.")] = 3600.0,
    token: TokenOption = None,
    concurrent: concurrent_replay.ConcurrentOption = False,
    speed: concurrent_replay.SpeedOption = 1.0,
) -> None:
    """Replay QUERIES on DATASET on every --variant (then every variant of --variants-file) and report
    what changes (exit status: bitmask)."""
    if ctx.invoked_subcommand is not None:
        return
    variants = [*(variant or []), *(variants_from_file(variants_file) if variants_file else [])]
    given = (("--dataset", dataset), ("--queries", queries), ("--variant/--variants-file", variants))
    missing = [name for name, value in given if not value]
    if missing or queries is None:
        raise typer.BadParameter(
            "required to replay (or give a command: cancel ID)", param_hint=", ".join(missing)
        )
    if concurrent:
        wanted = concurrent_replay.body(dataset, queries, variants, repeats or rounds, speed, aa_control)
        wanted["statement_timeout_s"] = statement_timeout
        raise typer.Exit(concurrent_replay.run(api or default_api(), wanted, timeout, token, as_json))
    body = {
        "dataset": dataset,
        "queries": queries.read_text(errors="replace"),
        "variants": variants,
        "rounds": repeats or rounds,
        "passes": passes,
        "max_rounds": max_rounds,
        "sample": sample,
        "allow_writes": allow_writes,
        "aa_control": aa_control,
        "statement_timeout_s": statement_timeout,
    }
    if shards != "1":  # the API checks it, naming `shards`
        body["shards"] = shards if shards == "auto" else int(shards) if shards.isdigit() else shards
    base = api or default_api()
    try:
        result = _submit_and_wait(base, body, timeout, token)
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(CANNOT_RUN) from unreachable
    report = result.report
    if result.status != "succeeded" or report is None:
        if report is not None:  # a cancelled replay's partial report
            _print_summary(result, report)
        why = result.error or ("cancelled" if result.status == "cancelled" else "timed out waiting")
        typer.echo(f"replay {result.id}: {result.status}: {why}", err=True)
        raise typer.Exit(CANNOT_RUN)
    if as_json:
        skipped = [s.model_dump(mode="json") for s in result.skipped_writes]
        typer.echo(
            json.dumps(
                {
                    "replay_id": result.id,
                    "summary": None,  # first in the document: its value comes with the report's fields
                    "skipped_writes": skipped,
                    **report.model_dump(mode="json"),
                }
            )
        )
    else:
        _print_summary(result, report)
    raise typer.Exit(report.exit_bits)


def _submit_and_wait(base: str, body: dict[str, Any], timeout: float, token: str | None) -> "ReplayRead":
    from upgradelab.execution.status import FINAL_STATUSES
    from upgradelab.replay.schemas import ReplayRead

    with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
        created = client.post("/api/replays", json=body)
        if created.status_code != 201:
            typer.echo(f"replay refused: {error_text(created)}", err=True)
            raise typer.Exit(CANNOT_RUN)
        replay_id = ReplayRead.model_validate(created.json()).id
        typer.echo(f"replay {replay_id} queued: {base}/replays/{replay_id}", err=True)
        deadline = time.monotonic() + timeout
        shown: ReplayProgress | None = None
        while True:
            result = ReplayRead.model_validate(client.get(f"/api/replays/{replay_id}").json())
            if result.status in FINAL_STATUSES or time.monotonic() > deadline:
                return result
            if result.progress and result.progress != shown:
                shown = result.progress
                typer.echo(_progress_text(shown), err=True)
            time.sleep(1.0)


def _progress_text(progress: "ReplayProgress") -> str:
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


def summary_lines(report: "ReplayReport") -> list[str]:
    """The summary the report opens with: the per-statement cost per variant (report.StatementCost),
    one line per variant against the baseline (schemas.VariantSummary), then the clocks, when the
    statistics were computed, the false-discovery control, the extension and, sharded, where each
    shard ran."""
    from upgradelab.replay.findings import summary_text

    lines = [one.text for one in report.per_statement_cost]
    for one in report.summary:
        lines.append(one.text or summary_text(one, report.baseline))
        by_cause = _by_cause(one.slower_causes, one.faster_causes)
        if by_cause:
            lines.append(f"{one.variant} by cause: {by_cause}")
    if report.timing:
        lines.append(report.timing)
    elif report.clock:
        clock = "server (performance_schema TIMER_WAIT)" if report.clock == "server" else "client"
        lines.append(f"timed by the {clock} clock")
    analysed = [
        f"{v.name} {v.statistics_at:%Y-%m-%d %H:%M:%S} UTC" for v in report.variants if v.statistics_at
    ]
    if analysed:
        lines.append("statistics computed (ANALYZE TABLE): " + ", ".join(analysed))
    if report.fdr:
        lines.append(report.fdr)
    if report.extension:
        lines.append(report.extension)
    if report.sharding:
        lines.append(report.sharding)
    if report.work_counters:
        lines.append(report.work_counters)
    if report.stages:
        lines.append(report.stages)
    return lines


def settings_lines(report: "ReplayReport") -> list[str]:
    """One line per variant that set anything (VariantReport.settings): `name: options a=1, b;
    SET GLOBAL x=1; SET SESSION y=2; instance ALTER INSTANCE ...`."""
    lines = []
    for one in report.variants:
        own = one.settings
        if own is None:
            continue
        parts = [
            f"{label} {', '.join(items)}"
            for label, items in (
                ("options", own.options),
                ("SET GLOBAL", [f"{k}={v}" for k, v in own.set_global.items()]),
                ("SET SESSION", [f"{k}={v}" for k, v in own.set_session.items()]),
                ("instance", own.instance),
            )
            if items
        ]
        if parts:
            lines.append(f"{one.name}: {'; '.join(parts)}")
    return lines


def also_text(finding: "VariantFinding") -> str:
    """The findings of a fingerprint on a variant that its group does not name, each with its cause: ";
    also slower (plan changed: join order ...)" (report.FingerprintFinding; "" when the group names them
    all, and in reports from before findings)."""
    from upgradelab.replay.findings import GROUP_FINDINGS

    named = GROUP_FINDINGS.get(finding.group, ())
    return "".join(
        f"; also {f.kind}" + (f" ({f.cause.text})" if f.cause else "")
        for f in finding.findings
        if f.kind not in named
    )


def _by_cause(slower: "dict[CauseKind, int]", faster: "dict[CauseKind, int]") -> str:
    """A variant's counts by cause: "slower 3 (work 2, time only 1), faster 1 (plan change 1)"
    (replay/change_causes.py kinds)."""
    parts = [
        f"{way} {sum(counts.values())} ({', '.join(f'{kind} {n}' for kind, n in counts.items())})"
        for way, counts in (("slower", slower), ("faster", faster))
        if counts
    ]
    return ", ".join(parts)


def _print_summary(result: "ReplayRead", report: "ReplayReport") -> None:
    partial = " (partial: cancelled)" if report.partial else ""
    typer.echo(
        f"replay {result.id}: {report.statements} statements, {report.rounds} rounds, "
        f"baseline {report.baseline}{partial}"
    )
    for line in summary_lines(report):
        typer.echo(f"  {line}")
    for line in settings_lines(report):
        typer.echo(f"  {line}")
    typer.echo("  " + ", ".join(f"{group}: {report.groups.get(group, 0)}" for group in GROUPS))
    order = {group: number for number, group in enumerate(GROUPS)}
    for one in sorted(report.fingerprints, key=lambda f: order.get(f.group, len(order))):
        if one.group != "same":
            per_variant = ", ".join(
                f"{name}: {finding.group}"
                + "".join(f" ({c.title})" for c in finding.causes)
                + (f" ({c.text})" if (c := finding.cause) and c.kind != "known cause" else "")
                + also_text(finding)
                for name, finding in one.variants.items()
            )
            extended = (
                f"  ({one.rounds} rounds)" if one.rounds and one.rounds > (report.planned_rounds or 0) else ""
            )
            typer.echo(
                f"  [{one.group}] {one.fingerprint[:100]}"
                + (f"  {per_variant}" if per_variant else "")
                + (extended if report.planned_rounds else "")
            )
            for name, finding in one.variants.items():  # the work counters that differ from the baseline's
                if finding.work:
                    typer.echo(f"    work on {name}: {'; '.join(c.text for c in finding.work)}")
                if finding.stages:
                    typer.echo(f"    stages on {name}: {'; '.join(c.text for c in finding.stages)}")
        for statement in one.statements:
            for name, outcome in statement.outcomes.items():
                runs = statement.timed_out_runs.get(name, 0)
                note = outcome.note or (f"timed out in {runs} timed runs" if runs else None)
                if note:
                    typer.echo(f"    {name}: {note}: {' '.join(statement.sql.split())[:100]}")
    if result.skipped_writes:
        typer.echo(f"  {len(result.skipped_writes)} writes skipped (read-only replay)")
