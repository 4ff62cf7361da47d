"""From typing into a cell to the new numbers painted, in headless chromium.

Run: .venv/bin/python benchmarks/bench_browser.py [--server gunicorn|werkzeug]
The page is served by the production server (the Dockerfile's gunicorn command, in its
own processes) unless --server werkzeug asks for the development server in a thread of
this process, where it shares the GIL with the Playwright driver.
Prints, for the default example and for 256 tokens with d = 64, each with one head and
with four, and for a real model's width (128 tokens, d_model 576 and 1024; --wide: those
and the default alone), the median and 95th percentile over 50 edits, next to those of a baseline: a
minimal page (benchmarks/baseline/, served by the same server beside the app) that on
each edit POSTs the app's own request to /api/attention and writes the weights into a
table, timed the same way. The two pages are open side by side in the same browser and
edited in turn, so the machine's noise falls on both alike. Then the time to the first
paint of a 512-token heatmap. Goals: p95 <= 50 ms at 3 tokens and at most 1.5 times the
baseline's; <= 250 ms at 256 tokens; 512 tokens <= 1 s.

Then the real-model view (/model, SmolLM2 on a 127-token text; --model: these alone), when
the server has the models: a head switch (a click on the grid) and a row switch (a click on
the heatmap), each timed until the new numbers are painted (the page's aria-busy cleared,
then a frame) and until the working's maths on screen is typeset and painted, median and
p95 over SWITCHES clicks, against the baseline page POSTing the view's own request and
drawing the weights it brings, in turn with it; and "Open in the editor", from the
navigation to the editor to the frame that paints the head's weights (and to the one that
paints its working typeset), median and p95 over OPENS, against the baseline page making
the editor's two round trips (the head's inputs, then its attention) and drawing the
weights. Goals: a switch paints in <= 100 ms (p95); the editor shows the head's numbers
in <= 1 s (p95).

Then (--steppers: these alone) a step of the step-by-step panels ("Generate step by step" and
"Step through the tiles" in the editor on 3, 8 and 24 causal tokens, and on /model on 5 and
127 tokens), from the arrow key to the frame that paints it, median and
p95 over STEPS steps forward and back, each in turn with an edit of the baseline page; goal:
the 3-token edit's, p95 <= 50 ms.
"""

import argparse
import contextlib
import json
import logging
import statistics
import sys
import tempfile
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

from benchmarks.server import BASELINE_PATH, Production, create_app_with_baseline
from tests.browser.conftest import ARGS, CHROMIUM

EDITS = 50

# After a frame: rAF runs just before the frame's style, layout and paint, and a message
# posted from it is the first task after them. (A timeout would not do: its timer may not
# have fired yet when the page's own later work, such as the working, takes the thread.)
AFTER_PAINT = """const afterPaint = () => new Promise((resolve) => requestAnimationFrame(() => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => resolve(performance.now());
  channel.port2.postMessage(null);
}));"""

# One edit: type into X row 1 column 1; measure until the weights and outputs have changed
# and a frame has been painted, and (``working``: the app, not the baseline) the same for
# the working, which is typeset after the frame of the numbers.
EDIT_JS = """async ([values, working]) => {
  """ + AFTER_PAINT + """
  const input = document.querySelector('[aria-label="X row 1 column 1"]');
  const painted = (targets, t0) => new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      seen.disconnect();
      afterPaint().then((t) => resolve(t - t0));
    });
    const all = { subtree: true, childList: true, characterData: true, attributes: true };
    for (const t of targets) seen.observe(t, all);
  });
  const t0 = performance.now();
  const byId = (id) => document.getElementById(id);
  const numbers = painted([byId('heatmap'), byId('output')], t0);
  const typeset = working ? painted([byId('working')], t0) : null;
  input.value = values.find((v) => v !== input.value);  // a value that changes the numbers
  input.dispatchEvent(new Event('input', { bubbles: true }));
  return [await numbers, working ? await typeset : null];
}"""
# One step of a step-by-step panel: a key pressed on the focused button inside ``panel``;
# measured until the panel has changed and a frame has been painted.
STEP_JS = """async ([panel, key]) => {
  """ + AFTER_PAINT + """
  const block = document.querySelector(panel);
  const t0 = performance.now();
  const painted = new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      seen.disconnect();
      afterPaint().then((t) => resolve(t - t0));
    });
    seen.observe(block, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
  return await painted;
}"""
STEPS = 60
# The panels: (section, its forward button, its back button).
GENERATE = ("#generate-block", "Step forward", "Step back")
TILES = ("#tiles-block", "Next tile", "Previous tile")
REQUEST_ONLY = lambda r: r.url.endswith("/api/attention") and r.method == "POST"  # noqa: E731


