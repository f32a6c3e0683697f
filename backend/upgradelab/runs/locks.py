"""One run at a time per target: a Redis lock per target name, renewed every iteration."""

from types import TracebackType

from redis import Redis
from redis.lock import Lock


class TargetLocks:
    """All-or-nothing locks on a run's targets, taken in name order so two runs cannot deadlock."""

    def __init__(self, redis: Redis, targets: list[str], ttl_s: int) -> None:
        self._locks = [
            Lock(redis, f"upgradelab:target-lock:{name}", timeout=ttl_s) for name in sorted(set(targets))
        ]
        self._held: list[Lock] = []

    def acquire(self) -> bool:
        """Take every lock without waiting; False (holding none) when any target is busy."""
        for lock in self._locks:
            if not lock.acquire(blocking=False):
                self.release()
                return False
            self._held.append(lock)
        return True

    def renew(self) -> None:
        """Reset the expiry of every held lock (called after each iteration)."""
        for lock in self._held:
            lock.reacquire()

    def release(self) -> None:
        """Release the locks this object holds; a lock that expired meanwhile is skipped."""
        for lock in self._held:
            if lock.owned():
                lock.release()
        self._held.clear()

    def __enter__(self) -> "TargetLocks":
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.release()
