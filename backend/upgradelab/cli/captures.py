"""`upgradelab capture --target NAME [--schema-only | --data-limit MB] [--json]`: capture a target's
configuration, accounts and workload digests, wait for it, print a summary (or the whole capture as
JSON); `upgradelab capture cancel ID` cancels one; `upgradelab capture check ID --target NEW [--json]`
checks its settings, accounts and schema against target NEW's binary (`--csv`: its findings in one
severity order as CSV; `--team-cpus N --team-memory-mib M`: the team's server's hardware, for the
defaults the new version computes from it); `upgradelab capture check --my-cnf FILE --target NEW`
checks an option file (uploaded as a capture first: POST /api/captures/my-cnf, refused naming its
lines).

Exit status: 0 captured (a check: the new binary takes every setting tried and has every account's
plugin); a check's findings as bits: 1 settings the new binary refuses (a server with them does not
start), 4 login accounts whose plugin it lacks (they cannot log in), 16 findings that change results
(names that no longer parse, sql_mode values refused, character set defaults, result settings'
defaults), 32 the captured schema's statements or captured statements the new version refuses
(does not load); 2 refused (unknown target, bad flags, cancel refused), 8 the capture or check could
not run (failed, cancelled, API unreachable, timed out waiting). A capture whose workload is empty
succeeds (exit 0) and says why, with the fix.
"""

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import httpx
import typer

from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text

if TYPE_CHECKING:  # the schemas import sqlalchemy and pydantic models: read inside the commands
    from upgradelab.captures.schemas import CaptureRead, CheckRead

NOT_STARTING, REFUSED, LOCKED_OUT, CANNOT_RUN, CHANGES_RESULTS, DOES_NOT_LOAD = 1, 2, 4, 8, 16, 32

capture_app = typer.Typer(
    help="Capture a target's configuration, accounts and workload (options below), or `cancel ID`.",
    invoke_without_command=True,
)


