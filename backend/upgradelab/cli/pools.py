"""`upgradelab pools`: the worker pools, their live workers, queue depth and the jobs waiting; and the
note the `run` command prints while its run waits in a pool with no live worker."""

from typing import Annotated

import httpx
import typer

from upgradelab.cli.client import TokenOption, auth_headers, default_api


def pools(api: Annotated[str | None, typer.Option()] = None, token: TokenOption = None) -> None:
    """List the worker pools: queue depth, jobs waiting, targets, then one line per live worker."""
    response = httpx.get(
        f"{(api or default_api()).rstrip('/')}/api/pools", timeout=10, headers=auth_headers(token)
    )
    response.raise_for_status()
    for pool in response.json():
        waiting = ", ".join(f"{job['kind']} {job['id']}" for job in pool["waiting"]) or "none"
        live = f"{len(pool['workers'])} live worker(s)" if pool["workers"] else "NO LIVE WORKER"
        typer.echo(
            f"{pool['name']:<16} {live}; queue {pool['queue']}: {pool['queue_depth']} message(s); "
            f"waiting: {waiting}; targets: {', '.join(pool['targets']) or '-'}"
        )
        for worker in pool["workers"]:
            typer.echo(
                f"  {worker['name']:<30} {worker['host']} pid {worker['pid']} version {worker['version']} "
                f"{worker['cpus']} CPUs {worker['memory_mb']} MiB, seen {worker['seen_at']}"
            )


def waiting_note(client: httpx.Client, kind: str, job_id: int) -> str | None:
    """ "queued for pool X: no live worker" while queued job `kind` `job_id` waits in a pool without a
    live worker (GET /api/pools/jobs/{kind}/{id}); None otherwise or when the API cannot say."""
    response = client.get(f"/api/pools/jobs/{kind}/{job_id}")
    if response.status_code != 200:
        return None
    message = response.json().get("message")
    return str(message) if message else None
