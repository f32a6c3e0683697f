"""Share links of a capture and of a check (issue 35, Deliver 2): a token opens the record read-only
without signing in (the check's CSV too); the token is in the answer that made it only (issue 44: the
database keeps its sha256; the signed-in read says `shared`), sharing again gives a new token and
stops the old one, revoking stops the link at once. An uploaded option file is the
capture (no team server needed) and its check runs on MariaDB 11.8's binary."""

from collections.abc import Iterator

import httpx
import pytest

from tests.captures.team import wait
from tests.conftest import auth_headers

MY_CNF = "[mysqld]\nmax_connections = 60\ninnodb_change_buffer_max_size = 30\n"


@pytest.fixture(scope="module")
def http(api: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api, timeout=60, headers=auth_headers()) as client:
        yield client


def test_a_shared_capture_and_check_read_without_sign_in_until_revoked(http: httpx.Client, api: str) -> None:
    uploaded = http.post("/api/captures/my-cnf", json={"name": "shared.cnf", "text": MY_CNF})
    assert uploaded.status_code == 201, uploaded.text
    capture_id = uploaded.json()["id"]
    assert uploaded.json()["share_token"] is None and uploaded.json()["shared"] is False
    first = http.post(f"/api/captures/{capture_id}/share").json()["share_token"]
    token = http.post(f"/api/captures/{capture_id}/share").json()["share_token"]
    assert first and token and token != first  # a new one each time: the first was shown once
    read = http.get(f"/api/captures/{capture_id}").json()
    assert read["share_token"] is None and read["shared"] is True
    with httpx.Client(base_url=api, timeout=60) as public:  # no credentials
        assert public.get(f"/api/public/captures/{first}").status_code == 404  # replaced
        assert public.get(f"/api/captures/{capture_id}").status_code == 401
        shared = public.get(f"/api/public/captures/{token}")
        assert shared.status_code == 200 and shared.json()["id"] == capture_id
        names = {v["name"] for v in shared.json()["configuration"]["variables"]}
        assert names == {"max_connections", "innodb_change_buffer_max_size"}
        assert public.get("/api/public/captures/not-a-token").status_code == 404

        created = http.post(f"/api/captures/{capture_id}/checks", json={"target": "mariadb-11.8"})
        assert created.status_code == 201, created.text
        check_id = created.json()["id"]
        found = wait(http, capture_id, f"/checks/{check_id}")
        assert found["status"] == "succeeded", found["error"]
        check_token = http.post(f"/api/captures/{capture_id}/checks/{check_id}/share").json()["share_token"]
        assert check_token and check_token != token
        read = public.get(f"/api/public/captures/checks/{check_token}").json()
        assert read["id"] == check_id and read["ordered"][0]["severity"] == "does_not_start"
        csv = public.get(f"/api/public/captures/checks/{check_token}/findings.csv")
        assert csv.status_code == 200 and "innodb-change-buffer-max-size=30" in csv.text
        assert csv.text == http.get(f"/api/captures/{capture_id}/checks/{check_id}/findings.csv").text

        # revoked: the links stop at once (404 as for an unknown token); sharing again gives a new one
        assert http.delete(f"/api/captures/{capture_id}/share").json()["share_token"] is None
        assert public.get(f"/api/public/captures/{token}").status_code == 404
        revoked = http.delete(f"/api/captures/{capture_id}/checks/{check_id}/share")
        assert revoked.status_code == 200 and revoked.json()["share_token"] is None
        assert public.get(f"/api/public/captures/checks/{check_token}").status_code == 404
        assert public.get(f"/api/public/captures/checks/{check_token}/findings.csv").status_code == 404
        again = http.post(f"/api/captures/{capture_id}/share").json()["share_token"]
        assert again not in (None, token) and public.get(f"/api/public/captures/{again}").status_code == 200