def fragment(n, d, seed=0, heads=1, kv_heads=None, extra="", d_model=None):
    """The URL fragment of a random n-token example with d_model = d_k = d_v = d (or
    d_model ``d_model``: a real model's head, X n × d_model and W d_model × d); with
    ``kv_heads`` G the heads share G key/value heads, and ``extra`` adds URL keys
    ("&positional=rope&window=8")."""
    rng = np.random.default_rng(seed)
    kv = heads if kv_heads is None else kv_heads
    D = d if d_model is None else d_model

    def mat(r: int, c: int) -> str:
        return ";".join(",".join(f"{v:.1f}" for v in row) for row in rng.uniform(-1, 1, (r, c)))

    tokens = "|".join(f"t{i + 1}" for i in range(n))
    more = "".join(f"&W_Q_{k}={mat(D, d)}" + (f"&W_K_{k}={mat(D, d)}&W_V_{k}={mat(D, d)}"
                                               if k <= kv else "")
                   for k in range(2, heads + 1))
    w_o = f"&W_O={mat(heads * d, D)}&kv_heads={kv}" if heads > 1 else ""
    return (f"#tokens={tokens}&X={mat(n, D)}&W_Q={mat(D, d)}&W_K={mat(D, d)}"
            f"&W_V={mat(D, d)}&heads={heads}&head=0{more}{w_o}&causal=0&row={n - 1}&seed=1"
            f"{extra}")


# Today's attention: rotary positions on four query heads sharing two key/value heads, and
# ALiBi with a sliding window and a sink.
MODERN = "&positional=rope"
WINDOWED = "&positional=alibi&window=8&sinks=1"


def handoff(url):
    """The real-model view's link to layer 4 head 6 of SmolLM2 on a ~126-token text (its
    numbers as the model computed them, ~20 characters each), or None when the server has
    no real models."""
    try:
        with urllib.request.urlopen(url + "api/models", timeout=60) as r:
            models = {m["id"]: m for m in json.loads(r.read())["models"]}
    except OSError:
        return None
    if models.get("smollm2-135m", {}).get("d_model") != 576:
        return None
    text = urllib.parse.quote("the cat sat on the mat " * 21)
    return f"#from=model&model=smollm2-135m&text={text}&layer=3&head=5&row=5&causal=1"


def settle(page):
    page.wait_for_function("() => document.querySelector('#heatmap [role=grid]') &&"
                           " !document.getElementById('results').classList.contains('is-stale')",
                           timeout=60_000)
    page.wait_for_load_state("networkidle")


def edit(page, k, working):
    """One edit, alternating between two values so that every edit changes the numbers (the
    other one where the cell holds it already: a view may start with either)."""
    return page.evaluate(EDIT_JS, [["0.3", "1.7"] if k % 2 else ["1.7", "0.3"], working])


def baseline_for(app, baseline, url):
    """Open the baseline page with the request the app sends on an edit of X[0][0]."""
    with app.expect_request(REQUEST_ONLY) as asked:
        edit(app, 0, True)
    baseline.goto(url + BASELINE_PATH.lstrip("/"))
    baseline.wait_for_load_state("networkidle")
    baseline.evaluate("(request) => { window.baselineRequest = request; }",
                      asked.value.post_data_json)
    edit(baseline, 0, False)  # the first answer builds the table


