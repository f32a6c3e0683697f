"""Which authentication plugins the lab's clients answer: no password in cleartext unless asked for
(issue 44, item 1).

A server (or anything that answers at its address: the team's server down and another process on its
port, a host reached without TLS) may switch a client to `mysql_clear_password`, or MariaDB's PAM
`dialog`, which send the password as it is. Every client the lab runs refuses both unless the target
opts in (`allow_cleartext: true`, for LDAP/PAM accounts) and the connection is TLS with a
certificate verified against the target's `ssl_ca`; and refuses any plugin not on the target's
allowlist (`auth_plugins`, default DEFAULT_PLUGINS, none of which sends the password itself). The
refusal names the target and the plugin.

How each client is held to it (measured against tests/targets/cleartext_server.py, a fake server
asking every client for cleartext):

- PyMySQL (the API and the worker): targets/provisioners/guarded.py checks every auth switch and the
  greeting's plugin against `AuthPolicy.refusal` before PyMySQL answers it.
- MariaDB's clients (mariadb, mariadb-dump 10.11 and 11.8) and sysbench (Debian's, on libmariadb)
  answer mysql_clear_password as soon as its plugin loads; Connector/C's own allowlist
  (`restricted-auth`) is an option neither command line takes ("unknown variable"). Every plugin but
  mysql_native_password is a file of the plugin directory, so the lab points them at a directory of
  its own holding links to the allowed plugins only (`plugin_dir`: `--plugin-dir`, sysbench's
  MARIADB_PLUGIN_DIR): "Plugin mysql_clear_password could not be loaded".
- MySQL's clients (mysql, mysqldump 9.7) refuse mysql_clear_password unless --enable-cleartext-plugin
  or LIBMYSQL_ENABLE_CLEARTEXT_PLUGIN ("plugin not enabled"); the lab passes neither (their
  environments are built bare) and points them at the same kind of directory for their loadable
  plugins. The command-line clients connect without TLS, so they never answer a cleartext plugin.
"""

import hashlib
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

# the plugins that send the password itself (mysql_clear_password; MariaDB PAM's dialog answers a
# "Password: " prompt with it)
CLEARTEXT_PLUGINS = frozenset({"mysql_clear_password", "dialog"})
# challenge-response or hashed: the password never crosses the wire as it is
DEFAULT_PLUGINS = ("mysql_native_password", "caching_sha2_password", "client_ed25519", "parsec")
PLUGIN_PATTERN = r"^[a-z0-9_]{1,64}$"
# where a client's allowed plugins are linked, inside the root it runs in (the host, a chroot)
PLUGIN_DIRS = "var/lib/upgradelab-client-plugins"
# where the plugins are, inside that root: libmariadb's (MariaDB clients, sysbench), MySQL's
_SOURCES = ("usr/lib/*/libmariadb3/plugin", "usr/lib/mysql/plugin")


class AuthRefused(Exception):
    """A server asked for an authentication plugin the target does not allow; the message names both."""


@dataclass(frozen=True)
class AuthPolicy:
    """What a target's clients may answer: `plugins` (its allowlist), `allow_cleartext` (LDAP/PAM
    accounts: mysql_clear_password and dialog, over verified TLS only); `target` names it in refusals."""

    target: str = ""
    plugins: tuple[str, ...] = DEFAULT_PLUGINS
    allow_cleartext: bool = False

    def refusal(self, plugin: str, tls_verified: bool) -> str | None:
        """None when a client may answer `plugin` on a connection that is (`tls_verified`) or is not TLS
        with a verified certificate; else the refusal, naming the target and the plugin."""
        where = f"target {self.target}" if self.target else "the server"
        if plugin in CLEARTEXT_PLUGINS:
            if self.allow_cleartext and tls_verified:
                return None
            why = "the target allows it only with allow_cleartext: true and TLS verified against its ssl_ca"
            if self.allow_cleartext:
                why = "allow_cleartext is set, but this connection is not TLS with a verified certificate"
            return (
                f"{where} asked for authentication plugin {plugin}, which sends the password "
                f"unencrypted: refused ({why})"
            )
        if plugin not in self.plugins:
            allowed = ", ".join(self.plugins) or "none"
            return (
                f"{where} asked for authentication plugin {plugin}, not on the target's allowlist "
                f"(auth_plugins: {allowed}): refused"
            )
        return None

    def allowed(self, tls_verified: bool) -> list[str]:
        """Every plugin a client may load: the allowlist, and the cleartext ones when allowed."""
        names = [name for name in self.plugins if name not in CLEARTEXT_PLUGINS]
        if self.allow_cleartext and tls_verified:
            names += sorted(CLEARTEXT_PLUGINS)
        return sorted(set(names))


def plugin_dir(root: Path, policy: AuthPolicy, tls_verified: bool = False) -> str:
    """The directory, as a client running in `root` (Path("/") for the host, a chroot) sees it,
    holding links to the plugins `policy` allows of root's libmariadb and MySQL plugin directories
    (made on first use, 0755, one per allowlist). A directory that cannot be made (not root) gives a
    path with no plugin: the clients keep their built-in plugins only."""
    allowed = policy.allowed(tls_verified)
    key = hashlib.sha256(",".join(allowed).encode()).hexdigest()[:16]
    inner = f"/{PLUGIN_DIRS}/{key}"
    made = root / inner.lstrip("/")
    if made.is_dir():
        return inner
    staging = made.with_name(f".{key}.{os.getpid()}")
    try:
        staging.mkdir(parents=True, exist_ok=True)
        staging.chmod(0o755)
        for pattern in _SOURCES:
            for source in root.glob(pattern):
                for name in allowed:
                    plugin = source / f"{name}.so"
                    link = staging / plugin.name
                    if plugin.exists() and not link.exists():
                        link.symlink_to(f"/{plugin.relative_to(root)}")
        staging.rename(made)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)  # another process made it first, or none could
        if not made.is_dir():
            log.warning("no client plugin directory under %s (%s): built-in plugins only", root, error)
            return f"{inner}-none"
    return inner


def plugin_dir_flag(argv: list[str] | tuple[str, ...], policy: AuthPolicy) -> str:
    """`--plugin-dir=...` for a mysql/mariadb client started by `argv`: `chroot [--userspec=..] ROOT
    client ...` runs in ROOT, `docker ...` in a container (its image's plugins are out of reach: a
    directory that does not exist, built-in plugins only), anything else on the host."""
    if argv and argv[0] == "docker":
        return f"--plugin-dir=/{PLUGIN_DIRS}/none"
    root = Path("/")
    if argv and argv[0] == "chroot":
        root = Path(next(arg for arg in argv[1:] if not arg.startswith("--")))
    return f"--plugin-dir={plugin_dir(root, policy)}"
