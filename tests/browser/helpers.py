"""Reading the page as a person would: the numbers in the heatmap, matrices and working."""

import re
import time

import numpy as np
from playwright.sync_api import expect

MINUS = "\u2212"
# How long an answer may take on a busy machine (a 320-token view took 3 s with both cores
# loaded): a ceiling on the wait, never a time waited.
SETTLE_MS = 30_000


def number(text):
    """A displayed number ("−1.500", "0 (masked)") as a float."""
    text = text.replace(MINUS, "-").replace("(masked)", "").strip()
    return float(text)


def heatmap(page):
    """The weights as shown: a list of rows of floats."""
    rows = page.get_by_role("grid", name="Attention weights", exact=True).locator("tbody tr")
    return [[number(t) for t in rows.nth(i).locator("td").all_inner_texts()]
            for i in range(rows.count())]


def matrix(page, key):
    """A derived matrix (Q, K, V, S, SS, Z) as floats."""
    rows = page.locator(f'figure[data-key="{key}"] tbody tr')
    return [[number(t) for t in rows.nth(i).locator("td").all_inner_texts()]
            for i in range(rows.count())]


def hash_matrix(page, key):
    """The matrix ``key`` as the page's URL holds it, as numbers."""
    text = page.evaluate("k => new URLSearchParams(location.hash.slice(1)).get(k)", key)
    return np.array([[float(v) for v in row.split(",")] for row in text.split(";")])


def beyond(page):
    """Open "Beyond the basics", the group of the controls beyond the textbook chapter
    (heads, cross-attention, biases, positions, window and sinks, seed), unless it is open
    (a link, an import or a preset that uses one of them opens it by itself). Returns the
    page, whose controls those are."""
    toggle = page.get_by_role("button", name="Beyond the basics", exact=True)
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    return page


def cell(page, name):
    return page.get_by_role("textbox", name=name, exact=True)


def loaded(page, url):
    """Open ``url`` and wait until its view is settled and the page has mounted the blocks
    it builds after showing the view (the lab, then the export panel: main.js)."""
    page.goto(url)
    wait_settled(page)
    expect(page.locator("#export-panel > *").first).to_be_attached(timeout=SETTLE_MS)


def wait_settled(page):
    """Wait until the numbers on screen answer the inputs on screen: the results are not
    busy (main.js sets aria-busy in the edit's own event and clears it once the answer and
    the working are drawn) and not marked out of date."""
    results = page.locator("#results")
    expect(page.locator('#heatmap [role="grid"]').first).to_be_visible(timeout=SETTLE_MS)
    expect(results).not_to_have_attribute("aria-busy", "true", timeout=SETTLE_MS)
    expect(results).not_to_have_class(re.compile(r"\bis-stale\b"), timeout=SETTLE_MS)


def wait_until(page, condition, what, seconds=SETTLE_MS / 1000):
    """Wait until ``condition()`` (a test-side fact, such as a request a route handler
    holds) is true: Playwright runs route handlers as it reads its events, so each try
    is a round trip to the page, never a sleep. Fails naming ``what``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not so after {seconds:g} s")
        page.evaluate("0")


def expect_url(page, *parts):
    """Wait until the page's URL holds each of ``parts`` (a large view's URL is written
    once the answer to an edit has painted, not in the keystroke's own event)."""
    for part in parts:
        expect(page).to_have_url(re.compile(re.escape(part)))


def working_text(page):
    """The working panel's visible text with KaTeX's spacing removed."""
    text = page.locator("#working .katex-html").all_inner_texts()
    text = re.sub(r"[\s\u200b]+", "", "".join(text))
    return text.replace(MINUS, "-").replace("\u22c5", "·")


def softmax_rows(page):
    """The working's softmax table as shown: per key, [q·k_j, s_ij, e^s, a_ij] texts."""
    rows = page.locator("#working table.softmax-table tbody tr")
    return [rows.nth(k).locator("td").all_inner_texts() for k in range(rows.count())]


def tab_until(page, script, want, what, key="Tab", limit=80):
    """Press Tab (or ``key``) until the page's ``script`` (a function of no arguments,
    run on each stop) returns ``want``; fail naming ``what`` when it never does."""
    for _ in range(limit):
        page.keyboard.press(key)
        if page.evaluate(script) == want:
            return
    raise AssertionError(f"{what} is not reachable with {key}")
