"""The product's API or worker with the toy job kind registered in this process only: the recipe's
one registration line (job_kinds.register, as a product kind's line in job_kinds.JOB_KINDS).

    python -m tests.recipe.launch api <port>
    python -m tests.recipe.launch worker
"""

import sys

from tests.recipe.toy.jobs import TOY_JOBS
from upgradelab.job_kinds import register


def main(argv: list[str]) -> None:
    """Register the toy kind, then serve the API on port argv[1] or run a worker of this pool."""
    register(TOY_JOBS)
    if argv[0] == "api":
        import uvicorn

        from upgradelab.main import create_app

        uvicorn.run(create_app(), host="127.0.0.1", port=int(argv[1]), log_level="info")
    else:
        from upgradelab.worker import celery_app

        celery_app.worker_main(["worker", "--concurrency=1", "-l", "INFO", "-n", "toy@%h"])


if __name__ == "__main__":
    main(sys.argv[1:])
