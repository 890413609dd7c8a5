"""The ledger: what happened and what the user said, in SQLite (WAL)."""

from vyre.ledger.store import Ledger, LedgerBusy, LedgerDamaged, LedgerError

__all__ = ["Ledger", "LedgerBusy", "LedgerDamaged", "LedgerError"]
