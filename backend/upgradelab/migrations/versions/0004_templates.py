"""Templates: disposable targets, experiment policy, sample groups and metrics, run progress.

- target.disposable: custom SQL runs only on disposable targets; the seeded lab targets are.
- experiment.policy: warm | cold_first | cold_each_group | cold_every (restarts before iterations).
- sample.label: the iteration group, e.g. "table=test_long" or "threads=16" ('' for one group).
- sample.metrics: numbers measured with a statement, e.g. sysbench's {"tps", "qps", "p95_ms"}.
- run.progress: dataset preparation progress
  {"phase", "rows", "rows_total", "bytes", "elapsed_s", "estimate_s"}.

Revision ID: 0004
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

LAB_TARGETS = ("mysql-9.7", "mariadb-10.11")


def upgrade() -> None:
    with op.batch_alter_table("target") as batch:
        batch.add_column(sa.Column("disposable", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("experiment") as batch:
        batch.add_column(sa.Column("policy", sa.String(16), nullable=False, server_default="warm"))
    with op.batch_alter_table("sample") as batch:
        batch.add_column(sa.Column("label", sa.String(200), nullable=False, server_default=""))
        batch.add_column(sa.Column("metrics", sa.JSON(), nullable=True))
    with op.batch_alter_table("run") as batch:
        batch.add_column(sa.Column("progress", sa.JSON(), nullable=True))
    target = sa.table("target", sa.column("name", sa.String), sa.column("disposable", sa.Boolean))
    op.execute(target.update().where(target.c.name.in_(LAB_TARGETS)).values(disposable=True))
    # Before templates had parameter schemas, experiments stored {"iterations": n} as their parameters;
    # insert-truncate takes none, and its schema forbids unknown keys.
    experiment = sa.table("experiment", sa.column("workload", sa.String), sa.column("parameters", sa.JSON))
    op.execute(experiment.update().where(experiment.c.workload == "insert-truncate").values(parameters={}))


def downgrade() -> None:
    with op.batch_alter_table("run") as batch:
        batch.drop_column("progress")
    with op.batch_alter_table("sample") as batch:
        batch.drop_column("metrics")
        batch.drop_column("label")
    with op.batch_alter_table("experiment") as batch:
        batch.drop_column("policy")
    with op.batch_alter_table("target") as batch:
        batch.drop_column("disposable")
