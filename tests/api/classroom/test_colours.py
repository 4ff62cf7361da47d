"""attention_api/classroom/colours.py draws the weights as the page does: the browser's own module,
static/js/lib/colour.js, run in node, gives the same colour and text colour at every weight
tried; a slide's accent and hatch are the style sheet's own."""

import json
import re
import subprocess
from pathlib import Path

from attention_api.classroom.colours import text_rgb, weight_rgb
from attention_core import default_request

ROOT = Path(__file__).resolve().parents[3]
WEIGHTS = [k / 1000 for k in range(1001)] + [-0.5, 1.5, 0.0625, 0.1875]


def test_every_weight_has_the_pages_colour_and_text_colour():
    script = ("import { weightRGB, textRGB } from './static/js/lib/colour.js';"
              "const ws = JSON.parse(process.argv[1]);"
              "console.log(JSON.stringify(ws.map((w) => [weightRGB(w), textRGB(weightRGB(w))])));")
    out = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps(WEIGHTS)],
                         cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    pages = json.loads(out.stdout)
    ours = [[list(weight_rgb(w)), list(text_rgb(weight_rgb(w)))] for w in WEIGHTS]
    assert ours == pages


def test_the_ends_of_the_scale():
    assert weight_rgb(0) == (253, 231, 37)  # light yellow: low
    assert weight_rgb(1) == (68, 1, 84)  # dark purple: high
    assert text_rgb(weight_rgb(0)) == (0, 0, 0) and text_rgb(weight_rgb(1)) == (255, 255, 255)


def style_sheet_colours() -> dict[str, str]:
    """The light scheme's colours of static/css/app.css (the lines before its dark @media
    block), read here line by line: {"accent": "#b4410f", …}."""
    colours = {}
    for line in (ROOT / "static/css/app.css").read_text(encoding="utf-8").splitlines():
        if line.startswith("@media"):
            break
        name, _, value = line.strip().partition(":")
        value = value.split(";")[0].strip()
        if name.startswith("--") and value.startswith("#"):
            colours[name[2:]] = value.lower()
    return colours


def test_a_slide_outlines_the_row_and_hatches_masked_cells_in_the_style_sheets_colours(client):
    page = style_sheet_colours()
    request = {**default_request(), "row": 2, "causal": True}
    svg = client.post("/api/slide", json={"request": request, "what": "heatmap", "format": "svg"})
    assert (svg.status_code, svg.mimetype) == (200, "image/svg+xml")
    drawn = set(re.findall(r'(fill|stroke)="(#[0-9a-f]{6})"', svg.get_data(as_text=True)))
    assert ("stroke", page["accent"]) in drawn  # the selected row's outline
    assert {("fill", page["hatch-bg"]), ("stroke", page["hatch"])} <= drawn  # a masked cell
