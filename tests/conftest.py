"""Shared fixtures: the app built by the factory, its test client, the default request."""

import pytest

from app import create_app


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
