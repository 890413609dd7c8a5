"""The daemon: one process that owns the stores and serves a local socket."""
