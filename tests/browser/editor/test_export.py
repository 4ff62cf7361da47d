"""The export panel in a real browser: matrices as text, the heatmap as SVG and PNG, and the
whole configuration exported, imported from a file or pasted back."""

import json
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import open_page
from tests.browser.editor.test_widget import CAT_A, numpy_attention
from tests.browser.helpers import beyond, cell, expect_url, heatmap, loaded, wait_settled

pytestmark = pytest.mark.browser

CAT = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
       "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}
SVG_NS = "{http://www.w3.org/2000/svg}"


def panel(page):
    return page.locator("#export-panel")


def choose(page, matrix=None, fmt=None):
    """Pick a matrix and a format as a person would, by the options' visible text."""
    if matrix:
        page.get_by_label("Matrix", exact=True).select_option(label=matrix)
    if fmt:
        page.get_by_label("Format", exact=True).select_option(label=fmt)


def preview(page):
    return page.get_by_role("textbox", name="Export preview")


def download(page, button):
    """Click a button of the panel; the download's file name and bytes."""
    with page.expect_download() as d:
        panel(page).get_by_role("button", name=button, exact=True).click()
    return d.value.suggested_filename, Path(d.value.path()).read_bytes()


def wait_heatmap(page, rows):
    """Wait until the heatmap shows these numbers (a masked cell reads "0 (masked)")."""
    page.wait_for_function(
        "want => JSON.stringify([...document.querySelectorAll('table.grid tbody tr')].map(r =>"
        " [...r.cells].slice(1).map(c => parseFloat(c.textContent.replace('\u2212', '-')))))"
        " === JSON.stringify(want)", arg=rows)


def test_w_q_as_latex_is_a_pmatrix(page, server):
    loaded(page, server.url)
    choose(page, "W_Q", "LaTeX")
    expect(preview(page)).to_have_value(
        r"\begin{pmatrix} 1.000 & 0.000 \\ 1.000 & 2.000 \end{pmatrix}")
    expect(panel(page).locator(".export-about")).to_contain_text("W_Q.tex · 2 × 2")


def test_a_as_csv_has_labelled_rows_of_the_default_weights(page, server):
    loaded(page, server.url)
    choose(page, "A (weights)", "CSV")
    lines = preview(page).input_value().split("\n")
    assert lines[0] == ",the,cat,sat"
    A, _ = numpy_attention(CAT["X"], CAT["W_Q"], CAT["W_K"], CAT["W_V"])
    for line, label, want, shown in zip(lines[1:], CAT["tokens"], A, CAT_A, strict=True):
        first, *numbers = line.split(",")
        assert first == label
        assert np.allclose([float(x) for x in numbers], want, rtol=0, atol=1e-15)
        assert [round(float(x), 3) for x in numbers] == shown
    assert len(lines) == 4


def test_the_preview_follows_an_edit_without_being_told(page, server):
    loaded(page, server.url)
    choose(page, "W_Q", "JSON")
    expect(preview(page)).to_have_value("[[1,0],[1,2]]")
    cell(page, "W_Q row 2 column 1").fill("-2.5")
    wait_settled(page)
    preview(page).scroll_into_view_if_needed()
    expect(preview(page)).to_have_value("[[1,0],[-2.5,2]]")


def test_download_gives_the_file_the_preview_shows(page, server):
    loaded(page, server.url)
    choose(page, "W_Q", "CSV")
    assert download(page, "Download") == ("W_Q.csv", b"1,0\n1,2\n")
    choose(page, "A (weights)", "LaTeX")
    name, data = download(page, "Download")
    assert name == "A.tex"
    assert data.decode() == preview(page).input_value() + "\n"
    assert data.startswith(b"% rows: the, cat, sat\n% columns: the, cat, sat\n"
                           rb"\begin{pmatrix} 0.446 & 0.108 & 0.446 \\ 0.164")
    choose(page, "Z (output)", "NumPy")
    name, data = download(page, "Download")
    assert name == "Z.py"
    namespace = {}
    exec(data.decode(), namespace)  # the file is Python that rebuilds Z
    _, Z = numpy_attention(CAT["X"], CAT["W_Q"], CAT["W_K"], CAT["W_V"])
    assert np.allclose(namespace["Z"], Z, rtol=0, atol=1e-15)
    choose(page, "X (embeddings)", "JSON")
    assert download(page, "Download") == ("X.json", b"[[1,0],[0,1],[1,1]]\n")


