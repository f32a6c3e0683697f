"""Replay on every variant, one after the other: start the variant's server, load the dataset (or
reuse it when the kept datadir already holds it), capture each statement's outcome once, then time
every statement `repeats` times (round-robin over the statements, so a slow moment of the machine is
spread over all of them), stop the server.

Until replay runs as a workload template through the run loop's rounds (issue 12), this sequential
loop is the schedule; compare.py takes the per-repeat times whatever produced them.
"""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pymysql

from upgradelab.datasets.loader import LoadResult, TableStats, load_dump, table_stats
from upgradelab.replay.outcomes import Outcome, capture, time_statement
from upgradelab.replay.sources import SourceStatement
from upgradelab.targets.provisioners import Provisioner
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.workloads.base import DatasetProgress, execute, scalar
from upgradelab.workloads.datasets import is_prepared, mark_prepared

DATASET_SLUG = "dataset"


@dataclass(frozen=True)
class DumpDataset:
    """A dump to load: file, sha256 (the reuse key) and the default database it loads into."""

    path: Path
    sha256: str
    database: str


@dataclass
class VariantReplay:
    """One variant's replay: server version, whether the dataset was loaded (LoadResult) or reused
    (None), its tables, one Outcome per statement, and per statement the seconds of each repeat
    (None where it errored)."""

    name: str
    version: str
    load: LoadResult | None
    tables: list[TableStats]
    outcomes: list[Outcome] = field(default_factory=list)
    times: list[list[float | None]] = field(default_factory=list)


def file_sha256(path: Path) -> str:
    """sha256 hex of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def ensure_dataset(
    provisioner: Provisioner,
    options: list[str],
    dataset: DumpDataset,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
) -> tuple[ServerConnection, LoadResult | None]:
    """Start the server with the dataset loaded: reused from the kept datadir when its marker holds
    the dump's sha256, otherwise a fresh datadir, the dump loaded (LoadFailed on error) and marked."""
    spec = {"sha256": dataset.sha256, "database": dataset.database}
    endpoint = provisioner.start(options, keep_data=True)
    connection = endpoint.connect()
    if is_prepared(connection, dataset.sha256):
        return connection, None
    connection.close()
    endpoint = provisioner.start(options, keep_data=False)
    connection = endpoint.connect()
    execute(connection, f"CREATE DATABASE IF NOT EXISTS `{dataset.database}`")
    result = load_dump(endpoint, provisioner.flavor, dataset.path, dataset.database, report)
    mark_prepared(connection, dataset.sha256, DATASET_SLUG, spec)
    return connection, result


def _use(connection: ServerConnection, database: str) -> Outcome | None:
    """Make `database` the default; the server's refusal as the statement's outcome (a log taken on
    another server may name a database the dump does not hold)."""
    try:
        connection.select_db(database)
    except pymysql.MySQLError as error:
        return Outcome(int(error.args[0]), f"default database {database!r}: {error.args[1]}")
    return None


def replay_variant(
    name: str,
    provisioner: Provisioner,
    options: list[str],
    dataset: DumpDataset,
    statements: list[SourceStatement],
    repeats: int,
    report: Callable[[DatasetProgress], None] = lambda progress: None,
    step: Callable[[str], None] = lambda phase: None,
) -> VariantReplay:
    """The whole replay on one variant (see module docstring); the server is stopped at the end.
    `report` gets the dump's load progress, `step` each phase after it ("capturing outcomes",
    "timing: repeat 2 of 5")."""
    step("starting the server")
    connection, load = ensure_dataset(provisioner, options, dataset, report)
    try:
        version = str(scalar(connection, "SELECT VERSION()"))
        replay = VariantReplay(name, version, load, table_stats(connection, dataset.database))
        step(f"capturing outcomes of {len(statements)} statements")
        missing: dict[int, Outcome] = {}  # statements whose default database is not on this server
        for index, statement in enumerate(statements):
            refused = _use(connection, statement.database or dataset.database)
            if refused is not None:
                missing[index] = refused
            replay.outcomes.append(refused or capture(connection, statement.sql))
        replay.times = [[] for _ in statements]
        for repeat in range(repeats):
            step(f"timing: repeat {repeat + 1} of {repeats}")
            for index, statement in enumerate(statements):
                if index in missing:
                    replay.times[index].append(None)
                    continue
                connection.select_db(statement.database or dataset.database)
                replay.times[index].append(time_statement(connection, statement.sql))
        return replay
    finally:
        connection.close()
        provisioner.stop()
