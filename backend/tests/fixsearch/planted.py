"""A planted replay through the API for the fix search's real-server tests: the dump uploaded as a
dataset, one round of `queries` on `variants`, waited for (asserts it succeeded); the dataset deleted
after."""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from tests.datasets.conftest import delete_dataset


@contextmanager
def planted_replay(
    http: httpx.Client, dataset: str, dump: bytes, queries: str, variants: list[Any], **extra: Any
) -> Iterator[dict[str, Any]]:
    """The succeeded replay's JSON (GET /api/replays/{id}) while inside; `extra`: more of the replay's
    fields (aa_control=True)."""
    created = http.put(f"/api/datasets/{dataset}", content=dump)
    assert created.status_code == 201, created.text
    try:
        body = {"dataset": dataset, "queries": queries, "variants": variants,
                "rounds": 1, "max_rounds": 1, "passes": 1, **extra}  # fmt: skip
        started = http.post("/api/replays", json=body)
        assert started.status_code == 201, started.text
        deadline = time.monotonic() + 300
        found: dict[str, Any] = started.json()
        while found["status"] not in ("succeeded", "failed", "cancelled") and time.monotonic() < deadline:
            time.sleep(0.5)
            found = http.get(f"/api/replays/{found['id']}").json()
        assert found["status"] == "succeeded", found["error"]
        yield found
    finally:
        delete_dataset(http, dataset)
