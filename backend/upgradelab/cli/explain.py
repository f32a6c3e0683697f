"""`upgradelab explain --run N --variant NAME [--json]`: which changed settings explain a variant's gap.

Starts an attribution (POST /api/attributions), waits for it and prints the settings that close the
gap, each with its share [interval] of the log-ratio gap, the unexplained share and the option lines.
Exit 0 when it ends (explained, unexplained or out of budget: the output says which), 2 when it was
refused, failed, was cancelled, or the API could not be reached.
"""

import json
import time
from typing import Annotated, Any

import httpx
import typer

from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text

FINAL = ("succeeded", "failed", "cancelled")


def explain(
    run: Annotated[int, typer.Option("--run", help="The finished run.")],
    variant: Annotated[str, typer.Option("--variant", help="The variant whose gap is explained.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the attribution as JSON.")] = False,
    target_share: Annotated[float, typer.Option(help="Share of the gap a set must close.")] = 0.8,
    rounds: Annotated[int | None, typer.Option(help="Rounds per step run (default the run's).")] = None,
    block: Annotated[int | None, typer.Option(help="Iterations per block (default the run's).")] = None,
    budget_runs: Annotated[int, typer.Option(help="Step runs at most.")] = 12,
    budget_minutes: Annotated[float, typer.Option(help="Minutes at most.")] = 60.0,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the result.")] = 6 * 3600,
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Explain the gap between VARIANT and the baseline of run RUN (an attribution by delta debugging
    over the settings that differ)."""
    base = api or default_api()
    body: dict[str, Any] = {
        "run_id": run, "variant": variant, "target_share": target_share, "rounds": rounds, "block": block,
        "budget_runs": budget_runs, "budget_minutes": budget_minutes,
    }  # fmt: skip
    try:
        with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
            created = client.post("/api/attributions", json=body)
            if created.status_code != 201:
                typer.echo(f"explain refused ({created.status_code}): {error_text(created)}", err=True)
                raise typer.Exit(2)
            found = created.json()
            if not as_json:
                typer.echo(f"attribution {found['id']}: {len(found['candidates'])} candidates, "
                           f"{len(found['untestable'])} cannot be tested")  # fmt: skip
            deadline = time.monotonic() + timeout
            while found["status"] not in FINAL and time.monotonic() < deadline:
                time.sleep(2)
                found = client.get(f"/api/attributions/{found['id']}").json()
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(2) from unreachable
    if as_json:
        typer.echo(json.dumps(found, indent=2))
    else:
        typer.echo(summary(found))
    if found["status"] != "succeeded":
        raise typer.Exit(2)


def summary(found: dict[str, Any]) -> str:
    """The result in a few lines: outcome, each member's share [interval], unexplained, option lines."""
    result = found.get("result") or {}
    lines = [f"attribution {found['id']}: {found['status']}, {result.get('outcome', 'no result')}"]
    for member in result.get("members", []):
        share = member.get("contribution")
        shown = "?" if share is None else f"{share:.0%} [{member['low']:.0%}, {member['high']:.0%}]"
        lines.append(f"  {member['name']}: {shown} of the gap")
    for other in result.get("also", []):
        alone = other["alone"]
        how = {"confirmation": "confirmed in {runs} fresh runs", "group": "found in a group, {runs} runs"}
        decided = how.get(other.get("decided_by", ""), "on the search's measurement")
        lines.append(
            f"  {other['name']}: {alone['share']:.0%} [{alone['low']:.0%}, {alone['high']:.0%}] alone "
            f"({decided.format(runs=other.get('runs', 0))}), overlapping with the set"
        )
    if result.get("unexplained") is not None:
        lines.append(f"  unexplained: {result['unexplained']:.0%}")
    if result.get("lines"):
        lines.append("  to reproduce the baseline: " + "; ".join(result["lines"]))
    lines.append(f"  {result.get('runs', 0)} runs, {result.get('minutes', 0)} minutes")
    if found.get("error"):
        lines.append(f"  error: {found['error']}")
    return "\n".join(lines)
