"""The workload user: the least-privileged account user SQL (custom SQL, query replay) runs as.

The harness keeps its admin connection (the lab user) for probes, settings and datasets; SQL the
lab did not write runs as `upgradelab_workload`, which holds ALL PRIVILEGES on the lab's own
databases (`lab_%`) and nothing global: no FILE, SUPER, SHUTDOWN, PROCESS, RELOAD, CREATE USER,
GRANT OPTION, SYSTEM_VARIABLES_ADMIN or any other *_ADMIN dynamic privilege. It is made lazily, from
the admin connection, with a fresh random password every time a connection is opened: no template
has to be initialized again and no password is stored anywhere.
"""

import secrets

from upgradelab.targets.own_password import require_current_password
from upgradelab.targets.provisioners.base import Endpoint, ServerConnection

WORKLOAD_USER = "upgradelab_workload"
# The databases user SQL may use (and create); a LIKE pattern, `_` escaped.
WORKLOAD_DATABASES = r"lab\_%"
DATABASE_PREFIX = "lab_"
# TCP from the worker (127.0.0.1), or from a container network's gateway (docker `publish`).
_HOSTS = ("127.0.0.1", "%")


def ensure_workload_user(admin: ServerConnection) -> str:
    """Create (or re-key) the workload user with its grants on `lab_%` only; its new password.

    `admin` is the lab user's connection (it holds CREATE USER and GRANT OPTION). Raises pymysql
    errors as the server gives them."""
    password = secrets.token_hex(16)
    with admin.cursor() as cursor:
        for host in _HOSTS:
            account = f"'{WORKLOAD_USER}'@'{host}'"
            escaped = account.replace("%", "%%")  # the host '%' in a statement with parameters
            cursor.execute(f"CREATE USER IF NOT EXISTS {escaped} IDENTIFIED BY %s", (password,))
            cursor.execute(f"ALTER USER {escaped} IDENTIFIED BY %s", (password,))
            require_current_password(admin, account)  # not its own to change (targets/own_password.py)
            cursor.execute(f"GRANT ALL PRIVILEGES ON `{WORKLOAD_DATABASES}`.* TO {account}")
    return password


def workload_endpoint(admin: ServerConnection, endpoint: Endpoint) -> Endpoint:
    """Where the workload user connects: the admin endpoint's host and port, the workload account."""
    return Endpoint(
        endpoint.host, endpoint.port, WORKLOAD_USER, ensure_workload_user(admin), auth=endpoint.auth
    )
