"""Shared fixtures: the app built by the factory, its test client, the default request, and
a server without one of the real models; and each test's markers from its folder, and its
group when the suite runs on several workers."""

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


def xdist_group(path: Path, folder: str) -> str | None:
    """The group whose tests pytest-xdist runs on one worker (pytest.ini's --dist loadgroup),
    or None for a test that may run on any.

    The production servers' tests run one at a time, as they measure time and memory that a
    second server beside them would take. A browser test goes to whichever worker is free:
    each worker has its own server and chromium, and what a browser module shares beyond
    them is cheap, while its tests are long (a module of them alone kept one worker busy
    for minutes at the end). Any other module's tests run on one worker, so a fixture the
    module shares (a venv, a loaded model) is built once, not once a worker.
    """
    if folder == "serving":
        return "serving"
    return None if folder == "browser" else path.relative_to(TESTS).as_posix()


# First: pytest-xdist's worker reads the groups in a hook of its own.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    grouped = hasattr(config, "workerinput")  # collected by a worker of pytest-xdist
    for item in items:
        path = Path(item.path).resolve()
        if TESTS not in path.parents:
            continue  # the doctests of the packages and the docs
        folder = path.relative_to(TESTS).parts[0]
        marker = FOLDER_MARKERS.get(folder)
        if marker is not None:
            item.add_marker(marker)
        group = xdist_group(path, folder) if grouped else None
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    # The longest groups first (a stable sort keeps each module's own order): pytest-xdist
    # hands out work in this order, and a long group started last kept one worker busy
    # alone at the end.
    items.sort(key=lambda item: LONGEST_FIRST.get(_folder(item), len(LONGEST_FIRST)))


LONGEST_FIRST = {"serving": 0, "project": 1}  # folders whose groups take minutes


def _folder(item) -> str | None:
    path = Path(item.path).resolve()
    return path.relative_to(TESTS).parts[0] if TESTS in path.parents else None
