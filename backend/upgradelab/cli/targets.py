"""`upgradelab targets`: list the servers under test, add one (docker, tarball or an existing server,
through the API), and clean up a killed worker's leftover containers on this Docker host."""

from typing import Annotated, Any

import httpx
import typer

from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text

targets_app = typer.Typer(help="Servers under test: list (default), add, cleanup.")


@targets_app.callback(invoke_without_command=True)
def targets(
    ctx: typer.Context, api: Annotated[str | None, typer.Option()] = None, token: TokenOption = None
) -> None:
    """List the targets (name, flavor, version)."""
    if ctx.invoked_subcommand is not None:
        return
    response = httpx.get(
        f"{(api or default_api()).rstrip('/')}/api/targets", timeout=10, headers=auth_headers(token)
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
    purpose: Annotated[
        str,
        typer.Option(
            help="Existing: capture (the default: read-only, never written to, a read-only account is "
            "enough) or workloads (runs and replays there: write checks, --database needed).",
        ),
    ] = "capture",
    database: Annotated[
        str | None, typer.Option(help="Existing: the lab's own database there (purpose workloads).")
    ] = None,
    ssl_ca: Annotated[str | None, typer.Option(help="Existing: CA file; turns TLS on.")] = None,
    ssl_verify_identity: Annotated[bool, typer.Option(help="Existing: check the server's name.")] = False,
    auth_plugin: Annotated[
        list[str], typer.Option(help="Existing: an authentication plugin the lab may answer, repeatable.")
    ] = [],  # noqa: B006
    allow_cleartext: Annotated[
        bool, typer.Option(help="Existing: LDAP/PAM accounts' cleartext password, over verified TLS only.")
    ] = False,
    disposable: Annotated[bool, typer.Option(help="Its data may be destroyed.")] = False,
    restart_test: Annotated[bool, typer.Option(help="Existing: try a real RESTART (cold runs).")] = False,
    flavor: Annotated[str, typer.Option(help="mysql or mariadb (existing: detected).")] = "mysql",
    option: Annotated[list[str], typer.Option(help="Base server option NAME=VALUE, repeatable.")] = [],  # noqa: B006
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Add a docker (--image), tarball (--basedir) or existing (--existing) target through POST
    /api/targets, and for an existing server print what the lab may do there.

    Needs an admin token, e.g. `upgradelab targets add mysql-8.0 --image mysql:8.0.40 --port 33080`,
    `upgradelab targets add staging --existing --host 127.0.0.1 --port 3306 --user reader` (a team's
    server to capture or assess: read-only by default, never written to) or `upgradelab targets add
    bench --existing --purpose workloads --host 127.0.0.1 --user lab --database lab` (the lab runs
    workloads and replays there: asked for explicitly). Exit 2 when refused.
    """
    if sum((image is not None, basedir is not None, existing)) != 1:
        raise typer.BadParameter("give exactly one of --image (docker), --basedir (tarball) or --existing")
    body: dict[str, Any] = {"name": name, "flavor": flavor, "disposable": disposable}
    if existing:
        if purpose not in ("workloads", "capture"):
            raise typer.BadParameter(f"--purpose {purpose!r}: workloads or capture")
        if not (host and user):
            raise typer.BadParameter("--existing needs --host and --user")
        if purpose == "workloads" and not database:
            raise typer.BadParameter("--existing --purpose workloads needs --database (capture: none)")
        if password is None:
            password = typer.prompt(f"password of {user} on {host}", hide_input=True, default="")
        settings: dict[str, Any] = {"host": host, "port": port or 3306, "user": user, "password": password}
        settings |= {"purpose": purpose, "ssl_verify_identity": ssl_verify_identity}
        settings |= {"database": database} if database else {}
        settings |= {"ssl_ca": ssl_ca} if ssl_ca else {}
        settings |= {"auth_plugins": auth_plugin} if auth_plugin else {}
        settings |= {"allow_cleartext": True} if allow_cleartext else {}
        body |= {"provisioner": "existing", "settings": settings, "restart_test": restart_test}
    else:
        if port is None:
            raise typer.BadParameter("--port is needed for docker and tarball targets")
        base_options = {n: (v or None) for n, _, v in (o.partition("=") for o in option)}
        settings = {"port": port, "base_options": base_options}
        settings |= {"image": image} if image else {"basedir": basedir}
        body |= {"provisioner": "docker" if image else "tarball", "settings": settings}
    base = (api or default_api()).rstrip("/")
    response = httpx.post(f"{base}/api/targets", json=body, timeout=120, headers=auth_headers(token))
    if response.status_code != 201:
        typer.echo(f"target refused: {error_text(response)}", err=True)
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
