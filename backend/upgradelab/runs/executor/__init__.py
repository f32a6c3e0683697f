"""The run executor: executes one run (an experiment's variants, in rounds of blocks, on its targets)
through the shared lifecycle (execution/lifecycle.py): `runner.execute_run`. The run kind's body, in the
layer under the kinds' services: the runs task executes a queued run with it, an attribution
(attribution/steps.py) its step runs. Its JobKind (`jobs.RUN_JOBS`), the run's state writes (`state`),
the blocks (`blocks`), pre-flight and the variant's settings live here too."""