def edits(app, baseline):
    """(numbers painted, working painted, baseline painted) in ms. The pages take turns,
    each going first every other time, and each edit is followed by a pause in which the
    page's work after the paint (the working, the export panel) is done."""
    numbers, working, base = [], [], []
    for k in range(EDITS):
        turns = ("app", "baseline") if k % 2 == 0 else ("baseline", "app")
        for turn in turns:
            if turn == "app":
                a, b = edit(app, k + 1, True)
                numbers.append(a)
                working.append(b)
                app.wait_for_timeout(20)
            elif baseline is not None:
                base.append(edit(baseline, k + 1, False)[0])
                baseline.wait_for_timeout(20)
    return numbers, working, base


# Installed before the page's own scripts: the moment the weights are drawn (a grid in
# #heatmap, the results not out of date), then the end of the frame that paints them.
# Measured in the page, so the time Playwright takes to notice is not counted, nor the
# working, which is typeset after that frame.
FIRST_PAINT_JS = """(() => {
  """ + AFTER_PAINT + """
  const drawn = () => document.querySelector('#heatmap [role=grid]')
    && !document.getElementById('results').classList.contains('is-stale');
  const watch = new MutationObserver(() => {
    if (!drawn()) return;
    watch.disconnect();
    afterPaint().then((t) => { window.__weightsPainted = t; });
  });
  watch.observe(document, { subtree: true, childList: true, attributes: true });
})()"""


def steps(page, panel, baseline):
    """(step painted, baseline edit painted) in ms over STEPS steps of ``panel`` by ← and →,
    forward to its last step and back, in turn with an edit of the baseline page. The first
    press, which asks the server, is made before and not counted."""
    block = page.locator(panel[0])
    forward, back = (block.get_by_role("button", name=n, exact=True) for n in panel[1:])
    block.scroll_into_view_if_needed()
    forward.click()
    page.wait_for_function(f"() => document.querySelector('{panel[0]} .gen-status').textContent",
                           timeout=60_000)
    timed, base, key = [], [], "ArrowRight"
    for k in range(STEPS):
        if key == "ArrowRight" and forward.is_disabled():
            key = "ArrowLeft"
        elif key == "ArrowLeft" and back.is_disabled():
            key = "ArrowRight"
        timed.append(page.evaluate(STEP_JS, [panel[0], key]))
        page.wait_for_timeout(20)
        base.append(edit(baseline, k + 1, False)[0])
        baseline.wait_for_timeout(20)
    return timed, base


