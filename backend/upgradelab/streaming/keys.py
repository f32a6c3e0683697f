"""Redis Stream names and limits shared by the worker (writer) and the API (reader)."""

# One stream per run. MAXLEN covers a whole 10,000 x 8 run, so a reconnecting viewer always resumes.
STREAM_MAXLEN = 100_000
# A finished run's stream is kept this long; later viewers read the database instead.
STREAM_TTL_S = 24 * 3600


def stream_key(run_id: int) -> str:
    """`upgradelab:run:{id}:events`."""
    return f"upgradelab:run:{run_id}:events"