@capture_app.command("cancel")
def cancel(
    capture_id: Annotated[int, typer.Argument(help="The capture's id.")],
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Cancel capture ID. Exit 0 once asked (status printed), 2 when refused."""
    base = api or default_api()
    try:
        with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
            answer = client.post(f"/api/captures/{capture_id}/cancel")
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(REFUSED) from unreachable
    if answer.status_code != 200:
        typer.echo(f"cancel refused ({answer.status_code}): {error_text(answer)}", err=True)
        raise typer.Exit(REFUSED)
    typer.echo(f"capture {capture_id}: {answer.json()['status']}")


@capture_app.command("check")
def check(
    capture_id: Annotated[int | None, typer.Argument(help="The capture's id (or --my-cnf).")] = None,
    target: Annotated[str, typer.Option(help="The new version's lab target (local or tarball).")] = "",
    my_cnf: Annotated[
        Path | None, typer.Option("--my-cnf", help="An option file to check instead of a capture.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole check as JSON.")] = False,
    as_csv: Annotated[
        bool, typer.Option("--csv", help="Print the findings in severity order as CSV.")
    ] = False,
    team_cpus: Annotated[
        int | None, typer.Option("--team-cpus", help="The team's server's logical CPUs (team_host.cpus).")
    ] = None,
    team_memory_mib: Annotated[
        int | None,
        typer.Option("--team-memory-mib", help="The team's server's RAM in MiB (team_host.memory_mib)."),
    ] = None,
    api: ApiOption = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the check.")] = 600.0,
    token: TokenOption = None,
) -> None:
    """Check capture ID against --target's binary: the settings it refuses, warns about or takes, in
    its own words, the accounts whose plugin it lacks, the names it no longer parses, the sql_mode
    values it refuses, the defaults that change, the captured schema's statements and captured
    statements it refuses (exit bits 1, 4, 16 and 32), each finding with what to do, host-dependent
    defaults resolved for the team's server (--team-cpus, --team-memory-mib where the capture does
    not show them) and the lab's. --csv: the API's findings.csv (the capture, its target and
    version on every row). --my-cnf FILE: the option file's server groups instead (exit 2 when the
    file is refused, its lines named)."""
    from upgradelab.captures.schemas import CheckRead
    from upgradelab.execution.status import FINAL_STATUSES

    if (capture_id is None) == (my_cnf is None):
        raise typer.BadParameter("give a capture's ID or --my-cnf FILE (one of them)", param_hint="--my-cnf")
    if not target:
        raise typer.BadParameter("the new version's target is required", param_hint="--target")
    base = api or default_api()
    try:
        with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
            if my_cnf is not None:
                capture_id = _upload_my_cnf(client, my_cnf)
            body: dict[str, object] = {"target": target}
            if team_cpus is not None or team_memory_mib is not None:
                body["team_host"] = {"cpus": team_cpus, "memory_mib": team_memory_mib}
            created = client.post(f"/api/captures/{capture_id}/checks", json=body)
            if created.status_code != 201:
                typer.echo(f"check refused: {error_text(created)}", err=True)
                raise typer.Exit(REFUSED)
            check_id = CheckRead.model_validate(created.json()).id
            typer.echo(f"check {check_id} queued: {base}/captures/{capture_id}#check-{check_id}", err=True)
            deadline = time.monotonic() + timeout
            while True:
                read = client.get(f"/api/captures/{capture_id}/checks/{check_id}")
                result = CheckRead.model_validate(read.json())
                if result.status in FINAL_STATUSES or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            table = (
                client.get(f"/api/captures/{capture_id}/checks/{check_id}/findings.csv") if as_csv else None
            )
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(CANNOT_RUN) from unreachable
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json")))
    if result.status != "succeeded" or result.findings is None:
        typer.echo(f"check {result.id}: {result.status}: {result.error or 'timed out waiting'}", err=True)
        raise typer.Exit(CANNOT_RUN)
    if table is not None:
        typer.echo(table.text, nl=False)
    elif not as_json:
        _print_check(result)
    bits = NOT_STARTING if any(finding.outcome == "refused" for finding in result.findings) else 0
    if any(finding.outcome == "missing" for finding in result.account_findings or []):
        bits |= LOCKED_OUT
    if any(finding.severity == "changes_results" for finding in result.ordered):
        bits |= CHANGES_RESULTS
    if any(finding.severity == "does_not_load" for finding in result.ordered):
        bits |= DOES_NOT_LOAD
    raise typer.Exit(bits)


def _upload_my_cnf(client: httpx.Client, path: Path) -> int:
    """The capture id of option file `path` uploaded (POST /api/captures/my-cnf); exit 2 when it is
    unreadable or refused (the API's words: each refused line)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as unreadable:
        typer.echo(f"cannot read {path}: {unreadable}", err=True)
        raise typer.Exit(REFUSED) from unreadable
    uploaded = client.post("/api/captures/my-cnf", json={"name": path.name, "text": text})
    if uploaded.status_code != 201:
        typer.echo(f"option file refused: {error_text(uploaded)}", err=True)
        raise typer.Exit(REFUSED)
    capture_id = int(uploaded.json()["id"])
    typer.echo(f"option file {path.name}: capture {capture_id}", err=True)
    return capture_id


def _print_check(result: "CheckRead") -> None:
    typer.echo(f"check {result.id}: capture {result.capture_id} on {result.server or result.target}")
    for finding in result.findings or []:
        words = finding.words.splitlines()[0][:200] if finding.words else ""
        shown = f" (the server shows {finding.shown})" if finding.shown else ""
        typer.echo(f"  {finding.outcome:<10} {finding.line or finding.name}{shown}  {words}")
    for account in result.account_findings or []:
        typer.echo(f"  {account.outcome:<10} plugin {account.plugin}: {', '.join(account.accounts)[:200]}")
    if result.hosts is not None:
        hosts = result.hosts
        for who, host in (("team's host", hosts.team), ("lab's host", hosts.lab)):
            cpus = host.cpus if host.cpus is not None else "?"
            memory = f"{host.memory_mib} MiB" if host.memory_mib is not None else "? MiB"
            typer.echo(f"{who}: {cpus} CPUs ({host.cpus_from}), {memory} ({host.memory_from})")
        for figure, names in (("CPUs", hosts.cpus_used_by), ("memory", hosts.memory_used_by)):
            typer.echo(f"the team's {figure} used by: {', '.join(names) or 'no default of this check'}")
    if result.schema_load is not None:
        typer.echo(_trial_line(result))
    typer.echo(f"findings by severity: {len(result.ordered)}")
    for one in result.ordered:
        evidence = one.evidence.splitlines()[0][:160] if one.evidence else ""
        typer.echo(f"  {one.severity:<20} {one.kind:<10} {one.subject[:80]}  {one.outcome}  {evidence}")
        if one.action:
            typer.echo(f"  {'':<20} do: {one.action}")


def _trial_line(result: "CheckRead") -> str:
    """One line of what the schema trial asked (captures/schema_trial.py) and why not the rest."""
    assert result.schema_load is not None
    load, parsed = result.schema_load.load, result.schema_load.statements
    schema = (
        f"schema: {load.error}"
        if load.error and not load.statements
        else f"schema: {load.statements} statements sent, {load.loaded} loaded, {load.refused} refused, "
        f"{load.not_loaded_count} not loaded for the lab's or a missing object's reason"
    )
    statements = (
        f"statements: {parsed.error}"
        if parsed.error and not parsed.asked
        else f"statements: {parsed.asked} of {parsed.digests} asked, {parsed.parses} parse, "
        f"{parsed.refused} refused"
        + "".join(f"; {one.count} not asked: {one.reason}" for one in parsed.not_asked)
    )
    return f"{schema}; {statements}"


@capture_app.callback()
def capture(
    ctx: typer.Context,
    target: Annotated[str | None, typer.Option(help="The target to capture.")] = None,
    schema_only: Annotated[bool, typer.Option("--schema-only", help="Dump the schema, no data.")] = False,
    data_limit: Annotated[
        int | None, typer.Option("--data-limit", min=1, help="Dump data up to this many MB.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole capture as JSON.")] = False,
    api: ApiOption = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the capture.")] = 600.0,
    token: TokenOption = None,
) -> None:
    """Capture --target and print what differs from its version's defaults, its accounts and its
    most executed statements (or --json: the whole capture)."""
    if ctx.invoked_subcommand is not None:
        return
    if not target:
        raise typer.BadParameter("required to capture (or give a command: cancel ID)", param_hint="--target")
    if schema_only and data_limit is not None:
        raise typer.BadParameter(
            "--schema-only and --data-limit exclude each other", param_hint="--data-limit"
        )
    body = {"target": target, "schema_only": schema_only, "data_limit_mb": data_limit}
    base = api or default_api()
    try:
        result = _submit_and_wait(base, body, timeout, token)
    except httpx.TransportError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(CANNOT_RUN) from unreachable
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json")))
    if result.status != "succeeded":
        why = result.error or ("cancelled" if result.status == "cancelled" else "timed out waiting")
        typer.echo(f"capture {result.id}: {result.status}: {why}", err=True)
        raise typer.Exit(CANNOT_RUN)
    if not as_json:
        _print_summary(result)


def _submit_and_wait(base: str, body: dict[str, object], timeout: float, token: str | None) -> "CaptureRead":
    from upgradelab.captures.schemas import CaptureRead
    from upgradelab.execution.status import FINAL_STATUSES

    with httpx.Client(base_url=base, timeout=60, headers=auth_headers(token)) as client:
        created = client.post("/api/captures", json=body)
        if created.status_code != 201:
            typer.echo(f"capture refused: {error_text(created)}", err=True)
            raise typer.Exit(REFUSED)
        capture_id = CaptureRead.model_validate(created.json()).id
        typer.echo(f"capture {capture_id} queued: {base}/captures/{capture_id}", err=True)
        deadline = time.monotonic() + timeout
        while True:
            result = CaptureRead.model_validate(client.get(f"/api/captures/{capture_id}").json())
            if result.status in FINAL_STATUSES or time.monotonic() > deadline:
                return result
            time.sleep(0.5)


def _print_summary(result: "CaptureRead") -> None:
    config = result.configuration
    if config is not None:
        origin = config.defaults_from
        where = f"{origin.server} ({origin.match}, target {origin.target})" if origin else "unknown"
        typer.echo(f"capture {result.id}: {result.target}, {config.flavor} {config.version}")
        typer.echo(f"defaults from: {where}; {config.differs} variables differ")
        for variable in config.variables:
            if variable.comparison == "differs":
                host = " (host-dependent default)" if variable.host_dependent else ""
                typer.echo(f"  {variable.name} = {variable.value!r} (default {variable.default!r}){host}")
    if result.accounts is not None:
        typer.echo(f"accounts: {len(result.accounts)}")
        for account in result.accounts:
            typer.echo(f"  {account.user!r}@{account.host!r} {account.plugin}")
    elif result.accounts_error:
        typer.echo(f"accounts: {result.accounts_error}")
    if result.dump is not None:
        dump = result.dump
        held = "schema only" if dump.data_limit_mb is None else f"rows up to {dump.data_limit_mb} MiB"
        stored = f"dataset {dump.dataset} ({dump.bytes} bytes)" if dump.dataset else f"none: {dump.error}"
        typer.echo(f"dump ({held}) of {', '.join(dump.databases) or 'no database'}: {stored}")
    workload = result.workload
    if workload is not None:
        if workload.error:
            typer.echo(f"workload: {workload.error}")
        empty = ", EMPTY: nothing a replay can run" if workload.empty else ""
        replayable = f" ({workload.replayable} replayable)" if workload.replayable is not None else ""
        typer.echo(
            f"workload: {len(workload.digests)} digests{replayable}, {workload.executions} executions{empty}"
        )
        for problem in workload.problems:
            typer.echo(f"  why: {problem.words}")
            typer.echo(f"  fix: {problem.fix}")
        for digest in workload.digests[:10]:
            typer.echo(f"  {digest.executions:>8} x [{digest.text_source}] {digest.text[:100]!r}")
