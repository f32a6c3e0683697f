"""The fault tests' throw-away instance (tests/faults/instance.py) with its metadata database on a
shared server (MariaDB, PostgreSQL), for tests/pools/test_metadata_*.py.

`prepare` runs the operator's entry point, `upgradelab db upgrade`, against that database as a real
subprocess; the admin and its token are then written in-process (users/service.py, what `users
create-admin` and `users token` call), which spares two CLI start-ups (~3.5 CPU-s each) per module."""

import sqlalchemy as sa
from sqlalchemy.orm import Session

from tests.faults.instance import TARGET_PORTS, LabInstance
from upgradelab.users.models import Role
from upgradelab.users.service import create_user_sync, issue_token_sync


class MetadataLab(LabInstance):
    """An instance whose API and worker read `async_url` and whose test process reads `sync_url`
    (the same database); `move_port` is the UPDATE that sets a seeded target's port (:name, :port)
    in that database's JSON dialect."""

    def __init__(self, async_url: str, sync_url: str, move_port: str) -> None:
        super().__init__()
        self.env["UPGRADELAB_DATABASE_URL"] = async_url
        self.engine.dispose()  # the base's SQLite engine, never connected
        self.engine = sa.create_engine(sync_url)
        self.move_port = move_port

    def prepare(self) -> None:
        """Migrate through the CLI, move the seeded targets to this instance's ports, sign in an admin."""
        self._cli("db", "upgrade")
        with Session(self.engine) as session:
            for name, port in TARGET_PORTS.items():
                session.execute(sa.text(self.move_port), {"port": port, "name": name})
            session.commit()
            admin = create_user_sync(session, "admin", "faults-admin", Role.admin)
            self.token = issue_token_sync(session, admin, "faults")
