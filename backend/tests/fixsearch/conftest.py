"""Fixtures of the fix search's real-server tests."""

from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import auth_headers


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    """An admin's client of the session's API."""
    with httpx.Client(base_url=api, timeout=120, headers=auth_headers()) as client:
        yield client
