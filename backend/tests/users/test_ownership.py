"""Roles that mean something (issue 30, finding 8): an operator cancels, deletes and revokes only what
they created, an admin anything, each refusal a 403 saying why; a viewer is shown no share token.

The jobs here are records written straight into the metadata database, queued but never sent to a
worker, so no server starts: what is tested is the API's decision. Who a record belongs to is set by
the API's create endpoints (users/auth.py stamp_owner); the upload and share tests go through them.
"""

import os
import subprocess
import uuid
from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import select

from tests.conftest import BIN, STATE, auth_headers
from upgradelab.attribution.models import Attribution
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.datasets.models import Dataset
from upgradelab.db import sync_session
from upgradelab.execution.status import JobStatus
from upgradelab.fixsearch.models import FixSearch
from upgradelab.replay.models import ReplayRun
from upgradelab.runs.models import Experiment, Run
from upgradelab.sharing.models import JobShare
from upgradelab.users.models import Role
from upgradelab.users.service import create_user_sync, issue_token_sync, token_digest

Headers = dict[str, str]
DUMP = b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1);\n"


class Person:
    """A signed-in user of the test API: id and Authorization header."""

    def __init__(self, role: Role) -> None:
        with sync_session() as session:
            user = create_user_sync(session, f"own-{role.value}-{uuid.uuid4().hex[:8]}", "password-1", role)
            self.id: int = user.id
            self.headers: Headers = {"Authorization": f"Bearer {issue_token_sync(session, user, 'tests')}"}


@pytest.fixture(scope="module")
def alice(api: str) -> Person:
    return Person(Role.operator)


@pytest.fixture(scope="module")
def bob(api: str) -> Person:
    return Person(Role.operator)


@pytest.fixture(scope="module")
def vera(api: str) -> Person:
    return Person(Role.viewer)


def _admin() -> Headers:
    return auth_headers()


def _run(owner: int | None, status: JobStatus = JobStatus.queued) -> int:
    with sync_session() as session:
        experiment = Experiment(name="owned", workload="insert-truncate", iterations=1, variants=[])
        session.add(experiment)
        session.flush()
        run = Run(experiment_id=experiment.id, status=status, created_by=owner)
        session.add(run)
        session.commit()
        return run.id


def _replay(owner: int | None) -> int:
    with sync_session() as session:
        dataset = Dataset(
            name=f"own-{uuid.uuid4().hex[:8]}", path=str(STATE / "none.sql"), sha256="0" * 64,
            size_bytes=0, compression="none",
        )  # fmt: skip
        session.add(dataset)
        session.flush()
        replay = ReplayRun(
            name="owned", dataset_id=dataset.id, source_format="sql", variants=[], repeats=1, sample=1,
            statements=[], skipped_writes=[], created_by=owner,
        )  # fmt: skip
        session.add(replay)
        session.commit()
        return replay.id


def _attribution(owner: int | None) -> int:
    origin = _run(None, JobStatus.succeeded)
    with sync_session() as session:
        row = Attribution(run_id=origin, variant="b", baseline="a", created_by=owner)
        session.add(row)
        session.commit()
        return row.id


JOBS: dict[str, Callable[[int | None], int]] = {"run": _run, "replay": _replay, "attribution": _attribution}
PATHS = {"run": "/api/runs", "replay": "/api/replays", "attribution": "/api/attributions"}


def _cancel(api: str, kind: str, job_id: int, headers: Headers) -> httpx.Response:
    return httpx.post(f"{api}{PATHS[kind]}/{job_id}/cancel", headers=headers, timeout=30)


def _status(api: str, kind: str, job_id: int) -> str:
    response = httpx.get(f"{api}{PATHS[kind]}/{job_id}", headers=_admin(), timeout=30)
    status: str = response.json()["status"]
    return status


@pytest.mark.parametrize("kind", JOBS)
def test_an_operator_cancels_only_their_own_jobs_and_an_admin_any(
    kind: str, api: str, alice: Person, bob: Person
) -> None:
    job = JOBS[kind](alice.id)
    refused = _cancel(api, kind, job, bob.headers)
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        f"{kind} {job} belongs to another user; only its owner or an admin may cancel it"
    )
    assert _status(api, kind, job) == "queued"
    assert _cancel(api, kind, job, alice.headers).status_code == 200
    assert _status(api, kind, job) == "cancelled"

    other = JOBS[kind](alice.id)
    assert _cancel(api, kind, other, _admin()).status_code == 200
    assert _status(api, kind, other) == "cancelled"


