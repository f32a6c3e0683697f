"""A planted replay through the API for the fix search's real-server tests: the dump uploaded as a
dataset, one round of `queries` on `variants`, waited for (asserts it succeeded); the dataset deleted
after."""

import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from tests.conftest import BIN
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


def fix_json(api: str, replay_id: int, fingerprint: str, variant: str, *options: str) -> dict[str, Any]:
    """`upgradelab fix --json` of the fingerprint on the variant with `options`, its JSON (asserts it
    exited 0 or 1 and the search succeeded)."""
    done = subprocess.run(
        [str(BIN / "upgradelab"), "fix", "--api", api, "--replay", str(replay_id), "--fingerprint",
         fingerprint, "--variant", variant, "--json", *options],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode in (0, 1), (done.returncode, done.stdout[-3000:], done.stderr[-2000:])
    found: dict[str, Any] = json.loads(done.stdout)
    assert found["status"] == "succeeded", (found["error"], found["result"])
    return found
