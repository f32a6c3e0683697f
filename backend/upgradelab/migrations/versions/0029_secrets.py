"""secrets out of the metadata database (issue 44, item 4), and dataset.copies_failed (item 7: the
copies of a deleted dataset whose removal failed after its tries, per target).

A target's `password` setting is sealed (`password_sealed`, targets/sealed.py: encrypted with the key
in {state_dir}/secrets/targets.key or UPGRADELAB_SECRET_KEY), and every share token is stored as its
sha256 (users/tokens.py): share_link.token, attribution/fix_search/capture/capture_check.share_token.
Links made before keep working (they are looked up by the digest of the token presented).

Down: the passwords unsealed back into `password`; the share tokens cannot be: their links stop
working (make them again).

Revision ID: 0029_secrets
Revises: 0028_fix_sources
"""

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from upgradelab.targets.sealed import SEALED, seal, unseal
from upgradelab.users.service import token_digest

revision: str = "0029_secrets"
down_revision: str | None = "0028_fix_sources"
branch_labels: Sequence[str] | None = None
depends_on: Sequence[str] | None = None

_TARGET = sa.table("target", sa.column("id", sa.Integer), sa.column("settings", sa.JSON))
TOKENS = {
    "share_link": "token",
    "attribution": "share_token",
    "fix_search": "share_token",
    "capture": "share_token",
    "capture_check": "share_token",
}
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def _settings(change: object) -> None:
    connection = op.get_bind()
    for target_id, settings in connection.execute(sa.select(_TARGET.c.id, _TARGET.c.settings)).all():
        changed = change(dict(settings or {}))  # type: ignore[operator]
        if changed != settings:
            connection.execute(_TARGET.update().where(_TARGET.c.id == target_id).values(settings=changed))


def upgrade() -> None:
    with op.batch_alter_table("dataset", schema=None) as batch_op:
        batch_op.add_column(sa.Column("copies_failed", sa.JSON(), nullable=True))
    _settings(lambda settings: seal(settings) if settings.get("password") else settings)
    connection = op.get_bind()
    for table_name, column in TOKENS.items():
        table = sa.table(table_name, sa.column("id", sa.Integer), sa.column(column, sa.String))
        rows = connection.execute(sa.select(table.c.id, table.c[column]).where(table.c[column].is_not(None)))
        for row_id, token in rows.all():
            if not _DIGEST.match(str(token)):
                connection.execute(
                    table.update().where(table.c.id == row_id).values({column: token_digest(str(token))})
                )


def downgrade() -> None:
    _settings(lambda settings: unseal(settings) if SEALED in settings else settings)
    with op.batch_alter_table("dataset", schema=None) as batch_op:
        batch_op.drop_column("copies_failed")