def stepper_cases(browser, url) -> int:
    """A step of each panel painted, against the baseline page's edit in the same run; goal:
    the 3-token edit's, p95 <= 50 ms. Closes the browser."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    baseline = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    settle(page)
    baseline_for(page, baseline, url)
    causal = lambda n, d: fragment(n, d).replace("&causal=0", "&causal=1")  # noqa: E731
    cases = [("default, causal", "#causal=1"), ("8 tokens, d = 4, causal", causal(8, 4)),
             ("24 tokens, d = 16, causal", causal(24, 16))]
    print(f"{'panel, view':<46} {'median':>9} {'p95':>9} {'baseline':>19} {'ratio':>6}  goal")
    for label, frag in cases:
        page.goto(url + frag)
        settle(page)
        for name, panel in (("Generate", GENERATE), ("Tiles", TILES)):
            step_row(f"{name}: {label}", *steps(page, panel, baseline))
            page.goto(url + frag)
            settle(page)
    frag = handoff(url)
    if frag:
        model = frag.replace("#from=model&", "#")
        for label, view in (("/model: the default text", "model"),
                            ("/model: 127 tokens", "model" + model)):
            for name, panel in (("Generate", GENERATE), ("Tiles", TILES)):
                page.goto(url + view)
                page.wait_for_function("() => document.getElementById('page')"
                                       ".getAttribute('aria-busy') === 'false'", timeout=60_000)
                step_row(f"{name}, {label}", *steps(page, panel, baseline))
    else:
        print("(no real models on this server: the real-model view's panel is not measured)")
    browser.close()
    return 0


def step_row(label, timed, base):
    p95, b95 = pct(timed, 95), pct(base, 95)
    print(f"{label:<46} {statistics.median(timed):>6.1f} ms {p95:>6.1f} ms "
          f"{statistics.median(base):>6.1f} ms {b95:>6.1f} ms {p95 / b95:>5.2f}×  <= 50 ms: "
          f"{'meets' if p95 <= 50 else 'misses'}")


def first_paint(page, url):
    """ms from navigation start to the end of the first frame painted with the weights."""
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_function("() => window.__weightsPainted !== undefined", timeout=60_000)
    return page.evaluate("() => window.__weightsPainted")


def pct(xs, q):
    return float(np.percentile(xs, q))


# ---- the real-model view (/model) ----

SWITCHES = 30  # head switches, and row switches, each
OPENS = 8      # "Open in the editor": a navigation each, ~1 s

# The working's maths on screen is typeset: none of its maths spans empty, but those in a
# folded part and those below the screen (which the page may typeset as they near it).
TYPESET = """() => ![...document.querySelectorAll('#working [data-tex]')].some((s) => !s.firstChild
  && !s.closest('details:not([open])') && s.getBoundingClientRect().top < innerHeight)"""

# One click on /model (a head of the grid, a row of the heatmap): ms until the new numbers
# are painted (aria-busy cleared, which the view does once it has drawn them, then a
# frame), and until the working names the new head or row (``says``), its maths on screen
# typeset, and a frame painted: the numbers' frame, if it was so as they were drawn (maths
# under the screen may be typeset in the frames after it). The click sets aria-busy at
# once: its request has left.
SWITCH_JS = """async ([selector, says]) => {
  """ + AFTER_PAINT + """
  const typeset = """ + TYPESET + """;
  const when = (target, options, ready) => new Promise((resolve) => {
    if (ready()) { resolve(); return; }
    const seen = new MutationObserver(() => { if (ready()) { seen.disconnect(); resolve(); } });
    seen.observe(target, options);
  });
  const page = document.getElementById('page');
  const t0 = performance.now();
  document.querySelector(selector).click();
  const says_it = () => document.getElementById('working-sym').textContent.includes(says);
  let withNumbers = false;  // the working, ready as the numbers are: painted in their frame
  const numbers = await when(page, { attributes: true }, () => {
    const drawn = page.getAttribute('aria-busy') === 'false';
    withNumbers = drawn && says_it() && typeset();
    return drawn;
  }).then(afterPaint);
  if (withNumbers) return [numbers - t0, numbers - t0];
  const all = { subtree: true, childList: true, characterData: true, attributes: true };
  const working = await when(document.getElementById('working-block'), all,
    () => says_it() && typeset()).then(afterPaint);
  return [numbers - t0, working - t0];
}"""

# The baseline's switch: the view's own request, its weights drawn (baseline.js).
BASELINE_SWITCH_JS = """async ([request]) => {
  """ + AFTER_PAINT + """
  const t0 = performance.now();
  const drawn = new Promise((resolve) => {
    const seen = new MutationObserver(() => { seen.disconnect(); afterPaint().then(resolve); });
    const all = { subtree: true, childList: true, characterData: true, attributes: true };
    seen.observe(document.getElementById('heatmap'), all);
  });
  window.baselineModel(request);
  return (await drawn) - t0;
}"""

# Installed before the page's scripts: in the editor opened from /model, the moment the
# head's weights are drawn (the note naming the head shown, a heatmap, the results not out
# of date) and the moment its working's maths on screen is typeset, each then the end of
# the frame that paints it; in the baseline page opened with "#open=", its weights drawn.
OPENED_JS = """(() => {
  """ + AFTER_PAINT + """
  const typeset = """ + TYPESET + """;
  const baseline = location.hash.startsWith('#open=');
  if (!baseline && !location.hash.startsWith('#from=model')) return;
  const row = new URLSearchParams(location.hash.slice(1)).get('row');
  const byId = (id) => document.getElementById(id);
  const shown = () => (baseline ? document.querySelector('#heatmap canvas[data-drawn]')
    : byId('source-note')?.hidden === false && document.querySelector('#heatmap [role=grid]')
      && byId('results')?.classList.contains('is-stale') === false);
  const working = () => baseline || (byId('working')?.dataset.row === row && typeset());
  const watch = new MutationObserver(() => {
    if (window.__opened === undefined && shown()) {
      window.__opened = null;
      afterPaint().then((t) => { window.__opened = t; });
    }
    if (window.__opened !== undefined && window.__openedWorking === undefined && working()) {
      window.__openedWorking = null;
      afterPaint().then((t) => { window.__openedWorking = t; });
    }
  });
  const all = { subtree: true, childList: true, attributes: true, characterData: true };
  watch.observe(document, all);
})()"""


def opened(page, go):
    """ms from the navigation ``go()`` starts to the weights painted, and to the working."""
    go()
    page.wait_for_function("() => window.__openedWorking", timeout=60_000)
    return page.evaluate("() => [window.__opened, window.__openedWorking]")


def model_row(label, app, working, base, goal):
    """One line of the real-model view's table; the goal is the p95's, the working's too."""
    p95, b95, w95 = pct(app, 95), pct(base, 95), pct(working, 95)
    meets = p95 <= goal and w95 <= goal
    print(f"{label:<26} {statistics.median(app):>6.0f} ms {p95:>6.0f} ms {w95:>9.0f} ms "
          f"{statistics.median(base):>6.0f} ms {b95:>6.0f} ms {p95 / b95:>5.2f}×  <= {goal} ms "
          f"(numbers and working): {'meets' if meets else 'misses'}")