def test_copy_puts_the_text_on_the_clipboard(page, server):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url[:-1])
    loaded(page, server.url)
    choose(page, "K (keys)", "CSV")
    panel(page).get_by_role("button", name="Copy", exact=True).click()
    expect(page.locator("#status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "the,2,0\ncat,0,1\nsat,2,1"


def test_heatmap_svg_escapes_a_label_and_parses(page, server):
    loaded(page, server.url)
    page.get_by_role("textbox", name="Token 1 label").fill("<b>x</b>")
    wait_settled(page)
    name, data = download(page, "Download heatmap SVG")
    assert name == "attention.svg"
    assert b"&lt;b&gt;x&lt;/b&gt;" in data and b"<b>" not in data
    root = ET.fromstring(data)
    texts = [t.text for t in root.iter(SVG_NS + "text")]
    assert texts.count("<b>x</b>") == 2, "one label down the side, one across the top"
    assert "0.446" in texts


def test_heatmap_png_is_a_png_at_twice_the_svg_size(page, server):
    loaded(page, server.url)
    _, svg = download(page, "Download heatmap SVG")
    name, data = download(page, "Download heatmap PNG")
    assert name == "attention.png"
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    root = ET.fromstring(svg)
    assert (width, height) == (2 * int(root.get("width")), 2 * int(root.get("height")))


def test_export_then_import_reproduces_the_view(page, server, tmp_path):
    loaded(page, server.url)
    cell(page, "W_Q row 2 column 1").fill("3")
    page.get_by_role("checkbox", name="Causal mask").check()
    wait_settled(page)
    before, hash_before = heatmap(page), page.evaluate("location.hash")
    name, data = download(page, "Export configuration")
    assert name == "attention.json"
    saved = json.loads(data)
    assert saved["W_Q"] == [[1, 0], [3, 2]] and saved["causal"] is True and saved["row"] == 2
    path = tmp_path / name
    path.write_bytes(data)
    cell(page, "X row 1 column 2").fill("5")  # another edit in between
    wait_settled(page)
    assert heatmap(page) != before
    page.get_by_label("Import configuration file").set_input_files(path)
    expect(page.locator("#status")).to_have_text("Imported attention.json")
    # Once the import is said, the URL holds it: a link copied now carries the view.
    assert page.evaluate("location.hash") == hash_before
    wait_heatmap(page, before)
    wait_settled(page)
    assert heatmap(page) == before
    expect(cell(page, "X row 1 column 2")).to_have_value("0")
    expect(panel(page).locator(".export-message")).to_have_text("")
    # A file that is not JSON is named, quoted and left unloaded.
    notes = tmp_path / "notes.json"
    notes.write_text("X = [[1, 0], [0, 1]]\n")
    page.get_by_label("Import configuration file").set_input_files(notes)
    expect(panel(page).locator(".export-message")).to_contain_text(re.compile(
        r"^“notes\.json” is not JSON: .+\. It begins “X = \[\[1, 0\], \[0, 1\]\]”; "
        r"expected the JSON object that “Export configuration” saves, with X, W_Q, W_K and W_V\.$"))
    assert heatmap(page) == before


def test_a_large_import_is_in_the_url_before_its_answer_comes(page, server, tmp_path):
    # 320 tokens × 16: 5,888 inputs, beyond what an edit's keystroke writes to the URL at
    # once (history.js). An import writes it at once all the same; a link copied or a
    # reload right after it, its answer still held back, carries the imported view.
    n, d = 320, 16
    X = [[round(((i * 7 + j) % 11) / 10 - 0.5, 1) for j in range(d)] for i in range(n)]
    eye = [[1 if i == j else 0 for j in range(d)] for i in range(d)]
    config = {"tokens": [f"w{i}" for i in range(n)], "X": X, "W_Q": eye, "W_K": eye, "W_V": eye}
    path = tmp_path / "large.json"
    path.write_text(json.dumps(config))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url[:-1])
    loaded(page, server.url)
    held = []

    def hold_answers(route):
        if json.loads(route.request.post_data).get("fields") == []:
            route.continue_()  # the check of the file itself
        else:
            held.append(route)

    page.route("**/api/attention", hold_answers)
    page.get_by_label("Import configuration file").set_input_files(path)
    expect(page.locator("#status")).to_have_text("Imported large.json")
    params = page.evaluate("Object.fromEntries(new URLSearchParams(location.hash.slice(1)))")
    assert params["tokens"].split("|") == config["tokens"]
    assert params["X"].split(";")[5] == ",".join(f"{v:g}" for v in X[5])
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#status")).to_contain_text("Link copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.url and "#tokens=w0|w1|" in copied
    assert held, "the answer is still held back"
    page.unroute("**/api/attention")
    page.reload()
    expect(page.locator("#tokens")).to_have_value("320")
    expect(cell(page, "Token 1 label")).to_have_value("w0")


def test_a_bad_file_is_named_and_changes_nothing(page, console, server, tmp_path):
    loaded(page, server.url)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**CAT, "W_Q": [[1, 0], ["a", 2]]}))
    hash_before = page.evaluate("location.hash")
    page.get_by_label("Import configuration file").set_input_files(bad)
    text = 'W_Q row 2 column 1 must be a number, got the string "a"'
    expect(panel(page).locator(".export-message")).to_have_text(text)
    expect(panel(page).locator(".export-message")).to_have_attribute("aria-live", "polite")
    expect(page.locator("#status")).to_have_text(text)
    expect(page.locator("#status")).to_have_class("status is-warning")
    assert page.evaluate("location.hash") == hash_before
    assert heatmap(page) == CAT_A
    expect(cell(page, "W_Q row 2 column 1")).to_have_value("1")
    # The server judges the file and its words are shown: a field missing, a list for an object.
    for content, text in [
        ({k: v for k, v in CAT.items() if k != "W_V"}, 'The request needs the field "W_V"'),
        ([CAT], "“bad.json” holds a list, not an object; expected the JSON object that "
                "“Export configuration” saves, with X, W_Q, W_K and W_V."),
    ]:
        bad.write_text(json.dumps(content))
        page.get_by_label("Import configuration file").set_input_files(bad)
        expect(panel(page).locator(".export-message")).to_have_text(text)
        assert page.evaluate("location.hash") == hash_before
    # Chrome logs every 4xx answer as a console error; the server's 422s are the expected ones.
    console[:] = [m for m in console if "status of 422" not in m[1]]


