"""Shared fixtures: the app built by the factory, its test client, the default request, and
a server without one of the real models; and each test's markers from its folder."""

from pathlib import Path

import pytest

from app import create_app
from attention_models import registry


@pytest.fixture
def app():
    return create_app({"TESTING": True})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def cat_sat():
    """The default example, written out here rather than read from the presets."""
    return {
        "tokens": ["the", "cat", "sat"],
        "X": [[1, 0], [0, 1], [1, 1]],
        "W_Q": [[1, 0], [1, 2]],
        "W_K": [[2, 0], [0, 1]],
        "W_V": [[1, 0], [0, 2]],
    }


@pytest.fixture
def minilm_missing(monkeypatch):
    """MiniLM's reader not installed: its module cannot be imported, and it is not loaded
    (the process's other models stay as they are)."""
    monkeypatch.setitem(registry.MODULES, "minilm-l6", "no_such_reader_for_tests")
    monkeypatch.delitem(registry._loaded, "minilm-l6", raising=False)


# A folder's tests carry its marker (pytest.ini), so that none is left out of a quick loop's
# "not browser and not serving" by a file that forgot to say so.
FOLDER_MARKERS = {"browser": pytest.mark.browser, "serving": pytest.mark.serving}
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items):
    for item in items:
        path = Path(item.path).resolve()
        if TESTS not in path.parents:
            continue  # the doctests of the packages and the docs
        marker = FOLDER_MARKERS.get(path.relative_to(TESTS).parts[0])
        if marker is not None:
            item.add_marker(marker)
