"""Saved event streams: the log files (``eventlog``) and re-judging them (``replay``)."""
