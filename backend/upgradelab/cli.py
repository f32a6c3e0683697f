"""`upgradelab`: the command line for ops and CI pipelines. It talks to the API, like the UI does."""

import json
import sys
import time
from typing import Annotated, Any

import httpx
import typer

from upgradelab.api_client import TokenOption, _default_api, _error_text, _headers
from upgradelab.datasets.cli import datasets_app
from upgradelab.experiments.schemas import ExperimentRead
from upgradelab.replay.cli import replay_app
from upgradelab.results.views.comparison_schemas import Comparison
from upgradelab.runs.schemas import RunProgress, RunRead
from upgradelab.settings import get_settings

app = typer.Typer(
    help="Upgrade Lab: prove MySQL upgrade risks before you upgrade.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="The metadata database.", no_args_is_help=True)
app.add_typer(db_app, name="db")
users_app = typer.Typer(help="Users of the web UI and API.", no_args_is_help=True)
app.add_typer(users_app, name="users")


def _variant_spec(text: str) -> dict[str, Any]:
    """TARGET[:PRESET] -> {"target", "preset"}; PRESET may join presets with '+'."""
    target, _, preset = text.partition(":")
    if not target:
        raise typer.BadParameter(f"--variant {text!r}: expected TARGET[:PRESET], e.g. mysql-9.7:redo-off")
    return {"target": target, "preset": preset or "default"}


def _parameter(text: str) -> tuple[str, Any]:
    """KEY=VALUE -> (key, value); VALUE is read as JSON when it parses (numbers, lists, true, null),
    else kept as a string: --param rows=20480 --param tables='["test_long"]' --param script=oltp_read_only."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise typer.BadParameter(f"--param {text!r}: expected KEY=VALUE, e.g. rows=20480")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


@app.command()
def run(
    workload: Annotated[str, typer.Option(help="Workload slug.")] = "insert-truncate",
    variant: Annotated[list[str], typer.Option(help="TARGET[:PRESET], repeat for each variant.")] = [],  # noqa: B006
    iterations: Annotated[
        int | None, typer.Option(min=1, help="Per variant; default: the workload's.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Experiment name.")] = None,
    param: Annotated[
        list[str], typer.Option(help="Template parameter KEY=VALUE (JSON values), repeatable.")
    ] = [],  # noqa: B006
    policy: Annotated[
        str | None,
        typer.Option(help="warm | cold_first | cold_each_group | cold_every; default: the template's."),
    ] = None,
    schedule: Annotated[
        str,
        typer.Option(
            help="interleaved (rounds of shuffled blocks) | sequential (one variant after another)."
        ),
    ] = "interleaved",
    rounds: Annotated[int | None, typer.Option(min=1, help="Interleaved rounds; default 10.")] = None,
    block: Annotated[
        int | None, typer.Option(min=1, help="Iterations per block; default: iterations / rounds.")
    ] = None,
    aa_control: Annotated[
        bool, typer.Option("--aa-control", help="Add a second instance of the first variant (A/A).")
    ] = False,
    seed: Annotated[int | None, typer.Option(min=0, help="Seed of the round order; default: random.")] = None,
    max_rounds: Annotated[
        int | None,
        typer.Option(
            min=1, help="Add rounds while a verdict is inconclusive, up to this many; default: off."
        ),
    ] = None,
    max_minutes: Annotated[
        float | None,
        typer.Option(min=0.1, help="No round added after this many minutes (with --max-rounds)."),
    ] = None,
    statement_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.1,
            max=3600,
            help="custom-sql: seconds each statement may run (default 30); past it the variant fails.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    api: Annotated[str | None, typer.Option(help="API base URL; default from settings.")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the run.")] = 3600.0,
    token: TokenOption = None,
) -> None:
    """Submit a run to the queue, wait for it, print the per-variant summary.

    JSON: {"run_id", "status", "error", "summary": [one row per variant (and group, and metric for
    templates with several primary metrics): {"variant", "group"?, "metric", "unit", "iterations",
    "rounds", "median_s", "p95_s", "median", "p95", "ratio", "ratio_low", "ratio_high", "verdict",
    "mde", "aa_low", "aa_high"}]}: times in seconds (client-side, per iteration), median/p95 in the
    metric's unit, ratios to the first variant from the rounds (see docs/architecture.md, verdicts).
    Exit code 1 unless succeeded.
    """
    if not variant:
        raise typer.BadParameter("give at least one --variant TARGET[:PRESET]", param_hint="--variant")
    parameters = dict(_parameter(p) for p in param)
    if statement_timeout is not None:
        if workload != "custom-sql":
            raise typer.BadParameter("custom-sql only", param_hint="--statement-timeout")
        parameters["statement_timeout_s"] = statement_timeout
    base = (api or _default_api()).rstrip("/")
    body = {
        "workload": workload,
        "iterations": iterations,
        "name": name,
        "variants": [_variant_spec(v) for v in variant],
        "parameters": parameters,
        "schedule": schedule,
        "rounds": rounds,
        "block": block,
        "aa_control": aa_control,
        "seed": seed,
        "max_rounds": max_rounds,
        "max_minutes": max_minutes,
    }
    if policy is not None:
        body["policy"] = policy
    try:
        run, comparison = _submit_and_wait(base, body, timeout, token)
    except httpx.HTTPError as unreachable:
        typer.echo(f"cannot reach the Upgrade Lab API at {base}: {unreachable}", err=True)
        raise typer.Exit(2) from unreachable
    status, error = str(run.status), run.error
    summary = _summary(comparison)
    if as_json:
        typer.echo(
            json.dumps({"run_id": run.id, "status": status, "error": error, "summary": summary}, indent=2)
        )
    else:
        typer.echo(f"run {run.id}: {status}")
        for row in summary:
            typer.echo(_summary_line(row))
        if error:
            typer.echo(error, err=True)
    if status != "succeeded":
        raise typer.Exit(1)


def _submit_and_wait(
    base: str, body: dict[str, Any], timeout: float, token: str | None
) -> tuple[RunRead, Comparison | None]:
    """POST the experiment and its run, poll the run until final; the last RunRead and the verdict
    table (GET /api/compare, stored once when the run ended; None when the API gives none). Responses
    are parsed into the API's own schemas, so a changed shape fails here, naming the field."""
    with httpx.Client(base_url=base, timeout=30, headers=_headers(token)) as client:
        created = client.post("/api/experiments", json=body)
        if created.status_code in (401, 403):
            typer.echo(f"not allowed: {_error_text(created)} (give --token or UPGRADELAB_TOKEN)", err=True)
            raise typer.Exit(2)
        if created.status_code != 201:
            typer.echo(f"experiment refused: {_error_text(created)}", err=True)
            raise typer.Exit(2)
        experiment = ExperimentRead.model_validate_json(created.content)
        queued = client.post(f"/api/experiments/{experiment.id}/runs")
        queued.raise_for_status()
        run = RunRead.model_validate_json(queued.content)
        typer.echo(f"run {run.id} queued: {base}/runs/{run.id}", err=True)
        deadline = time.monotonic() + timeout
        shown: RunProgress | None = None
        while not run.status.is_final and time.monotonic() < deadline:
            time.sleep(1.0)
            run = RunRead.model_validate_json(client.get(f"/api/runs/{run.id}").content)
            if run.progress and run.progress != shown:
                typer.echo(_progress_text(run.progress), err=True)
                shown = run.progress
        verdicts = client.get("/api/compare", params={"runs": str(run.id), "series": "false"})
        comparison = Comparison.model_validate_json(verdicts.content) if verdicts.status_code == 200 else None
    return run, comparison


def _summary(comparison: Comparison | None) -> list[dict[str, Any]]:
    """The --json summary rows from GET /api/compare (see `run`'s docstring for the shape)."""
    if comparison is None:
        return []
    rows = []
    grouped = any(row.group for row in comparison.rows)
    for row in comparison.rows:
        ratio, floor = row.ratio, row.aa_floor
        out: dict[str, Any] = {"variant": row.variant, **({"group": row.group} if grouped else {})}
        out |= row.model_dump(include={"metric", "unit", "iterations", "rounds", "median_s", "p95_s"})
        out |= {"median": row.median, "p95": row.p95}
        out |= {"ratio": 1.0 if row.is_baseline else (ratio.ratio if ratio else None)}
        out |= {"ratio_low": ratio.low if ratio else None, "ratio_high": ratio.high if ratio else None}
        out |= {
            "verdict": "baseline" if row.is_baseline else (ratio.verdict if ratio else None),
            "mde": ratio.mde if ratio else None,
        }
        out |= {"aa_low": floor.low if floor else None, "aa_high": floor.high if floor else None}
        rows.append(out)
    return rows


def _summary_line(row: dict[str, Any]) -> str:
    """One text line: variant [group] metric, iterations, rounds, median, ratio [interval] verdict."""
    name = f"{row['variant']} {row.get('group', '')}".strip()
    median = "-" if row["median"] is None else f"{row['median']:.4g} {row['unit']}"
    ratio = "-" if row["ratio"] is None else f"{row['ratio']:.3f}x"
    if row["ratio_low"] is not None:
        ratio += f" [{row['ratio_low']:.3f}, {row['ratio_high']:.3f}]"
    return (
        f"  {name:<40} {row['metric']:<8} n={row['iterations']:<5} rounds={row['rounds']:<3} "
        f"median {median:<14} {ratio:<26} {row['verdict'] or '-'}"
    )


def _progress_text(progress: RunProgress) -> str:
    """One stderr line of dataset preparation progress (rows, MB, elapsed and estimated seconds)."""
    parts = [progress.phase]
    if progress.rows_total:
        parts.append(f"{progress.rows or 0:,} / {progress.rows_total:,} rows")
    if progress.bytes is not None:
        parts.append(f"~{progress.bytes / 1048576:.1f} MB")
    if progress.elapsed_s is not None:
        parts.append(f"{progress.elapsed_s:.1f} s elapsed")
    if progress.estimate_s is not None:
        parts.append(f"~{progress.estimate_s:.0f} s estimated")
    return "dataset: " + ", ".join(parts)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option()] = None, port: Annotated[int | None, typer.Option()] = None
) -> None:
    """Run the API and the built UI with uvicorn (migrations are applied first)."""
    import uvicorn

    from upgradelab.migrations import upgrade_head

    settings = get_settings()
    upgrade_head()
    uvicorn.run("upgradelab.main:app", host=host or settings.api_host, port=port or settings.api_port)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply every Alembic migration to the configured database."""
    from upgradelab.migrations import upgrade_head

    upgrade_head()
    typer.echo(f"database at head: {get_settings().sync_database_url}", err=True)


targets_app = typer.Typer(help="Servers under test: list (default), add, cleanup.")
app.add_typer(targets_app, name="targets")


@targets_app.callback(invoke_without_command=True)
def targets(
    ctx: typer.Context, api: Annotated[str | None, typer.Option()] = None, token: TokenOption = None
) -> None:
    """List the targets (name, flavor, version)."""
    if ctx.invoked_subcommand is not None:
        return
    response = httpx.get(
        f"{(api or _default_api()).rstrip('/')}/api/targets", timeout=10, headers=_headers(token)
    )
    response.raise_for_status()
    for target in response.json():
        typer.echo(f"{target['name']:<20} {target['flavor']:<8} {target['version'] or '(not started yet)'}")


@targets_app.command("add")
def targets_add(
    name: Annotated[str, typer.Argument(help="Target name, e.g. mysql-8.0.")],
    port: Annotated[int | None, typer.Option(help="Port; existing: default 3306.")] = None,
    image: Annotated[str | None, typer.Option(help="Docker image: a docker target.")] = None,
    basedir: Annotated[str | None, typer.Option(help="Unpacked MySQL tarball: a tarball target.")] = None,
    existing: Annotated[bool, typer.Option("--existing", help="A server the lab does not run.")] = False,
    host: Annotated[str | None, typer.Option(help="Existing: host (loopback or allowlisted).")] = None,
    user: Annotated[str | None, typer.Option(help="Existing: the lab's account on the server.")] = None,
    password: Annotated[
        str | None,
        typer.Option(envvar="UPGRADELAB_TARGET_PASSWORD", help="Existing: password (else prompted; env)."),
    ] = None,
    database: Annotated[str | None, typer.Option(help="Existing: the lab's own database there.")] = None,
    ssl_ca: Annotated[str | None, typer.Option(help="Existing: CA file; turns TLS on.")] = None,
    ssl_verify_identity: Annotated[bool, typer.Option(help="Existing: check the server's name.")] = False,
    disposable: Annotated[bool, typer.Option(help="Its data may be destroyed.")] = False,
    restart_test: Annotated[bool, typer.Option(help="Existing: try a real RESTART (cold runs).")] = False,
    flavor: Annotated[str, typer.Option(help="mysql or mariadb (existing: detected).")] = "mysql",
    option: Annotated[list[str], typer.Option(help="Base server option NAME=VALUE, repeatable.")] = [],  # noqa: B006
    api: Annotated[str | None, typer.Option(help="API base URL; default from settings.")] = None,
    token: TokenOption = None,
) -> None:
    """Add a docker (--image), tarball (--basedir) or existing (--existing) target through POST
    /api/targets, and for an existing server print what the lab may do there.

    Needs an admin token, e.g. `upgradelab targets add mysql-8.0 --image mysql:8.0.40 --port 33080` or
    `upgradelab targets add staging --existing --host 127.0.0.1 --port 3306 --user lab --database lab`.
    Exit 2 when refused.
    """
    if sum((image is not None, basedir is not None, existing)) != 1:
        raise typer.BadParameter("give exactly one of --image (docker), --basedir (tarball) or --existing")
    body: dict[str, Any] = {"name": name, "flavor": flavor, "disposable": disposable}
    if existing:
        if not (host and user and database):
            raise typer.BadParameter("--existing needs --host, --user and --database")
        if password is None:
            password = typer.prompt(f"password of {user} on {host}", hide_input=True, default="")
        settings: dict[str, Any] = {"host": host, "port": port or 3306, "user": user, "password": password}
        settings |= {"database": database, "ssl_verify_identity": ssl_verify_identity}
        settings |= {"ssl_ca": ssl_ca} if ssl_ca else {}
        body |= {"provisioner": "existing", "settings": settings, "restart_test": restart_test}
    else:
        if port is None:
            raise typer.BadParameter("--port is needed for docker and tarball targets")
        base_options = {n: (v or None) for n, _, v in (o.partition("=") for o in option)}
        settings = {"port": port, "base_options": base_options}
        settings |= {"image": image} if image else {"basedir": basedir}
        body |= {"provisioner": "docker" if image else "tarball", "settings": settings}
    response = httpx.post(
        f"{(api or _default_api()).rstrip('/')}/api/targets", json=body, timeout=120, headers=_headers(token)
    )
    if response.status_code != 201:
        typer.echo(f"target refused: {_error_text(response)}", err=True)
        raise typer.Exit(2)
    created = response.json()
    typer.echo(f"target {name} added ({body['provisioner']})")
    if created.get("capabilities"):
        typer.echo(capabilities_text(created["capabilities"]))


def capabilities_text(capabilities: dict[str, Any]) -> str:
    """An existing server's capabilities as lines: facts, then `yes|no  name  detail` per capability."""
    lines = [
        f"{capabilities['flavor']} {capabilities['version']} ({capabilities['version_comment']})"
        + (f", {capabilities['managed_service']}" if capabilities.get("managed_service") else ""),
        f"read_only={capabilities['read_only']} super_read_only={capabilities['super_read_only']} "
        f"log_bin={capabilities['log_bin']}",
    ]
    for check in capabilities["checks"]:
        lines.append(f"{'yes' if check['available'] else 'no ':<4} {check['name']:<19} {check['detail']}")
    return "\n".join(lines)


