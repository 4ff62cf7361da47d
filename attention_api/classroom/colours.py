"""The weights' colours, for what the server draws (slides): the page's scale, viridis reversed
(light = low), with dark or light text, whichever contrasts more. The same numbers as
static/js/lib/colour.js, which the browser draws with; tests/api/classroom/test_colours.py runs that
module in node and checks the two agree at every weight it tries. The page's own colours
(the accent, a masked cell's hatch) are read from its style sheet, static/css/app.css."""

from __future__ import annotations

import re

import settings

# matplotlib's viridis sampled at nine evenly spaced points, 0 → 1 (colour.js's VIRIDIS).
VIRIDIS = ((68, 1, 84), (71, 45, 123), (59, 82, 139), (44, 114, 142), (33, 145, 140),
           (40, 174, 128), (94, 201, 98), (173, 220, 48), (253, 231, 37))
DARK_TEXT, LIGHT_TEXT = (0, 0, 0), (255, 255, 255)


def page_colour(name: str) -> tuple[int, int, int]:
    """The RGB of the style sheet's ``--name`` in its light scheme (the first ``:root``
    block), which a slide's white page shares."""
    css = (settings.FILES / "static/css/app.css").read_text(encoding="utf-8")
    light = css[css.index(":root {"):]
    light = light[:light.index("}")]
    found = re.search(rf"--{re.escape(name)}:\s*#([0-9a-fA-F]{{6}})\s*;", light)
    if found is None:
        raise LookupError(f"static/css/app.css's :root block has no six-digit --{name}")
    return tuple(int(found[1][i:i + 2], 16) for i in (0, 2, 4))


ACCENT = page_colour("accent")  # the selected row's outline
HATCH, HATCH_BG = page_colour("hatch"), page_colour("hatch-bg")  # a masked cell


def weight_rgb(w: float) -> tuple[int, int, int]:
    """The colour of weight ``w`` (clamped to [0, 1]): 0 is viridis' light yellow end, 1 its
    dark purple end, linear in RGB between the nine stops."""
    t = 1 - min(1.0, max(0.0, w))
    pos = t * (len(VIRIDIS) - 1)
    i = min(len(VIRIDIS) - 2, int(pos))
    f = pos - i
    # JavaScript's Math.round: halves go up (Python's round goes to even).
    return tuple(int(c + f * (d - c) + 0.5) for c, d in zip(VIRIDIS[i], VIRIDIS[i + 1],
                                                              strict=True))


def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def lin(c: float) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = rgb
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def _contrast(a, b) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def text_rgb(background) -> tuple[int, int, int]:
    """Dark or light text, whichever contrasts more with ``background``."""
    dark = _contrast(background, DARK_TEXT) >= _contrast(background, LIGHT_TEXT)
    return DARK_TEXT if dark else LIGHT_TEXT
