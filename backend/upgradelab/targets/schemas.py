"""Target API shapes. Credentials in target.settings are never part of a response."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class TargetRead(BaseModel):
    """A target as the API shows it: no settings, so no password."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    flavor: str
    version: str | None
    provisioner: str


class TargetCreate(BaseModel):
    """A new target. `settings` is validated against the provisioner kind's settings model
    (provisioners.SETTINGS_MODELS), e.g. docker: {"image": "mysql:8.0.40", "port": 33080}."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$", description="Also part of container names.")
    flavor: Literal["mysql", "mariadb"]
    provisioner: str = Field(description="local, docker or tarball.")
    settings: dict[str, Any] = Field(default_factory=dict)
