"""Database engines and sessions: async for the API, sync for the Celery worker (same schema)."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeVar

from pydantic import TypeAdapter
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.pool import NullPool
from sqlalchemy.types import JSON, DateTime, TypeDecorator

from upgradelab.settings import get_settings


class UTCDateTime(TypeDecorator[datetime]):
    """Stored as naive UTC (portable, SQLite has no zones); read back timezone-aware UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value.astimezone(UTC).replace(tzinfo=None) if value is not None and value.tzinfo else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value.replace(tzinfo=UTC) if value is not None else None


M = TypeVar("M")


class ModelJSON(TypeDecorator[M]):
    """A typed value stored as its JSON and validated on read: a pydantic model, or a list or dict of
    them (any type pydantic validates, through a TypeAdapter: `ModelJSON(list[ReplayStatement])`),
    written as its JSON dump (mode="json"; a dict given in its place is validated first) and read back
    as that type, so a reader gets the typed value and a stored shape the model no longer accepts
    fails naming the field (pydantic.ValidationError), not three screens later as a missing key.
    Every JSON column is one (tests/test_stored_json.py walks the models). exclude_unset: write only
    the fields set (read from the stored JSON, or given), for a sparse value whose absent keys mean
    "the default of the code that reads it" (a target's settings): it reads and writes back as stored."""

    impl = JSON
    cache_ok = True

    def __init__(self, model: type[M], exclude_unset: bool = False) -> None:
        super().__init__()
        self.model = model
        self.exclude_unset = exclude_unset
        self._adapter: TypeAdapter[M] = TypeAdapter(model)

    def process_bind_param(self, value: Any, dialect: Any) -> Any:
        if value is None:
            return None
        typed = self._adapter.validate_python(value)
        return self._adapter.dump_python(typed, mode="json", exclude_unset=self.exclude_unset)

    def process_result_value(self, value: Any, dialect: Any) -> M | None:
        return None if value is None else self._adapter.validate_python(value)


class Base(DeclarativeBase):
    """Declarative base of every table."""

    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JSON,
        list[Any]: JSON,
        datetime: UTCDateTime,
    }


def utcnow() -> datetime:
    """Timezone-aware now, UTC."""
    return datetime.now(UTC)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL + busy timeout: the API and the worker write the same SQLite file concurrently.
    # synchronous=NORMAL (SQLite's advice for WAL): a commit is safe from a crash of the API or the
    # worker and is not fsynced on its own (a power loss may undo the last commits; the database stays
    # whole). FULL fsynced every iteration's row and every progress step: milliseconds each on a busy disk.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def prepare_sqlite_dir(url: str) -> None:
    """A SQLite database's directory made (0700 when new) and the file itself created 0600 before
    SQLite opens it: SQLite gives its -wal and -shm files the database file's mode, so none of the
    three is ever readable by another local user (issue 44; the database holds users' password
    hashes, API token digests and sealed target passwords)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            import os
            from pathlib import Path

            Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _configured(engine: Engine, url: str) -> Engine:
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


@lru_cache
def async_engine() -> AsyncEngine:
    """The API's engine (cached per process)."""
    url = get_settings().async_database_url
    prepare_sqlite_dir(url)
    engine = create_async_engine(url)
    _configured(engine.sync_engine, url)
    return engine


@lru_cache
def sync_engine() -> Engine:
    """The worker's engine (cached per process)."""
    url = get_settings().sync_database_url
    prepare_sqlite_dir(url)
    return _configured(create_engine(url), url)


T = TypeVar("T")


def run_async(work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """`work(session)` run to its end from a worker's (synchronous) thread: an event loop of its own
    (asyncio.run) and an async engine of its own without a pool, disposed after, so no connection
    outlives the loop it was made in. How a job composed of other jobs (assessment/) calls a kind's
    async service (its create, its read). Returns what `work` returns; raises what it raises."""

    async def main() -> T:
        url = get_settings().async_database_url
        engine = create_async_engine(url, poolclass=NullPool)
        _configured(engine.sync_engine, url)
        try:
            async with async_sessionmaker(engine, expire_on_commit=False)() as session:
                return await work(session)
        finally:
            await engine.dispose()

    return asyncio.run(main())


async def get_session() -> AsyncIterator[AsyncSession]:
    """FastAPI dependency: one session per request."""
    maker = async_sessionmaker(async_engine(), expire_on_commit=False)
    async with maker() as session:
        yield session


if TYPE_CHECKING:
    from fastapi import Depends

    SessionDep = Annotated[AsyncSession, Depends(get_session)]


def __getattr__(name: str) -> Any:
    # SessionDep (the routes' session parameter) is made on first use: the Celery worker imports this
    # module too, and FastAPI costs it ~0.4 CPU-s per start for nothing (issue 31).
    if name == "SessionDep":
        from fastapi import Depends

        alias = Annotated[AsyncSession, Depends(get_session)]
        globals()[name] = alias  # one alias, as the module-level one was: later reads skip this
        return alias
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@contextmanager
def sync_session() -> Iterator[Session]:
    """A worker session; commits are explicit."""
    maker = sessionmaker(sync_engine(), expire_on_commit=False)
    with maker() as session:
        yield session