def test_a_file_with_a_lone_surrogate_is_refused_and_later_edits_still_work(page, console,
                                                                           server, tmp_path):
    # "\ud800" is JSON's grammar but no character: the server names the label that holds
    # it, and the page, which could not write it into its link, takes nothing from the file.
    loaded(page, server.url)
    bad = tmp_path / "lone.json"
    untitled = json.dumps({k: v for k, v in CAT.items() if k != "tokens"})
    bad.write_text(untitled[:-1] + ', "tokens": ["the", "c\\ud800t", "sat"]}')
    hash_before = page.evaluate("location.hash")
    page.get_by_label("Import configuration file").set_input_files(bad)
    text = ('Token 2 label is "c\\ud800t": its character 2, \\ud800, is a lone UTF-16 surrogate '
            "(half of a pair, with no other half), which no text can hold")
    expect(panel(page).locator(".export-message")).to_have_text(text)
    expect(page.locator("#status")).to_have_text(text)
    assert page.evaluate("location.hash") == hash_before
    expect(cell(page, "Token 2 label")).to_have_value("cat")
    assert heatmap(page) == CAT_A
    # An unknown key holding one is refused too, by its name.
    bad.write_text(json.dumps(CAT)[:-1] + ', "note\\udc00": 1}')
    page.get_by_label("Import configuration file").set_input_files(bad)
    expect(panel(page).locator(".export-message")).to_contain_text(
        'Unknown field "note\\udc00". The fields are tokens, X,')
    assert page.evaluate("location.hash") == hash_before
    # The page goes on as before: an edit is computed and written into the link.
    cell(page, "Token 2 label").fill("dog")
    cell(page, "W_Q row 2 column 1").fill("3")
    wait_settled(page)
    expect_url(page, "tokens=the|dog|sat", "W_Q=1,0;3,2")
    grid = page.get_by_role("grid", name="Attention weights")
    expect(grid.get_by_role("rowheader").nth(1)).to_have_text("dog")
    assert heatmap(page) != CAT_A
    console[:] = [m for m in console if "status of 422" not in m[1]]


