"""attention_api/classroom/colours.py draws the weights as the page does: the browser's own module,
static/js/lib/colour.js, run in node, gives the same colour and text colour at every weight
tried."""

import json
import subprocess
from pathlib import Path

from attention_api.classroom.colours import text_rgb, weight_rgb

ROOT = Path(__file__).resolve().parents[2]
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