@targets_app.command("cleanup")
def targets_cleanup(
    target: Annotated[str | None, typer.Option(help="Only this target's leftovers.")] = None,
    templates: Annotated[bool, typer.Option(help="Also the initialized template volumes.")] = False,
) -> None:
    """Remove containers and volumes labelled upgradelab.managed=1 on this Docker host (leftovers
    of a killed worker); prints each removed name."""
    from upgradelab.targets.provisioners.docker import cleanup

    for removed in cleanup(target, templates=templates):
        typer.echo(removed)


@app.command()
def login(
    username: Annotated[str, typer.Option(prompt=True)],
    password: Annotated[str, typer.Option(prompt=True, hide_input=True, envvar="UPGRADELAB_PASSWORD")],
    api: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Sign in and print an API token; use it as `export UPGRADELAB_TOKEN=<token>`."""
    base = (api or _default_api()).rstrip("/")
    response = httpx.post(
        f"{base}/api/auth/login", json={"username": username, "password": password}, timeout=30
    )
    if response.status_code != 200:
        typer.echo(f"login refused: {_error_text(response)}", err=True)
        raise typer.Exit(2)
    typer.echo(response.json()["token"])


@users_app.command("create-admin")
def create_admin(
    username: Annotated[str, typer.Option(prompt=True)] = "admin",
    password: Annotated[
        str,
        typer.Option(
            prompt=True, hide_input=True, confirmation_prompt=True, envvar="UPGRADELAB_ADMIN_PASSWORD"
        ),
    ] = "",
) -> None:
    """Create an admin user directly in the metadata database (migrations applied first)."""
    from upgradelab.db import sync_session
    from upgradelab.migrations import upgrade_head
    from upgradelab.users.models import Role
    from upgradelab.users.service import create_user_sync

    if len(password) < 8:
        raise typer.BadParameter("at least 8 characters", param_hint="--password")
    upgrade_head()
    with sync_session() as session:
        try:
            create_user_sync(session, username, password, Role.admin)
        except ValueError as taken:
            typer.echo(str(taken), err=True)
            raise typer.Exit(1) from taken
    typer.echo(f"admin {username!r} created", err=True)


@users_app.command("token")
def issue_token(
    username: Annotated[str, typer.Option(help="An existing user.")] = "admin",
    label: Annotated[str, typer.Option(help="What the token is for.")] = "cli",
) -> None:
    """Print a new API token for USERNAME, written directly to the metadata database (on the server host)."""
    from sqlalchemy import select

    from upgradelab.db import sync_session
    from upgradelab.users.models import User
    from upgradelab.users.service import issue_token_sync

    with sync_session() as session:
        user = session.scalars(select(User).where(User.username == username)).first()
        if user is None:
            typer.echo(f"no user {username!r}; create one with `upgradelab users create-admin`", err=True)
            raise typer.Exit(1)
        typer.echo(issue_token_sync(session, user, label))


app.add_typer(datasets_app, name="datasets")
app.add_typer(replay_app, name="replay")

if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
