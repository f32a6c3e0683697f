"""Reading a team's query logs as pt-query-digest reads them: slow logs of every dialect
(slow.py), general logs (general.py), each entry a LogEvent (events.py) with its thread, time,
default database and header fields, read as a stream in bounded memory (records.py); which of the
formats a text is (formats.py)."""
