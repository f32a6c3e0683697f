"""Redis Stream names and limits shared by the worker (writer) and the API (reader).

One stream per job, keyed by its kind and id: `upgradelab:run:12:events`, `upgradelab:replay:3:events`,
`upgradelab:attribution:5:events` (the kind is the job's lease name, execution/kinds.py JobKind.name).
"""

# MAXLEN covers a whole 10,000 x 8 run, so a reconnecting viewer always resumes (a replay or an
# attribution publishes far fewer entries: its phases and steps, one dump-load progress a second).
STREAM_MAXLEN = 100_000
# A finished job's stream is kept this long; later viewers read the database instead.
STREAM_TTL_S = 24 * 3600


def stream_key(job_id: int, kind: str = "run") -> str:
    """`upgradelab:{kind}:{id}:events` (kind: "run", "replay", "attribution")."""
    return f"upgradelab:{kind}:{job_id}:events"
