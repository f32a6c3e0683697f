"""A capture's and a check's stored JSON read typed (db.ModelJSON, issue 48): rows as the code before
wrote them (configuration, accounts before `role` and `locked`, a check's findings as
dataclasses.asdict, the team's host as given) read back as their models, the check's API read orders
them as before, and a capture's team variant drops what its check refused."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.captures.test_team_variant import CONFIG
from tests.stored_json import write_raw
from upgradelab.captures.configuration import Configuration
from upgradelab.captures.models import Capture, CaptureCheck
from upgradelab.captures.schemas import Account, CaptureSummary, OptionFindingRead, TeamHost
from upgradelab.db import sync_session
from upgradelab.execution.status import JobStatus

REFUSED = {"name": "innodb_change_buffer_max_size", "line": "innodb-change-buffer-max-size=30",
           "outcome": "refused", "words": "[ERROR] mariadbd: unknown variable", "shown": None, "note": "",
           "action": ""}  # fmt: skip
OLD_CAPTURE: dict[str, Any] = {
    "configuration": CONFIG.model_dump(mode="json"),
    # before `role` and `locked` were read (migration-free: they default False)
    "accounts": [{"user": "app", "host": "%", "plugin": "mysql_native_password"}],
    "identifiers": [],
    "progress": {"phase": "done", "message": ""},
}
OLD_CHECK: dict[str, Any] = {
    "findings": [REFUSED, {**REFUSED, "name": "max_connections", "line": "max-connections=77",
                           "outcome": "accepted", "words": ""}],
    "account_findings": [{"plugin": "mysql_native_password", "accounts": ["'app'@'%'"], "outcome": "missing",
                          "words": "gone", "action": ""}],
    "identifier_findings": [],
    "sql_mode_findings": [{"mode": "NO_AUTO_CREATE_USER", "team_sets": True, "words": "ERROR 1231"}],
    "charset_findings": [],
    "default_findings": [],
    "team_host": {"cpus": 8, "memory_mib": None},
}  # fmt: skip


@pytest.fixture
def old_rows(database: None) -> Iterator[tuple[int, int]]:
    """(capture id, check id), their JSON as stored before."""
    with sync_session() as session:
        capture = Capture(
            target="staging", status=JobStatus.succeeded, flavor="mariadb", version=CONFIG.version
        )
        session.add(capture)
        session.flush()
        check = CaptureCheck(capture_id=capture.id, target="mariadb-11.8", status=JobStatus.succeeded,
                             server="mariadbd 11.8.9")  # fmt: skip
        session.add(check)
        session.commit()
        ids = capture.id, check.id
    write_raw("capture", ids[0], **OLD_CAPTURE)
    write_raw("capture_check", ids[1], **OLD_CHECK)
    yield ids
    with sync_session() as session:
        session.delete(session.get_one(Capture, ids[0]))  # its checks cascade
        session.commit()


def test_a_capture_and_its_check_stored_before_read_back_as_their_models(old_rows: tuple[int, int]) -> None:
    with sync_session() as session:
        capture = session.get_one(Capture, old_rows[0])
        assert isinstance(capture.configuration, Configuration) and capture.configuration.differs == 5
        assert capture.accounts == [Account(user="app", host="%", plugin="mysql_native_password")]
        assert capture.progress is not None and capture.progress.phase == "done"
        assert capture.workload is None and capture.dump is None
        summary = CaptureSummary.of(capture)
        assert (summary.differs, summary.accounts, summary.digests) == (5, 1, None)
        check = session.get_one(CaptureCheck, old_rows[1])
        assert check.findings is not None and check.findings[0] == OptionFindingRead.model_validate(REFUSED)
        assert check.team_host == TeamHost(cpus=8) and check.hosts is None and check.schema_load is None
        assert (
            check.sql_mode_findings is not None and check.sql_mode_findings[0].mode == "NO_AUTO_CREATE_USER"
        )


def test_a_checks_read_orders_its_typed_findings_as_before(
    old_rows: tuple[int, int], client: httpx.Client
) -> None:
    read = client.get(f"/api/captures/{old_rows[0]}/checks/{old_rows[1]}")
    assert read.status_code == 200, read.text
    body = read.json()
    assert body["findings"] == OLD_CHECK["findings"] and body["team_host"] == OLD_CHECK["team_host"]
    ordered = [(one["kind"], one["subject"]) for one in body["ordered"]]
    assert ordered[0] == ("option", "innodb-change-buffer-max-size=30"), ordered  # refused: first
    assert {kind for kind, _ in ordered} >= {"option", "account", "sql_mode"}, ordered
    capture = client.get(f"/api/captures/{old_rows[0]}").json()
    assert capture["accounts"] == [{**OLD_CAPTURE["accounts"][0], "role": False, "locked": False}]
