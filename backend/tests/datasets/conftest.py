"""The shop dump, made once per session on its own MariaDB 10.11 server (tests/datasets/shop.py)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.datasets.shop import make_shop_dump


@pytest.fixture(scope="session")
def shop_dump(database: None) -> Iterator[Path]:
    """Path of shop.sql (plain mariadb-dump output, ~3 MB)."""
    provisioner = lab_provisioner("mariadb-10.11", ports.DUMP_SOURCE, suffix="dump")
    yield make_shop_dump(provisioner, STATE / "shop.sql")
