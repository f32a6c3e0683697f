"""A replay runs as the dataset's reader (SELECT, SHOW VIEW, EXECUTE on its databases only), or
with allow_writes as its writer, on MariaDB 10.11, MariaDB 11.8 and MySQL 9.7: a write hidden in a
stored function, a plain INSERT and `/*!50000 INTO OUTFILE */` fail on the server's own privileges
in a read-only replay (the function's definer, the dump's load user, is cut to reading too); the
writer writes in the dataset and nowhere else; neither holds FILE or any database of the server's."""

from pathlib import Path

import pytest

from tests import ports
from tests.conftest import STATE, lab_provisioner
from tests.datasets.hostile import SAMPLE, marker_name, markers_found
from upgradelab.datasets.accounts import READ_USER, WRITE_USER
from upgradelab.replay.engine import DumpDataset, ReplayVariant, file_sha256, replay_rounds
from upgradelab.replay.fingerprint import fingerprint, fingerprint_id, statement_kind
from upgradelab.replay.outcomes import checksums
from upgradelab.replay.sources import SourceStatement
from upgradelab.runs.plan import plan
from upgradelab.workloads.base import scalar

VARIANTS = ["mariadb-10.11", "mariadb-11.8", "mysql-9.7"]
DENIED = {1044, 1045, 1142, 1227}


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
    dataset = DumpDataset(Path(dump), file_sha256(dump), "sample_ds", allow_writes=writes)
    variant = ReplayVariant(name, provisioner, [])
    (replay,) = replay_rounds([variant], dataset, statements, plan("interleaved", 2, 1, 1, 1))
    codes = [outcome.error_code for outcome in replay.outcomes]
    print(name, mode, [(o.error_code, o.error_message) for o in replay.outcomes])

    if writes:
        assert codes[0] is None and codes[1] is None, replay.outcomes[:2]
    else:
        assert codes[0] == 1142 and "upgradelab_load" in str(replay.outcomes[0].error_message)
        assert codes[1] == 1142 and READ_USER in str(replay.outcomes[1].error_message)
    assert codes[2] in DENIED and codes[3] in DENIED and codes[4] in DENIED, replay.outcomes[2:5]
    assert codes[5:] == [None, None, None]
    user = f"{WRITE_USER if writes else READ_USER}@127.0.0.1"
    assert replay.outcomes[7].checksum_ordered == checksums([(user,)])[0]

    admin = provisioner.start([], keep_data=True).connect()  # the datadir the replay left
    try:
        visits = int(scalar(admin, "SELECT COUNT(*) FROM sample_own.visit"))
        assert visits > 0 if writes else visits == 0
        assert scalar(admin, "SELECT COUNT(*) FROM mysql.db WHERE User = 'evil'") == 0
        assert (
            scalar(
                admin, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'replay_other'"
            )
            == 0
        )
    finally:
        admin.close()
        provisioner.stop()
    assert markers_found(marker) == [] and not (provisioner.root / files.lstrip("/") / marker).exists()
