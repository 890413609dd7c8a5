"""Scorers for eval worlds (`vyre eval ...`). The worlds and baselines live in `eval/`."""
