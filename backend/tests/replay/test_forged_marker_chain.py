"""Issue 30 finding 1, end to end on MariaDB 10.11 through the replay engine (replay_rounds, as the
worker's runner calls it, then its report as the runner builds it): dataset A's dump reaches for the
lab's `upgradelab_meta`, to leave a marker saying that dataset B's datadir also holds `mysql`, then
fails on purpose on a client command the scan cannot see; then B is replayed, read-only and with
writes, and tries to read the lab admin's hash, rewrite a definer in `mysql.proc` and point the
general log at a host file.

The chain fails at its first step (A's dump is refused by the scan naming the line, or, hidden in
dynamic SQL, by the server at that statement: no privilege there) and at every later one, shown by
forging A's success by hand ("forged": the marker written by the lab's admin into a kept datadir):
a failed load's datadir is thrown away, the marker is not trusted without the worker's record, B's
accounts hold no privilege outside B's database, no report carries a password hash, and no host
file is written. Each layer alone: tests/datasets/test_reserved_databases.py, test_dataset_records.py.
"""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import STATE, lab_provisioner
from tests.datasets.hostile import marker_name, markers_found
from upgradelab.datasets.accounts import LOAD_USER, READ_USER, WRITE_USER
from upgradelab.datasets.loader import LoadFailed
from upgradelab.execution.schedule import RunSchedule, plan
from upgradelab.measurement.dataset_load import DumpDataset, file_sha256
from upgradelab.measurement.dataset_records import read_record
from upgradelab.measurement.engine import ReplayVariant, VariantReplay, replay_rounds
from upgradelab.measurement.fingerprint import fingerprint, fingerprint_id, statement_kind
from upgradelab.measurement.sources import SourceStatement
from upgradelab.replay.compare import compare
from upgradelab.replay.document import report_document
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.base import execute, scalar

DENIED = {1044, 1142, 1227}  # access denied: database, table, privilege
READ_ONLY = 1792
B_DATABASE = "chain_b"
B_DUMP = """-- dataset B: a table and a function of its own
CREATE TABLE t (a INT);
INSERT INTO t VALUES (1), (2);
DELIMITER ;;
CREATE DEFINER=`root`@`localhost` FUNCTION f() RETURNS INT READS SQL DATA
BEGIN
  RETURN (SELECT COUNT(*) FROM t);
END ;;
DELIMITER ;
"""
MARKER_TABLE = (
    "CREATE TABLE upgradelab_meta.datasets (spec_hash CHAR(64) PRIMARY KEY, workload VARCHAR(64) NOT NULL, "
    "spec JSON NOT NULL, prepared_at DATETIME NOT NULL)"
)
# the client reads `\!` outside a string once backslashes are no escapes; the scan read it inside one
FAIL_ON_PURPOSE = "SET sql_mode = 'NO_BACKSLASH_ESCAPES';\nSELECT 'a\\';\n\\! touch /tmp/{m}\nSELECT 'b';\n"
# how dataset A reaches for upgradelab_meta: (the dump's first lines, the line and what refuses it)
REACHES = {
    "scan": ("CREATE DATABASE IF NOT EXISTS upgradelab_meta;\n", 3, "`upgradelab_meta` is the lab's own"),
    "server": (
        "SET @s = 'CREATE DATABASE upgradelab_meta';\nPREPARE s FROM @s;\nEXECUTE s;\n",
        5,
        "ERROR 1044",
    ),
}


def _statement(sql: str, position: int) -> SourceStatement:
    text = fingerprint(sql)
    return SourceStatement(sql, None, text, fingerprint_id(text), statement_kind(sql), position)


@pytest.fixture(scope="module")
def b_dataset(database: None) -> DumpDataset:
    path = STATE / "chain-b.sql"
    path.write_text(B_DUMP)
    return DumpDataset(path, file_sha256(path), B_DATABASE)


@pytest.fixture
def slot(database: None) -> Iterator[LocalProvisioner]:
    """Slot 0 of MariaDB 10.11, as a replay variant has it; a fresh datadir for each test."""
    provisioner = lab_provisioner("mariadb-10.11", suffix="chain")
    provisioner.start([])
    provisioner.discard()
    yield provisioner
    provisioner.discard()
    provisioner.stop()


def _datadir(provisioner: LocalProvisioner) -> Path:
    return provisioner.root / provisioner.inner_dir.lstrip("/") / "data"


def _a_dump(reach: str, b: DumpDataset, marker: str) -> DumpDataset:
    first, _, _ = REACHES[reach]
    spec = json.dumps({"sha256": b.sha256, "database": B_DATABASE, "databases": [B_DATABASE, "mysql"]})
    text = (
        "-- dataset A: forges dataset B's marker, then fails on purpose\n"
        "CREATE TABLE a_t (a INT);\n"
        f"{first}{MARKER_TABLE};\n"
        f"INSERT INTO upgradelab_meta.datasets VALUES ('{b.sha256}', 'dataset', '{spec}', NOW());\n"
        + FAIL_ON_PURPOSE.replace("{m}", marker)
    )
    path = STATE / f"chain-a-{reach}.sql"
    path.write_text(text)
    return DumpDataset(path, file_sha256(path), "chain_a")


