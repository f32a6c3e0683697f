"""What a server's detected capabilities are, as stored in `target.capabilities` (db.ModelJSON) and served
by the API: the shapes alone, apart from their detection (targets/capabilities.py, which needs the
provisioners), so the target's record can name its type without importing them."""

from datetime import datetime

from pydantic import BaseModel


class Capability(BaseModel):
    """One thing the lab may or may not do: `available`, and `detail` (how it was found, or the
    server's own words when refused)."""

    name: str
    available: bool
    detail: str


class Capabilities(BaseModel):
    """A server's capabilities and facts at `detected_at` (UTC)."""

    detected_at: datetime
    user: str
    flavor: str
    version: str
    version_comment: str
    managed_service: str | None
    read_only: bool
    super_read_only: bool | None
    log_bin: bool
    secure_file_priv: str | None
    privileges: list[str]
    checks: list[Capability]

    def get(self, name: str) -> Capability:
        """The named capability (unavailable 'not detected' when absent, e.g. stored by an older lab)."""
        for check in self.checks:
            if check.name == name:
                return check
        return Capability(name=name, available=False, detail="not detected")

    def has(self, name: str) -> bool:
        """Whether the named capability is available."""
        return self.get(name).available
