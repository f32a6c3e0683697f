"""The lab's admin account on its own servers is a secret (issue 30, finding 2): a random password per
target in a 0600 file of the worker's state directory, the account at 127.0.0.1 only, root locked, and
templates (and kept datadirs) made with the fixed `upgradelab` password of before keyed again."""

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from tests.conftest import lab_provisioner
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import LocalProvisioner, ProvisionError
from upgradelab.targets.provisioners.base import free_port
from upgradelab.targets.provisioners.credentials import (
    KEY_FILE,
    keying_sql,
    password_file,
    server_password,
)
from upgradelab.targets.provisioners.tarball import TarballSettings

OLD_PASSWORD = "upgradelab"  # every lab server's admin password before issue 30


def test_each_target_gets_its_own_random_password_in_a_0600_file() -> None:
    settings = get_settings()
    first, second = server_password("cred-a", settings), server_password("cred-b", settings)
    assert first != second and OLD_PASSWORD not in (first, second) and len(first) >= 40
    assert server_password("cred-a", settings) == first  # kept: the next start finds the same one
    path = password_file("cred-a", settings)
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    path.chmod(0o644)  # loosened by hand: made private again when read
    assert server_password("cred-a", settings) == first and path.stat().st_mode & 0o777 == 0o600


def test_a_password_file_holding_anything_else_is_refused_without_showing_it() -> None:
    path = password_file("cred-bad", get_settings())
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_text("x'; DROP USER root")
    with pytest.raises(ProvisionError, match="does not hold a password") as refused:
        server_password("cred-bad", get_settings())
    assert "DROP" not in str(refused.value)


def test_defaults_carry_no_password_and_an_admin_set_one_is_kept() -> None:
    settings = get_settings()
    default = LocalProvisioner("cred-default", "mariadb", {"port": 30001}, settings)
    assert default.endpoint.password == server_password("cred-default", settings) != OLD_PASSWORD
    named = LocalProvisioner("cred-named", "mariadb", {"port": 30002, "password": "admin-set.1"}, settings)
    assert named.endpoint.password == "admin-set.1" and not password_file("cred-named", settings).exists()
    assert TarballSettings.model_validate({"basedir": "/opt/x", "port": 30003}).password is None


def test_keying_sql_takes_no_quote_into_a_statement() -> None:
    with pytest.raises(ValueError, match="letters, digits"):
        keying_sql("upgradelab", "x' OR '1", "127.0.0.1", lock_root=True)
    sql = keying_sql("upgradelab", "secret", "127.0.0.1", lock_root=True)
    assert "'upgradelab'@'localhost'" in sql.split("DROP USER IF EXISTS ")[-1]  # the twin is dropped
    assert sql.startswith("SET SESSION sql_log_bin = 0;")


# ---- on the lab's real servers -------------------------------------------------------------------------
def _accounts(provisioner: LocalProvisioner) -> dict[tuple[str, str], str]:
    """{(user, host): 'Y' when locked} as the admin reads mysql.user."""
    query = "SELECT user, host, account_locked FROM mysql.user"
    if provisioner.flavor == "mariadb":  # the lock lives in global_priv's JSON there
        query = "SELECT user, host, IF(JSON_VALUE(priv, '$.account_locked'), 'Y', 'N') FROM mysql.global_priv"
    connection = provisioner.endpoint.connect()
    try:
        with connection.cursor() as cursor:
            cursor.execute(query)
            rows = cursor.fetchall()
    finally:
        connection.close()
    return {(str(user), str(host)): str(locked) for user, host, locked in rows}


def _refused(provisioner: LocalProvisioner, user: str, password: str) -> bool:
    try:
        pymysql.connect(host="127.0.0.1", port=provisioner.port, user=user, password=password).close()
    except pymysql.err.OperationalError as error:
        return error.args[0] in (1045, 3118, 4151)  # access denied, account locked (MySQL, MariaDB)
    return False


