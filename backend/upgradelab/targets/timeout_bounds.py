"""The bounds of a statement timeout (seconds), apart from the watchdog (statement_timeout.py) so the
command line reads them for its option's range and default without importing the server drivers."""

DEFAULT_TIMEOUT_S = 30.0
MIN_TIMEOUT_S = 0.1
MAX_TIMEOUT_S = 3600.0
