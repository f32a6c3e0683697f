"""What a dump's statements hold that the loader acts on: the database a statement creates, drops
or uses, and DEFINER clauses (scan.py finds both while it reads the dump as the client does).

- Databases: `USE db`, `CREATE [OR REPLACE] / DROP / ALTER DATABASE|SCHEMA [IF [NOT] EXISTS] db`,
  read from the start of a statement as the server sees it (version comments' content included).
  Names qualified in other statements are not followed: their statements fail on privileges. The
  server's own databases and the lab's are refused, and names are kept to letters, digits, `_`, `$`
  and `-` (datasets/reserved.py, the rule accounts.py applies again where it grants them).
- DEFINER: `DEFINER = user@host | 'user'@'host' | `user`@`host` | role | CURRENT_USER[()]` becomes
  `DEFINER=CURRENT_USER` (the load user), with the clause's line breaks kept, so the dump's lines
  stay the file's. A clause written otherwise (a comment inside it) is left as it is: the server
  then refuses it, the load user holding no SET_USER_ID / SUPER.
"""

import re

from upgradelab.datasets.reserved import refusal

# a user or host name: `quoted`, 'quoted', "quoted" or bare
_PART = (
    rb"(?:`(?:[^`]|``){1,200}`|'(?:[^'\\]|\\.|''){1,200}'|\"(?:[^\"\\]|\\.|\"\"){1,200}\"|[\w$.%-]{1,200})"
)
_S = rb"\s{0,64}"  # bounded: a whole clause is at most ~1 KB (scan.py keeps 4 KB of look-ahead)
DEFINER = re.compile(
    rb"definer%s=%s(?:current_user(?:%s\(%s\))?|%s(?:%s@%s%s)?)" % (_S, _S, _S, _S, _PART, _S, _S, _PART),
    re.I | re.S,
)
_IDENT = rb"(?:`((?:[^`]|``){1,64})`|([A-Za-z0-9_$]{1,64}))"
_USE = re.compile(rb"\s*use\s+" + _IDENT, re.I)
_SCHEMA = re.compile(
    rb"\s*(?:create(?:\s+or\s+replace)?|drop|alter)\s+(?:database|schema)\s+(?:if\s+(?:not\s+)?exists\s+)?"
    + _IDENT,
    re.I,
)
# ALTER DATABASE CHARACTER SET ... (the default database): options, not names
_NOT_NAMES = {b"character", b"charset", b"collate", b"default", b"read", b"encryption", b"comment"}
# the rest of mariadb-dump's first line after `\-`: the server skips `/*M!999999 ... */` whole
_SANDBOX_REST = re.compile(rb"\s*enable the sandbox mode \*/")


def definer_rewritten(clause: bytes) -> bytes:
    """What a DEFINER clause (a DEFINER match) is fed as: the load user, the same line breaks."""
    return b"DEFINER=CURRENT_USER" + b"\n" * clause.count(b"\n")


def database_named(head: bytes) -> str | None:
    """The database a statement starting with `head` creates, drops, alters or uses, else None.
    `head`: the statement's first bytes as the server reads them (comments as blanks)."""
    sandbox = _SANDBOX_REST.match(head)
    head = head[sandbox.end() :] if sandbox else head
    for pattern in (_USE, _SCHEMA):
        found = pattern.match(head)
        if found and found[1] is not None:
            return found[1].replace(b"``", b"`").decode("utf-8", errors="replace")
        if found and found[2].lower() not in _NOT_NAMES:
            return str(found[2].decode())
    return None


def refused_database(name: str) -> str | None:
    """Why a dump may not name database `name`, or None when it may (reserved.py)."""
    return refusal(name)