VIEW_BUSY = "() => document.getElementById('page').getAttribute('aria-busy') === 'false'"
MODEL_REQUEST = lambda r: r.url.endswith("/api/model/attention")  # noqa: E731


def open_view(page, view):
    """The view of ``view`` opened afresh (not the history entry of the last one), settled."""
    page.goto("about:blank")
    page.goto(view)
    page.wait_for_function(VIEW_BUSY + " && document.querySelector('#heatmap [role=grid]')",
                           timeout=60_000)


def asked_for(page, selector, says):
    """The request the view sends for a click on ``selector``."""
    with page.expect_request(MODEL_REQUEST) as asked:
        page.evaluate(SWITCH_JS, [selector, says])
    return asked.value.post_data_json


def switches(page, baseline, request, clicks):
    """(numbers, working, baseline) in ms for ``clicks`` [(selector, says, asks)]: the view
    clicked, the baseline sent ``request`` with ``asks`` (the head or row), in turn."""
    numbers, working, base = [], [], []
    for k, (selector, says, asks) in enumerate(clicks):
        for turn in (("app", "baseline") if k % 2 == 0 else ("baseline", "app")):
            if turn == "app":
                a, b = page.evaluate(SWITCH_JS, [selector, says])
                numbers.append(a)
                working.append(b)
            else:
                base.append(baseline.evaluate(BASELINE_SWITCH_JS, [{**request, **asks}]))
            page.wait_for_timeout(50)
    return numbers, working, base


def opens(page, baseline, url, view):
    """(weights painted, working painted, baseline painted) in ms from the navigation, for
    OPENS clicks on "Open in the editor" and as many baseline pages opened with the
    editor's own request for the head."""
    open_view(page, view)
    link = page.get_by_role("link", name="Open in the editor")
    with page.expect_request(MODEL_REQUEST) as asked:
        opened(page, link.click)
    source = json.dumps(asked.value.post_data_json, separators=(",", ":"))
    base_url = url + BASELINE_PATH.lstrip("/") + "#open=" + urllib.parse.quote(source)
    app, working, base = [], [], []
    for _ in range(OPENS):
        open_view(page, view)
        a, b = opened(page, link.click)
        app.append(a)
        working.append(b)
        baseline.goto("about:blank")
        base.append(opened(baseline, lambda: baseline.goto(base_url))[0])
    return app, working, base


