"""The lifecycle every job shares (runs, replays, attributions): claim a lease, heartbeat, lock targets,
start one instance per variant, freeze and thaw per block, reap what died, stop everything.
It imports no executor."""
