"""Projects and rooms: which sessions each room reads, and deriving each room's beliefs."""

from vyre.rooms.membership import MAIN, UNFILED, project_for_cwd, room_for_cwd, session_rooms
from vyre.rooms.pipeline import DeriveReport, derive, plan

__all__ = [
    "MAIN",
    "UNFILED",
    "DeriveReport",
    "derive",
    "plan",
    "project_for_cwd",
    "room_for_cwd",
    "session_rooms",
]
