"""Share tokens never reach a log (issue 44, item 4): uvicorn's access log wrote every request line,
`GET /api/public/shares/<token>` and the UI's `/share/<token>` included, to api.log, which opened
every shared result to whoever read the log.

`RedactTokens`, a logging.Filter on the `uvicorn.access` logger (main.py's lifespan installs it),
replaces the token segment of every share path (`/share/...`, `/api/public/<kind>/...`) with `<token>`
in the record before it is formatted."""

import logging
import re

_SHARE_PATH = re.compile(r"(/share(?:/[a-z]+)*/|/api/public/[a-z]+(?:/checks)?/)[A-Za-z0-9_-]{16,}")


def redacted(path: str) -> str:
    """`path` with every share token replaced by `<token>`."""
    return _SHARE_PATH.sub(r"\1<token>", path)


class RedactTokens(logging.Filter):
    """Rewrites the request path of uvicorn's access records (args: client, method, path, version,
    status) and the message of any other record, keeping every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redacted(arg) if isinstance(arg, str) else arg for arg in record.args)
        elif isinstance(record.msg, str):
            record.msg = redacted(record.msg)
        return True


def install() -> None:
    """Add the filter to uvicorn's access logger, once."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(existing, RedactTokens) for existing in access.filters):
        access.addFilter(RedactTokens())
