"""The worker credential: the bearer token a worker shows the API to read a dataset's dump
(GET /api/datasets/{name}/dump). UPGRADELAB_WORKER_TOKEN when set; otherwise a random token kept in
{state_dir}/worker.token, which an API and a worker sharing one state directory (one host) both read.
"""

import hmac
import os
import secrets
from pathlib import Path

from upgradelab.settings import Settings, get_settings


def worker_token(settings: Settings | None = None) -> str:
    """The token; created (0600) in the state directory on first use when no setting gives one."""
    settings = settings or get_settings()
    if settings.worker_token:
        return settings.worker_token
    path = Path(settings.state_dir) / "worker.token"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole under a unique name, then linked into place: two processes starting at once
        # never both write it, and neither reads it half-written.
        draft = path.with_name(f".worker.token.{os.getpid()}.{secrets.token_hex(4)}")
        draft.write_text(secrets.token_urlsafe(32), encoding="ascii")
        draft.chmod(0o600)
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text(encoding="ascii").strip()


def is_worker_token(presented: str | None) -> bool:
    """Whether `presented` is the worker credential (constant-time comparison)."""
    return bool(presented) and hmac.compare_digest(str(presented), worker_token())
