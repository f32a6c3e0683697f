"""Worker pools: which pool's queue a job goes to (routing.py), the workers each pool has
(heartbeat.py, status.py) and the worker credential (credential.py)."""