@pytest.mark.parametrize("kind", JOBS)
def test_a_job_without_a_recorded_owner_is_an_admins_to_cancel(kind: str, api: str, alice: Person) -> None:
    job = JOBS[kind](None)
    refused = _cancel(api, kind, job, alice.headers)
    assert refused.status_code == 403 and "has no recorded owner" in refused.json()["detail"]
    assert _cancel(api, kind, job, _admin()).status_code == 200


def _upload(api: str, name: str, person: Person) -> httpx.Response:
    headers = {**person.headers, "content-type": "application/octet-stream"}
    return httpx.put(f"{api}/api/datasets/{name}", content=DUMP, headers=headers, timeout=60)


def test_an_uploaded_dataset_is_deleted_by_its_uploader_or_an_admin_only(
    api: str, alice: Person, bob: Person
) -> None:
    mine, theirs = f"own-a-{uuid.uuid4().hex[:6]}", f"own-b-{uuid.uuid4().hex[:6]}"
    assert _upload(api, mine, alice).status_code == 201
    assert _upload(api, theirs, alice).status_code == 201
    with sync_session() as session:
        rows = session.scalars(select(Dataset).where(Dataset.name.in_([mine, theirs])))
        owners = {row.name: row.created_by for row in rows}
    assert owners == {mine: alice.id, theirs: alice.id}

    refused = httpx.delete(f"{api}/api/datasets/{mine}", headers=bob.headers, timeout=30)
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        f"dataset {mine} belongs to another user; only its owner or an admin may delete it"
    )
    assert httpx.get(f"{api}/api/datasets/{mine}", headers=bob.headers).status_code == 200  # still live
    assert httpx.delete(f"{api}/api/datasets/{mine}", headers=alice.headers, timeout=30).status_code == 200
    assert httpx.delete(f"{api}/api/datasets/{theirs}", headers=_admin(), timeout=30).status_code == 200


def _share(api: str, run_id: int, headers: Headers) -> dict[str, object]:
    created = httpx.post(
        f"{api}/api/shares", json={"kind": "run", "run_id": run_id}, headers=headers, timeout=30
    )
    assert created.status_code == 201, created.text
    link: dict[str, object] = created.json()
    return link


def _listed(api: str, run_id: int, headers: Headers) -> set[object]:
    response = httpx.get(f"{api}/api/shares", params={"run_id": run_id}, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return {link["id"] for link in response.json()}


def test_share_links_are_revoked_by_their_creator_or_an_admin_and_listed_by_role(
    api: str, alice: Person, bob: Person, vera: Person
) -> None:
    run_id = _run(alice.id, JobStatus.succeeded)
    # the third link is an admin's: only the run's owner or an admin may share it (issue 44)
    kept, revoked = _share(api, run_id, alice.headers), _share(api, run_id, alice.headers)
    admins = _share(api, run_id, _admin())

    refused = httpx.delete(f"{api}/api/shares/{kept['id']}", headers=bob.headers)
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        f"share link {kept['id']} belongs to another user; only its owner or an admin may revoke it"
    )
    assert httpx.get(f"{api}/api/public/shares/{kept['token']}").status_code == 200
    assert httpx.delete(f"{api}/api/shares/{revoked['id']}", headers=alice.headers).status_code == 200
    assert httpx.delete(f"{api}/api/shares/{admins['id']}", headers=_admin()).status_code == 200

    # a revoked link is listed to its creator and to admins only
    assert _listed(api, run_id, alice.headers) == {kept["id"], revoked["id"]}
    assert _listed(api, run_id, bob.headers) == {kept["id"]}
    assert _listed(api, run_id, _admin()) == {kept["id"], revoked["id"], admins["id"]}

    # a viewer is listed no link: a token opens the result to anyone without signing in
    listing = httpx.get(f"{api}/api/shares", params={"run_id": run_id}, headers=vera.headers)
    assert listing.status_code == 403 and "operators and admins only" in listing.json()["detail"]
    assert str(kept["token"]) not in listing.text


