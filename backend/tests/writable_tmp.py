"""A directory a lab server could write to outside its datadir, for the hostile-SQL tests: does a
statement manage to write there?"""

import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests import ports


@contextmanager
def writable_tmp(server_root: Path, label: str) -> Iterator[list[Path]]:
    """`/tmp/upgradelab-t<session>-<label>-<random>` as the server sees it, mode 777, made under the
    server's root (a chroot, or / on the host) and the host's /tmp; yields the host paths to look in,
    removed afterwards."""
    name = f"upgradelab-t{ports.SESSION}-{label}-{secrets.token_hex(4)}"
    places = [root / "tmp" / name for root in {server_root, Path("/")}]
    for place in places:
        place.mkdir()
        os.chmod(place, 0o777)
    try:
        yield places
    finally:
        for place in places:
            shutil.rmtree(place, ignore_errors=True)
