"""Custom SQL: the team's own set-up, per-iteration and tear-down statements.

Arbitrary SQL can destroy a server's data, so it runs only on targets marked `disposable` (the lab's
seeded targets are); a run on any other target is refused before its first iteration. Statements are
split with sqlparse (quotes and comments respected); each per-iteration statement is timed alone.
"""

from typing import ClassVar

import sqlparse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from upgradelab.workloads.base import (
    ServerSession,
    StatementTiming,
    TargetFacts,
    Workload,
    WorkloadInfo,
    execute,
    timed,
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
    database: str | None = Field(None, description="Default database (created if missing).")

    @field_validator("iteration_sql")
    @classmethod
    def _has_statement(cls, value: str) -> str:
        if not split_statements(value):
            raise ValueError("no SQL statement")
        return value

    @field_validator("database")
    @classmethod
    def _identifier(cls, value: str | None) -> str | None:
        if value is not None and not (value.replace("_", "").isalnum() and len(value) <= 64):
            raise ValueError("a database name of letters, digits and _")
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

    @property
    def p(self) -> CustomSqlParameters:
        assert isinstance(self.parameters, CustomSqlParameters)
        return self.parameters

    def refusal(self, target: TargetFacts) -> str | None:
        if not target.disposable:
            return f"custom SQL runs only on disposable targets; {target.name} is not marked disposable"
        return None

    def lab_database_refusal(self, database: str) -> str | None:
        """On a server the lab does not own, custom SQL works in the lab's database only."""
        if self.p.database not in (None, database):
            return f"parameter database={self.p.database!r}: the lab works in {database!r} only here"
        return None

    def _use(self, server: ServerSession) -> None:
        if server.endpoint.database:  # an existing server: the lab's own database, never created here
            server.connection.select_db(server.endpoint.database)
        elif self.p.database:
            execute(server.connection, f"CREATE DATABASE IF NOT EXISTS {self.p.database}")
            server.connection.select_db(self.p.database)

    def setup(self, server: ServerSession) -> None:
        self._use(server)
        execute(server.connection, *split_statements(self.p.setup_sql))

    def iteration(self, server: ServerSession, number: int, group: str) -> list[StatementTiming]:
        self._use(server)
        return [
            timed(server.connection, " ".join(sql.split())[:LABEL_CHARS], sql)
            for sql in split_statements(self.p.iteration_sql)
        ]

    def teardown(self, server: ServerSession) -> None:
        self._use(server)
        execute(server.connection, *split_statements(self.p.teardown_sql))