def test_hostile_labels_are_neutralised_in_csv_and_escaped_in_latex(page, server):
    loaded(page, server.url)
    cell(page, "Token 1 label").fill("=HYPERLINK(\"http://x\")")
    cell(page, "Token 2 label").fill("\\input{x}%")
    wait_settled(page)
    choose(page, "A (weights)", "CSV")
    expect(preview(page)).to_have_value(re.compile(
        r'^,"\'=HYPERLINK\(""http://x""\)",\\input\{x\}%,sat\n"\'=HYPERLINK'))
    choose(page, "Q (queries)", "LaTeX")
    expect(preview(page)).to_have_value(
        "% rows: =HYPERLINK(\"http://x\"), \\textbackslash{}input\\{x\\}\\%, sat\n"
        r"\begin{pmatrix} 1.000 & 0.000 \\ 1.000 & 2.000 \\ 2.000 & 2.000 \end{pmatrix}")


def test_pasting_a_configuration_loads_it_and_a_broken_one_does_not(page, server):
    loaded(page, server.url)
    paste = page.get_by_role("textbox", name="Paste a configuration")
    load = panel(page).get_by_role("button", name="Load pasted configuration")
    paste.fill('{"X": [[1, 0], [0, 1], [1, 1]]')
    load.click()
    expect(panel(page).locator(".export-message")).to_contain_text(re.compile(
        r"^The pasted text is not JSON: .+\. "
        r"It begins “\{\"X\": \[\[1, 0\], \[0, 1\], \[1, 1\]\]”; "
        r"expected the JSON object that “Export configuration” saves, with X, W_Q, W_K and W_V\.$"))
    assert heatmap(page) == CAT_A
    # "encoding" is one of the API's fields: the server accepts it, so the page does too.
    paste.fill(json.dumps({**CAT, "tokens": ["a", "b", "c"], "causal": True, "row": 0,
                           "encoding": "base64"}))
    load.click()
    expect(page.locator("#status")).to_have_text("Imported the pasted configuration")
    wait_heatmap(page, [[1, 0, 0], [0.5, 0.5, 0], CAT_A[2]])
    wait_settled(page)
    expect_url(page, "tokens=a|b|c", "causal=1", "row=0")
    expect(panel(page).locator(".export-message")).to_have_text("")


def test_an_invalid_input_exports_nothing(page, server):
    loaded(page, server.url)
    downloads = []
    page.on("download", lambda d: downloads.append(d))
    cell(page, "W_K row 1 column 2").fill("abc")
    expect(page.locator("#stale-note")).to_be_visible()
    panel(page).get_by_role("button", name="Export configuration").click()
    expect(page.locator("#status")).to_contain_text("not a number yet")
    panel(page).get_by_role("button", name="Download", exact=True).click()
    expect(preview(page)).to_have_value(
        "An input on the page is not a number yet: fix the marked cell, then export.")
    # Fixed, the configuration downloads: the clicks before it are handled before it, so
    # had either of them downloaded a file it would come first.
    cell(page, "W_K row 1 column 2").fill("0")
    expect(page.locator("#stale-note")).to_be_hidden()
    with page.expect_download() as d:
        panel(page).get_by_role("button", name="Export configuration").click()
    assert d.value.suggested_filename == "attention.json"
    assert [x.suggested_filename for x in downloads] == ["attention.json"]


