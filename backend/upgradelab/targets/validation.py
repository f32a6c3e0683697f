"""What a new target must satisfy beyond its settings model: no control characters, no `..` path
segments, a loopback host (or one the admin listed), a port no other target uses, base options in
no refused category (the target's `allowed_options` excepted), and a server binary that exists and
answers `--version` as mysqld or mariadbd.

Each check raises the API's 422 (errors.field_error) with loc ["body", "settings", <field>...];
messages never repeat a password and cut long values.
"""

import ipaddress
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from upgradelab.errors import field_error
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.options import OptionError, shown, validate_option
from upgradelab.targets.provisioners.base import ProvisionError
from upgradelab.targets.provisioners.docker_engine import engine_client

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PATH_FIELDS = ("root", "mysqld", "install_db", "basedir", "tarball", "server_command")
_SERVER_VERSION = re.compile(r"\b(mysqld|mariadbd)(\.exe)?\s+Ver\s+\d")


def no_control_characters(value: Any, loc: list[str | int]) -> None:
    """422 at the first string (key or value, nested) holding a control character (newline, NUL...)."""
    if isinstance(value, str):
        if _CONTROL.search(value):
            raise field_error(loc, "control characters (newline, tab, NUL, ...) are not allowed")
    elif isinstance(value, dict):
        for key, item in value.items():
            no_control_characters(str(key), [*loc, _cut(str(key))])
            no_control_characters(item, [*loc, _cut(str(key))])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            no_control_characters(item, [*loc, index])


def check_settings(settings: dict[str, Any], others: Iterable[Target], app: Settings) -> None:
    """The path, host, port and base option checks on validated settings (a model_dump)."""
    for field in _PATH_FIELDS:
        value = settings.get(field)
        if isinstance(value, str) and ".." in Path(value).parts:
            raise field_error(["body", "settings", field], f"{field}: no '..' path segments")
    root = settings.get("root")
    if isinstance(root, str) and (
        "{" in root.replace("{lab_dir}", "") or "}" in root.replace("{lab_dir}", "")
    ):
        raise field_error(["body", "settings", "root"], "root: no braces but the {lab_dir} placeholder")
    host = settings.get("host")
    if isinstance(host, str) and not host_allowed(host, app.allowed_hosts):
        raise field_error(
            ["body", "settings", "host"],
            f"host {shown(host)} is not a loopback address; an admin may list it in "
            "UPGRADELAB_ALLOWED_HOSTS (names or CIDRs, comma-separated)",
        )
    port = settings.get("port")
    for other in others:
        if port is not None and other.settings.port == port:
            raise field_error(
                ["body", "settings", "port"], f"port {port} is already used by target {other.name}"
            )
    allowed = settings.get("allowed_options") or []
    for name, value in (settings.get("base_options") or {}).items():
        try:
            validate_option(name, value, allowed)
        except OptionError as error:
            raise field_error(["body", "settings", "base_options", _cut(name)], str(error)) from error


def host_allowed(host: str, allowed_hosts: str) -> bool:
    """Loopback (127.0.0.0/8, ::1, localhost) or listed in `allowed_hosts` (names or CIDRs, commas)."""
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None and address.is_loopback:
        return True
    for entry in (part.strip() for part in allowed_hosts.split(",")):
        if not entry:
            continue
        if entry == host:
            return True
        try:
            if address is not None and address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def check_binary(kind: str, settings: dict[str, Any], app: Settings) -> None:
    """422 unless the server binary exists and `--version` names mysqld or mariadbd (local: `mysqld`
    inside `root`, and `install_db` exists; tarball: `basedir/bin/mysqld`, or the `tarball` file to
    unpack when it is not there yet). docker: 422 at `provisioner` when no Docker engine answers,
    naming the command that installs one; images are checked when the worker first uses them.
    Blocking (a subprocess, the engine's ping): the API calls it in a thread."""
    if kind == "docker":
        try:
            engine_client(timeout_s=10).close()
        except ProvisionError as error:
            raise field_error(["body", "provisioner"], str(error)) from error
        return
    if kind not in ("local", "tarball"):
        return
    root = Path(str(settings.get("root", "/")).replace("{lab_dir}", str(app.lab_dir)))
    if not root.is_dir():
        raise field_error(["body", "settings", "root"], f"root {shown(str(root))} is not a directory")
    if kind == "tarball":
        field, binary = "basedir", f"{str(settings['basedir']).rstrip('/')}/bin/mysqld"
        tarball = settings.get("tarball")
        if not _inside(root, binary).exists() and tarball and _inside(root, str(tarball)).is_file():
            return  # unpacked on first use, then checked by the provisioner (series())
    else:
        field, binary = "mysqld", str(settings.get("mysqld", "/usr/sbin/mysqld"))
        install_db = settings.get("install_db")
        if install_db and not _inside(root, str(install_db)).is_file():
            raise field_error(
                ["body", "settings", "install_db"], f"install_db {shown(install_db)} does not exist"
            )
    if not _inside(root, binary).is_file():
        raise field_error(["body", "settings", field], f"{shown(binary)} does not exist under {root}")
    answer = _version(root, binary)
    if not _SERVER_VERSION.search(answer):
        raise field_error(
            ["body", "settings", field],
            f"{shown(binary)} --version does not answer as mysqld or mariadbd: {shown(answer.strip(), 120)}",
        )


def _version(root: Path, binary: str) -> str:
    prefix = [] if root == Path("/") else ["chroot", str(root)]
    try:
        done = subprocess.run(
            [*prefix, binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    return done.stdout + done.stderr


def _inside(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
