"""The error tree: every known failure is a VyreError, and a daemon's error kind comes back as
the same class on this side (an unknown kind as DaemonError, still one line)."""

from __future__ import annotations

import pytest

from vyre import errors
from vyre.config import ConfigError
from vyre.errors import CorrectionError, OwnerOnly, VyreError, by_kind
from vyre.graph import GraphBusy, GraphError
from vyre.ledger import LedgerBusy, LedgerError
from vyre.rooms.projects import ProjectError
from vyre.transcripts import MissingRoot


@pytest.mark.parametrize(
    "cls",
    [
        ConfigError,
        GraphBusy,
        GraphError,
        LedgerBusy,
        LedgerError,
        CorrectionError,
        OwnerOnly,
        ProjectError,
        MissingRoot,
    ],
)
def test_the_errors_modules_raise_are_the_trees(cls):
    assert issubclass(cls, VyreError)
    assert getattr(errors, cls.__name__) is cls


def test_a_kind_comes_back_as_its_own_class():
    err = by_kind("LedgerBusy", "the ledger is locked\nsecond line")
    assert type(err) is LedgerBusy
    assert err.line() == "the ledger is locked"


def test_an_unknown_kind_is_a_daemon_error_of_one_line():
    err = by_kind("KeyError", "'x'")
    assert type(err) is errors.DaemonError
    assert err.kind == "KeyError"
    assert err.line() == "'x'"


def test_an_empty_message_still_says_something():
    assert errors.ProjectError("").line() == "ProjectError"
