"""The lab's binary of a captured server's version: a target the lab runs itself (local, tarball,
docker) of the same flavor and release series, whose `--no-defaults --verbose --help` gives the
defaults (captures/defaults.py).

The help is read through the target's provisioner (`option_help()`: a chroot, the host binary, a
throwaway container), the same machinery as the option-name lists (targets/option_names.py), and its
defaults cached as JSON in `{state_dir}/option-defaults/<target>.json` with the binary's identity.
A target of the exact version is preferred to one of the same series; none: the defaults are unknown.
"""

import json
import logging
import os

from sqlalchemy import select
from sqlalchemy.orm import Session

from upgradelab.captures.configuration import Configuration, DefaultsFrom
from upgradelab.captures.defaults import BinaryDefaults, parse_defaults, series
from upgradelab.captures.option_help import OptionHelp
from upgradelab.settings import Settings
from upgradelab.targets.models import Target
from upgradelab.targets.provisioners import ExistingProvisioner, provisioner_for

log = logging.getLogger(__name__)
# 2: the options' kinds and descriptions are cached too (captures/option_help.py); a cache of
# another format is read again from the binary
CACHE_FORMAT = 2


def binary_defaults(target: Target, settings: Settings) -> BinaryDefaults:
    """The defaults of `target`'s binary, from the cache while its identity and the cache's format are
    the same. Raises what the provisioner raises (ProvisionError, OSError, a subprocess or docker
    error)."""
    provisioner = provisioner_for(target, settings)
    path = settings.state_dir / "option-defaults" / f"{target.name}.json"
    identity = provisioner.binary_identity()
    try:
        data = json.loads(path.read_text())
        if data.get("identity") == identity and data.get("format") == CACHE_FORMAT:
            options = {
                name: OptionHelp(kind, description, tuple(members))
                for name, (kind, description, members) in data["options"].items()
            }
            return BinaryDefaults(data["server"], data["version"], data["values"], options)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    found = parse_defaults(provisioner.option_help())
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")  # renamed: no reader sees half a file
    record = {
        "identity": identity,
        "format": CACHE_FORMAT,
        "server": found.server,
        "version": found.version,
        "values": found.values,
        "options": {
            name: [one.kind, one.description, list(one.members)] for name, one in found.options.items()
        },
    }
    partial.write_text(json.dumps(record))
    partial.replace(path)
    return found


def defaults_for(
    session: Session, flavor: str, version: str, settings: Settings
) -> tuple[BinaryDefaults, DefaultsFrom] | None:
    """The defaults of the lab's binary of `flavor` `version` (module docstring) and where they came
    from; None when the lab has none of that series. A target whose help cannot be read is skipped
    (logged)."""
    wanted = series(version)
    if not wanted:
        return None
    rows = session.scalars(
        select(Target)
        .where(Target.flavor == flavor, Target.provisioner != ExistingProvisioner.kind)
        .order_by(Target.id)
    )
    # a target whose version is known and of another series is not asked (its help costs a start)
    candidates = [t for t in rows if t.version is None or series(t.version) == wanted]
    best: tuple[BinaryDefaults, DefaultsFrom] | None = None
    for target in candidates:
        try:
            found = binary_defaults(target, settings)
        except Exception as error:  # one unreadable binary must not end the capture
            log.warning("capture defaults: target %s: %s", target.name, error)
            continue
        if series(found.version) != wanted:
            continue
        exact = _bare(found.version) == _bare(version)
        origin = DefaultsFrom(target=target.name, server=found.server, match="exact" if exact else "series")
        if exact:
            return found, origin
        best = best or (found, origin)
    return best


def _bare(version: str) -> str:
    """ "10.11.19" of "10.11.19-MariaDB-0+deb12u1" and of "10.11.19-MariaDB-log"."""
    return version.split("-", 1)[0]


def capture_binary_defaults(
    session: Session, config: Configuration, settings: Settings
) -> BinaryDefaults | None:
    """The defaults (and options' help) of the lab binary a capture's defaults came from
    (`config.defaults_from`); None when the capture names none, its target is gone or its help cannot
    be read (logged)."""
    if config.defaults_from is None:
        return None
    target = session.scalars(select(Target).where(Target.name == config.defaults_from.target)).first()
    if target is None:
        return None
    try:
        return binary_defaults(target, settings)
    except Exception as error:  # its help unreadable: the values are then used as captured
        log.warning("the defaults of %s: %s", target.name, error)
        return None
