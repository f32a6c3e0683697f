"""The lab's record of what a kept datadir holds (measurement/dataset_records.py), one layer of issue 30's
defence at a time: a kept datadir is reused only when the record outside it (written after a load
that succeeded) and the marker inside it carry one token, with the record's databases; a marker
alone, forged or guessed, is never trusted; a load that fails or is cancelled leaves no record and
its datadir is thrown away; while a dump loads no event runs (MySQL 9.7 starts the scheduler ON).
Decisions as data first, then on MariaDB 10.11 and MySQL 9.7 through ensure_dataset, as the replay
engine calls it."""

import json
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.datasets.hostile import marker_name
from upgradelab.datasets.accounts import READ_PRIVILEGES, READ_USER, ensure_account
from upgradelab.datasets.loader import LoadFailed
from upgradelab.datasets.reserved import ReservedDatabase
from upgradelab.measurement.dataset_load import DumpDataset, ensure_dataset, file_sha256
from upgradelab.measurement.dataset_records import (
    DatasetRecord,
    forget_record,
    read_record,
    record_path,
    reusable,
    write_record,
)
from upgradelab.targets.provisioners import LocalProvisioner
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.base import execute, scalar

SHA = "ab" * 32
TOKEN = "0f" * 16
RECORD = DatasetRecord(SHA, ["shop", "shop_own"], TOKEN)


@pytest.mark.parametrize(
    ("record", "marker", "why"),
    [
        (None, {"token": TOKEN}, "no record: the last load here did not succeed"),
        (RECORD, None, "no marker: the datadir is another (a fresh copy, a run's)"),
        (RECORD, {"token": "00" * 16}, "another token: a marker the dump wrote, or another load's"),
        (RECORD, {}, "a marker without a token: written before records"),
        (RECORD, {"token": 7}, "a token that is no string"),
        (RECORD, {"token": "\u0455" * 32}, "a non-ASCII token"),
        (DatasetRecord("cd" * 32, RECORD.databases, TOKEN), {"token": TOKEN}, "another dump's record"),
        (DatasetRecord(SHA, ["shop", "mysql"], TOKEN), {"token": TOKEN}, "a server's database"),
        (DatasetRecord(SHA, ["shop", "UPGRADELAB_META"], TOKEN), {"token": TOKEN}, "the lab's database"),
        (DatasetRecord(SHA, ["other", "shop"], TOKEN), {"token": TOKEN}, "not the default database first"),
        (DatasetRecord(SHA, [], TOKEN), {"token": TOKEN}, "no databases"),
    ],
)
def test_a_kept_datadir_is_not_trusted(
    record: DatasetRecord | None, marker: dict[str, object] | None, why: str
) -> None:
    assert reusable(record, marker, SHA, "shop") is None, why


def test_a_kept_datadir_is_trusted_with_the_records_databases_not_the_markers() -> None:
    marker = {"token": TOKEN, "databases": ["shop", "mysql"]}  # what a dump may have written there
    assert reusable(RECORD, marker, SHA, "shop") == ["shop", "shop_own"]


def test_the_record_is_a_private_file_and_a_damaged_one_is_no_record(database: None) -> None:
    provisioner = lab_provisioner("mariadb-10.11", suffix="records-file")
    forget_record(provisioner)
    assert read_record(provisioner) is None
    write_record(provisioner, RECORD)
    path = record_path(provisioner)
    assert path.parent == STATE / "dataset-records"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert read_record(provisioner) == RECORD
    for damaged in ["", "{", "[]", '{"sha256": "x"}', '{"sha256": "x", "databases": 3, "token": "t"}']:
        path.write_text(damaged)
        assert read_record(provisioner) is None, damaged
    forget_record(provisioner)
    assert not path.exists()


# ---- on MariaDB 10.11 ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mariadb(database: None) -> Iterator[LocalProvisioner]:
    provisioner = lab_provisioner("mariadb-10.11", suffix="records")
    yield provisioner
    provisioner.discard()
    provisioner.stop()


def _dataset(text: str, database: str) -> DumpDataset:
    path = STATE / f"records-{marker_name()}.sql"
    path.write_text(f"-- {path.name}\n{text}")
    return DumpDataset(path, file_sha256(path), database)


GOOD = "CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1), (2);\n"


def _datadir(provisioner: LocalProvisioner) -> Path:
    return provisioner.root / provisioner.inner_dir.lstrip("/") / "data"


def _load(provisioner: LocalProvisioner, dataset: DumpDataset) -> tuple[bool, list[str]]:
    """(whether the dump was loaded rather than reused, the databases) through ensure_dataset."""
    loaded = ensure_dataset(provisioner, [], dataset)
    loaded.admin.close()
    return loaded.load is not None, loaded.databases


