"""A secret kept in a file of the lab's state directory: made once, random, readable by its owner only.

The worker credential (pools/credential.py) and each lab server's admin password
(targets/provisioners/credentials.py) are such files. Two processes asking at once (the API's and the
worker's, or two workers) get the same secret: it is written whole under a unique name and linked
into place, so neither ever reads a half-written file and the loser reads the winner's.
"""

import os
import secrets
from pathlib import Path


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