def _forge_by_hand(provisioner: LocalProvisioner, b: DumpDataset) -> None:
    """What A would have left had its reach succeeded and its datadir been kept: B's database (as
    A's dump may make it) and B's marker naming `mysql`, with a token of its choosing."""
    admin = provisioner.start([], keep_data=True).connect()
    spec = {"sha256": b.sha256, "database": B_DATABASE, "databases": [B_DATABASE, "mysql"], "token": "0" * 32}
    try:
        execute(
            admin,
            "CREATE DATABASE chain_b",
            "CREATE TABLE chain_b.t (a INT)",
            f"CREATE DEFINER=`{LOAD_USER}`@`127.0.0.1` FUNCTION chain_b.f() RETURNS INT RETURN 1",
            "CREATE DATABASE upgradelab_meta",
            MARKER_TABLE,
        )
        with admin.cursor() as cursor:
            cursor.execute(
                "INSERT INTO upgradelab_meta.datasets VALUES (%s, 'dataset', %s, NOW())",
                (b.sha256, json.dumps(spec)),
            )
    finally:
        admin.close()
    provisioner.stop()  # kept: no discard, as a failed load used to leave it


def _b_statements(marker: str) -> list[SourceStatement]:
    sql = [
        "SELECT User, Host, authentication_string FROM mysql.user",
        "SELECT * FROM mysql.global_priv",
        "SELECT * FROM upgradelab_meta.datasets",
        "UPDATE mysql.proc SET definer = 'upgradelab@127.0.0.1' WHERE db = 'chain_b'",
        f"SET GLOBAL general_log_file = '/tmp/{marker}'",
        "SET GLOBAL general_log = ON",
        "SELECT f()",
        "SELECT COUNT(*) FROM t",
    ]
    return [_statement(one, position) for position, one in enumerate(sql)]


def _grants(admin: ServerConnection) -> list[str]:
    """Every grant line of the dataset accounts, at both hosts."""
    lines = []
    with admin.cursor() as cursor:
        for user in (LOAD_USER, READ_USER, WRITE_USER):
            cursor.execute("SELECT Host FROM mysql.user WHERE User = %s", (user,))
            for (host,) in cursor.fetchall():
                cursor.execute(f"SHOW GRANTS FOR '{user}'@'{host}'")
                lines += [str(row[0]) for row in cursor.fetchall()]
    return lines


def _hashes(admin: ServerConnection) -> set[str]:
    with admin.cursor() as cursor:
        cursor.execute("SELECT authentication_string FROM mysql.user WHERE authentication_string <> ''")
        return {str(row[0]) for row in cursor.fetchall()}


def _report(statements: list[SourceStatement], replay: VariantReplay) -> str:
    """The report as the runner stores it (replay/runner.py), as JSON."""
    schedule = RunSchedule.model_validate(plan("interleaved", 1, 1, 1, 1).as_json())
    document = report_document(statements, [replay], compare(statements, [replay]), schedule)
    return document.model_dump_json()


@pytest.mark.parametrize("reach", ["scan", "server", "forged"])
def test_the_forged_marker_chain_fails_at_its_first_step_and_at_every_later_one(
    slot: LocalProvisioner, b_dataset: DumpDataset, reach: str
) -> None:
    marker = marker_name()
    if reach == "forged":
        _forge_by_hand(slot, b_dataset)
    else:
        a_dataset = _a_dump(reach, b_dataset, marker)
        _, line, refused = REACHES[reach]
        with pytest.raises(LoadFailed) as failed:
            replay_rounds(
                [ReplayVariant("a", slot, [])],
                a_dataset,
                [_statement("SELECT 1", 0)],
                plan("interleaved", 1, 1, 1, 1),
            )
        print(reach, failed.value)
        assert failed.value.line == line and refused in str(failed.value), str(failed.value)
        assert read_record(slot) is None and not _datadir(slot).exists()  # thrown away at the job's end

    for writes in (False, True):
        statements = _b_statements(marker)
        (replay,) = replay_rounds(
            [ReplayVariant("b", slot, [])], b_dataset, statements, plan("interleaved", 1, 1, 1, 1),
            read_only=not writes,
        )  # fmt: skip
        codes = [outcome.error_code for outcome in replay.outcomes[: len(statements)]]  # DO 0 follows
        print(
            reach, "writes" if writes else "reads", [(o.error_code, o.error_message) for o in replay.outcomes]
        )
        allowed = DENIED if writes else DENIED | {READ_ONLY}
        assert all(code in allowed for code in codes[:6]), replay.outcomes[:6]
        assert codes[6:] == [None, None]
        assert all(o.row_count is None and o.checksum_ordered is None for o in replay.outcomes[:6])

        admin = slot.start([], keep_data=True).connect()  # the datadir the replay left
        try:
            grants = _grants(admin)
            assert grants, "no dataset account found"
            beyond = [
                g for g in grants if not g.startswith("GRANT USAGE ON *.*") and "`chain\\_b`.*" not in g
            ]
            assert beyond == [], grants
            report = _report(statements, replay)
            hashes = _hashes(admin)
            assert hashes and not [h for h in hashes if h in report]
            definer = scalar(admin, "SELECT definer FROM mysql.proc WHERE db = 'chain_b' AND name = 'f'")
            assert str(definer) == f"{LOAD_USER}@127.0.0.1"
            assert scalar(admin, "SELECT @@general_log") == 0
            assert "upgradelab-marker" not in str(scalar(admin, "SELECT @@general_log_file"))
        finally:
            admin.close()
        assert replay.load is not None or writes  # B was loaded afresh: neither A nor the forgery was trusted
        assert markers_found(marker) == []