def _forge_marker(provisioner: LocalProvisioner, dataset: DumpDataset, **spec: object) -> None:
    """What a dump that reached upgradelab_meta would leave: the marker's spec for `dataset`."""
    admin = provisioner.start([], keep_data=True).connect()
    try:
        with admin.cursor() as cursor:
            cursor.execute(
                "UPDATE upgradelab_meta.datasets SET spec = %s WHERE spec_hash = %s",
                (json.dumps(spec), dataset.sha256),
            )
            assert cursor.rowcount == 1
    finally:
        admin.close()


def test_a_load_is_recorded_and_reused_only_with_its_token(mariadb: LocalProvisioner) -> None:
    dataset = _dataset(GOOD, "rec_b")
    assert _load(mariadb, dataset) == (True, ["rec_b"])
    record = read_record(mariadb)
    assert record is not None and record.sha256 == dataset.sha256 and record.databases == ["rec_b"]
    assert _load(mariadb, dataset) == (False, ["rec_b"])  # the kept datadir, reused

    # the marker's databases are never read: the record's are
    _forge_marker(mariadb, dataset, sha256=dataset.sha256, databases=["rec_b", "mysql"], token=record.token)
    assert _load(mariadb, dataset) == (False, ["rec_b"])

    # a marker with a guessed token is another datadir's: loaded again, a new token
    _forge_marker(mariadb, dataset, sha256=dataset.sha256, databases=["rec_b", "mysql"], token="00" * 16)
    assert _load(mariadb, dataset) == (True, ["rec_b"])
    again = read_record(mariadb)
    assert again is not None and again.token != record.token

    # a marker with no record beside it (the record is the worker's: here removed) is not trusted
    forget_record(mariadb)
    assert _load(mariadb, dataset) == (True, ["rec_b"])


def test_a_record_naming_a_reserved_database_is_not_trusted(mariadb: LocalProvisioner) -> None:
    dataset = _dataset(GOOD, "rec_c")
    assert _load(mariadb, dataset)[0]
    record = read_record(mariadb)
    assert record is not None
    write_record(mariadb, DatasetRecord(record.sha256, ["rec_c", "mysql"], record.token))
    assert _load(mariadb, dataset) == (True, ["rec_c"])


def test_a_failed_load_leaves_no_record_and_its_datadir_is_thrown_away(mariadb: LocalProvisioner) -> None:
    assert _load(mariadb, _dataset(GOOD, "rec_d"))[0]
    assert read_record(mariadb) is not None
    failing = _dataset(
        "CREATE TABLE half (a INT);\nINSERT INTO half VALUES (1);\nSELECT * FROM nowhere;\n", "rec_e"
    )
    with pytest.raises(LoadFailed, match="at line 4 of the dump"):
        ensure_dataset(mariadb, [], failing)
    assert read_record(mariadb) is None
    assert (_datadir(mariadb) / "rec_e").is_dir()  # until the job's end ...
    mariadb.discard()
    assert not _datadir(mariadb).exists()  # ... where the instance's datadir goes
    admin = mariadb.start([], keep_data=True).connect()  # what a later start on kept data finds
    try:
        found = scalar(
            admin, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'rec\\_%'"
        )
        assert found == 0
    finally:
        admin.close()
    mariadb.discard()


def test_a_cancelled_load_leaves_no_record_and_its_datadir_is_thrown_away(mariadb: LocalProvisioner) -> None:
    slow = _dataset("CREATE TABLE s (a INT);\nDO SLEEP(120);\n", "rec_g")
    loading = _datadir(mariadb) / "rec_g"

    def cancel() -> None:  # as the replay's cancel watch does: its targets' servers stopped from outside
        deadline = time.monotonic() + 60
        while not (loading.is_dir() and any(loading.iterdir())) and time.monotonic() < deadline:
            time.sleep(0.1)
        lab_provisioner("mariadb-10.11", suffix="records").stop_all()

    watch = threading.Thread(target=cancel)
    watch.start()
    try:
        with pytest.raises((LoadFailed, pymysql.MySQLError)):
            ensure_dataset(mariadb, [], slow)
    finally:
        watch.join()
    assert read_record(mariadb) is None
    mariadb.discard()
    assert not _datadir(mariadb).exists()


def test_a_dataset_whose_database_is_reserved_is_refused_before_a_server_starts(
    mariadb: LocalProvisioner,
) -> None:
    mariadb.stop()
    for name in ("mysql", "upgradelab_meta", "Performance_Schema"):
        with pytest.raises(LoadFailed, match=f"`{name}` is the (server|lab)'s own"):
            ensure_dataset(mariadb, [], _dataset(GOOD, name))
        assert mariadb.pid() is None


