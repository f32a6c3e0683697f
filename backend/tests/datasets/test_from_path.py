"""Datasets from a path (issue 18 item 7): only regular files inside UPGRADELAB_DATASET_DIRS, links
resolved, admin only, and one answer for every refusal, so the endpoint cannot tell whether a file
exists. Through the real API (the tests list two directories: tests/conftest.py DATASET_DIRS)."""

import hashlib
import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import HTTPException
from pydantic import ValidationError

from tests.conftest import DATASET_DIRS, STATE
from upgradelab.datasets.paths import DISABLED, REFUSED, PathRefused, open_allowed, open_or_refuse
from upgradelab.db import sync_session
from upgradelab.settings import Settings
from upgradelab.users.models import Role
from upgradelab.users.service import create_user_sync, issue_token_sync

ALLOWED, OTHER_ALLOWED = DATASET_DIRS
DUMP = b"CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1),(2);\n"
OUTSIDE = STATE / "outside"  # beside the listed directories, not in them


@pytest.fixture(scope="module")
def paths(database: None) -> Iterator[dict[str, str]]:
    """Every hostile path by case name, made on disk (the missing ones are not)."""
    OUTSIDE.mkdir(exist_ok=True)
    (OUTSIDE / "secret.sql").write_bytes(b"CREATE TABLE secret (id INT);\n")
    (ALLOWED / "ok.sql").write_bytes(DUMP)
    made = {
        "link-to-etc-passwd": ALLOWED / "passwd.sql",
        "link-to-a-file-outside": ALLOWED / "secret.sql",
        "link-to-a-dir-outside": ALLOWED / "outside-dir",
        "fifo": ALLOWED / "pipe.sql",
        "socket": ALLOWED / "socket.sql",
    }
    made["link-to-etc-passwd"].symlink_to("/etc/passwd")
    made["link-to-a-file-outside"].symlink_to(OUTSIDE / "secret.sql")
    made["link-to-a-dir-outside"].symlink_to(OUTSIDE, target_is_directory=True)
    os.mkfifo(made["fifo"])
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(made["socket"]))
    cases = {
        "etc-passwd": "/etc/passwd",
        "missing-outside": "/etc/no-such-file.sql",
        "missing-inside": str(ALLOWED / "no-such-file.sql"),
        "outside-beside-the-dirs": str(OUTSIDE / "secret.sql"),
        "dot-dot-out": f"{ALLOWED}/../outside/secret.sql",
        "dot-dot-back-in": f"{ALLOWED}/../dumps/ok.sql",
        "through-a-dir-link-out": f"{made['link-to-a-dir-outside']}/secret.sql",
        "the-listed-dir-itself": str(ALLOWED),
        "a-dir-inside": str(ALLOWED / "sub"),
        "dev-null": "/dev/null",
        "proc-self-environ": "/proc/self/environ",
        **{name: str(path) for name, path in made.items() if name != "link-to-a-dir-outside"},
    }
    (ALLOWED / "sub").mkdir()
    if os.geteuid() == 0:  # a character device inside a listed directory (mknod needs root)
        made["char-device"] = ALLOWED / "null.sql"
        os.mknod(made["char-device"], stat.S_IFCHR | 0o600, os.makedev(1, 3))
        cases["char-device"] = str(made["char-device"])
    yield cases


@pytest.fixture(scope="module")
def operator_headers(database: None) -> dict[str, str]:
    with sync_session() as session:
        user = create_user_sync(session, "path-operator", "operator-password", Role.operator)
        return {"Authorization": f"Bearer {issue_token_sync(session, user, 'tests')}"}


def _from_path(client: httpx.Client, name: str, path: str) -> httpx.Response:
    return client.post(f"/api/datasets/{name}/from-path", json={"path": path})


CASES = [
    "etc-passwd",
    "missing-outside",
    "missing-inside",
    "outside-beside-the-dirs",
    "dot-dot-out",
    "dot-dot-back-in",
    "through-a-dir-link-out",
    "the-listed-dir-itself",
    "a-dir-inside",
    "dev-null",
    "proc-self-environ",
    "link-to-etc-passwd",
    "link-to-a-file-outside",
    "fifo",
    "socket",
    "char-device",
]


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_path_is_refused_with_the_one_answer(
    client: httpx.Client, paths: dict[str, str], case: str
) -> None:
    if case not in paths:
        pytest.skip("mknod needs root")
    refused = _from_path(client, f"hostile-{case}", paths[case])
    assert (refused.status_code, refused.content) == (422, b'{"detail":"' + REFUSED.encode() + b'"}')
    names = [d["name"] for d in client.get("/api/datasets").json()]
    assert f"hostile-{case}" not in names


