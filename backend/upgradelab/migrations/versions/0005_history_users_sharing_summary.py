"""run history (name, notes, targets, indexes), users and tokens, share links, variant summaries

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 03:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("run") as batch:
        batch.add_column(sa.Column("name", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("notes", sa.Text(), nullable=True))
        batch.add_column(sa.Column("targets", sa.String(length=500), nullable=False, server_default=""))
        batch.create_index("ix_run_status_created_at", ["status", "created_at"])
    with op.batch_alter_table("experiment") as batch:
        batch.create_index("ix_experiment_workload", ["workload"])
    # Existing runs: their targets from the experiment's resolved variants.
    connection = op.get_bind()
    rows = connection.execute(
        sa.text(
            "SELECT run.id, experiment.variants FROM run JOIN experiment ON experiment.id = run.experiment_id"
        )
    ).all()
    import json

    for run_id, variants in rows:
        parsed = json.loads(variants) if isinstance(variants, str) else variants
        names = sorted({v["target"] for v in parsed})
        connection.execute(
            sa.text("UPDATE run SET targets = :t WHERE id = :id"),
            {"t": "," + ",".join(names) + ",", "id": run_id},
        )

    op.create_table(
        "app_user",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("username"),
    )
    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["app_user.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_sha256"),
    )
    op.create_index("ix_api_token_user_id", "api_token", ["user_id"])
    op.create_table(
        "share_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("comparison", sa.JSON(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["created_by"], ["app_user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token"),
    )
    op.create_table(
        "variant_summary",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("variant_index", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=200), nullable=False),
        sa.Column("iterations", sa.Integer(), nullable=False),
        sa.Column("median_s", sa.Double(), nullable=True),
        sa.Column("p95_s", sa.Double(), nullable=True),
        sa.Column("mean_s", sa.Double(), nullable=True),
        sa.Column("total_s", sa.Double(), nullable=False),
        sa.Column("median_ratio", sa.Double(), nullable=True),
        sa.Column("median_ratio_low", sa.Double(), nullable=True),
        sa.Column("median_ratio_high", sa.Double(), nullable=True),
        sa.Column("p95_ratio", sa.Double(), nullable=True),
        sa.Column("p95_ratio_low", sa.Double(), nullable=True),
        sa.Column("p95_ratio_high", sa.Double(), nullable=True),
        sa.Column("computed_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "variant_index"),
    )
    op.create_index("ix_variant_summary_run_id", "variant_summary", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_variant_summary_run_id", "variant_summary")
    op.drop_table("variant_summary")
    op.drop_table("share_link")
    op.drop_index("ix_api_token_user_id", "api_token")
    op.drop_table("api_token")
    op.drop_table("app_user")
    with op.batch_alter_table("experiment") as batch:
        batch.drop_index("ix_experiment_workload")
    with op.batch_alter_table("run") as batch:
        batch.drop_index("ix_run_status_created_at")
        batch.drop_column("targets")
        batch.drop_column("notes")
        batch.drop_column("name")
