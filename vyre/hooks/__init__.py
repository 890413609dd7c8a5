"""Claude Code hook entry points. Keep this file empty of imports: `python -I -m vyre.hooks`
loads it on every prompt, and the fast path must stay standard-library only."""
