"""Settings of a docker target (`target.settings`), validated before anything reaches the engine."""

import re
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from upgradelab.targets.options import PlainCredential, ServerOptions
from upgradelab.targets.provisioners.base import ProvisionError
from upgradelab.targets.sealed import SealedSettings

_IMAGE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-/:@")
_ENV_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ENV_PREFIXES = ("MYSQL_", "MARIADB_")
_ENV_NAMES = frozenset({"TZ"})
_SERVER_COMMAND = re.compile(r"^(/[A-Za-z0-9_.-]+)*/?(mysqld|mariadbd)(-[A-Za-z0-9.]+)?$")


class DockerSettings(SealedSettings):
    """`target.settings` of a docker target (validated; unknown keys refused)."""

    image: str = Field(description="Image reference, e.g. mysql:8.0.40 or upgradelab/mysql:9.7.")
    port: int = Field(ge=1024, le=65535, description="Port on 127.0.0.1 where the server answers.")
    user: PlainCredential = Field("upgradelab", description="Lab user, created with every privilege.")
    password: PlainCredential | None = Field(
        None,
        description="Lab user's password; None (default): random per target, kept in the worker's "
        "{state_dir}/server-credentials/<target> (credentials.py). root gets a random one nobody keeps.",
    )
    base_options: ServerOptions = Field(default_factory=dict)
    allowed_options: list[str] = Field(
        default_factory=list, description="Admin-listed exceptions to the refused option categories."
    )
    env: dict[str, str] = Field(default_factory=dict, description="Extra container environment.")
    network: Literal["host", "publish"] = "host"
    server_command: str | None = Field(None, description="Server binary; default mysqld or mariadbd.")
    pull: Literal["missing", "never"] = "missing"

    @field_validator("image")
    @classmethod
    def _image_reference(cls, value: str) -> str:
        if not value or not set(value) <= _IMAGE_CHARS or value.startswith(("-", "/", ":")):
            raise ValueError("image: a reference such as mysql:8.0.40 (lowercase, digits, . _ - / : @)")
        return value

    @field_validator("env")
    @classmethod
    def _env_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name, env_value in value.items():
            if not name or not set(name) <= _ENV_NAME_CHARS or "\n" in env_value:
                raise ValueError(f"env: {name[:80]!r} is not an environment variable name (A-Z, 0-9, _)")
            # The images' own conventions only: LD_PRELOAD, PATH and the like would change the server.
            if not (name.startswith(_ENV_PREFIXES) or name in _ENV_NAMES):
                raise ValueError(f"env: {name[:80]!r} is not allowed: MYSQL_*, MARIADB_* or TZ")
        return value

    @field_validator("server_command")
    @classmethod
    def _server_binary(cls, value: str | None) -> str | None:
        # One binary, run as the container's command: no shell, no arguments.
        if value is not None and not _SERVER_COMMAND.match(value):
            raise ValueError(
                "server_command: a mysqld or mariadbd binary (name or path), no shell or arguments"
            )
        return value


def docker_settings(raw: dict[str, Any]) -> DockerSettings:
    """Validate a docker target's settings; ProvisionError naming the field on bad input."""
    try:
        return DockerSettings.model_validate(raw)
    except ValidationError as error:
        raise ProvisionError(
            "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        ) from error