def model_view(browser, url, frag):
    """The real-model view's head switch, row switch and "Open in the editor" (see the
    module's docstring), from the view the editor's link ``frag`` names."""
    page, baseline = (browser.new_page(viewport={"width": 1280, "height": 900}) for _ in range(2))
    for p in (page, baseline):
        p.add_init_script(OPENED_JS)
    view = url + "model" + frag.replace("#from=model&", "#")
    open_view(page, view)
    layer = int(urllib.parse.parse_qs(frag)["layer"][0])
    heads = json.loads(page.locator("#models-data").text_content())["models"][0]["heads"]
    request = asked_for(page, f'#grid [data-layer="{layer}"][data-head="0"]', "head 1")
    baseline.goto(url + BASELINE_PATH.lstrip("/"))
    baseline.evaluate(BASELINE_SWITCH_JS, [request])  # the first answer builds its map
    print(f"Real-model view, SmolLM2 layer {layer + 1} on {len(request['text'])} characters "
          f"(1280 × 900), {SWITCHES} clicks each and {OPENS} opens, in turn with the baseline")
    print(f"{'case':<26} {'median':>9} {'p95':>9} {'working p95':>12} {'baseline':>19}"
          f" {'ratio':>6}")
    # Every click a new head of the layer, then a new row (of the 127).
    heads = [(f'#grid [data-layer="{layer}"][data-head="{h}"]', f"head {h + 1}", {"head": h})
             for h in (1 + k % (heads - 1) for k in range(SWITCHES))]
    model_row("head switch", *switches(page, baseline, request, heads), 100)
    request = asked_for(page, '#heatmap [data-i="9"]', "query 10,")
    rows = [(f'#heatmap [data-i="{i}"]', f"query {i + 1},", {"row": i})
            for i in (10 + k % 20 for k in range(SWITCHES))]
    model_row("row switch", *switches(page, baseline, request, rows), 100)
    model_row("Open in the editor", *opens(page, baseline, url, view), 1000)
    page.close()
    baseline.close()


