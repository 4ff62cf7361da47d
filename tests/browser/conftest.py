"""Browser fixtures: the app on a loopback port, Debian's chromium driven by Playwright.

There is no skipping here: without /usr/bin/chromium these tests fail, because CI must
run them (scripts/test installs chromium first).
"""

import os
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright
from werkzeug.exceptions import NotFound
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.serving import make_server

from app import create_app

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# expect() waits for its condition; 5 s, its default, is short for an answer on a machine
# whose two cores other processes keep busy. A ceiling, not a time any test waits.
expect.set_options(timeout=15_000)


class Server:
    """The app served by werkzeug in a thread; stop() and start() again on the same port.

    ``config`` is added to the app's test config; with a ``prefix`` ("/explorer") the app
    is mounted under it, as behind a reverse proxy that serves it at a path, and every
    other path is a 404.
    """

    def __init__(self, port=0, config=None, prefix=""):
        self.app = create_app({"TESTING": True, **(config or {})})
        self.prefix = prefix
        self.port = port
        self.start()

    def start(self):
        wsgi = self.app
        if self.prefix:
            wsgi = DispatcherMiddleware(NotFound(), {self.prefix: self.app})
        self.httpd = make_server("127.0.0.1", self.port, wsgi, threaded=True)
        self.port = self.httpd.server_port
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}{self.prefix}/"


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    s.stop()


@pytest.fixture(scope="session")
def browser():
    assert os.path.exists(CHROMIUM), \
        "Debian's chromium is missing: run scripts/test, which installs it"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def console(request):
    """Messages the page logged; every test fails on a console error or page error."""
    messages = []
    yield messages
    errors = [m for m in messages if m[0] in ("error", "pageerror")]
    assert errors == [], errors


# One context per browser, shared by the tests' pages, so that its HTTP cache keeps the
# page's ~95 content-hashed assets (/assets/<hash>/…): a page opened in a fresh context
# fetched them all again, 0.6 s of the 1.6 s a load took. Nothing else in it outlives a
# test: sessionStorage belongs to a page, the app keeps no cookies or localStorage, and the
# page fixture takes back any permission a test granted; a test that stops the clock, which
# is the whole context's, takes own_page. A test that routes requests gets them uncached
# (Playwright turns the cache off for a routed page).
_CONTEXTS = {}


def _context(browser):
    if browser not in _CONTEXTS:
        _CONTEXTS[browser] = browser.new_context(viewport={"width": 1280, "height": 900})
    return _CONTEXTS[browser]


def open_page(browser, console, width=1280, height=900):
    """A page ``width`` × ``height`` in the shared context; the test closes it."""
    page = _context(browser).new_page()
    if (width, height) != (1280, 900):
        page.set_viewport_size({"width": width, "height": height})
    page.on("console", lambda m: console.append((m.type, m.text)))
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    return page


@pytest.fixture
def page(browser, console):
    p = open_page(browser, console)
    yield p
    p.close()
    p.context.clear_permissions()


@pytest.fixture
def own_page(browser, console):
    """A page in a context of its own, for a test that changes what a context's pages share:
    its clock (page.clock fakes the timers, and performance, of every page in it)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    p.on("console", lambda m: console.append((m.type, m.text)))
    p.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    yield p
    context.close()


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
