"""Vyre's MCP server: read-only memory tools for one Claude Code session's own room."""
