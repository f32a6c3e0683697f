"""Sign-in, roles and tokens on the real API."""

import subprocess

import httpx

from tests.conftest import ADMIN_PASSWORD, ADMIN_USER, BIN

BODY = {"workload": "insert-truncate", "iterations": 1, "variants": [{"target": "mariadb-10.11"}]}


def _login(api: str, username: str, password: str) -> httpx.Response:
    return httpx.post(f"{api}/api/auth/login", json={"username": username, "password": password})


def test_every_api_route_but_login_and_share_links_needs_a_signed_in_user(api: str) -> None:
    for path in ("/api/runs", "/api/targets", "/api/workloads", "/api/compare?runs=1", "/api/runs/1/events"):
        assert httpx.get(f"{api}{path}").status_code == 401, path
    assert httpx.post(f"{api}/api/experiments", json=BODY).status_code == 401


def test_login_sets_a_session_cookie_and_a_wrong_password_is_refused(api: str) -> None:
    assert _login(api, ADMIN_USER, "not-the-password").status_code == 401
    response = _login(api, ADMIN_USER, ADMIN_PASSWORD)
    assert response.status_code == 200
    assert response.json()["user"] == {
        "id": response.json()["user"]["id"],
        "username": ADMIN_USER,
        "role": "admin",
    }
    with httpx.Client(
        base_url=api, cookies={"upgradelab_session": response.cookies["upgradelab_session"]}
    ) as browser:
        assert browser.get("/api/auth/me").json()["username"] == ADMIN_USER
        assert browser.post("/api/auth/logout").status_code == 204
        assert browser.get("/api/auth/me").status_code == 401


def test_a_viewer_browses_but_cannot_start_experiments(client: httpx.Client, api: str) -> None:
    created = client.post(
        "/api/users", json={"username": "vera", "password": "viewer-pass", "role": "viewer"}
    )
    assert created.status_code == 201, created.text
    assert "password" not in created.text
    token = _login(api, "vera", "viewer-pass").json()["token"]
    viewer = {"Authorization": f"Bearer {token}"}
    listed = httpx.get(f"{api}/api/runs", headers=viewer)
    assert listed.status_code == 200, listed.text
    refused = httpx.post(f"{api}/api/experiments", json=BODY, headers=viewer)
    assert refused.status_code == 403 and "operator" in refused.json()["detail"]
    assert httpx.get(f"{api}/api/users", headers=viewer).status_code == 403


def test_an_operator_runs_experiments_but_does_not_manage_users(client: httpx.Client, api: str) -> None:
    client.post("/api/users", json={"username": "otto", "password": "operator-pass", "role": "operator"})
    operator = {"Authorization": f"Bearer {_login(api, 'otto', 'operator-pass').json()['token']}"}
    assert httpx.post(f"{api}/api/experiments", json=BODY, headers=operator).status_code == 201
    new_user = {"username": "x", "password": "12345678", "role": "admin"}
    assert httpx.post(f"{api}/api/users", json=new_user, headers=operator).status_code == 403


def test_no_endpoint_returns_target_settings_or_passwords(client: httpx.Client) -> None:
    for path in ("/api/targets", "/api/users", "/api/auth/me"):
        text = client.get(path).text.lower()
        # no such key anywhere (a server's own message may say "using password: YES")
        assert '"password"' not in text and '"settings"' not in text, path


CREATE_ADMIN = [
    str(BIN / "upgradelab"),
    "users",
    "create-admin",
    "--username",
    "root2",
    "--password",
    "long-enough-1",
]


def test_create_admin_command_stores_a_hashed_password(database: None) -> None:
    done = subprocess.run(CREATE_ADMIN, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    from sqlalchemy import select

    from upgradelab.db import sync_session
    from upgradelab.users.models import User

    with sync_session() as session:
        user = session.scalars(select(User).where(User.username == "root2")).one()
    assert user.role == "admin" and user.password_hash.startswith("$argon2id$")
    again = subprocess.run(CREATE_ADMIN, capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "already exists" in again.stderr
