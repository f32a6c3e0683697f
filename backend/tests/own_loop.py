"""Coroutines run from a synchronous test, on a loop of their own."""

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_on_own_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, run on a new thread's own event loop: a test session's Playwright (sync
    API) keeps an event loop running on an xdist worker's main thread, where asyncio.run refuses to
    start another ("cannot be called from a running event loop"). Raises what the coroutine raises."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
