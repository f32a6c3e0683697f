"""Custom SQL: the team's own set-up, per-iteration and tear-down statements.

Arbitrary SQL can destroy a server's data, so it runs only on targets marked `disposable` (the lab's
seeded targets are); a run on any other target is refused before its first iteration. Even there it
runs as the workload user (targets/workload_user.py): privileges on the `lab_*` databases only, no
FILE, SUPER, SHUTDOWN, SET GLOBAL or CREATE USER, and every target's secure-file-priv is an empty
directory of the lab's. Statements are split with sqlparse (quotes and comments respected); each
per-iteration statement is timed alone, on the workload user's connection (so the statement_time
probe, which follows the harness connection, does not see them).

Every statement (set-up, iteration, tear-down) is bounded by `statement_timeout_s`
(targets/statement_timeout.py: MariaDB's max_statement_time, and on both flavors a watchdog's KILL
QUERY from the lab's admin connection); one that runs past it fails the variant with
"statement timed out after N s: <the statement>".
"""

from typing import ClassVar

import sqlparse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from upgradelab.targets.own_password import account_change
from upgradelab.targets.provisioners.base import ServerConnection
from upgradelab.targets.statement_timeout import (
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    MIN_TIMEOUT_S,
    StatementBound,
)
from upgradelab.targets.workload_user import DATABASE_PREFIX
from upgradelab.workloads.base import (
    ServerSession,
    StatementTiming,
    TargetFacts,
    Workload,
    WorkloadInfo,
    execute,
)

LABEL_CHARS = 120


def split_statements(sql: str) -> list[str]:
    """Statements of a script, without trailing ';' and empty ones."""
    return [s.strip().rstrip(";").strip() for s in sqlparse.split(sql) if s.strip().rstrip(";").strip()]


class CustomSqlParameters(BaseModel):
    """Three scripts; `iteration_sql` must hold at least one statement."""

    model_config = ConfigDict(extra="forbid")

    setup_sql: str = Field("", max_length=200_000, description="Run once per variant, untimed.")
    iteration_sql: str = Field(
        "SELECT 1", min_length=1, max_length=200_000, description="Run every iteration; each statement timed."
    )
    teardown_sql: str = Field("", max_length=200_000, description="Run once per variant at the end, untimed.")
    database: str = Field(
        DATABASE_PREFIX + "custom",
        description="Default database (created if missing); its name starts with lab_, the only "
        "databases the workload user may use.",
    )
    statement_timeout_s: float = Field(
        DEFAULT_TIMEOUT_S,
        ge=MIN_TIMEOUT_S,
        le=MAX_TIMEOUT_S,
        description="Seconds each statement may run; one that runs longer is ended and fails the variant.",
    )

    @field_validator("setup_sql", "iteration_sql", "teardown_sql")
    @classmethod
    def _no_account_change(cls, value: str) -> str:
        for number, sql in enumerate(split_statements(value), 1):
            change = account_change(sql)
            if change is not None:
                raise ValueError(
                    f"statement {number} ({change}) could change a lab account's password: refused "
                    "(the lab's accounts keep the passwords it gives them; targets/own_password.py)"
                )
        return value

    @field_validator("iteration_sql")
    @classmethod
    def _has_statement(cls, value: str) -> str:
        if not split_statements(value):
            raise ValueError("no SQL statement")
        return value

    @field_validator("database")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not (value.replace("_", "").isalnum() and value.isascii() and len(value) <= 64):
            raise ValueError("a database name of letters, digits and _")
        if not value.startswith(DATABASE_PREFIX) or value == DATABASE_PREFIX:
            raise ValueError(
                f"a database name starting with {DATABASE_PREFIX} (the workload user's databases)"
            )
        return value


