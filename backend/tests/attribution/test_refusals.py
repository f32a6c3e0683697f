"""What an attribution refuses, through the API and `upgradelab explain` (no step runs)."""

import subprocess

import httpx

from tests.conftest import BIN


def _explain(api: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "upgradelab"), "explain", "--api", api, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_unknown_run_is_404_and_the_cli_exits_2(client: httpx.Client, api: str) -> None:
    answer = client.post("/api/attributions", json={"run_id": 999999, "variant": "x"})
    assert answer.status_code == 404
    done = _explain(api, "--run", "999999", "--variant", "x")
    assert done.returncode == 2
    assert "run 999999 not found" in done.stderr


def test_a_share_above_one_is_422_naming_the_field(client: httpx.Client) -> None:
    answer = client.post("/api/attributions", json={"run_id": 1, "variant": "x", "target_share": 1.5})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "target_share"]


def test_unknown_attribution_is_404(client: httpx.Client) -> None:
    assert client.get("/api/attributions/999999").status_code == 404
    assert client.get("/api/public/attributions/no-such-token").status_code == 404
    assert client.get("/api/public/attributions/no-such-token/export?format=csv").status_code == 404
