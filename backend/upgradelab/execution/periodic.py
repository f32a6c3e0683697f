"""A thread that calls a function every few seconds while a `with` block runs: the shape of a job's
lease heartbeat (execution/leases.py) and of a replay's cancel watch (replay/runner.py)."""

import logging
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self

log = logging.getLogger(__name__)


class Periodic:
    """While entered: `tick()` every `interval_s` seconds in a daemon thread named `name`, first one
    interval after entering; a tick that returns False ends the thread, one that raises is logged
    and the next tick tries again. Exiting stops the thread and waits for it (at most one tick)."""

    def __init__(self, name: str, interval_s: float, tick: Callable[[], bool | None]) -> None:
        self._tick, self._interval_s = tick, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval_s):
            try:
                if self._tick() is False:
                    return
            except Exception:  # the database or Redis may be briefly away: the next tick tries again
                log.exception("%s: periodic tick failed", self._thread.name)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _value: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()
