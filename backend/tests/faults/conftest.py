"""Fixtures of the fault tests: a throw-away instance per test (tests/faults/instance.py)."""

from collections.abc import Iterator

import pytest

from tests.faults.instance import LabInstance


@pytest.fixture
def lab() -> Iterator[LabInstance]:
    """Redis, a worker and the API of a fresh instance; everything stopped afterwards."""
    instance = LabInstance()
    try:
        instance.prepare()
        instance.start_redis()
        instance.start_worker()
        instance.start_api()
        yield instance
    finally:
        instance.close()
