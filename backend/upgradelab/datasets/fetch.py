"""A dataset's dump as a file on this worker: its own state directory's copy when that is there and
sha256-correct, else streamed from the API (GET /api/datasets/{name}/dump with the worker credential,
pools/credential.py) into a cache keyed by sha256, so the API and the workers need no shared disk.

{state_dir}/datasets/<name>.dump is where the API keeps an upload and a dump taken from a path: on
the API's host (or a worker sharing its state directory) it is read in place. Elsewhere the cache
{state_dir}/dataset-cache/<sha256>.dump holds it; a download is written under a temporary name,
hashed on the way and renamed only when its sha256 is the dataset's, so a cached file is whole.
A file's verified sha256 is remembered in `<file>.sha256` with its size and mtime, so a large dump is
hashed once, not at every replay.
"""

import hashlib
import logging
import os
from pathlib import Path
from typing import Protocol

import httpx

from upgradelab.pools.credential import worker_token
from upgradelab.settings import Settings, get_settings

log = logging.getLogger(__name__)
_BLOCK = 1024 * 1024
# connect/read timeouts (s): a stalled API fails the replay instead of hanging it; no cap on the whole
_TIMEOUT = httpx.Timeout(30.0, read=120.0)


class DumpOf(Protocol):
    """What a dataset row gives (datasets/models.Dataset)."""

    name: str
    path: str
    sha256: str


class DumpUnavailable(Exception):
    """The dump could not be had: the API refused or broke off, or sent bytes of another sha256."""


def _stamp(path: Path) -> str:
    info = path.stat()
    return f"{info.st_size} {info.st_mtime_ns}"


def _verified(path: Path, sha256: str) -> bool:
    """Whether `path` exists and hashes to `sha256` (hashed once per size and mtime)."""
    if not path.is_file():
        return False
    marker = path.with_name(path.name + ".sha256")
    stamp = _stamp(path)
    if marker.is_file() and marker.read_text(encoding="ascii") == f"{sha256} {stamp}":
        return True
    digest = hashlib.sha256()
    with path.open("rb") as dump:
        while block := dump.read(_BLOCK):
            digest.update(block)
    if digest.hexdigest() != sha256:
        return False
    marker.write_text(f"{sha256} {stamp}", encoding="ascii")
    return True


def _download(dataset: DumpOf, into: Path, settings: Settings) -> None:
    url = f"{settings.api_base_url}/api/datasets/{dataset.name}/dump"
    part = into.with_name(f".{into.name}.{os.getpid()}.part")
    digest = hashlib.sha256()
    try:
        with httpx.stream(
            "GET", url, headers={"Authorization": f"Bearer {worker_token(settings)}"}, timeout=_TIMEOUT
        ) as response:
            if response.status_code != 200:
                response.read()
                raise DumpUnavailable(f"GET {url}: {response.status_code} {response.text[:200]}")
            with part.open("wb") as out:
                for block in response.iter_bytes(_BLOCK):
                    digest.update(block)
                    out.write(block)
        if digest.hexdigest() != dataset.sha256:
            raise DumpUnavailable(
                f"GET {url}: sha256 {digest.hexdigest()} is not the dataset's {dataset.sha256}"
            )
        part.replace(into)
        into.with_name(into.name + ".sha256").write_text(f"{dataset.sha256} {_stamp(into)}", encoding="ascii")
    except httpx.HTTPError as error:
        raise DumpUnavailable(f"GET {url}: {error}") from error
    finally:
        part.unlink(missing_ok=True)


def local_dump(dataset: DumpOf, settings: Settings | None = None) -> Path:
    """A local file holding the dataset's dump, sha256-checked (see the module docstring).

    Returns the state directory's copy or the cached one, downloading it first if need be.
    Raises DumpUnavailable when the API cannot give it or gives bytes of another sha256."""
    settings = settings or get_settings()
    own = Path(settings.state_dir) / "datasets" / Path(dataset.path).name
    if _verified(own, dataset.sha256):
        return own
    cache = Path(settings.state_dir) / "dataset-cache"
    cache.mkdir(parents=True, exist_ok=True)
    cached = cache / f"{dataset.sha256}.dump"
    if _verified(cached, dataset.sha256):
        return cached
    log.info("dataset %s: fetching its dump (sha256 %s) from the API", dataset.name, dataset.sha256)
    _download(dataset, cached, settings)
    return cached