def test_missing_and_not_allowed_answer_byte_for_byte_the_same(
    client: httpx.Client, paths: dict[str, str]
) -> None:
    answers = {
        case: _from_path(client, "probe", paths[case])
        for case in ("missing-outside", "etc-passwd", "missing-inside", "link-to-etc-passwd", "fifo")
    }
    seen = {(a.status_code, a.headers["content-type"], a.content) for a in answers.values()}
    assert len(seen) == 1, seen


def test_an_allowed_file_is_copied_and_a_link_inside_the_dirs_is_followed(
    client: httpx.Client, paths: dict[str, str]
) -> None:
    (OTHER_ALLOWED / "ok-link.sql").symlink_to(ALLOWED / "ok.sql")  # from one listed dir to another
    try:
        for name, path in (
            ("from-path-ok", ALLOWED / "ok.sql"),
            ("from-path-link", OTHER_ALLOWED / "ok-link.sql"),
        ):
            created = _from_path(client, name, str(path))
            assert created.status_code == 201, created.text
            assert created.json()["sha256"] == hashlib.sha256(DUMP).hexdigest()
            assert created.json()["size_bytes"] == len(DUMP)
    finally:
        for name in ("from-path-ok", "from-path-link"):
            client.delete(f"/api/datasets/{name}")


def test_an_operator_gets_403_whether_the_path_exists_or_not(
    api: str, operator_headers: dict[str, str], paths: dict[str, str]
) -> None:
    with httpx.Client(base_url=api, headers=operator_headers, timeout=30) as operator:
        for path in (str(ALLOWED / "ok.sql"), "/etc/passwd", paths["missing-inside"]):
            refused = _from_path(operator, "operator-try", path)
            assert refused.status_code == 403 and "needs role admin" in refused.text
        assert operator.get("/api/datasets").status_code == 200  # the rest of datasets is an operator's
    assert not (STATE / "datasets" / "operator-try.dump").exists()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", []),
        ("/srv/dumps", [Path("/srv/dumps")]),
        ("/srv/dumps, /data/exports ,", [Path("/srv/dumps"), Path("/data/exports")]),
    ],
)
def test_dataset_dirs_is_a_comma_separated_list(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: list[Path]
) -> None:
    monkeypatch.setenv("UPGRADELAB_DATASET_DIRS", value)
    assert Settings().dataset_dirs == expected


def test_a_relative_dataset_dir_is_refused_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPGRADELAB_DATASET_DIRS", "/srv/dumps,dumps")
    with pytest.raises(ValidationError, match="UPGRADELAB_DATASET_DIRS: not absolute: dumps"):
        Settings()


def test_no_listed_directory_turns_from_path_off_naming_the_setting(paths: dict[str, str]) -> None:
    with pytest.raises(HTTPException) as refused:
        open_or_refuse(str(ALLOWED / "ok.sql"), [])
    assert refused.value.status_code == 422 and refused.value.detail == DISABLED
    assert "UPGRADELAB_DATASET_DIRS" in DISABLED


def test_a_directory_swapped_for_a_link_after_resolving_is_caught(
    paths: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race the final check closes: realpath sees a directory inside, then it becomes a link out."""
    inside = ALLOWED / "swap"
    inside.mkdir()
    (inside / "dump.sql").write_bytes(DUMP)
    real_realpath: Callable[..., str] = os.path.realpath

    def swap_after_resolving(path: str | Path, strict: bool = False) -> str:
        resolved = real_realpath(path, strict=strict)
        if str(path).endswith("swap/dump.sql"):
            (inside / "dump.sql").unlink()
            inside.rmdir()
            inside.symlink_to(OUTSIDE, target_is_directory=True)
            (OUTSIDE / "dump.sql").write_bytes(b"outside")
        return resolved

    monkeypatch.setattr(os.path, "realpath", swap_after_resolving)
    with pytest.raises(PathRefused, match="outside the listed directories"):
        open_allowed(str(inside / "dump.sql"), DATASET_DIRS)
