"""The team's host on a check request: `team_host: {cpus, memory_mib}` validated and bounded by the
API (422 naming the field, before any capture is looked up) and given by `upgradelab capture check
--team-cpus N --team-memory-mib M` (the API's refusal printed, exit 2)."""

from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from tests.conftest import auth_headers
from upgradelab.captures.schemas import MAX_TEAM_CPUS, MAX_TEAM_MEMORY_MIB, MIN_TEAM_MEMORY_MIB
from upgradelab.cli import app

NO_CAPTURE = 999_999_999  # the body is refused before the capture is looked up


@pytest.mark.parametrize(
    ("team_host", "field"),
    [
        ({"cpus": 0}, "cpus"),
        ({"cpus": MAX_TEAM_CPUS + 1}, "cpus"),
        ({"cpus": "many"}, "cpus"),
        ({"memory_mib": MIN_TEAM_MEMORY_MIB - 1}, "memory_mib"),
        ({"memory_mib": MAX_TEAM_MEMORY_MIB + 1}, "memory_mib"),
        ({"cpus": 8, "ram": 1024}, "ram"),  # an unknown field is refused, never ignored
    ],
)
def test_a_team_host_out_of_bounds_is_refused_naming_its_field(
    api: str, team_host: dict[str, Any], field: str
) -> None:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        refused = client.post(
            f"/api/captures/{NO_CAPTURE}/checks", json={"target": "mysql-9.7", "team_host": team_host}
        )
    assert refused.status_code == 422, refused.text
    assert [item["loc"] for item in refused.json()["detail"]] == [["body", "team_host", field]]


def test_a_team_host_within_bounds_passes_validation(api: str) -> None:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        body = {"target": "mysql-9.7", "team_host": {"cpus": 64, "memory_mib": 262144}}
        answer = client.post(f"/api/captures/{NO_CAPTURE}/checks", json=body)
    assert answer.status_code == 404  # validated, then no such capture


def test_the_cli_sends_the_team_host_and_prints_the_apis_refusal(api: str) -> None:
    flags = ["capture", "check", str(NO_CAPTURE), "--target", "mysql-9.7", "--api", api]
    refused = CliRunner().invoke(app, [*flags, "--team-cpus", "0", "--team-memory-mib", "1024"])
    assert refused.exit_code == 2, refused.output
    assert "team_host.cpus" in refused.output and "team_host.memory_mib" not in refused.output
    too_small = CliRunner().invoke(app, [*flags, "--team-memory-mib", "10"])
    assert too_small.exit_code == 2 and "body.team_host.memory_mib" in too_small.output
