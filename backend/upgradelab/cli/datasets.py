"""`upgradelab datasets`: add (upload, streamed, or a path on the lab's machine), list (live or
deleted), show, delete (asks first; --yes for scripts); through the API."""

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import httpx
import typer
from pydantic import TypeAdapter

from upgradelab.cli.client import ApiOption, TokenOption, auth_headers, default_api, error_text

# datasets.schemas imports the loader and, through it, the provisioners and models (sqlalchemy):
# read inside the commands that parse an answer, so the command line starts without them.
if TYPE_CHECKING:
    from upgradelab.datasets.schemas import DatasetRead

datasets_app = typer.Typer(
    help="Datasets: SQL dumps loaded into every variant's server.", no_args_is_help=True
)


def _client(api: str | None, token: str | None) -> httpx.Client:
    return httpx.Client(
        base_url=api or default_api(), timeout=httpx.Timeout(30, write=None), headers=auth_headers(token)
    )


def _call(response: httpx.Response, ok: int = 200) -> Any:
    if response.status_code != ok:
        typer.echo(f"refused ({response.status_code}): {error_text(response)}", err=True)
        raise typer.Exit(2)
    return response.json()


def _dataset(response: httpx.Response, ok: int = 200) -> "DatasetRead":
    """The response parsed into the API's own schema (exit 2 with the API's message otherwise)."""
    from upgradelab.datasets.schemas import DatasetRead

    return DatasetRead.model_validate(_call(response, ok))


def _datasets(response: httpx.Response) -> list["DatasetRead"]:
    """A list answer parsed like `_dataset`."""
    from upgradelab.datasets.schemas import DatasetRead

    return TypeAdapter(list[DatasetRead]).validate_python(_call(response))


def _line(dataset: "DatasetRead") -> str:
    targets = ", ".join(sorted(dataset.loads)) or "not loaded yet"
    size = dataset.size_bytes / 1048576
    line = f"{dataset.name:<24} {size:>9.1f} MB  {dataset.compression:<5} {targets}"
    if dataset.deleted_at is not None:
        when = f"{dataset.deleted_at:%Y-%m-%d %H:%M}"
        line += f"  deleted {when} by {dataset.deleted_by}, sha256 {dataset.sha256}"
    return line


def _reports(count: int) -> str:
    return f"{count} replay report{'' if count == 1 else 's'}"


@datasets_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="Dataset name: lower-case letters, digits, - and _.")],
    file: Annotated[Path, typer.Argument(help="A mysqldump / mariadb-dump file: plain, .gz or .zst.")],
    on_worker: Annotated[
        bool,
        typer.Option(
            help="FILE is a path on the lab's machine, inside a directory listed in "
            "UPGRADELAB_DATASET_DIRS: copied there, not uploaded (admin only)."
        ),
    ] = False,
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Create dataset NAME from a dump: uploaded in 1 MiB blocks with progress on stderr."""
    with _client(api, token) as client:
        if on_worker:
            created = _dataset(client.post(f"/api/datasets/{name}/from-path", json={"path": str(file)}), 201)
        else:
            if not file.is_file():
                raise typer.BadParameter(f"{file} is not a file", param_hint="FILE")
            total = file.stat().st_size

            def blocks() -> Iterator[bytes]:
                sent = 0
                with file.open("rb") as handle:
                    while block := handle.read(1 << 20):
                        sent += len(block)
                        typer.echo(
                            f"\ruploading {sent / 1048576:.1f} / {total / 1048576:.1f} MB", err=True, nl=False
                        )
                        yield block
                typer.echo("", err=True)

            headers = {"content-type": "application/octet-stream", "content-length": str(total)}
            created = _dataset(client.put(f"/api/datasets/{name}", content=blocks(), headers=headers), 201)
    typer.echo(_line(created))


@datasets_app.command("list")
def list_datasets(
    deleted: Annotated[bool, typer.Option(help="The deleted datasets' records instead.")] = False,
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Every live dataset: size, compression, targets it was loaded on (--deleted: the deleted ones,
    with when, by whom and their sha256)."""
    with _client(api, token) as client:
        response = client.get("/api/datasets", params={"deleted": deleted})
        for dataset in _datasets(response):
            typer.echo(_line(dataset))


@datasets_app.command("show")
def show(name: str, api: ApiOption = None, token: TokenOption = None) -> None:
    """A dataset's tables, rows and size per target it was loaded on."""
    with _client(api, token) as client:
        dataset = _dataset(client.get(f"/api/datasets/{name}"))
    typer.echo(f"{_line(dataset)}\nsha256 {dataset.sha256}, database {dataset.database}")
    typer.echo(f"{_reports(dataset.replay_count)} measured on it")
    for target, load in sorted(dataset.loads.items()):
        typer.echo(f"  {target} ({load.version}):")
        for table in load.tables:
            typer.echo(f"    {table.name:<32} {table.rows:>12,} rows {table.bytes / 1048576:>9.1f} MB")


@datasets_app.command("delete")
def delete(
    name: str,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first (scripts).")] = False,
    api: ApiOption = None,
    token: TokenOption = None,
) -> None:
    """Delete a dataset's dump and its loaded copies on the targets, after saying how many replay
    reports were measured on it (they are kept, with their share links and exports) and asking."""
    with _client(api, token) as client:
        dataset = _dataset(client.get(f"/api/datasets/{name}"))
        typer.echo(
            f"dataset {name}: its dump ({dataset.size_bytes / 1048576:.1f} MB) and its loaded copies on "
            f"the targets will be removed; {_reports(dataset.replay_count)} measured on it will be kept, "
            "with their share links and exports.",
            err=True,
        )
        if not yes and not typer.confirm("Delete it?", err=True):
            typer.echo("not deleted", err=True)
            raise typer.Exit(1)
        deleted = _dataset(client.delete(f"/api/datasets/{name}"))
    pending = ", ".join(deleted.copies_pending or []) or "none"
    typer.echo(
        f"dataset {name} deleted (sha256 {deleted.sha256}); {_reports(deleted.replay_count)} kept; "
        f"copies being removed from: {pending}",
        err=True,
    )
