"""The shop dump, made once per session on its own MariaDB 10.11 server (tests/datasets/shop.py), and
deleting a dataset the way tests should (delete_dataset: waits for the removal of its copies)."""

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.datasets.shop import make_shop_dump


@pytest.fixture(scope="session")
def shop_dump(database: None) -> Iterator[Path]:
    """Path of shop.sql (plain mariadb-dump output, ~3 MB)."""
    provisioner = lab_provisioner("mariadb-10.11", ports.DUMP_SOURCE, suffix="dump")
    yield make_shop_dump(provisioner, STATE / "shop.sql")


def delete_dataset(client: httpx.Client, name: str, timeout_s: float = 300) -> None:
    """Delete dataset `name` (if live) and wait until the worker removed its copies from the targets:
    the removal takes the targets' locks and starts their servers, which the next test must not meet."""
    deleted = client.delete(f"/api/datasets/{name}")
    if deleted.status_code != 200:
        return
    deadline = time.monotonic() + timeout_s
    while True:
        records = client.get("/api/datasets", params={"deleted": True}).json()
        if next(r for r in records if r["id"] == deleted.json()["id"])["copies_pending"] == []:
            return
        assert time.monotonic() < deadline, f"dataset {name}: copies still pending after {timeout_s} s"
        time.sleep(0.5)
