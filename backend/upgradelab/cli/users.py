"""`upgradelab login` (an API token through the API) and `upgradelab users create-admin | token`
(written directly to the metadata database, on the server host)."""

from typing import Annotated

import httpx
import typer

from upgradelab.cli.client import default_api, error_text

users_app = typer.Typer(help="Users of the web UI and API.", no_args_is_help=True)


def login(
    username: Annotated[str, typer.Option(prompt=True)],
    password: Annotated[str, typer.Option(prompt=True, hide_input=True, envvar="UPGRADELAB_PASSWORD")],
    api: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Sign in and print an API token; use it as `export UPGRADELAB_TOKEN=<token>`."""
    base = (api or default_api()).rstrip("/")
    response = httpx.post(
        f"{base}/api/auth/login", json={"username": username, "password": password}, timeout=30
    )
    if response.status_code != 200:
        typer.echo(f"login refused: {error_text(response)}", err=True)
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
