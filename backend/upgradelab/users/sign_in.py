"""Sign-in guarded against guessing (issue 44, item 6): failed attempts are rate limited per user
name and per client address, and an unknown user costs what a known one does.

Limits (the `limits` library, moving windows kept in Redis, so every API process counts the same):
`sign_in_user_limit` (default "5/minute;30/hour") per user name and `sign_in_address_limit`
("30/minute;300/hour") per address count failed sign-ins only; while either is spent every sign-in
of that name or from that address is refused, the right password too, with 429 and Retry-After (the
seconds until the window lets one more through). The hour's window is the backoff: past five in a
minute the next five wait for the minute, past thirty the hour. A Redis outage lets sign-ins through
unlimited (logged): the lab's queue needs Redis anyway.

The same work for unknown users: a wrong password for an existing user costs an argon2id
verification (~0.4 s on the lab's host); an unknown name used to answer in ~0.01 s, telling which
names exist. `verify_or_dummy` verifies against a hash of a random password made once per process
(the same parameters) when there is no user. bench/sign_in_timing.py measures the two medians.
"""

import logging
import math
import secrets
import time
from functools import lru_cache

from limits import RateLimitItem, parse_many
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from redis.exceptions import RedisError

from upgradelab.settings import Settings
from upgradelab.users.models import User
from upgradelab.users.passwords import hash_password, verify_password

log = logging.getLogger(__name__)
_NAMESPACE = "upgradelab-sign-in"


@lru_cache
def dummy_hash() -> str:
    """An argon2id hash of a random password nobody knows, made once per process."""
    return hash_password(secrets.token_urlsafe(32))


def verify_or_dummy(user: User | None, password: str) -> bool:
    """True when `user` exists and `password` matches its hash; with no user, the same argon2id
    verification runs against dummy_hash() and False is returned."""
    if user is None:
        verify_password(dummy_hash(), password)
        return False
    return verify_password(user.password_hash, password)


class SignInLimited(Exception):
    """Too many failed sign-ins for this name or address: `retry_after_s` until one more is let through."""

    def __init__(self, what: str, retry_after_s: int) -> None:
        super().__init__(f"too many failed sign-ins {what}; try again in {retry_after_s} s")
        self.retry_after_s = retry_after_s


class SignInLimits:
    """The two rate limits of failed sign-ins, kept in Redis (module docstring)."""

    def __init__(self, settings: Settings) -> None:
        url = settings.redis_url.replace("redis://", "async+redis://", 1)
        self._storage = RedisStorage(
            url, implementation="redispy", socket_timeout=5, socket_connect_timeout=5
        )
        self._limiter = MovingWindowRateLimiter(self._storage)
        self._user = parse_many(settings.sign_in_user_limit)
        self._address = parse_many(settings.sign_in_address_limit)

    def _keys(self, username: str, address: str) -> list[tuple[RateLimitItem, str, str]]:
        return [
            *((item, "user", username.lower()) for item in self._user),
            *((item, "address", address) for item in self._address),
        ]

    async def check(self, username: str, address: str) -> None:
        """SignInLimited when a limit of `username` or `address` is spent (before the password is checked)."""
        try:
            for item, kind, key in self._keys(username, address):
                if not await self._limiter.test(item, _NAMESPACE, kind, key):
                    stats = await self._limiter.get_window_stats(item, _NAMESPACE, kind, key)
                    wait_s = max(1, math.ceil(stats.reset_time - time.time()))
                    what = f"for user {username!r}" if kind == "user" else f"from {address}"
                    raise SignInLimited(what, wait_s)
        except (RedisError, StorageError, OSError):
            log.warning("sign-in limits unavailable (Redis): not limited", exc_info=True)

    async def failed(self, username: str, address: str) -> None:
        """Count a failed sign-in of `username` from `address` in every window."""
        try:
            for item, kind, key in self._keys(username, address):
                await self._limiter.hit(item, _NAMESPACE, kind, key)
        except (RedisError, StorageError, OSError):
            log.warning("sign-in limits unavailable (Redis): not counted", exc_info=True)
