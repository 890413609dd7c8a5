"""The suite's own order: a module named in SLOWEST_FIRST that no longer exists stops the run."""

import pytest

from tests import conftest


def test_a_stale_name_in_the_order_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "SLOWEST_FIRST", ("test_rules", "test_no_such_module"))
    with pytest.raises(pytest.UsageError, match="test_no_such_module") as refused:
        conftest.pytest_collection_modifyitems([])
    assert "test_rules" not in str(refused.value)