def test_every_control_is_reached_by_tab_in_order(page, server):
    loaded(page, server.url)
    page.get_by_label("Matrix", exact=True).focus()
    seen = []
    for _ in range(22):
        seen.append(page.evaluate("() => { const a = document.activeElement; "
                                  "return a.closest('#export-panel') ? "
                                  "(a.labels?.[0]?.textContent || a.textContent) : null; }"))
        if seen[-1] is None:
            break
        page.keyboard.press("Tab")
    assert seen[:-1] == ["Matrix", "Format", "Export preview", "Download", "Copy",
                         "Download heatmap SVG", "Download heatmap PNG", "Heatmap slide PNG",
                         "Heatmap slide SVG", "Working slide PNG", "Working slide SVG", "Level",
                         "Download worksheet PDF", "Download answer key PDF",
                         "Export configuration",
                         "Import configuration file", "Paste a configuration",
                         "Load pasted configuration"]
    # Focus is visible: the page's 3px accent outline.
    panel(page).get_by_role("button", name="Copy", exact=True).focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineWidth") == "3px"


def test_axe_finds_nothing_in_the_panel(page, server):
    loaded(page, server.url)
    panel(page).scroll_into_view_if_needed()
    choose(page, "A (weights)", "CSV")
    result = Axe().run(page, context="#export-panel",
                       options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
    assert result.violations_count == 0, result.generate_report()


def test_nothing_overflows_at_390_px(browser, console, server):
    page = open_page(browser, console, width=390, height=844)
    try:
        loaded(page, server.url)
        panel(page).scroll_into_view_if_needed()
        choose(page, "A (weights)", "CSV")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        boxes = panel(page).locator("select, textarea, input, button").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect()).map(r => [r.left, r.right])")
        assert all(left >= 0 and right <= 390 for left, right in boxes), boxes
    finally:
        page.close()


def test_several_heads_export_the_shown_head_and_their_configuration(page, server, tmp_path):
    loaded(page, server.url)
    downloads = []
    page.on("download", lambda d: downloads.append(d))
    beyond(page).get_by_role("button", name="Increase heads").click()
    wait_settled(page)
    panel(page).scroll_into_view_if_needed()  # on screen, the choices follow the page
    choices = page.get_by_label("Matrix", exact=True).locator("option")
    expect(choices.filter(has_text="head 2")).to_have_count(10)
    # textContent: innerText is empty until content-visibility (app.css) draws the block.
    options = choices.all_text_contents()
    want = {"W_Q, head 2", "A (weights), head 2", "W_O", "Output = Concat·W_O"}
    assert want <= set(options), options
    choose(page, "A (weights), head 2", "CSV")
    expect(panel(page).locator(".export-about")).to_contain_text("A_2.csv · 3 × 3")
    rows = page.get_by_role("grid", name="Attention weights, head 2").locator("tbody tr")
    shown = [[float(t.split()[0]) for t in rows.nth(i).locator("td").all_inner_texts()]
             for i in range(3)]
    csv = [[round(float(x), 3) for x in line.split(",")[1:]]
           for line in preview(page).input_value().split("\n")[1:]]
    assert csv == shown
    name, data = download(page, "Download heatmap SVG")
    assert name == "attention-head-2.svg"
    assert f"{shown[0][0]:.3f}" in [t.text for t in ET.fromstring(data).iter(SVG_NS + "text")]
    # The configuration holds both heads and W_O, and importing it rebuilds the view.
    name, data = download(page, "Export configuration")
    saved = json.loads(data)
    assert name == "attention.json" and len(saved["heads"]) == 2 and len(saved["W_O"]) == 4
    hash_before = page.evaluate("location.hash")
    page.get_by_role("button", name="Decrease heads").click()
    wait_settled(page)
    path = tmp_path / "attention.json"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    panel(page).get_by_label("Import configuration file").set_input_files(str(path))
    expect(page.get_by_role("grid", name="Attention weights, head 2")).to_be_visible()
    wait_settled(page)
    rows = page.get_by_role("grid", name="Attention weights, head 2").locator("tbody tr")
    again = [[float(t.split()[0]) for t in rows.nth(i).locator("td").all_inner_texts()]
             for i in range(3)]
    assert again == shown

    def strip(h):  # the view's fields, without the seed and the selected row and head
        kept = (p for p in h.lstrip("#").split("&") if not p.startswith(("seed=", "row=", "head=")))
        return "&".join(kept)

    assert strip(page.evaluate("location.hash")) == strip(hash_before)