def _socket_login(provisioner: LocalProvisioner, os_user: str) -> subprocess.CompletedProcess[str]:
    """root over the server's socket, no password, as OS user `os_user` (chroot --userspec)."""
    argv = [
        "chroot", f"--userspec={os_user}", str(provisioner.root), provisioner._client_path(), "--no-defaults",
        "--protocol=socket", f"--socket={provisioner._inner('mysqld.sock')}", "-uroot", "-e", "SELECT 1",
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture(scope="module", params=["mariadb-10.11", "mysql-9.7"])
def started(request: pytest.FixtureRequest, database: None) -> Iterator[LocalProvisioner]:
    # the unit targets' template (conftest.lab_provisioner's default): in the test command it is
    # already there from an earlier module, where a target of its own initialized one more (issue 31)
    one = lab_provisioner(request.param)
    one.start([])
    yield one
    one.stop()


def test_the_admin_is_at_127_0_0_1_only_and_root_cannot_log_in(started: LocalProvisioner) -> None:
    accounts = _accounts(started)
    user = started.cfg.user
    assert [host for (name, host) in accounts if name == user] == ["127.0.0.1"], accounts
    assert [host for (name, host) in accounts if name == "root"] == ["localhost"], accounts
    assert accounts[("root", "localhost")] == "Y"
    assert _refused(started, "root", "") and _refused(started, user, OLD_PASSWORD)
    # the socket, without a password: neither an unprivileged OS user nor OS root (MariaDB's
    # unix_socket would let OS root in; the account is locked)
    for os_user in ("65534:65534", "0:0"):
        login = _socket_login(started, os_user)
        assert login.returncode != 0 and ("denied" in login.stderr or "locked" in login.stderr), login
    secret = password_file(started.target_name, get_settings()).read_text().strip()
    assert started.endpoint.password == secret
    assert secret not in started.describe()["option_file"] and not started._host("admin.sql").exists()


def _make_old_style(old: LocalProvisioner) -> None:
    """A template and a kept datadir as the lab made them before issue 30: the admin's password
    `upgradelab`, a `localhost` twin, root@localhost without a password and unlocked, no key file;
    the kept datadir holds a loaded dataset (`kept_ds`)."""
    old.start([], keep_data=True)
    connection = old.endpoint.connect()
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE USER '{old.cfg.user}'@'localhost' IDENTIFIED BY '{OLD_PASSWORD}'")
        cursor.execute(f"GRANT ALL PRIVILEGES ON *.* TO '{old.cfg.user}'@'localhost' WITH GRANT OPTION")
        cursor.execute("ALTER USER 'root'@'localhost' IDENTIFIED BY '' ACCOUNT UNLOCK")
        cursor.execute("CREATE DATABASE kept_ds")
        cursor.execute("CREATE TABLE kept_ds.t (id INT PRIMARY KEY)")
    connection.close()
    old.stop()
    data, template = old._host("data"), old._template_host()
    (data / KEY_FILE).unlink()
    shutil.rmtree(template)
    subprocess.run(["cp", "-a", str(data), str(template)], check=True)
    (template / ".upgradelab-initialized").write_text("initialized\n")


def test_an_old_style_template_and_its_kept_datadir_are_keyed_again(database: None) -> None:
    port = free_port()  # the module's other servers hold the unit ports
    old = lab_provisioner("mysql-9.7", port, suffix="oldkey")
    settings = {**old.cfg.model_dump(), "password": OLD_PASSWORD}
    old = LocalProvisioner(old.target_name, "mysql", settings, old.app)
    _make_old_style(old)
    new = lab_provisioner("mysql-9.7", port, suffix="oldkey")
    try:
        new.start([], keep_data=True)  # the template keyed again, then the kept datadir
        kept = _accounts(new)
        assert (new.cfg.user, "localhost") not in kept and kept[("root", "localhost")] == "Y"
        assert _refused(new, new.cfg.user, OLD_PASSWORD) and _refused(new, "root", "")
        connection = new.endpoint.connect()
        with connection.cursor() as cursor:  # the loaded dataset is still there
            assert cursor.execute("SHOW TABLES FROM kept_ds") == 1
        connection.close()
        new.start([])  # a fresh copy of the template, keyed too
        assert (new.cfg.user, "localhost") not in _accounts(new) and _refused(new, "root", "")
        for datadir in (new._template_host(), new._host("data")):
            assert (datadir / KEY_FILE).read_text().startswith("v2:")
    finally:
        new.stop()
        shutil.rmtree(Path(new._host()).parent.parent, ignore_errors=True)
