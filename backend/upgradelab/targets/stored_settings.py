"""`target.settings` as stored (db.ModelJSON, issue 48): one model holding the keys every provisioner's
settings may store, each optional, the stored JSON kept as it was written (only the keys it had).

A target's settings are validated by its provisioner's own model when it is added
(targets/service.py, provisioners.SETTINGS_MODELS: defaults, allow-lists, hosts, unsealing) and stored
as that model's set fields, the password sealed (targets/sealed.py). This model is the stored shape:
it types the reads (`target.settings.port`, `.allowed_options`), refuses a key no provisioner has and a
plaintext `password` (only `password_sealed` is stored), and applies no policy, so a row reads as it
was stored even after the policy changed (hosts allowed, purposes); the provisioner validates it
again when it starts a server (`stored()` gives it the dict it was given before).
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Purpose = Literal["workloads", "capture"]
CAPTURE: Purpose = "capture"
WORKLOADS: Purpose = "workloads"


class TargetSettings(BaseModel):
    """A target's stored settings, the union of the provisioners' keys (None: not stored, the
    provisioner's default applies). local: root, mysqld, install_db, client; tarball: basedir, tarball,
    root; docker: image, env, network, server_command, pull; the lab's servers: port, host, user,
    base_options, allowed_options; existing: host, port, user, purpose (absent: capture, read-only), database,
    ssl_ca, ssl_verify_identity, auth_plugins, allow_cleartext; password_sealed for any."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: str | None = None
    mysqld: str | None = None
    install_db: str | None = None
    client: str | None = None
    basedir: str | None = None
    tarball: str | None = None
    image: str | None = None
    env: dict[str, str] | None = None
    network: Literal["host", "publish"] | None = None
    server_command: str | None = None
    pull: Literal["missing", "never"] | None = None
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password_sealed: str | None = None
    base_options: dict[str, str | None] | None = None
    allowed_options: list[str] | None = None
    purpose: Purpose | None = None
    database: str | None = None
    ssl_ca: str | None = None
    ssl_verify_identity: bool | None = None
    auth_plugins: list[str] | None = None
    allow_cleartext: bool | None = None

    def stored(self) -> dict[str, Any]:
        """The settings as stored (the keys written, nothing added): what a provisioner's own model
        validates (provisioners.provisioner_for)."""
        return self.model_dump(mode="json", exclude_unset=True)

    def with_values(self, **values: Any) -> "TargetSettings":
        """These settings with `values` set (validated, e.g. a test's own `port`), the others as stored."""
        return TargetSettings.model_validate(self.stored() | values)

    @property
    def read_only(self) -> bool:
        """For an existing target (other provisioners store no purpose: ask this of existing ones
        only, as read_only_refusal does): True unless it was added for workloads; a row without a
        purpose is read-only, the default (migration 0039 stamped `workloads` on every row added
        before, so none is left without one)."""
        return self.purpose != WORKLOADS
