"""The lab's admin account on the servers it starts (local, tarball, docker): its password is a secret.

Every such server has one admin account, the target's `user` (default `upgradelab`), with ALL
PRIVILEGES WITH GRANT OPTION, at `127.0.0.1` only (docker `publish`: `%`, the client comes from the
bridge's gateway). Its password is random per target (`secrets.token_urlsafe(32)`: 43 characters of
A-Z a-z 0-9 _ -), kept in `{state_dir}/server-credentials/<target>` (0600, directory 0700) on the
host whose worker runs the target, and made on first use; a target whose settings name a `password`
uses that one (admin-set). It is never in the API, a report, a log line, an option file or a command
line: a server learns it from an init file (0600, owned by the server's user, removed once the
server answers) or an initdb.d file of the container that makes a docker template; clients get it
in MYSQL_PWD.

Before issue 30 every lab server's admin was `upgradelab`/`upgradelab`, at `127.0.0.1` and
`localhost`, and MySQL's root@localhost had no password (`--initialize-insecure`). A datadir
records which password and which version of `keying_sql` keyed it (`admin_key`: the version and a
truncated sha256 of the password, which tells two passwords apart without holding either); a
template or a kept datadir keyed otherwise is keyed again (local, tarball) or made again (docker).
"""

import hashlib
import secrets
from pathlib import Path

from upgradelab.secret_files import read_or_make
from upgradelab.settings import Settings
from upgradelab.targets.provisioners.base import ProvisionError

# 1: the fixed password of before (no key recorded); 2: a secret password, no `localhost` twin,
# root@localhost locked (local, tarball). Bump it when keying_sql changes: datadirs are keyed again.
CREDENTIALS_VERSION = 2
# Where a datadir records its admin_key (next to the lab's .upgradelab-initialized marker): a file
# in the datadir's top directory, which no SQL can write (secure-file-priv is elsewhere).
KEY_FILE = ".upgradelab-admin-key"
_DIRECTORY = "server-credentials"
_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def password_file(target_name: str, settings: Settings) -> Path:
    """`{state_dir}/server-credentials/<target>` (target names are `[a-z0-9][a-z0-9._-]*`)."""
    return Path(settings.state_dir) / _DIRECTORY / target_name


def server_password(target_name: str, settings: Settings) -> str:
    """The target's admin password: read from its file, or made (random) and written 0600 first.

    Two processes asking at once (the API's and the worker's, or two workers) get the same password:
    it is written whole under a unique name and linked into place, and the loser reads the winner's.
    A file that others may read is made 0600 again. ProvisionError naming the file (never its text)
    when it holds anything but one password of the credential alphabet."""
    path = password_file(target_name, settings)
    password = read_or_make(path)
    if not password or not set(password) <= _CHARS:
        raise ProvisionError(
            f"target {target_name}: {path} does not hold a password (letters, digits, _ - . only); "
            "remove it to have a new one made"
        )
    return password


def admin_key(password: str) -> str:
    """What a datadir records of the password that keyed it: `v<CREDENTIALS_VERSION>:` and the first
    16 hex digits of a sha256 of the password (the server's own hash of it is in the datadir anyway)."""
    digest = hashlib.sha256(b"upgradelab admin key\0" + password.encode()).hexdigest()[:16]
    return f"v{CREDENTIALS_VERSION}:{digest}"


def keying_sql(user: str, password: str, host: str, *, lock_root: bool) -> str:
    """The statements that key a datadir for the lab, one a line (as `--init-file` reads them).

    user@host made or re-keyed with `password` and granted everything; its `localhost` twin (the
    lab's accounts before issue 30) dropped; root anywhere but localhost dropped (MariaDB's install-db
    with the `normal` root method, as images' entrypoints use it, makes root@127.0.0.1, root@::1 and
    root@<hostname> without a password). lock_root (local, tarball): root@localhost gets a random
    password nobody keeps and is locked, so neither TCP from 127.0.0.1 (it resolves to localhost)
    nor the socket lets anyone in (MySQL's `--initialize-insecure` leaves it without a password;
    MariaDB's is unix_socket, locked alike). Docker templates leave root@localhost to the image's
    entrypoint (it logs in as root to stop its temporary server), with a random password. Nothing
    of it reaches a binary log. MySQL 5.7.8+ and MariaDB 10.4+. `user`, `password` and `host` go into
    SQL string literals: ValueError unless they are letters, digits, _ - . (host also % and :)."""
    for value in (user, password, host.replace("%", "").replace(":", "")):
        if not value or not set(value) <= _CHARS:
            raise ValueError("keying_sql: user, password and host must be letters, digits, _ - . only")
    account = f"'{user}'@'{host}'"
    lines = ["SET SESSION sql_log_bin = 0;"]
    others = [other for other in ("127.0.0.1", "::1") if (user, host) != ("root", other)]
    lines += [f"DROP USER IF EXISTS 'root'@'{other}';" for other in others]
    # root@<hostname> (a name only the server knows): through a prepared statement, both flavors
    lines += [
        "SET @upgradelab_drop = IF(@@hostname IN ('localhost', '127.0.0.1', '::1'), 'DO 0', "
        + "CONCAT('DROP USER IF EXISTS ''root''@''', @@hostname, ''''));",
        "PREPARE upgradelab_drop FROM @upgradelab_drop;",
        "EXECUTE upgradelab_drop;",
        "DEALLOCATE PREPARE upgradelab_drop;",
        f"CREATE USER IF NOT EXISTS {account} IDENTIFIED BY '{password}';",
        f"ALTER USER {account} IDENTIFIED BY '{password}' ACCOUNT UNLOCK;",
        f"GRANT ALL PRIVILEGES ON *.* TO {account} WITH GRANT OPTION;",
    ]
    if host != "localhost":
        lines.append(f"DROP USER IF EXISTS '{user}'@'localhost';")
    if lock_root and not (user == "root" and host == "localhost"):
        lines.append(f"ALTER USER IF EXISTS 'root'@'localhost' IDENTIFIED BY '{throwaway()}' ACCOUNT LOCK;")
    return "".join(line + "\n" for line in lines)


def throwaway() -> str:
    """A random password that nobody keeps (an account nobody is meant to log in as)."""
    return secrets.token_urlsafe(32)
