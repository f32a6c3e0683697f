"""What the lab knows a kept datadir holds: a record outside the datadir, written by the worker only
after a load that succeeded.

A datadir is the server's: whatever a dump did inside it, a marker there proves nothing alone. So
each instance (a target's slot) has a record file in the worker's state directory, which no server
account can reach, `{state_dir}/dataset-records/<kind>-<target>-<slot>.json` (0600): the dump's
sha256, the databases the load left, and a token (128 random bits) that the same load also wrote
into the datadir's marker (`upgradelab_meta.datasets`, workloads/datasets.py, by the lab's admin).

A kept datadir is reused (`reusable`) only when the record names the dump, its databases all pass
datasets/reserved.py with the dataset's own database first, and the datadir's marker carries the
record's token: the datadir is then the very one that load left, not a fresh template, a run's, or
one a dump wrote a marker into (it cannot know the token). The databases come from the record,
never from the marker. The record is removed before every load starts and written only once the
load and the marker succeeded, so a load that failed or was cancelled leaves none.
"""

import hmac
import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from upgradelab.datasets.reserved import refusal
from upgradelab.settings import get_settings
from upgradelab.targets.provisioners import Provisioner


@dataclass(frozen=True)
class DatasetRecord:
    """A load that succeeded on one instance: the dump's sha256, every database the dataset holds
    (the default one first) and the token written into that datadir's marker."""

    sha256: str
    databases: list[str]
    token: str


def new_token() -> str:
    """A fresh token for a load's record and marker (32 hex characters)."""
    return secrets.token_hex(16)


def record_path(provisioner: Provisioner, state_dir: Path | None = None) -> Path:
    """The record file of the provisioner's instance (target names are `[a-z0-9][a-z0-9._-]*`)."""
    directory = (state_dir or get_settings().state_dir) / "dataset-records"
    return directory / f"{provisioner.kind}-{provisioner.target_name}-{provisioner.slot}.json"


def read_record(provisioner: Provisioner) -> DatasetRecord | None:
    """The instance's record; None when there is none or it is not one the lab wrote."""
    try:
        data = json.loads(record_path(provisioner).read_text())
        record = DatasetRecord(str(data["sha256"]), [str(d) for d in data["databases"]], str(data["token"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record


def write_record(provisioner: Provisioner, record: DatasetRecord) -> None:
    """Store the record (0600, written under a temporary name and renamed: never half a file)."""
    path = record_path(provisioner)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(asdict(record), handle)
    partial.replace(path)


def forget_record(provisioner: Provisioner) -> None:
    """Remove the instance's record (before a load: its datadir is about to be replaced)."""
    record_path(provisioner).unlink(missing_ok=True)


def reusable(
    record: DatasetRecord | None, marker: dict[str, Any] | None, sha256: str, database: str
) -> list[str] | None:
    """The databases of the dump `sha256` (default database `database`) that a kept datadir holds,
    or None when it is not to be trusted (see the module docstring). `marker`: the spec the
    datadir's marker holds under `sha256` (None: no marker)."""
    if record is None or marker is None or record.sha256 != sha256:
        return None
    token = marker.get("token")
    if not isinstance(token, str) or not hmac.compare_digest(token.encode(), record.token.encode()):
        return None
    databases = record.databases
    if not databases or databases[0] != database or any(refusal(name) for name in databases):
        return None
    return list(databases)