@contextlib.contextmanager
def serving(kind: str):
    """The app's base URL, served by gunicorn (as in production) or werkzeug in a thread."""
    if kind == "gunicorn":
        with tempfile.TemporaryDirectory() as logs, Production(Path(logs), baseline=True) as server:
            yield f"http://127.0.0.1:{server.port}/"
        return
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one log line per request is noise here
    srv = make_server("127.0.0.1", 0, create_app_with_baseline(), threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}/"
    finally:
        srv.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("gunicorn", "werkzeug"), default="gunicorn")
    parser.add_argument("--small", action="store_true", help="only the 3-token cases")
    parser.add_argument("--wide", action="store_true",
                        help="only the default example and the real models' widths")
    parser.add_argument("--model", action="store_true", help="only the real-model view's cases")
    parser.add_argument("--steppers", action="store_true",
                        help="only a step of the step-by-step panels")
    args = parser.parse_args()
    with serving(args.server) as url, sync_playwright() as p:
        print(f"served by {args.server}")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        if args.model:
            return model_cases(browser, url)
        if args.steppers:
            return stepper_cases(browser, url)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script(FIRST_PAINT_JS)
        baseline = browser.new_page(viewport={"width": 1280, "height": 900})
        print(f"{'case':<26} {'median':>9} {'p95':>9} {'working p95':>12} {'baseline':>19}"
              f" {'ratio':>6}  goal (numbers p95)")
        print(f"{'':<49} {'median':>9} {'p95':>9} {'(p95)':>6}")
        small = (("3 tokens (default)", "", 50, 1.5),
                 ("3 tokens, 4 heads", fragment(3, 2, heads=4), 50, None),
                 ("3 tokens, RoPE, 4 on 2", fragment(3, 2, heads=4, kv_heads=2, extra=MODERN),
                  50, None),
                 ("3 tokens, ALiBi, window", fragment(3, 2, extra=WINDOWED), 50, None))
        large = (("256 tokens, d = 64", fragment(256, 64), 250, None),
                 ("256 tokens, 4 heads", fragment(256, 64, heads=4), 250, None),
                 ("256, RoPE, 4 on 2", fragment(256, 64, heads=4, kv_heads=2, extra=MODERN),
                  250, None),
                 ("256, ALiBi, window", fragment(256, 64, extra=WINDOWED), 250, None))
        # A real model's head opened in the editor (SmolLM2: 128 tokens, d_model 576, d_head
        # 64, RoPE θ 100000; the widest d_model the editor takes, 1024): 184,320 and 327,680
        # inputs, of which the editor draws one page of 16 × 16 a matrix.
        wide = (("128 × 576, RoPE (SmolLM2)",
                 fragment(128, 64, d_model=576, extra=MODERN + "&rope_base=100000"), 250, None),
                ("128 × 1024, d = 64", fragment(128, 64, d_model=1024), 250, None))
        opened = handoff(url)
        if opened:
            wide += (("SmolLM2 head, opened", opened, 250, None),)
        else:
            print("(no real models on this server: the opened SmolLM2 head is not measured)")
        cases = (small[:1] + wide if args.wide else small if args.small
                 else small + large + wide)
        for label, frag, goal, ratio_goal in cases:
            page.goto(url + frag)
            if frag.startswith("#from=model"):  # the default example shows until the head comes
                page.wait_for_selector("#source-note:not([hidden])", timeout=60_000)
            settle(page)
            baseline_for(page, baseline, url)
            numbers, working, base = edits(page, baseline)
            p95, b95 = pct(numbers, 95), pct(base, 95)
            meets = p95 <= goal and (ratio_goal is None or p95 / b95 <= ratio_goal)
            goals = f"<= {goal} ms" + (f" and <= {ratio_goal}×" if ratio_goal else "")
            print(f"{label:<26} {statistics.median(numbers):>6.1f} ms {p95:>6.1f} ms "
                  f"{pct(working, 95):>9.1f} ms {statistics.median(base):>6.1f} ms {b95:>6.1f} ms"
                  f" {p95 / b95:>5.2f}×  {goals}: {'meets' if meets else 'misses'}")
        if args.small or args.wide:
            browser.close()
            return 0

        for label, frag in (("512 tokens, d = 64", fragment(512, 64)),
                            ("512 tokens, 4 heads", fragment(512, 64, heads=4))):
            first_paint(page, url + frag)  # once to warm the server's workers and the cache
            painted = statistics.median(first_paint(page, url + frag) for _ in range(3))
            baseline = statistics.median(first_paint(page, url) for _ in range(3))
            print(f"{label}: heatmap painted {painted:.0f} ms after navigation (median of 3; "
                  f"default page: {baseline:.0f} ms, ratio {painted / baseline:.1f}×); "
                  f"goal <= 1000 ms: {'meets' if painted <= 1000 else 'misses'}")
        page.goto(url + fragment(512, 64))
        settle(page)
        numbers, working, _ = edits(page, None)
        print(f"512 tokens, d = 64: an edit repaints the numbers in median "
              f"{statistics.median(numbers):.0f} ms, p95 {pct(numbers, 95):.0f} ms; "
              f"the working p95 {pct(working, 95):.0f} ms")
        model_cases(browser, url)
    return 0


def model_cases(browser, url) -> int:
    """The real-model view's cases, when the server has the models; closes the browser."""
    frag = handoff(url)
    if frag:
        model_view(browser, url, frag)
    else:
        print("(no real models on this server: the real-model view is not measured)")
    browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
