"""Every TCP port and per-session name the tests use, in one block per test session.

Two checkouts testing on one machine at once set different UPGRADELAB_TEST_SESSION values (0-99),
and pytest-xdist workers spread from it (below):
session S owns the ports 20000 + 100*S ... + 99 (below Linux's ephemeral range, away from the lab's
own 33097/33011, 6380 and 8700), /var/lib/upgradelab/test-servers-S and the target names ending -tS.
"""

import os

_CHOSEN = int(os.environ.get("UPGRADELAB_TEST_SESSION", "0"))
if not 0 <= _CHOSEN <= 99:
    raise ValueError(f"UPGRADELAB_TEST_SESSION must be 0-99, not {_CHOSEN}")
# Under pytest-xdist (scripts/test.sh runs `-n 3`, then its fuzzer alone in block chosen), each
# worker process is a session of its own, spread over the 100 blocks: worker gwK of N takes block
# (chosen + K * 100 // N) % 100.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
SESSION = (_CHOSEN + int(_WORKER.removeprefix("gw") or 0) * 100 // max(_WORKERS, 1)) % 100
_BASE = 20000 + 100 * SESSION

REDIS = _BASE + 0
API = _BASE + 1
# the worker's lab targets (seeded rows, ports moved) and the unit tests' provisioners apart from them
# (mariadb-11.8, the trixie chroot, was added later: its ports sit in the 80s)
WORKER_TARGETS = {"mysql-9.7": _BASE + 2, "mariadb-10.11": _BASE + 3, "mariadb-11.8": _BASE + 80}
UNIT_TARGETS = {"mysql-9.7": _BASE + 4, "mariadb-10.11": _BASE + 5, "mariadb-11.8": _BASE + 81}
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
# issue 10 (hostile input): offsets 50-59
H3_TARGET = _BASE + 50
# issue 44: the fake server asking every client for its password in cleartext (tests/targets)
CLEARTEXT = _BASE + 56
# existing servers (issue 11): servers the tests start themselves, then add as `existing` targets
EXISTING = {"mysql-9.7": _BASE + 70, "mariadb-10.11": _BASE + 71}
EXISTING_SUPERVISED = _BASE + 72
# issue 49: a team's MariaDB 10.11 added read-only (purpose capture) and captured (tests/targets)
READ_ONLY_TEAM = _BASE + 73
# issue 35 (captures): the team's MariaDB 10.11 a capture reads (tests/captures)
CAPTURE_SOURCE = _BASE + 74
# issue 45: the hand-configured staging MariaDB 10.11 a check reads (tests/captures/staging.py)
CHECK_STAGING = _BASE + 76
CHECK_STAGING_MYSQL = _BASE + 77
# issue 45: the planted staging MariaDB 10.11 whose schema and statements a check loads and parses
# (tests/captures/test_schema_trial.py), a stock one with no statement history, and a MySQL 9.7
PLANTED_SOURCE = _BASE + 75
STOCK_SOURCE = _BASE + 78
MYSQL_SOURCE = _BASE + 79
# issue 9 (datasets and replay): the server the tests make their dump on
DUMP_SOURCE = _BASE + 82
SLOWED_TARGET = _BASE + 83  # tests/assessment: a lab MariaDB 11.8 with semijoin off
# The fault tests' own instance (tests/faults/instance.py): Redis, API and its lab targets.
FAULT_REDIS = _BASE + 60
FAULT_API = _BASE + 61
FAULT_MARIADB = _BASE + 62
FAULT_MYSQL = _BASE + 63
INSTANCES = _BASE + 30  # slot 0 of the instance tests' own target (other slots: free ports)
# issue 22 (worker pools): the MariaDB 10.11 server holding a metadata database (tests/pools)
METADATA_DB = _BASE + 90
# issue 31: the throw-away PostgreSQL cluster holding a metadata database (tests/pools)
METADATA_POSTGRESQL = _BASE + 91
# issue 48: the API with the recipe's toy job kind registered (tests/recipe)
RECIPE_API = _BASE + 95
