"""`upgradelab assess`: one upgrade assessment for ops and CI: the team's server captured read-only
(or a capture, or its option file), checked against each --to version, its workload replayed with an
A/A control on the --baseline and each version, fixes searched for slower queries, one report.

Exit status, the replay's bitmask (`upgradelab replay`) plus the check's blockers, OR-ed over the
versions:
  1  result or error differences (the replay's breaks)
  2  regressions (slower queries)
  4  plan changes
  8  a step could not run or evaluate (refused, failed, cancelled, out of budget, API unreachable,
     timed out waiting)
  16 blockers from the check: a setting the new version refuses (it will not start), accounts that
     cannot log in, schema or statements it no longer loads or parses
0 means nothing to do before the upgrade.
"""

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import httpx
import typer

from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text

if TYPE_CHECKING:
    from upgradelab.assessment.schemas import AssessmentRead

CANNOT_RUN = 8


def assess(
    to: Annotated[list[str], typer.Option("--to", help="Lab target of a new version (repeat for several).")],
    target: Annotated[
        str | None, typer.Option(help="The team's server (an existing target with a read-only account).")
    ] = None,
    capture: Annotated[int | None, typer.Option(help="A succeeded capture of the team's server.")] = None,
    my_cnf: Annotated[
        Path | None, typer.Option("--my-cnf", help="The team's option file, when there is no server to read.")
    ] = None,
    baseline: Annotated[
        str | None, typer.Option(help="Lab target of the team's current version (the replay's baseline).")
    ] = None,
    dataset: Annotated[
        str | None, typer.Option(help="Dataset to replay on (default: the capture's dump).")
    ] = None,
    queries: Annotated[
        Path | None, typer.Option(help="Query log to replay (default: the captured workload).")
    ] = None,
    budget_min: Annotated[
        float, typer.Option("--budget-min", min=0.1, help="Total budget in minutes.")
    ] = 60.0,
    fix_tolerance: Annotated[
        float,
        typer.Option(
            "--fix-tolerance",
            min=0.01,
            max=1.0,
            help="A fix restores when at most this much slower than the old version (0.10 = 10 %).",
        ),
    ] = 0.10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole report as JSON.")] = False,
    api: ApiOption = None,
    timeout: Annotated[
        float | None, typer.Option(help="Seconds to wait (default: the budget + 10 min).")
    ] = None,
    token: TokenOption = None,
) -> None:
    """Assess an upgrade of --target (or --capture, or --my-cnf) to every --to version and print the
    report: per version its verdict and to-do list (exit status: bitmask, see the module help)."""
    body: dict[str, Any] = {
        "versions": to,
        "target": target,
        "capture_id": capture,
        "my_cnf": my_cnf.read_text(errors="replace") if my_cnf else None,
        "baseline": baseline,
        "dataset": dataset,
        "queries": queries.read_text(errors="replace") if queries else None,
        "budget_min": budget_min,
        "fix_tolerance": fix_tolerance,
    }
    base = api or default_api()
    wait_s = timeout if timeout is not None else budget_min * 60 + 600
    try:
        result = _submit_and_wait(base, {k: v for k, v in body.items() if v is not None}, wait_s, token)
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(CANNOT_RUN) from unreachable
    report = result.report
    bits = report.exit_bits if report is not None else CANNOT_RUN
    if result.status != "succeeded":
        bits |= CANNOT_RUN
        typer.echo(f"assessment {result.id}: {result.status}: {result.error or 'see its page'}", err=True)
    if as_json:
        typer.echo(result.model_dump_json())
    elif report is not None:
        for version in report.versions:
            typer.echo(version.verdict)
            for n, item in enumerate(version.todo, 1):
                action = f" -> {item.action}" if item.action else ""
                typer.echo(f"  {n}. [{item.area}] {item.text}{action}")
        typer.echo(f"report: {base}/assessments/{result.id}")
    raise typer.Exit(bits)


def _submit_and_wait(base: str, body: dict[str, Any], timeout: float, token: str | None) -> "AssessmentRead":
    from upgradelab.assessment.schemas import AssessmentRead
    from upgradelab.execution.status import FINAL_STATUSES

    with httpx.Client(base_url=base, timeout=120, headers=auth_headers(token)) as client:
        created = client.post("/api/assessments", json=body)
        if created.status_code != 201:
            typer.echo(f"assessment refused: {error_text(created)}", err=True)
            raise typer.Exit(CANNOT_RUN)
        assessment_id = AssessmentRead.model_validate(created.json()).id
        typer.echo(f"assessment {assessment_id} queued: {base}/assessments/{assessment_id}", err=True)
        deadline = time.monotonic() + timeout
        shown = None
        while True:
            result = AssessmentRead.model_validate(client.get(f"/api/assessments/{assessment_id}").json())
            if result.status in FINAL_STATUSES or time.monotonic() > deadline:
                return result
            if result.progress and result.progress.step != shown:
                shown = result.progress.step
                typer.echo(f"{result.progress.done}/{result.progress.steps}: {shown}", err=True)
            time.sleep(2.0)
