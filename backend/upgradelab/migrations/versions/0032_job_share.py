"""one share table for every job kind: job_share (issue 48, item 2, "one share system").

Up: `job_share` (kind, job_id or comparison, token sha256, created_by, created_at, revoked_at) is
made; every `share_link` row is copied with its id, digest, owner and times (kind run / replay ->
job_id, comparison as it was), and every live per-row token of capture, capture_check, attribution
and fix_search becomes a link of that kind (JobKind.name: "capture", "capture_check",
"attribution", "fixsearch") with the same digest, made by the job's owner, at the migration's time
(the row never said when it was shared). So every link that opened before opens after. Then
`share_link` and the four `share_token` columns go.

Down: `share_link` and the columns come back; run, replay and comparison links go back with their
ids; each of the four kinds gets its newest live link's digest back in `share_token` (a per-row
token had one live link; revoked ones were erased then, so they are dropped now).

Revision ID: 0032_job_share
Revises: 0031_fix_budget
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0032_job_share"
down_revision: str | None = "0031_fix_budget"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

# the table that carried a per-row token -> its kind's name in job_share (JobKind.name)
PER_ROW = {
    "capture": "capture",
    "capture_check": "capture_check",
    "attribution": "attribution",
    "fix_search": "fixsearch",
}
_LINK_KINDS = ("run", "replay", "comparison")

_SHARE = sa.table(
    "job_share",
    sa.column("id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("job_id", sa.Integer),
    sa.column("comparison", sa.JSON),
    sa.column("token", sa.String),
    sa.column("created_by", sa.Integer),
    sa.column("created_at", sa.DateTime),
    sa.column("revoked_at", sa.DateTime),
)
_LINK = sa.table(
    "share_link",
    sa.column("id", sa.Integer),
    sa.column("token", sa.String),
    sa.column("kind", sa.String),
    sa.column("run_id", sa.Integer),
    sa.column("comparison", sa.JSON),
    sa.column("replay_id", sa.Integer),
    sa.column("created_by", sa.Integer),
    sa.column("created_at", sa.DateTime),
    sa.column("revoked_at", sa.DateTime),
)


def _job(table: str) -> sa.TableClause:
    return sa.table(
        table,
        sa.column("id", sa.Integer),
        sa.column("share_token", sa.String),
        sa.column("created_by", sa.Integer),
    )


def upgrade() -> None:
    op.create_table(
        "job_share",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=True),
        sa.Column("comparison", sa.JSON(), nullable=True),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["app_user.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token", name="uq_job_share_token"),
    )
    op.create_index("ix_job_share_kind_job", "job_share", ["kind", "job_id"])
    connection = op.get_bind()
    links = connection.execute(sa.select(_LINK)).mappings().all()
    for link in links:
        job_id = (
            link["run_id"]
            if link["kind"] == "run"
            else link["replay_id"]
            if link["kind"] == "replay"
            else None
        )
        connection.execute(
            _SHARE.insert().values(
                id=link["id"], kind=link["kind"], job_id=job_id, comparison=link["comparison"],
                token=link["token"],
                created_by=link["created_by"], created_at=link["created_at"], revoked_at=link["revoked_at"],
            )
        )  # fmt: skip
    now = datetime.now(UTC).replace(tzinfo=None)
    for table_name, kind in PER_ROW.items():
        table = _job(table_name)
        rows = connection.execute(sa.select(table).where(table.c.share_token.is_not(None))).all()
        for row_id, digest, owner in rows:
            connection.execute(
                _SHARE.insert().values(
                    kind=kind, job_id=row_id, token=digest, created_by=owner, created_at=now
                )
            )
        with op.batch_alter_table(table_name, schema=None) as batch_op:
            if table_name in ("capture", "capture_check"):  # named in 0026; 0019/0023's are unnamed
                batch_op.drop_constraint(f"uq_{table_name}_share_token", type_="unique")
            batch_op.drop_column("share_token")
    op.drop_table("share_link")


def downgrade() -> None:
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
        sa.Column("replay_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["created_by"], ["app_user.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(
            ["replay_id"], ["replay_run.id"], name="fk_share_link_replay_id", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token"),
    )
    connection = op.get_bind()
    links = connection.execute(sa.select(_SHARE).where(_SHARE.c.kind.in_(_LINK_KINDS))).mappings().all()
    for link in links:
        connection.execute(
            _LINK.insert().values(
                id=link["id"], token=link["token"], kind=link["kind"], comparison=link["comparison"],
                run_id=link["job_id"] if link["kind"] == "run" else None,
                replay_id=link["job_id"] if link["kind"] == "replay" else None,
                created_by=link["created_by"], created_at=link["created_at"], revoked_at=link["revoked_at"],
            )
        )  # fmt: skip
    for table_name, kind in PER_ROW.items():
        with op.batch_alter_table(table_name, schema=None) as batch_op:
            batch_op.add_column(sa.Column("share_token", sa.String(64), nullable=True))
            batch_op.create_unique_constraint(f"uq_{table_name}_share_token", ["share_token"])
        table = _job(table_name)
        live = (
            sa.select(_SHARE.c.job_id, _SHARE.c.token)
            .where(_SHARE.c.kind == kind, _SHARE.c.revoked_at.is_(None))
            .order_by(_SHARE.c.id)
        )
        newest = {job_id: token for job_id, token in connection.execute(live).all()}  # the last wins
        for job_id, token in newest.items():
            connection.execute(table.update().where(table.c.id == job_id).values(share_token=token))
    op.drop_index("ix_job_share_kind_job", table_name="job_share")
    op.drop_table("job_share")
