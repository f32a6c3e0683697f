"""The lab's least-privileged accounts never change their own passwords (issue 44, item 7).

The workload user (custom SQL), the replay's reader and writer and the dump's load user hold no
global privilege, but every server lets an account change its own password without one: a replayed
`SET PASSWORD = '...'` or custom SQL's `ALTER USER CURRENT_USER() IDENTIFIED BY '...'` gave whoever
wrote it a password of their own choice for a lab account (and a way in from any local process while
the account exists).

- MySQL (8.0.13+): each account is made with `PASSWORD REQUIRE CURRENT`, so changing its own
  password needs the current one, which only the lab knows (it makes a fresh random one every time
  and keeps none): "ERROR 3892 (HY000): Current password needs to be specified in the REPLACE clause".
  The lab's admin re-keys it as before (the clause binds the account itself only).
- MariaDB has no such clause: the SQL the lab runs as those accounts is refused before it runs when
  it changes an account (`account_change`: SET PASSWORD, ALTER USER, and PREPARE / EXECUTE IMMEDIATE
  of anything but a plain string, which could hide either). Custom SQL's scripts are checked when the
  experiment is made, a writing replay's statements when it is made (422 naming the field).
"""

import re

from upgradelab.targets.provisioners.base import ServerConnection

# comments that are only comments (the server's /*! ... */ and /*M! ... */ run: their text is kept)
_COMMENTS = re.compile(r"/\*(?![!M])[\s\S]*?\*/|(?:--\s|#)[^\n]*")
_EXECUTABLE = re.compile(r"/\*M?!\d*|\*/")
_CHANGE = re.compile(r"\b(SET\s+PASSWORD|ALTER\s+USER)\b", re.IGNORECASE)
_DYNAMIC = re.compile(r"\b(PREPARE\s+\S+\s+FROM|EXECUTE\s+IMMEDIATE)\s+(?!['\"])", re.IGNORECASE)


def account_change(sql: str) -> str | None:
    """What in `sql` could change an account's password (a short name for the refusal), or None."""
    text = _EXECUTABLE.sub(" ", _COMMENTS.sub(" ", sql))
    found = _CHANGE.search(text)
    if found:
        return " ".join(found.group(1).upper().split())
    dynamic = _DYNAMIC.search(text)
    if dynamic:
        return " ".join(dynamic.group(1).upper().split()[:1]) + " of an expression"
    return None


def require_current_password(admin: ServerConnection, account: str) -> None:
    """On MySQL 8.0.13+, `account` (quoted, as `'user'@'host'`) needs its current password to change
    its own (PASSWORD REQUIRE CURRENT); nothing on MariaDB, which has no such clause (account_change
    there), nor on an older MySQL (5.7 tarballs)."""
    info = str(getattr(admin, "server_version", ""))  # the greeting's version string
    numbers = [int(part) for part in re.findall(r"\d+", info.split("-")[0])[:3]]
    if "mariadb" in info.lower() or numbers < [8, 0, 13]:
        return
    with admin.cursor() as cursor:
        cursor.execute(f"ALTER USER {account} PASSWORD REQUIRE CURRENT")  # no parameters: no % escaping