class CustomSql(Workload):
    """Each statement of iteration_sql timed on its own (label: its first characters)."""

    Parameters: ClassVar[type[BaseModel]] = CustomSqlParameters
    uses_lab_database: ClassVar[bool] = True
    info: ClassVar[WorkloadInfo] = WorkloadInfo(
        slug="custom-sql",
        title="Custom SQL",
        article="(your own)",
        description="Your set-up, per-iteration and tear-down SQL; allowed only on disposable targets.",
        default_iterations=10,
        setup="Set-up SQL once per variant, the iteration SQL timed statement by statement, tear-down SQL.",
    )

    def __init__(self, parameters: BaseModel | None = None) -> None:
        super().__init__(parameters)
        # Per server session (id of the ServerSession): one workload object serves every variant of a
        # run, whose instances start in parallel threads and whose blocks interleave. Kept on the
        # object alone, one variant's set-up dropped the connection another was opening ("'NoneType'
        # object has no attribute 'select_db'", a variant failed at start) and every block switch
        # closed the other variant's connection and opened a new one.
        # (harness connection it was opened for, the workload user's connection)
        self._connections: dict[int, tuple[ServerConnection, ServerConnection]] = {}
        self._bounds: dict[int, StatementBound] = {}

    @property
    def p(self) -> CustomSqlParameters:
        assert isinstance(self.parameters, CustomSqlParameters)
        return self.parameters

    def refusal(self, target: TargetFacts) -> str | None:
        if not target.disposable:
            return f"custom SQL runs only on disposable targets; {target.name} is not marked disposable"
        return None

    def lab_database_refusal(self, database: str) -> str | None:
        """On a server the lab does not own, custom SQL works in the lab's database only (the
        parameter's default stands for it there)."""
        default = CustomSqlParameters.model_fields["database"].default
        if self.p.database not in (default, database):
            return f"parameter database={self.p.database!r}: the lab works in {database!r} only here"
        return None

    def _database(self, server: ServerSession) -> str:
        return server.endpoint.database or self.p.database

    def _workload(self, server: ServerSession) -> ServerConnection:
        """The workload user's connection, opened again when the server was restarted (a cold run
        gives the session a new harness connection). On an existing server (endpoint.database set)
        the lab has no user of its own to grant from: the admin-given user, in the lab's database."""
        if server.endpoint.database:
            server.connection.select_db(server.endpoint.database)
            return server.connection
        opened = self._connections.get(id(server))
        if opened is None or opened[0] is not server.connection:
            if opened is not None:
                opened[1].close()
            connection = server.workload_connect()
            execute(connection, f"CREATE DATABASE IF NOT EXISTS {self.p.database}")
            connection.select_db(self.p.database)
            opened = (server.connection, connection)
            self._connections[id(server)] = opened
        return opened[1]

    def _bounded(self, server: ServerSession) -> StatementBound:
        """The workload connection's statement bound, made again with the connection; the kill comes
        from a connection of the harness's (admin) endpoint."""
        connection = self._workload(server)
        bound = self._bounds.get(id(server))
        if bound is None or bound.connection is not connection:
            endpoint = server.endpoint
            bound = StatementBound(
                connection,
                self.p.statement_timeout_s,
                server.target.flavor,
                lambda: endpoint.connect(timeout_s=5),
            )
            bound.apply()
            self._bounds[id(server)] = bound
        return bound

    def setup(self, server: ServerSession) -> None:
        self._connections.pop(id(server), None)
        self._bounds.pop(id(server), None)
        self._bounded(server).execute(*split_statements(self.p.setup_sql))

    def iteration(self, server: ServerSession, number: int, group: str) -> list[StatementTiming]:
        bound = self._bounded(server)
        bound.connection.select_db(self._database(server))
        timings = []
        for sql in split_statements(self.p.iteration_sql):
            _, seconds = bound.run(sql)  # StatementTimedOut (a RuntimeError) fails the variant
            timings.append(StatementTiming(" ".join(sql.split())[:LABEL_CHARS], seconds))
        return timings

    def teardown(self, server: ServerSession) -> None:
        bound = self._bounded(server)
        connection = bound.connection
        try:
            connection.select_db(self._database(server))
            bound.execute(*split_statements(self.p.teardown_sql))
        finally:
            opened = self._connections.pop(id(server), None)
            self._bounds.pop(id(server), None)
            if opened is not None and connection is opened[1]:
                connection.close()
