"""The lines a server writes at the top of a slow or general log when it opens it (at start-up,
after FLUSH LOGS or a restart): `/usr/sbin/mysqld, Version: ... started with:`, `Tcp port: ...`,
`Time  Id Command  Argument`, as pt-query-digest recognizes them, and MariaDB 10.11+'s
`/usr/sbin/mariadbd, Version: ...` (pt 3.2.1 knows `mysqld` only). None is an event."""

import re

BANNER = (
    r"(?:T[cC][pP]\s[pP]ort:\s+\d+|[/A-Z].*(?:mysqld|mariadbd),\sVersion.*(?:started\swith:|embedded\slibrary)"
    r"|Time\s+Id\s+Command)"
)
# a banner line with its line end, wherever in a text it is (a slow log's record)
BANNER_LINES = re.compile(rf"^{BANNER}.*\n", re.ASCII | re.MULTILINE)
# a line that is one (a general log's line)
BANNER_LINE = re.compile(BANNER, re.ASCII)
