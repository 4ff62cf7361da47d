"""The weights' colours, for what the server draws (slides): the page's scale, viridis reversed
(light = low), with dark or light text, whichever contrasts more. The same numbers as
static/js/lib/colour.js, which the browser draws with; tests/api/test_colours.py runs that
module in node and checks the two agree at every weight it tries."""

from __future__ import annotations

# matplotlib's viridis sampled at nine evenly spaced points, 0 → 1 (colour.js's VIRIDIS).
VIRIDIS = ((68, 1, 84), (71, 45, 123), (59, 82, 139), (44, 114, 142), (33, 145, 140),
           (40, 174, 128), (94, 201, 98), (173, 220, 48), (253, 231, 37))
DARK_TEXT, LIGHT_TEXT = (0, 0, 0), (255, 255, 255)
ACCENT = (180, 65, 15)  # the page's accent (--accent): the selected row's outline
HATCH, HATCH_BG = (201, 198, 189), (239, 237, 231)  # a masked cell (--hatch, --hatch-bg)


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
