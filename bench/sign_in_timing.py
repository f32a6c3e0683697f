"""Sign-in time for an unknown user against a known user with a wrong password (issue 44, item 6).

A wrong password for an existing user took 0.43 s (an argon2id verification) and an unknown user
0.012 s, which told an attacker which names exist; an unknown user now costs a verification against
a dummy hash (users/sign_in.py). This measures `users.service.authenticate` (what POST
/api/auth/login runs after its rate limit) in process on a throw-away SQLite database, the two cases
interleaved round by round (ROUNDS each, the order shuffled per round), and prints both medians and
their ratio; the goal: within 10 %.

    .venv/bin/python bench/sign_in_timing.py [ROUNDS]
"""

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

STATE = Path(tempfile.mkdtemp(prefix="upgradelab-bench-sign-in-"))
os.environ["UPGRADELAB_STATE_DIR"] = str(STATE)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))


async def measure(rounds: int) -> dict[str, list[float]]:
    from sqlalchemy.ext.asyncio import async_sessionmaker

    from upgradelab.db import async_engine, sync_session
    from upgradelab.migrations import upgrade_head
    from upgradelab.users.models import Role
    from upgradelab.users.service import authenticate, create_user_sync

    upgrade_head()
    with sync_session() as session:
        create_user_sync(session, "known", "the-right-password", Role.operator)
    cases = {"known user, wrong password": "known", "unknown user": "nobody-by-this-name"}
    times: dict[str, list[float]] = {case: [] for case in cases}
    order = list(cases)
    seeded = random.Random(44)
    async with async_sessionmaker(async_engine(), expire_on_commit=False)() as session:
        await authenticate(session, "known", "warm-up")  # the dummy hash is made once per process
        await authenticate(session, "nobody", "warm-up")
        for _ in range(rounds):
            seeded.shuffle(order)
            for case in order:
                started = time.perf_counter()
                assert await authenticate(session, cases[case], "a-wrong-password") is None
                times[case].append(time.perf_counter() - started)
    return times


def main(rounds: int) -> None:
    times = asyncio.run(measure(rounds))
    medians = {case: statistics.median(values) for case, values in times.items()}
    for case, median in medians.items():
        print(f"{case:28} median {median * 1000:7.1f} ms over {len(times[case])}")
    known, unknown = medians["known user, wrong password"], medians["unknown user"]
    ratio = unknown / known
    verdict = "PASS" if abs(ratio - 1) <= 0.10 else "FAIL"
    print(f"ratio unknown / known {ratio:.3f}: {verdict} (goal: within 10 %)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