def test_a_share_token_is_shown_once_to_its_maker_and_never_read_back(
    api: str, alice: Person, vera: Person
) -> None:
    """Issue 44: the database keeps a share token's sha256; the token is in the answer that made the
    link only, read back by nobody (the owner neither: a viewer never could), and opens the link."""
    row = _attribution(alice.id)
    shared = httpx.post(f"{api}/api/attributions/{row}/share", headers=alice.headers, timeout=30)
    assert shared.status_code == 200 and shared.json()["share_token"]
    token = shared.json()["share_token"]
    for path in (f"/api/attributions/{row}", f"/api/attributions/{row}/export?format=json"):
        for person in (vera, alice):
            read = httpx.get(f"{api}{path}", headers=person.headers, timeout=30)
            assert read.status_code == 200 and token not in read.text, path
            assert '"shared": true' in read.text or '"shared":true' in read.text, path
    with sync_session() as session:
        live = (JobShare.kind == "attribution", JobShare.job_id == row, JobShare.revoked_at.is_(None))
        stored = session.scalars(select(JobShare.token).where(*live)).all()
    assert stored == [token_digest(token)]
    assert httpx.get(f"{api}/api/public/attributions/{token}", timeout=30).status_code == 200
    listed = httpx.get(f"{api}/api/attributions", headers=vera.headers, timeout=30)
    assert listed.status_code == 200 and token not in listed.text


def test_one_revoke_closes_a_link_of_any_kind_and_the_list_shows_every_kind(
    api: str, alice: Person, bob: Person
) -> None:
    """Issue 48, item 2: an attribution's and a capture's links are in the one list (kind, job_id, no
    token) and DELETE /api/shares/{id} revokes them as it does a run's (owner-checked); a kind's
    own DELETE .../share revokes the same link."""
    attribution, capture = _attribution(alice.id), _capture(alice.id)
    token = httpx.post(f"{api}/api/attributions/{attribution}/share", headers=alice.headers).json()[
        "share_token"
    ]
    capture_token = httpx.post(f"{api}/api/captures/{capture}/share", headers=alice.headers).json()[
        "share_token"
    ]

    def listed(kind: str, job_id: int) -> list[dict[str, object]]:
        params: dict[str, str | int] = {"kind": kind, "job_id": job_id}
        response = httpx.get(f"{api}/api/shares", params=params, headers=alice.headers, timeout=30)
        assert response.status_code == 200 and token not in response.text, response.text
        return list(response.json())

    [link] = listed("attribution", attribution)
    assert (link["kind"], link["job_id"], link["token"], link["revoked_at"]) == (
        "attribution",
        attribution,
        None,
        None,
    )
    assert httpx.get(f"{api}/api/shares", headers=alice.headers).json()[0]["kind"] == "capture"
    refused = httpx.delete(f"{api}/api/shares/{link['id']}", headers=bob.headers)
    assert refused.status_code == 403 and "only its owner or an admin may revoke it" in refused.text
    assert httpx.get(f"{api}/api/public/attributions/{token}").status_code == 200
    revoked = httpx.delete(f"{api}/api/shares/{link['id']}", headers=alice.headers)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    assert httpx.get(f"{api}/api/public/attributions/{token}").status_code == 404
    assert httpx.get(f"{api}/api/attributions/{attribution}", headers=alice.headers).json()["shared"] is False

    [capture_link] = listed("capture", capture)
    assert (
        httpx.delete(f"{api}/api/captures/{capture}/share", headers=alice.headers).json()["shared"] is False
    )
    [capture_link] = listed("capture", capture)
    assert capture_link["revoked_at"] is not None
    assert httpx.get(f"{api}/api/public/captures/{capture_token}").status_code == 404


def test_a_job_started_through_the_api_is_its_starters(api: str, alice: Person, bob: Person) -> None:
    """The run is the caller's from its first answer on (no worker is waited for: it is cancelled at
    once, before or during provisioning)."""
    body = {"workload": "insert-truncate", "iterations": 1, "variants": [{"target": "mariadb-10.11"}]}
    experiment = httpx.post(f"{api}/api/experiments", json=body, headers=alice.headers, timeout=30).json()
    queued = httpx.post(f"{api}/api/experiments/{experiment['id']}/runs", headers=alice.headers, timeout=30)
    assert queued.status_code == 201, queued.text
    run_id = queued.json()["id"]
    try:
        with sync_session() as session:
            assert session.get_one(Run, run_id).created_by == alice.id
        assert _cancel(api, "run", run_id, bob.headers).status_code == 403
    finally:
        assert _cancel(api, "run", run_id, alice.headers).status_code == 200


def test_the_cli_says_why_a_cancel_was_refused(api: str, alice: Person, bob: Person) -> None:
    replay = _replay(alice.id)
    token = bob.headers["Authorization"].removeprefix("Bearer ")
    done = subprocess.run(
        [str(BIN / "upgradelab"), "replay", "cancel", str(replay), "--api", api],
        capture_output=True, text=True, timeout=120, env={**os.environ, "UPGRADELAB_TOKEN": token},
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"cancel refused (403): replay {replay} belongs to another user; "
        "only its owner or an admin may cancel it"
    )
    assert "Traceback" not in done.stderr


