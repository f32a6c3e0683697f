"""A fix search asked for some candidate sources only (`sources`, `upgradelab fix --only`): the
others are left out before any is measured, in the search's order, under every scope; an unknown
source is refused (422 naming the field) by the API and through the CLI."""

import subprocess

import httpx
import pytest
from pydantic import ValidationError

from tests.conftest import BIN
from upgradelab.fixsearch.candidates import SOURCES, Candidate, build
from upgradelab.fixsearch.evidence import only, scoped
from upgradelab.fixsearch.histograms import statistics_candidate
from upgradelab.fixsearch.schemas import FixSearchCreate

BASE = {"optimizer_switch": "semijoin=on,rowid_filter=on", "optimizer_prune_level": "1"}
VARIANT = {"optimizer_switch": "semijoin=off,rowid_filter=on", "optimizer_prune_level": "2"}
QUERY = "SELECT COUNT(*) FROM o WHERE o.k < 5"


def _found() -> list[Candidate]:
    statistics = statistics_candidate("mariadb", QUERY, {"o": {"id", "k"}})
    assert statistics is not None
    return [*build("mariadb", BASE, VARIANT), statistics]


def test_only_the_asked_sources_are_kept_in_their_order() -> None:
    found = _found()
    assert {c.source for c in found} == {"differs", "lever", "statistics"}  # the test can fail
    assert [c.name for c in only(found, ["statistics"])] == [found[-1].name]
    kept = only(found, ["lever", "differs"])
    assert kept == [c for c in found if c.source != "statistics"]  # the search's order, not the asked one
    assert only(found, list(SOURCES)) == found
    # a global twin keeps its source: `--scope global --only lever` tries the levers' twins only
    twins = only(scoped(found, "global"), ["lever"])
    assert twins and all(c.source == "lever" and c.scope == "global" for c in twins)


def test_the_sources_default_to_all_and_an_unknown_one_is_refused_naming_the_field() -> None:
    spec = {"replay_id": 1, "fingerprint_id": "f", "variant": "v"}
    assert FixSearchCreate.model_validate(spec).sources == list(SOURCES)
    for bad in (["statistics", "hints"], []):
        with pytest.raises(ValidationError) as refused:
            FixSearchCreate.model_validate({**spec, "sources": bad})
        assert refused.value.errors()[0]["loc"][0] == "sources"


def test_the_api_and_the_cli_refuse_an_unknown_source_with_a_422(api: str, http: httpx.Client) -> None:
    body = {"replay_id": 999999, "fingerprint_id": "f", "variant": "v", "sources": ["statistics", "hints"]}
    refused = http.post("/api/fixsearches", json=body)
    assert refused.status_code == 422, refused.text
    error = refused.json()["detail"][0]
    assert (
        error["loc"] == ["body", "sources", 1] and "'statistics'" in error["msg"]
    )  # the field, what it takes
    done = subprocess.run(
        [str(BIN / "upgradelab"), "fix", "--api", api, "--replay", "999999", "--fingerprint", "f",
         "--variant", "v", "--only", "statistics", "--only", "hints"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "fix refused (422)" in done.stderr and "sources" in done.stderr, done.stderr