def _grants(admin: ServerConnection, user: str) -> list[str]:
    with admin.cursor() as cursor:
        cursor.execute(f"SHOW GRANTS FOR '{user}'@'127.0.0.1'")
        return [str(row[0]) for row in cursor.fetchall()]


def test_on_the_server_a_grant_on_a_reserved_database_is_never_made(mariadb: LocalProvisioner) -> None:
    admin = mariadb.start([]).connect()
    try:
        execute(admin, "CREATE DATABASE IF NOT EXISTS rec_f")
        ensure_account(admin, READ_USER, READ_PRIVILEGES, ["rec_f"])
        before = _grants(admin, READ_USER)
        for reserved in ("mysql", "MySQL", "sys", "upgradelab_meta", "performance_schema", "mysql "):
            with pytest.raises(ReservedDatabase):
                ensure_account(admin, READ_USER, READ_PRIVILEGES, ["rec_f", reserved])
            assert _grants(admin, READ_USER) == before  # untouched: refused before any statement
        assert before[1:] == [f"GRANT SELECT, EXECUTE, SHOW VIEW ON `rec\\_f`.* TO `{READ_USER}`@`127.0.0.1`"]
    finally:
        admin.close()
        mariadb.discard()


# ---- events on MySQL 9.7 (its event_scheduler is ON by default) ----------------------------------

EVENTS = """CREATE TABLE fired (at DATETIME(6) NOT NULL);
CREATE TABLE seen (phase VARCHAR(8), scheduler VARCHAR(16), at DATETIME(6));
INSERT INTO seen SELECT 'start', @@GLOBAL.event_scheduler, NOW(6);
CREATE EVENT tick ON SCHEDULE EVERY 1 SECOND STARTS CURRENT_TIMESTAMP DO INSERT INTO fired VALUES (NOW(6));
DO SLEEP(3);
INSERT INTO seen SELECT 'end', @@GLOBAL.event_scheduler, NOW(6);
"""


def _events_server(name: str) -> Iterator[LocalProvisioner]:
    provisioner = lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="events")
    yield provisioner
    provisioner.discard()
    provisioner.stop()


@pytest.fixture(scope="module")
def mysql(database: None) -> Iterator[LocalProvisioner]:
    yield from _events_server("mysql-9.7")


@pytest.fixture(scope="module")
def mariadb_events(database: None) -> Iterator[LocalProvisioner]:
    yield from _events_server("mariadb-11.8")


# MySQL 9.7 starts its scheduler ON; MariaDB's is OFF unless a variant turns it on (issue 44: both flavors)
@pytest.mark.parametrize(("flavor", "options"), [("mysql", []), ("mariadb", ["event_scheduler=ON"])])
def test_no_event_runs_while_a_dump_loads_and_the_scheduler_is_back_after(
    flavor: str, options: list[str], request: pytest.FixtureRequest
) -> None:
    server: LocalProvisioner = request.getfixturevalue("mysql" if flavor == "mysql" else "mariadb_events")
    loaded = ensure_dataset(server, options, _dataset(EVENTS, "ev_ds"))
    admin = loaded.admin
    try:
        assert scalar(admin, "SELECT @@GLOBAL.event_scheduler") == "ON"
        with admin.cursor() as cursor:
            cursor.execute("SELECT phase, scheduler FROM ev_ds.seen ORDER BY at")
            assert [tuple(row) for row in cursor.fetchall()] == [("start", "OFF"), ("end", "OFF")]
        during = (
            "SELECT COUNT(*) FROM ev_ds.fired WHERE at <= (SELECT at FROM ev_ds.seen WHERE phase = 'end')"
        )
        assert scalar(admin, during) == 0
        # the event is real: once the load ended, the scheduler runs it (in its own database)
        deadline = time.monotonic() + 30
        while not scalar(admin, "SELECT COUNT(*) FROM ev_ds.fired") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert scalar(admin, "SELECT COUNT(*) FROM ev_ds.fired") > 0
    finally:
        admin.close()


def test_the_scheduler_is_back_on_after_a_load_that_failed(mysql: LocalProvisioner) -> None:
    with pytest.raises(LoadFailed):
        ensure_dataset(mysql, [], _dataset("SELECT 1;\nSELECT * FROM nowhere;\n", "ev_fail"))
    admin = mysql.endpoint.connect()
    try:
        assert scalar(admin, "SELECT @@GLOBAL.event_scheduler") == "ON"
    finally:
        admin.close()
