"""datasets/fetch.local_dump against the real API: the state directory's copy when its sha256 is
right, else the dump over HTTP with the worker credential into the sha256-keyed cache (reused, not
fetched again); a wrong credential or a wrong sha256 is refused and leaves nothing cached."""

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import STATE
from tests.datasets.conftest import delete_dataset
from upgradelab.datasets.fetch import DumpUnavailable, local_dump
from upgradelab.pools.credential import worker_token
from upgradelab.settings import Settings, get_settings

DUMP = b"CREATE TABLE f (id INT PRIMARY KEY);\nINSERT INTO f VALUES (1), (2);\n"


@dataclass
class Row:
    name: str
    path: str
    sha256: str


@pytest.fixture
def uploaded(client: httpx.Client) -> Iterator[Row]:
    created = client.put("/api/datasets/fetched", content=DUMP)
    assert created.status_code == 201, created.text
    path = STATE / "datasets" / "fetched.dump"
    assert path.read_bytes() == DUMP
    yield Row("fetched", str(path), hashlib.sha256(DUMP).hexdigest())
    delete_dataset(client, "fetched")


def _worker(state: Path, token: str | None = None) -> Settings:
    """This machine's settings as a worker with its own state directory would have them."""
    return get_settings().model_copy(update={"state_dir": state, "worker_token": token or worker_token()})


def test_the_state_directorys_copy_is_used_in_place(uploaded: Row) -> None:
    assert local_dump(uploaded, get_settings()) == Path(uploaded.path)


def test_a_worker_without_it_fetches_it_once_into_its_cache(uploaded: Row, tmp_path: Path) -> None:
    settings = _worker(tmp_path)
    fetched = local_dump(uploaded, settings)
    assert fetched == tmp_path / "dataset-cache" / f"{uploaded.sha256}.dump"
    assert fetched.read_bytes() == DUMP
    # the cached copy is used again without the API: a wrong credential does not matter now
    assert local_dump(uploaded, _worker(tmp_path, token="not-the-token")) == fetched


def test_a_wrong_credential_is_refused(uploaded: Row, tmp_path: Path, api: str) -> None:
    with pytest.raises(DumpUnavailable, match="401"):
        local_dump(uploaded, _worker(tmp_path, token="not-the-token"))
    assert httpx.get(f"{api}/api/datasets/fetched/dump").status_code == 401  # nor without one
    assert list((tmp_path / "dataset-cache").iterdir()) == []


def test_bytes_of_another_sha256_are_refused_and_not_cached(uploaded: Row, tmp_path: Path) -> None:
    wrong = Row(uploaded.name, uploaded.path, "0" * 64)
    with pytest.raises(DumpUnavailable, match="is not the dataset's"):
        local_dump(wrong, _worker(tmp_path))
    assert list((tmp_path / "dataset-cache").iterdir()) == []
