"""Target API shapes. Credentials in target.settings are never part of a response."""

from pydantic import BaseModel, ConfigDict


class TargetRead(BaseModel):
    """A target as the API shows it: no settings, so no password."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    flavor: str
    version: str | None
    provisioner: str
