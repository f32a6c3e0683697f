"""A replay runs as the dataset's reader (SELECT, SHOW VIEW, EXECUTE on its databases only), or
with allow_writes as its writer, on MariaDB 10.11, MariaDB 11.8 and MySQL 9.7: a write hidden in a
stored function, a plain INSERT and `/*!50000 INTO OUTFILE */` are refused by the server in a
read-only replay, and by the reader's privileges alone outside any read-only transaction (the
function's definer, the dump's load user, is cut to reading too); the writer writes in the dataset
and nowhere else; neither holds FILE or any database of the server's."""

from dataclasses import replace
from pathlib import Path

import pymysql
import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.datasets.hostile import SAMPLE, marker_name, markers_found
from upgradelab.datasets.accounts import READ_USER, WRITE_USER, definer_access, replay_account
from upgradelab.execution.schedule import plan
from upgradelab.measurement.dataset_load import DumpDataset, file_sha256
from upgradelab.measurement.engine import ReplayVariant, replay_rounds
from upgradelab.measurement.fingerprint import fingerprint, fingerprint_id, statement_kind
from upgradelab.measurement.outcomes import checksums
from upgradelab.measurement.sources import SourceStatement
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection
from upgradelab.workloads.base import scalar

VARIANTS = ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]
DENIED = {1044, 1045, 1142, 1227}  # access denied: database, user, table, privilege
READ_ONLY = 1792  # cannot execute statement in a READ ONLY transaction
OTHER_SCHEMA = "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'replay_other'"


def _statement(sql: str, position: int) -> SourceStatement:
    text = fingerprint(sql)
    return SourceStatement(sql, None, text, fingerprint_id(text), statement_kind(sql), position)


@pytest.mark.parametrize("writes", [False, True], ids=["reader", "writer"])
@pytest.mark.parametrize("name", VARIANTS)
def test_a_replay_writes_only_what_its_account_may(name: str, writes: bool, database: None) -> None:
    mode = "writes" if writes else "reads"
    dump = STATE / f"sample-{mode}.sql"  # one dataset per mode: each loads on a fresh datadir
    dump.write_text(f"{SAMPLE}-- replayed with {mode}\n")
    provisioner = lab_provisioner(name, ports.UNIT_TARGETS[name], suffix="replay")
    marker = marker_name()
    files = f"{provisioner.inner_dir}/files"  # the instance's secure-file-priv: the one place it may write
    sql = [
        "SELECT sample_own.log_visit()",  # a stored function that inserts
        "INSERT INTO sample_own.visit (at) VALUES (NOW())",
        f"SELECT 1 /*!50000 INTO OUTFILE '{files}/{marker}' */",
        "CREATE DATABASE replay_other",
        "INSERT INTO mysql.db (Host, Db, User) VALUES ('%', '%', 'evil')",
        "SELECT COUNT(*) FROM sample_own.film_list",  # a view reads through its definer
        "SELECT sample_own.film_count(49)",
        "SELECT CURRENT_USER()",
    ]
    statements = [_statement(one, position) for position, one in enumerate(sql)]
    dataset = DumpDataset(Path(dump), file_sha256(dump), "sample_ds")
    variant = ReplayVariant(name, provisioner, [])
    schedule = plan("interleaved", 2, 1, 1, 1)
    (replay,) = replay_rounds([variant], dataset, statements, schedule, read_only=not writes)
    codes = [outcome.error_code for outcome in replay.outcomes[: len(statements)]]  # DO 0 follows
    print(name, mode, [(o.error_code, o.error_message) for o in replay.outcomes])

    if writes:
        assert codes[0] is None and codes[1] is None, replay.outcomes[:2]
    else:  # the read-only transaction or the privileges refuse it, whichever the server asks first
        assert codes[0] in DENIED | {READ_ONLY} and codes[1] in DENIED | {READ_ONLY}, replay.outcomes[:2]
    assert codes[2] in DENIED and codes[3] in DENIED | {READ_ONLY} and codes[4] in DENIED, replay.outcomes
    assert codes[5:] == [None, None, None]
    user = f"{WRITE_USER if writes else READ_USER}@127.0.0.1"
    assert replay.outcomes[7].checksum_ordered == checksums([(user,)])[0]

    endpoint = provisioner.start([], keep_data=True)  # the datadir the replay left
    admin = endpoint.connect()
    try:
        visits = int(scalar(admin, "SELECT COUNT(*) FROM sample_own.visit"))
        assert visits > 0 if writes else visits == 0
        assert scalar(admin, "SELECT COUNT(*) FROM mysql.db WHERE User = 'evil'") == 0
        assert scalar(admin, OTHER_SCHEMA) == 0
        if not writes:
            _privileges_alone_refuse_writes(admin, endpoint, sql[:5])
    finally:
        admin.close()
        provisioner.stop()
    assert markers_found(marker) == [] and not (provisioner.root / files.lstrip("/") / marker).exists()


def _privileges_alone_refuse_writes(admin: ServerConnection, endpoint: Endpoint, writes: list[str]) -> None:
    """The accounts as a read-only replay sets them, used in autocommit (no read-only transaction):
    the writes fail on privileges, the function's on its definer's (the load user's)."""
    databases = ["sample_ds", "sample_own"]
    definer_access(admin, databases, writes=False)
    user, password = replay_account(admin, databases, writes=False)
    reader = replace(endpoint, user=user, password=password).connect(database="sample_ds")
    errors: list[tuple[int, str] | None] = []
    try:
        for statement in writes:
            try:
                with reader.cursor() as cursor:
                    cursor.execute(statement)
                errors.append(None)
            except pymysql.MySQLError as error:
                errors.append((int(error.args[0]), str(error.args[1])))
    finally:
        reader.close()
    print("privileges alone:", errors)
    function, insert, outfile, create, system = errors
    assert function is not None and function[0] == 1142 and "upgradelab_load" in function[1]
    assert insert is not None and insert[0] == 1142 and READ_USER in insert[1]
    assert outfile is not None and outfile[0] in DENIED
    assert create is not None and create[0] == 1044
    assert system is not None and system[0] == 1142
