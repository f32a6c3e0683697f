"""What is read back from the store: run series, comparisons, flat exports."""
