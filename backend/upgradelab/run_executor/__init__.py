"""The run executor: executes one run (an experiment's variants, in rounds of blocks, on its targets)
through the shared lifecycle (execution/lifecycle.py): `runner.execute_run`. Below the job kinds that
use it, so they stay siblings: the runs task (runs/tasks.py) executes a queued run with it, an
attribution (attribution/steps.py) its step runs. Its JobKind (`jobs.RUN_JOBS`), the run's state
writes (`state`), the blocks (`blocks`), pre-flight and the variant's settings live here too."""
