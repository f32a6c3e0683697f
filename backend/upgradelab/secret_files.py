"""A secret kept in a file of the lab's state directory: made once, random, readable by its owner only.

The worker credential (pools/credential.py) and each lab server's admin password
(targets/provisioners/credentials.py) are such files. Two processes asking at once (the API's and the
worker's, or two workers) get the same secret: it is written whole under a unique name and linked
into place, so neither ever reads a half-written file and the loser reads the winner's.
"""

import os
import secrets
import stat
from pathlib import Path

from upgradelab.settings import Settings


def read_or_make(path: Path) -> str:
    """The secret in `path` (stripped), made first when there is none: `secrets.token_urlsafe(32)`, 43
    characters of A-Z a-z 0-9 _ -, in a file of mode 0600 whose directory is made 0700. A file that
    others may read is made 0600 again. OSError as the file system gives it."""
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
    return path.read_text(encoding="ascii", errors="replace").strip()


def protect_state_dir(settings: Settings) -> list[Path]:
    """The state directory and what other local users could read in it made the owner's alone
    (issue 44: upgradelab.db and its WAL were 0644 under a 0755 directory): the directory and its
    subdirectories 0700, every file 0600 (the SQLite database, -wal and -shm, logs, secrets). Run at
    the API's and the worker's start; a state directory made by `make up` under umask 077 needs
    nothing. The paths changed."""
    root = Path(settings.state_dir)
    if not root.is_dir():
        return []
    changed = []
    for path in [root, *root.rglob("*")]:
        try:
            mode = path.lstat().st_mode
        except OSError:  # removed meanwhile
            continue
        if stat.S_ISLNK(mode) or not mode & 0o077:
            continue
        path.chmod(0o700 if stat.S_ISDIR(mode) else stat.S_IMODE(mode) & 0o700)
        changed.append(path)
    return changed
