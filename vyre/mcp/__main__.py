"""`python -I -m vyre.mcp`: the MCP server on stdio, as Claude Code starts it."""

from vyre.mcp.server import main

if __name__ == "__main__":
    main()
