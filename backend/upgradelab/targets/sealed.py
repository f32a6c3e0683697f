"""Target passwords kept out of the metadata database in plaintext (issue 44, item 4).

A target's settings may carry a `password` (an existing server's account, an admin-set one for a lab
server). The metadata database (SQLite in the state directory, or a shared PostgreSQL/MariaDB) keeps
only `password_sealed`: the password encrypted (Fernet: AES-128-CBC and HMAC-SHA256, the
`cryptography` package) with a key kept outside it, in `{state_dir}/secrets/targets.key` (0600, its
directory 0700; made once, random) or given by UPGRADELAB_SECRET_KEY (a worker on a second host sets
the API's value, as it does its worker credential). A dump of the database, or the file read by
another local user, holds no usable password.

`seal` replaces a settings dict's `password` when a target is stored (targets/service.py; migration
0029 for the rows of before); every provisioner settings model unseals it back (`SealedSettings`,
their base: a `mode="before"` validator), so the providers see `password` as before.
"""

import base64
import hashlib
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from pydantic import BaseModel, ConfigDict, model_validator

from upgradelab.secret_files import read_or_make
from upgradelab.settings import Settings, get_settings

SEALED = "password_sealed"


def _fernet(settings: Settings) -> Fernet:
    secret = settings.secret_key or read_or_make(Path(settings.state_dir) / "secrets" / "targets.key")
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(secret.encode()).digest()))


def seal(values: dict[str, Any], settings: Settings | None = None) -> dict[str, Any]:
    """`values` with its `password` (when set) replaced by `password_sealed`; a copy."""
    password = values.get("password")
    if not password:
        return {key: value for key, value in values.items() if key != "password"}
    token = _fernet(settings or get_settings()).encrypt(str(password).encode()).decode()
    return {**{key: value for key, value in values.items() if key != "password"}, SEALED: token}


def unseal(values: Any, settings: Settings | None = None) -> Any:
    """`values` (a target's stored settings) with `password_sealed` decrypted back into `password`;
    anything else as it is. ValueError naming UPGRADELAB_SECRET_KEY when the key is not the one it
    was sealed with."""
    if not isinstance(values, dict) or SEALED not in values:
        return values
    try:
        password = _fernet(settings or get_settings()).decrypt(str(values[SEALED]).encode()).decode()
    except InvalidToken:
        raise ValueError(
            "password_sealed: not sealed with this key ({state_dir}/secrets/targets.key or "
            "UPGRADELAB_SECRET_KEY: a worker on another host needs the API's)"
        ) from None
    return {**{key: value for key, value in values.items() if key != SEALED}, "password": password}


class SealedSettings(BaseModel):
    """The base of every provisioner's settings model: unknown keys refused (a misspelt `passwrd` must
    not fall back on a default, issue 30), and a stored `password_sealed` validated as the `password`
    it seals (unseal)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _unsealed(cls, values: Any) -> Any:
        return unseal(values)
