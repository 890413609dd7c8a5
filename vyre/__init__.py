"""Vyre Memory: a local memory of the people, organisations and repos in your Claude Code work."""

__version__ = "0.1.0"
