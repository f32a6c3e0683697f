"""The statistics candidate measured on a real MariaDB (issue 34, Deliver 3), mechanics only: its arm
runs on a second instance of the variant (fixsearch/second.py), three arms with rounds, a restoring
one checked on the whole replay there, the instance stopped after, the variant's own kept datadir
untouched.

Planted cheap, no regression: the baseline and the variant are the same server with the same options
(statements of milliseconds), so no timing effect is judged (the common rule) and the tolerance is
the largest the API takes; the replay has an A/A control (a second instance of the baseline, on the
target's third slot, which the search's second instance then reuses: the dataset's kept datadir) and
two fingerprints, so a restoring global candidate has one other fingerprint to check. The search is
asked for the statistics source only (`--scope global --only statistics`: the levers and settings,
measured by the package's other real-server tests, are left out: issue 31's gate time).

The replay is this module's own: the package's other planted replays have one fingerprint or no A/A
control; deleting the dataset after starts the slots it was loaded on (replay/dataset_copies.py:
the dump's copies removed from the kept datadirs, product behaviour kept)."""

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from tests.conftest import BIN
from tests.execution.cancel_helpers import servers, target_dir
from tests.fixsearch.planted import planted_replay
from upgradelab.db import sync_session
from upgradelab.measurement.dataset_records import record_path
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import provisioner_for

DATASET = "fix-statistics"
TARGET = "mariadb-11.8"
DUMP = (
    "CREATE TABLE o (id INT PRIMARY KEY, k INT NOT NULL);\n"
    f"INSERT INTO o VALUES {', '.join(f'({n}, {n % 17})' for n in range(1, 301))};\n"
).encode()
QUERY = "SELECT COUNT(*) FROM o WHERE o.k < 5"
OTHER = "SELECT MAX(id) FROM o WHERE o.id > 250"
AS_IS = {"target": TARGET, "name": "as is"}


@pytest.fixture(scope="module")
def replay(http: httpx.Client) -> Iterator[dict[str, Any]]:
    queries = f"{QUERY};\n{OTHER};\n"
    with planted_replay(http, DATASET, DUMP, queries, [TARGET, AS_IS], aa_control=True) as found:
        yield found


def _slot(slot: int) -> Any:
    with sync_session() as session:
        target = session.scalars(select(Target).where(Target.name == TARGET)).one()
    return provisioner_for(target, slot=slot)


def test_the_statistics_candidate_is_measured_on_a_second_instance_of_the_variant(
    api: str, replay: dict[str, Any]
) -> None:
    fingerprint = next(f for f in replay["report"]["fingerprints"] if "k <" in f["fingerprint"])[
        "fingerprint_id"
    ]
    assert record_path(_slot(1)).exists()  # the variant's kept datadir holds the dataset
    done = subprocess.run(
        [str(BIN / "upgradelab"), "fix", "--api", api, "--replay", str(replay["id"]), "--fingerprint",
         fingerprint, "--variant", "as is", "--json", "--rounds", "5", "--budget-rounds", "400",
         "--tolerance", "1.0", "--scope", "global", "--only", "statistics"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1), (done.returncode, done.stdout[-3000:], done.stderr[-2000:])
    found = json.loads(done.stdout)
    assert found["status"] == "succeeded", (found["error"], found["result"])
    assert found["sources"] == ["statistics"]  # stored with the search, and nothing else tried
    assert [c["source"] for c in found["candidates"]] == ["statistics"]
    statistics = found["candidates"][0]
    assert [t["name"] for t in found["tried"]] == [statistics["name"]]
    assert statistics["extra"]["columns"] == {"o": ["k"]} and statistics["scope"] == "global"
    trial = next(t for t in found["tried"] if t["name"] == statistics["name"])
    # measured: three arms timed in the same rounds (the candidate's on the second instance)
    assert trial["status"] in ("restores", "does not restore", "undecided"), trial["reason"]
    assert trial["rounds"] >= 5 and trial["results_equal"] is True
    for key in ("ratio_to_baseline", "ratio_to_variant", "variant_to_baseline"):
        assert trial[key] is not None and trial[key]["rounds"] == trial["rounds"], key
    assert trial["statements"] == [QUERY]  # the statement unchanged: the statistics are the remedy
    assert "its arm ran on a second instance of the variant" in trial["reason"]
    assert "the replay's A/A control" in trial["reason"]  # its interval, beside the instance difference
    if trial["status"] == "restores":  # a global remedy: checked on the replay's other fingerprint
        effects = trial["side_effects"]
        assert effects["complete"] is True and [e["rounds"] for e in effects["checked"]] == [5]
    # the second instance (slot 2) ended with the search and its datadir is no longer the dataset's
    # as loaded (its record forgotten); the variant's own (slot 1) is kept for later replays
    assert servers(target_dir(TARGET)) == []
    assert not record_path(_slot(2)).exists()
    assert record_path(_slot(1)).exists()
