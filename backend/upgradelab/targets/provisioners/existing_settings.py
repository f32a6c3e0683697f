"""Settings of an existing target (`target.settings`): where the team's server answers, the lab's
account there, what the lab may do there (`purpose`) and what its clients may answer
(targets/client_auth.py); validated before anything connects, the password never part of an API
response.

`purpose` says whether the lab writes there:

    capture     the default (issue 49: a server added to be captured or assessed is never written
                to): the team's server, added to be captured (and checked): a read-only account is
                enough (the capture's grants in docs/jobs/capture.md), `database` may be left out, and
                the lab sends it no write statement at all: no write check on adding, no run, no replay
    workloads   asked for explicitly: the lab runs workloads and replays there: `database` is the
                lab's own database, and adding the target tries a no-op SET GLOBAL, ALTER INSTANCE
                (MySQL) and a scratch CREATE/DROP TABLE in it

The purpose is always stored, the default too (a row says what it was added for, so a later change
of the default never changes what the lab does on a server added before); the rows added before
the default became `capture` were stamped `workloads` by migration 0039, as they were write-checked.
"""

from typing import Annotated

from pydantic import Field, StringConstraints, field_validator, model_validator

from upgradelab.settings import get_settings
from upgradelab.targets.client_auth import CLEARTEXT_PLUGINS, DEFAULT_PLUGINS, PLUGIN_PATTERN
from upgradelab.targets.existing_hosts import host_refusal
from upgradelab.targets.sealed import SealedSettings
from upgradelab.targets.stored_settings import CAPTURE, Purpose, TargetSettings

_IDENTIFIER = r"^[A-Za-z0-9_]{1,64}$"


def _printable(value: str) -> str:
    # Credentials go to the client protocol only (never into SQL, files or command lines), so any
    # printable text is fine; control characters are refused so nothing can split a line anywhere.
    if any(ord(char) < 32 or ord(char) == 127 for char in value):
        raise ValueError("no control characters")
    return value


def read_only_refusal(target_name: str, provisioner_kind: str, stored: TargetSettings) -> str | None:
    """Why the lab may not write on this target (a run's workload, a replay's dataset), naming it:
    an existing target of purpose capture (or none stored: read-only, the default); None for every
    other target. Reads the stored settings as they are (TargetSettings.read_only)."""
    if provisioner_kind != "existing" or not stored.read_only:
        return None
    return (
        f"target {target_name} is read-only (purpose capture): the lab never writes there, so it runs "
        "no workload or replay on it; capture it, or add the server again with purpose workloads and "
        "an account that may write in the lab's database"
    )


class ExistingSettings(SealedSettings):
    """`target.settings` of an existing target (validated; unknown keys refused; the password is
    never part of an API response)."""

    host: str = Field(description="Server host: loopback, or listed in UPGRADELAB_EXISTING_HOSTS.")
    port: int = Field(3306, ge=1, le=65535)
    user: str = Field(min_length=1, max_length=80, description="The lab's account on that server.")
    password: str = Field("", max_length=256)
    purpose: Purpose = Field(
        CAPTURE,
        description="capture (the default): the team's server, read-only: never written to, no run or "
        "replay; workloads (asked for explicitly): the lab runs workloads and replays there (write "
        "checks on adding, `database` needed).",
    )
    database: str | None = Field(
        None,
        pattern=_IDENTIFIER,
        description="The lab's own database: workloads stay in it (needed for purpose workloads).",
    )
    ssl_ca: str | None = Field(None, pattern=r"^/[A-Za-z0-9_./+-]+$", description="CA file: TLS on.")
    ssl_verify_identity: bool = Field(False, description="Check the server's name against its certificate.")
    auth_plugins: list[Annotated[str, StringConstraints(pattern=PLUGIN_PATTERN)]] = Field(
        default_factory=lambda: list(DEFAULT_PLUGINS),
        max_length=16,
        description="Authentication plugins the lab's clients answer there (targets/client_auth.py); a "
        "server asking for another is refused. The cleartext ones need allow_cleartext.",
    )
    allow_cleartext: bool = Field(
        False,
        description="LDAP/PAM accounts: answer mysql_clear_password and dialog, which send the password "
        "as it is; only with ssl_ca, and only over TLS verified against it.",
    )

    @property
    def read_only(self) -> bool:
        """True for purpose capture: the lab sends this server no write statement."""
        return self.purpose == CAPTURE

    @model_validator(mode="after")
    def _purpose_always_stored(self) -> "ExistingSettings":
        # targets/service.py stores the fields set: the purpose is one of them even when defaulted
        self.__pydantic_fields_set__.add("purpose")
        return self

    @model_validator(mode="after")
    def _workloads_need_a_database(self) -> "ExistingSettings":
        if not self.read_only and not self.database:
            raise ValueError(
                "database: a target of purpose workloads needs the lab's own database there "
                "(purpose capture: read-only, no database needed)"
            )
        return self

    @model_validator(mode="after")
    def _cleartext_over_tls_only(self) -> "ExistingSettings":
        if self.allow_cleartext and not self.ssl_ca:
            raise ValueError("allow_cleartext needs ssl_ca: a cleartext password goes only over verified TLS")
        listed = sorted(CLEARTEXT_PLUGINS & set(self.auth_plugins))
        if listed and not self.allow_cleartext:
            raise ValueError(
                f"auth_plugins lists {', '.join(listed)}: a password sent in cleartext needs allow_cleartext"
            )
        return self

    @field_validator("host")
    @classmethod
    def _allowed_host(cls, value: str) -> str:
        refusal = host_refusal(value, get_settings().existing_hosts)
        if refusal:
            raise ValueError(refusal)
        return value.strip()

    @field_validator("user", "password")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        return _printable(value)