# ---- issue 44, item 3: a share link or an edit needs the owner (or an admin), for every kind ----------
def _fix_search(owner: int | None) -> int:
    replay = _replay(None)
    with sync_session() as session:
        dataset_id = session.get_one(ReplayRun, replay).dataset_id
        row = FixSearch(
            replay_id=replay, fingerprint_id="f", variant="b", baseline="a", dataset_id=dataset_id,
            created_by=owner,
        )  # fmt: skip
        session.add(row)
        session.commit()
        return row.id


def _capture(owner: int | None) -> int:
    with sync_session() as session:
        row = Capture(target="mariadb-10.11", status=JobStatus.succeeded, created_by=owner)
        session.add(row)
        session.commit()
        return row.id


def _check(owner: int | None) -> tuple[int, int]:
    capture = _capture(None)
    with sync_session() as session:
        row = CaptureCheck(capture_id=capture, target="mariadb-10.11", created_by=owner)
        session.add(row)
        session.commit()
        return capture, row.id


# kind -> (make one owned by the given user, the request sharing it), each answering what it shares
def _share_request(kind: str, owner: int) -> tuple[str, str, dict[str, object] | None]:
    if kind == "run":
        run = _run(owner, JobStatus.succeeded)
        return f"run {run}", "/api/shares", {"kind": "run", "run_id": run}
    if kind == "comparison":
        first, second = _run(owner, JobStatus.succeeded), _run(owner, JobStatus.succeeded)
        return f"run {first}", "/api/shares", {"kind": "comparison", "comparison": {"runs": [first, second]}}
    if kind == "replay":
        replay = _replay(owner)
        return f"replay {replay}", "/api/shares", {"kind": "replay", "replay_id": replay}
    if kind == "attribution":
        row = _attribution(owner)
        return f"attribution {row}", f"/api/attributions/{row}/share", None
    if kind == "fix search":
        row = _fix_search(owner)
        return f"fix search {row}", f"/api/fixsearches/{row}/share", None
    if kind == "capture":
        row = _capture(owner)
        return f"capture {row}", f"/api/captures/{row}/share", None
    capture, check = _check(owner)
    return f"check {check}", f"/api/captures/{capture}/checks/{check}/share", None


SHARED_KINDS = ["run", "comparison", "replay", "attribution", "fix search", "capture", "check"]


@pytest.mark.parametrize("kind", SHARED_KINDS)
def test_only_the_owner_or_an_admin_makes_a_share_link(
    kind: str, api: str, alice: Person, bob: Person
) -> None:
    what, path, body = _share_request(kind, alice.id)
    refused = httpx.post(f"{api}{path}", json=body, headers=bob.headers, timeout=30)
    assert refused.status_code == 403, refused.text
    assert (
        refused.json()["detail"] == f"{what} belongs to another user; only its owner or an admin may share it"
    )
    assert httpx.post(f"{api}{path}", json=body, headers=alice.headers, timeout=30).status_code in {200, 201}
    assert httpx.post(f"{api}{path}", json=body, headers=_admin(), timeout=30).status_code in {200, 201}


def test_a_comparison_is_shared_only_by_whom_owns_every_run_in_it(api: str, alice: Person) -> None:
    mine, nobodys = _run(alice.id, JobStatus.succeeded), _run(None, JobStatus.succeeded)
    body = {"kind": "comparison", "comparison": {"runs": [mine, nobodys]}}
    refused = httpx.post(f"{api}/api/shares", json=body, headers=alice.headers, timeout=30)
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        f"run {nobodys} has no recorded owner; only its owner or an admin may share it"
    )


def test_a_runs_name_and_notes_are_edited_by_its_owner_or_an_admin_only(
    api: str, alice: Person, bob: Person
) -> None:
    run = _run(alice.id, JobStatus.succeeded)
    refused = httpx.patch(f"{api}/api/runs/{run}", json={"notes": "bob was here"}, headers=bob.headers)
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        f"run {run} belongs to another user; only its owner or an admin may edit it"
    )
    assert httpx.get(f"{api}/api/runs/{run}", headers=bob.headers).json()["notes"] != "bob was here"
    mine = httpx.patch(f"{api}/api/runs/{run}", json={"notes": "alice's"}, headers=alice.headers)
    assert mine.status_code == 200 and mine.json()["notes"] == "alice's"
    admin = httpx.patch(f"{api}/api/runs/{run}", json={"name": "renamed"}, headers=_admin())
    assert admin.status_code == 200 and admin.json()["name"] == "renamed"
