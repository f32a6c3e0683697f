"""Variants: a target plus configuration. Presets name the source articles' configurations.

A preset string joins presets with "+": "redo-off+skip-log-bin" is article 001's "both off".
"""

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from upgradelab.experiments.server_settings import (
    SettingError,
    canonical_instance_statement,
    validate_variable,
)
from upgradelab.targets.options import OptionError, validate_option


@dataclass(frozen=True)
class Preset:
    """A named configuration: startup options and whether the redo log is disabled after start."""

    name: str
    description: str
    options: dict[str, str | None] = field(default_factory=dict)
    redo_log_disabled: bool = False
    flavors: tuple[str, ...] = ("mysql", "mariadb")


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset("default", "The target's configuration as it is (binary log on for MySQL 8.0+)."),
        Preset("skip-log-bin", "Binary logging off (skip-log-bin).", {"skip-log-bin": None}),
        Preset(
            "log-writer-threads-off",
            "innodb_log_writer_threads=OFF: user threads write the redo log (MySQL 8.0.22+).",
            {"innodb_log_writer_threads": "OFF"},
            flavors=("mysql",),
        ),
        Preset(
            "redo-off",
            "ALTER INSTANCE DISABLE INNODB REDO_LOG after start, verified with Innodb_redo_log_enabled "
            "(MySQL 8.0.21+; never in production).",
            redo_log_disabled=True,
            flavors=("mysql",),
        ),
    )
}


class VariantError(ValueError):
    """A variant that cannot be resolved; the message names the variant and the reason."""


class ResolvedVariant(BaseModel):
    """What a run executes for one variant; stored as experiment.variants' items (db.ModelJSON).

    set_global / set_session: variable -> value, applied after start (SESSION on the workload
    connection); instance: allow-listed statements in canonical form, applied after start. The three
    default to empty: variants stored before they existed read back without them.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    target: str
    preset: str
    options: dict[str, str | None]
    redo_log: Literal["enabled", "disabled"]
    set_global: dict[str, str] = {}
    set_session: dict[str, str] = {}
    instance: list[str] = []

    def option_lines(self) -> list[str]:
        """Validated option-file lines for the provisioner."""
        return [name if value is None else f"{name}={value}" for name, value in self.options.items()]


def resolve_variant(
    target: str,
    preset: str = "default",
    name: str | None = None,
    options: dict[str, str | None] | None = None,
    set_global: dict[str, str] | None = None,
    set_session: dict[str, str] | None = None,
    instance: list[str] | None = None,
) -> ResolvedVariant:
    """Merge presets (left to right) and explicit options (last wins) into a ResolvedVariant.

    Raises VariantError naming the unknown preset, an option that is not one line of a plain name
    and value, or the refused SET GLOBAL / SET SESSION setting or instance statement (see
    experiments/server_settings.py). Option categories and exact names depend on the target:
    `check_variant_options` (runs/experiments.py) and pre-flight check them.
    """
    preset = preset.strip() or "default"
    merged: dict[str, str | None] = {}
    redo_disabled = False
    for part in preset.split("+"):
        found = PRESETS.get(part.strip())
        if found is None:
            raise VariantError(f"unknown preset {part.strip()!r}; known: {', '.join(PRESETS)}")
        merged.update(found.options)
        redo_disabled = redo_disabled or found.redo_log_disabled
    label = name or f"{target} {preset}"
    for option, value in (options or {}).items():
        try:
            dashed, checked = validate_option(option, value, categories=False)
        except OptionError as error:
            raise VariantError(f"variant {label!r}: {error}") from error
        merged[dashed] = checked
    normalized = {}
    for option, value in merged.items():
        dashed, checked = validate_option(option, value, categories=False)
        normalized[dashed] = checked
    try:
        globals_ = dict(validate_variable("SET GLOBAL", k, v) for k, v in (set_global or {}).items())
        sessions = dict(validate_variable("SET SESSION", k, v) for k, v in (set_session or {}).items())
        statements = [canonical_instance_statement(one) for one in instance or []]
    except SettingError as error:
        raise VariantError(f"variant {label!r}: {error}") from error
    return ResolvedVariant(
        name=label,
        target=target,
        preset=preset,
        options=normalized,
        redo_log="disabled" if redo_disabled else "enabled",
        set_global=globals_,
        set_session=sessions,
        instance=statements,
    )


def unsupported_reason(variant: ResolvedVariant, flavor: str, version: str | None) -> str | None:
    """Why a server of this flavor/version cannot take the variant's presets, or None."""
    for part in variant.preset.split("+"):
        found = PRESETS[part.strip()]
        if flavor not in found.flavors:
            return f"preset {found.name!r} is not supported by {flavor} {version or ''}".strip() + (
                f" ({found.description})"
            )
    if variant.redo_log == "disabled" and version and _version_tuple(version) < (8, 0, 21):
        return f"ALTER INSTANCE DISABLE INNODB REDO_LOG needs MySQL 8.0.21 or later, target runs {version}"
    return None


def _version_tuple(version: str) -> tuple[int, ...]:
    digits = version.split("-")[0].split(".")
    return tuple(int(part) for part in digits if part.isdigit())
