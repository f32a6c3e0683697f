"""`upgradelab fix --replay N --fingerprint ID --variant NAME [--json] [--scope both] [--only S]`: look
for a remedy for a fingerprint of a replay that is slower on a variant: statement-level, and (scope "both",
the default) a restoring setting re-verified as a global one (an option line) with its side effects
on every other fingerprint of the replay; `--scope global` tries the settings as global remedies only;
`--only statistics` (repeatable) tries the candidates of those sources only.

Starts a fix search (POST /api/fixsearches), waits for it and prints each candidate tried (its status,
ratio to the baseline and to the variant with their intervals, results equal or not, the plan before
and after, a global remedy's side effects) and the outcome: the remedy that restores the baseline's
time with equal results and what to apply, or "no remedy found" / "out of budget" with what was
tried. Exit 0 when a remedy restores, 1 when the search ended without one, 2
when it was refused, failed, was cancelled, or the API could not be reached.
"""

import json
import time
from typing import Annotated, Any

import httpx
import typer

from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text

FINAL = ("succeeded", "failed", "cancelled")


def fix(
    replay: Annotated[int, typer.Option("--replay", help="The finished replay.")],
    fingerprint: Annotated[str, typer.Option("--fingerprint", help="The fingerprint's id in it.")],
    variant: Annotated[str, typer.Option("--variant", help="The variant it is slower on.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the fix search as JSON.")] = False,
    rounds: Annotated[int, typer.Option(help="Rounds per candidate (at least 5).")] = 5,
    budget_rounds: Annotated[
        int | None, typer.Option(help="Rounds at most, all candidates (default: scaled to the candidates).")
    ] = None,
    budget_minutes: Annotated[float, typer.Option(help="Minutes at most.")] = 30.0,
    try_all: Annotated[bool, typer.Option("--all", help="Measure every candidate.")] = False,
    tolerance: Annotated[
        float, typer.Option(help="Restores when at most this much slower (0.10: 10 %).")
    ] = 0.10,
    scope: Annotated[
        str, typer.Option(help="statement, both (a restoring setting re-verified as global) or global.")
    ] = "both",
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            help="Try only this candidate source (plan, differs, lever, view, index, statistics); repeatable",
        ),
    ] = None,
    side_rounds: Annotated[int, typer.Option(help="A global remedy's check: rounds per fingerprint.")] = 5,
    side_minutes: Annotated[float, typer.Option(help="A global remedy's check: minutes at most.")] = 10.0,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the result.")] = 6 * 3600,
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Find a remedy for fingerprint FINGERPRINT of replay REPLAY on VARIANT (against the replay's
    baseline): remedies tried and measured, stopping at the first that restores; a global one checked
    on the whole replay for side effects."""
    base = api or default_api()
    body: dict[str, Any] = {
        "replay_id": replay, "fingerprint_id": fingerprint, "variant": variant, "rounds": rounds,
        "budget_minutes": budget_minutes, "try_all": try_all,
        "tolerance": tolerance, "scope": scope, "side_rounds": side_rounds, "side_minutes": side_minutes,
    }  # fmt: skip
    if only:  # default: every source (the API's)
        body["sources"] = only
    if budget_rounds is not None:  # default: scaled to the candidates (the API's)
        body["budget_rounds"] = budget_rounds
    try:
        with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
            created = client.post("/api/fixsearches", json=body)
            if created.status_code != 201:
                typer.echo(f"fix refused ({created.status_code}): {error_text(created)}", err=True)
                raise typer.Exit(2)
            found = created.json()
            if not as_json:
                typer.echo(
                    f"fix search {found['id']}: fingerprint {fingerprint} of replay {replay} on {variant}"
                )
            deadline = time.monotonic() + timeout
            while found["status"] not in FINAL and time.monotonic() < deadline:
                time.sleep(1)
                found = client.get(f"/api/fixsearches/{found['id']}").json()
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(2) from unreachable
    typer.echo(json.dumps(found, indent=2) if as_json else summary(found))
    if found["status"] != "succeeded":
        raise typer.Exit(2)
    if (found.get("result") or {}).get("outcome") != "restored":
        raise typer.Exit(1)


def _ratio(verdict: dict[str, Any] | None) -> str:
    if not verdict:
        return "-"
    return f"{verdict['ratio']:.2f}x [{verdict['low']:.2f}, {verdict['high']:.2f}] ({verdict['verdict']})"


def _plan(steps: list[dict[str, Any]] | None) -> str:
    """A plan on one line: `table:access/key` per step in join order."""
    return " > ".join(
        f"{s['table']}:{s.get('access_type') or '-'}/{s.get('key') or '-'}" for s in steps or []
    )


def summary(found: dict[str, Any]) -> str:
    """The outcome and each trial in a few lines."""
    result = found.get("result") or {}
    lines = [f"fix search {found['id']}: {found['status']}, {result.get('outcome', 'no result')}"]
    candidates = {c["name"]: c for c in found.get("candidates", [])}
    for trial in found.get("tried", []):
        equal = {True: "results equal", False: "results differ", None: ""}[trial.get("results_equal")]
        ratio = _ratio(trial.get("ratio_to_baseline"))
        lines.append(
            f"  {trial['name']} [{trial.get('scope', 'statement')}]: {trial['status']}; vs baseline {ratio}; "
            f"vs variant {_ratio(trial.get('ratio_to_variant'))}{'; ' + equal if equal else ''}"
        )
        if trial["status"] in ("refused", "undecided", "not measured"):
            lines.append(f"    {trial['reason']}")
        if trial.get("wrapper_cost"):  # like with like: every arm under the same wrapper
            us = trial.get("wrapper_us")
            per = f", {us:+.1f} us per statement" if us is not None else ""
            lines.append(f"    the wrapper's own cost (in every arm): {_ratio(trial['wrapper_cost'])}{per}")
        if trial.get("plan_identity"):
            lines.append(f"    plan identity: {trial['plan_identity']}")
        change = trial.get("change") or {}
        if change.get("size_bytes"):
            lines.append(
                f"    the index: {change['size_bytes']:,} bytes; undo: {'; '.join(change.get('undo', []))}"
            )
        if change.get("writes"):
            lines.append(f"    {change['writes']}")
        if trial["status"] == "not measured" and trial.get("apply"):  # statistics: what one would apply
            lines.append("    to try by hand:")
            lines.extend(f"      {line}" for line in trial["apply"].splitlines())
        effects = trial.get("side_effects")
        if effects:
            lines.append(f"    {effects['said']}")
            for effect in effects["side_effects"]:
                changed = "" if effect["results_equal"] else "; results differ"
                lines.append(f"      {effect['fingerprint_id']}: {_ratio(effect.get('ratio'))}{changed}")
    for key in ("remedy", "global_remedy"):
        name = result.get(key)
        if name:
            chosen: dict[str, Any] = next((t for t in found.get("tried", []) if t["name"] == name), {})
            apply = chosen.get("apply") or candidates.get(name, {}).get("apply", name)
            lines.append(f"  {key.replace('_', ' ')}: {name}; apply: {apply}")
            if chosen.get("plan_before") is not None:
                lines.append(f"    plan before: {_plan(chosen.get('plan_before'))}")
                lines.append(f"    plan after:  {_plan(chosen.get('plan_after'))}")
    if result.get("not_tried"):
        lines.append(f"  not tried: {', '.join(result['not_tried'])}")
    if result.get("outcome") == "out of budget" and result.get("said"):
        lines.append(f"  {result['said']}")
    if result.get("unused"):
        lines.append(
            f"  never candidates (the variant's own help calls them unused): {', '.join(result['unused'])}"
        )
    lines.append(f"  {result.get('rounds', 0)} rounds, {result.get('minutes', 0)} minutes")
    if found.get("error"):
        lines.append(f"  error: {found['error']}")
    return "\n".join(lines)
