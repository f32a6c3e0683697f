"""What a run stores: iterations and samples as they end, its verdict table, series and digests at its
end, and the hooks other packages register to store with them (hooks.py)."""