def test_a_matrix_the_page_shows_a_corner_of_is_exported_whole(page, server):
    # 40 tokens: the page holds the 16 × 16 corner of Q it prints and only the bytes of A,
    # so an export fetches the whole matrix.
    n = 40
    X = np.array([[(i % 5) / 5, round((i % 3) / 3, 2)] for i in range(n)])
    tokens = [f"w{i}" for i in range(n)]
    x = ";".join(f"{a:.1f},{b:.2f}" for a, b in X)
    loaded(page, server.url + f"#tokens={'|'.join(tokens)}&X={x}")
    expect(page.locator('figure[data-key="Q"] .truncated')).to_have_text(
        f"Showing 16 of {n} rows.")
    panel(page).scroll_into_view_if_needed()
    choose(page, "Q (queries)", "CSV")
    Q = X @ np.array(CAT["W_Q"], dtype=float)
    expect(panel(page).locator(".export-about")).to_contain_text(f"Q.csv · {n} × 2")
    lines = [line.split(",") for line in preview(page).input_value().splitlines()]
    assert [line[0] for line in lines] == tokens
    assert [[float(v) for v in line[1:]] for line in lines] == Q.tolist(), \
        "every digit, all 40 rows"
    choose(page, "A (weights)", "JSON")
    name, data = download(page, "Download")
    A, _ = numpy_attention(X, CAT["W_Q"], CAT["W_K"], CAT["W_V"])
    assert name == "A.json"
    assert np.allclose(json.loads(data), A, rtol=0, atol=1e-15)
    # The heatmap as SVG: its weights are fetched exactly too (the page holds bytes).
    name, svg = download(page, "Download heatmap SVG")
    texts = [t.text for t in ET.fromstring(svg).iter(SVG_NS + "text")]
    assert name == "attention.svg"
    values = sorted(t for t in texts if t[:1].isdigit())
    assert values == sorted(f"{a:.3f}" for a in A.flatten()), "every weight, to the last digit"


def test_the_matrix_choices_are_not_rebuilt_when_the_page_redraws(page, server):
    # Rebuilding the options on every redraw would close an open list under the pointer
    # (and restyled ~40 elements per keystroke).
    loaded(page, server.url)
    options = "[...document.querySelectorAll('#export-matrix option')]"
    page.evaluate(f"{options}.forEach(o => {{ o.__kept = true; }})")
    cell(page, "X row 1 column 1").fill("2")
    wait_heatmap(page, np.round(numpy_attention([[2, 0], [0, 1], [1, 1]], CAT["W_Q"], CAT["W_K"],
                                                CAT["W_V"])[0], 3).tolist())
    wait_settled(page)  # the panel follows a redraw after the next paint, before it is idle
    assert page.evaluate(f"{options}.every(o => o.__kept)")
    beyond(page).get_by_role("button", name="Increase heads").click()  # the list changes: rebuilt
    choices = page.get_by_label("Matrix", exact=True).locator("option")
    expect(choices.filter(has_text=re.compile("^Concat"))).to_have_count(1)
    assert not page.evaluate(f"{options}.every(o => o.__kept)")


def test_the_heatmap_and_the_rows_working_as_slides(page, server):
    """The default example's slides: a 1920 × 1080 PNG of the heatmap, and an SVG of row
    3's working, each named for what it shows; with two heads, the head shown."""
    loaded(page, server.url)
    name, data = download(page, "Heatmap slide PNG")
    assert name == "slide-heatmap-row3.png"
    assert data.startswith(b"\x89PNG") and struct.unpack(">II", data[16:24]) == (1920, 1080)
    expect(panel(page).locator("#export-message")).to_have_text("Heatmap slide saved.")
    name, data = download(page, "Working slide SVG")
    assert name == "slide-working-row3.svg" and data.startswith(b"<svg")
    beyond(page).get_by_role("button", name="Increase heads").click()
    wait_settled(page)
    name, _ = download(page, "Heatmap slide PNG")  # the head shown: the new one
    assert name == "slide-heatmap-row3-head2.png"
