"""Target API shapes. Credentials in target.settings are never part of a response."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from upgradelab.request_model import RequestModel
from upgradelab.targets.capabilities import Capabilities

Flavor = Literal["mysql", "mariadb"]
PoolName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]
# targets/provisioners: PROVISIONERS is keyed by these (tests/targets check the two agree).
ProvisionerKind = Literal["local", "docker", "tarball", "existing"]


class TargetRead(BaseModel):
    """A target as the API shows it: no settings, so no password."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    flavor: Flavor
    version: str | None
    provisioner: ProvisionerKind
    disposable: bool = False
    pools: list[str] = Field(
        default_factory=lambda: ["local"], description="Worker pools that may run it (pools/routing.py)."
    )
    capabilities: Capabilities | None = Field(
        None, description="Existing servers: what the lab may do there (targets/capabilities.py)."
    )


class TargetConnection(BaseModel):
    """Where an existing server answers: its public settings (never the password)."""

    host: str
    port: int
    user: str
    purpose: Literal["workloads", "capture"] = Field(
        "capture",
        description="capture (the default): read-only, never written to (no run or replay there); "
        "workloads: asked for when the server was added, the lab runs workloads and replays there.",
    )
    database: str | None
    ssl_ca: str | None
    ssl_verify_identity: bool
    auth_plugins: list[str] = Field(
        default_factory=list, description="Authentication plugins the lab's clients answer there."
    )
    allow_cleartext: bool = Field(False, description="Cleartext passwords (LDAP/PAM) over verified TLS.")


class TargetDetail(TargetRead):
    """One target for its page: TargetRead plus where an existing server answers (never the password)."""

    connection: TargetConnection | None = Field(None, description="Existing servers only.")


class TargetCreate(RequestModel):
    """A new target. `settings` is validated against the provisioner kind's settings model
    (provisioners.SETTINGS_MODELS), e.g. docker: {"image": "mysql:8.0.40", "port": 33080}."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$", description="Also part of container names.")
    flavor: Flavor
    provisioner: ProvisionerKind
    settings: dict[str, Any] = Field(default_factory=dict)
    disposable: bool = Field(
        False, description="Its data may be destroyed: custom SQL and writing templates may run there."
    )
    pools: list[PoolName] | None = Field(
        None,
        min_length=1,
        description="Worker pools that may run it: local, tarball and docker targets name the one pool of "
        "the host they run on; an existing server may name several. Default: the API's UPGRADELAB_POOL.",
    )
    restart_test: bool = Field(
        False, description="Existing servers: issue a real RESTART to find out whether it comes back."
    )
