"""`upgradelab serve` (the API and the built UI) and `upgradelab db upgrade` (the metadata database's
migrations): the commands run on the lab's own host."""

from typing import Annotated

import typer

from upgradelab.settings import get_settings

db_app = typer.Typer(help="The metadata database.", no_args_is_help=True)


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
