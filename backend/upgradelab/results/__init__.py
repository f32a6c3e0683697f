"""A run's results, by job:

- stats/: pure statistics (no database): percentiles, the bootstrap, paired-round intervals, verdicts
  and their one read model (VerdictRead). Runs, comparisons and replays import only this.
- store/: what is stored while a run goes and at its end: iterations and samples (ingest), the verdict
  table, packed series and digests, and the hooks other packages register to store beside them.
- views/: what is read back: run series, comparisons across variants and runs, exports.

results sits below probes, runs, replay, sharing and api and imports none of them.
"""
