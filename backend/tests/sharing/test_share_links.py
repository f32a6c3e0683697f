"""Share links: read-only, no sign-in, revocable, no credentials."""

import httpx

from tests.runs.helpers import submit, wait_final


def test_a_share_link_opens_without_signing_in_and_stops_working_when_revoked(
    client: httpx.Client, api: str
) -> None:
    run_id = submit(client, [{"target": "mariadb-10.11"}], iterations=2, name="shared run")
    wait_final(client, run_id)
    link = client.post("/api/shares", json={"kind": "run", "run_id": run_id})
    assert link.status_code == 201, link.text
    token, path = link.json()["token"], link.json()["path"]
    assert len(token) >= 32 and path == f"/share/{token}"
    public = httpx.get(f"{api}/api/public/shares/{token}")
    assert public.status_code == 200
    body = public.json()
    assert body["kind"] == "run" and body["run"]["run"]["name"] == "shared run"
    series = body["run"]["series"][0]
    assert series["iterations"] == [1, 2] and len(series["elapsed_s"]) == 2 and series["total_points"] == 2
    assert "password" not in public.text.lower() and "settings" not in public.text.lower()
    # Read-only: the public token is no API credential.
    assert httpx.get(f"{api}/api/runs", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert client.delete(f"/api/shares/{link.json()['id']}").json()["revoked_at"] is not None
    assert httpx.get(f"{api}/api/public/shares/{token}").status_code == 404


def test_a_comparison_can_be_shared(client: httpx.Client, api: str) -> None:
    run_id = submit(
        client, [{"target": "mariadb-10.11"}, {"target": "mariadb-10.11", "preset": "skip-log-bin"}], 3
    )
    wait_final(client, run_id)
    link = client.post(
        "/api/shares", json={"kind": "comparison", "comparison": {"runs": [run_id], "warmup": 1}}
    )
    assert link.status_code == 201, link.text
    shared = httpx.get(f"{api}/api/public/shares/{link.json()['token']}").json()
    assert shared["kind"] == "comparison"
    assert [row["iterations"] for row in shared["comparison"]["rows"]] == [2, 2]


def test_a_share_needs_its_subject(client: httpx.Client) -> None:
    refused = client.post("/api/shares", json={"kind": "run"})
    assert refused.status_code == 422 and "run_id" in refused.text
    assert client.get("/api/public/shares/not-a-token").status_code == 404
