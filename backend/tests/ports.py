"""Every TCP port and per-session name the tests use, in one block per test session.

Two checkouts testing on one machine at once set different UPGRADELAB_TEST_SESSION values (0-99):
session S owns the ports 20000 + 100*S ... + 99 (below Linux's ephemeral range, away from the lab's
own 33097/33011, 6380 and 8700), /var/lib/upgradelab/test-servers-S and the target names ending -tS.
"""

import os

SESSION = int(os.environ.get("UPGRADELAB_TEST_SESSION", "0"))
if not 0 <= SESSION <= 99:
    raise ValueError(f"UPGRADELAB_TEST_SESSION must be 0-99, not {SESSION}")
_BASE = 20000 + 100 * SESSION

REDIS = _BASE + 0
API = _BASE + 1
# the worker's lab targets (seeded rows, ports moved) and the unit tests' provisioners apart from them
WORKER_TARGETS = {"mysql-9.7": _BASE + 2, "mariadb-10.11": _BASE + 3}
UNIT_TARGETS = {"mysql-9.7": _BASE + 4, "mariadb-10.11": _BASE + 5}
PARALLEL_READ = _BASE + 6
DOCKER = {"mysql": _BASE + 7, "mariadb": _BASE + 8}
COMPOSE_API = _BASE + 9
COMPOSE_REDIS = _BASE + 10
COMPOSE_DB = _BASE + 11
TARBALL = _BASE + 12
TARBALL_57 = _BASE + 13
TARBALL_EMPTY = _BASE + 14
MIXED_DOCKER = _BASE + 15
MIXED_TARBALL = _BASE + 16
COMPOSE_TARGET = _BASE + 17
INSTANCES = _BASE + 30  # slot 0 of the instance tests' own target (other slots: free ports)
