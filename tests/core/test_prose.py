"""Prose with maths (attention_core/prose.py): the markup's plain text, written out here by
hand, and its words escaped as the page's tex.js reads them; its numbers printed as the
page's own formatter (static/js/lib/format.js, run in node) prints them."""

import json
import math
import random
import struct
import subprocess
from pathlib import Path

import pytest

from attention_core.prose import (
    FIXED_LIMIT,
    MINUS,
    NUMBER_FORMAT,
    number,
    page_number,
    plain,
    words,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("markup, text", [
    ("$q \\cdot k_{1}$ itself", "q·k₁ itself"),
    ("by $\\sqrt{d_k}$, $\\sqrt{2} = 1.414$", "by √d_k, √2 = 1.414"),
    ("$e^{s_{3}}$ and $e^{s}$", "e^s₃ and e^s"),
    ("$e^{q \\cdot k}$ or $e^{q \\cdot k / d_k}$", "e^(q·k) or e^(q·k / d_k)"),
    ("$e^{-\\infty} = 0$, $e^{-s}$, $e^{-1.414}$", "e^−∞ = 0, e^−s, e^−1.414"),
    ("$e^{s_{1} - \\max s}$", "e^(s₁ − max s)"),
    ("$\\Sigma e^{s}$, $\\sum_j a_j \\cdot v_j[2]$", "Σ e^s, Σ_j a_j·v_j[2]"),
    ("$x \\cdot W_Q$ and $d_k = 2$", "x·W_Q and d_k = 2"),
    ("$\\sin(p / 10000^{2c/d_{\\text{model}}})$", "sin(p / 10000^(2c/d_model))"),
    ("$s_j = q_{2} \\cdot k_j \\div \\sqrt{2}$", "s_j = q₂·k_j ÷ √2"),
    ("costs \\$5, a \\\\ and $$", "costs $5, a \\ and $$"),
])
def test_the_plain_text_of_prose(markup, text):
    assert plain(markup) == text


def test_words_with_dollars_and_backslashes_stay_words_on_the_page_too():
    """words() escapes as tex.js's proseText does; proseParts reads them back as words."""
    quoted = f"key 1 (“{words('a$b')}”) and “{words('c')}” over $\\sqrt{{2}}$"
    assert plain(quoted) == "key 1 (“a$b”) and “c” over √2"
    script = ("import { proseParts } from './static/js/draw/tex.js';"
              "console.log(JSON.stringify(proseParts(process.argv[1])));")
    out = subprocess.run(["node", "--input-type=module", "-e", script, quoted],
                         cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == [{"text": "key 1 (“a$b”) and “c” over "},
                                      {"tex": "\\sqrt{2}"}]


# --- numbers -------------------------------------------------------------------------------
def edge_numbers() -> list[float]:
    """Zeros, the smallest and largest floats, both sides of FIXED_LIMIT (and of its rounding),
    exact ties at 0, 3 and 6 decimals and at 4 significant figures (2.5, 0.0625, 106250,
    19925), either sign."""
    xs = [0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-20, 6.25e-7, 1e-7, 9.99e-7,
          1e-6, 0.0004, 0.0005, 0.0015, 0.0625, 0.1875, 0.3125, 0.5, 1.0, 1.0005, 2.0625, 2.5,
          16.925, 123.4565, 1234.5, 9999.5, 12345.5, 19925.0, 19935.0, 99995.0, 99999.0,
          99999.999, 99999.9994, 99999.9995, 99999.9996, FIXED_LIMIT - 0.0005, FIXED_LIMIT,
          100000.4, 106250.0, 1062500.0, 123456789.0, 485165195.4, 1e20, 1.2346e20, 1e21,
          1e22, 1.7976931348623157e308]
    xs += [c * 2.0 ** k for k in range(-12, 24) for c in (1, 1.25, 1.5)]
    xs += [10.0 ** k for k in range(-12, 24)] + [m / 2000 for m in range(1, 80)]
    return xs + [-x for x in xs]


def sample_numbers(n: int = 3000, seed: int = 20261207) -> list[float]:
    """A seeded sample: small and large magnitudes, short decimals, exact binary fractions
    (whose halves are ties), any bit pattern, and numbers around FIXED_LIMIT."""
    rng = random.Random(seed)
    draws = [lambda: rng.uniform(-10, 10),
             lambda: rng.choice([-1, 1]) * 10 ** rng.uniform(-9, 12),
             lambda: round(rng.uniform(-1000, 1000), rng.randint(0, 5)),
             lambda: rng.randint(-2**20, 2**20) / 2 ** rng.randint(0, 16),
             lambda: struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0],
             lambda: rng.choice([-1, 1]) * rng.uniform(FIXED_LIMIT - 10, FIXED_LIMIT + 10)]
    xs = [draws[rng.randrange(len(draws))]() for _ in range(n)]
    return [x for x in xs if math.isfinite(x)]


def pages_formats(xs: list[float]) -> list[list[str]]:
    """What the page's modules print for each x, given the number format the server sends:
    formatNumber at 3, 0 and 6 decimals, texNumber, and sigText for |x| (e^s and their sums,
    never negative)."""
    script = ("import { number } from './static/js/lib/config.js';"
              "import { formatNumber, texNumber } from './static/js/lib/format.js';"
              "import { sigText } from './static/js/draw/workingtex.js';"
              "import { readFileSync } from 'node:fs';"
              "const { format, xs } = JSON.parse(readFileSync(0, 'utf8'));"
              "Object.assign(number, format);"
              "console.log(JSON.stringify(xs.map((x) => [formatNumber(x), formatNumber(x, 0),"
              " formatNumber(x, 6), texNumber(x), sigText(Math.abs(x))])));")
    out = subprocess.run(["node", "--input-type=module", "-e", script],
                         input=json.dumps({"format": NUMBER_FORMAT, "xs": xs}), cwd=ROOT,
                         capture_output=True, text=True, check=True, timeout=60)
    return json.loads(out.stdout)


def test_the_page_and_the_worksheets_print_every_number_alike():
    xs = edge_numbers() + sample_numbers()
    assert len(xs) > 3000 and -0.0 in xs and 0.0625 in xs
    ours = [[page_number(x), page_number(x, 0), page_number(x, 6), number(x, latex=True),
             page_number(abs(x), figures=True)] for x in xs]
    pages = pages_formats(xs)
    differ = [(x, p, o) for x, p, o in zip(xs, pages, ours, strict=True) if p != o]
    assert differ == []


@pytest.mark.parametrize("x, text, page, figures", [
    (0.0625, "0.063", "0.063", "0.06250"),  # a tie rounds away from zero, as toFixed does
    (-0.0625, "-0.063", MINUS + "0.063", MINUS + "0.06250"),
    (-0.0004, "0.000", "0.000", MINUS + "0.0004000"),  # never "-0.000"
    (2.5, "2.500", "2.500", "2.500"),
    (19925.0, "19925.000", "19925.000", "19930"),
    (99999.9996, "1.000×10⁵", "1.000×10⁵", "100000"),  # to 4 figures, below FIXED_LIMIT
    (-485165195.4, "-4.852×10⁸", MINUS + "4.852×10⁸", MINUS + "4.852×10⁸"),
    (1e-7, "0.000", "0.000", "1.000×10⁻⁷"),
    (0.0, "0.000", "0.000", "0"),
    (-math.inf, "-inf", MINUS + "∞", MINUS + "∞"),
])
def test_a_number_as_text_on_the_page_and_to_four_figures(x, text, page, figures):
    assert number(x) == text
    assert page_number(x) == page
    assert page_number(x, figures=True) == figures


def test_the_node_tests_are_given_the_servers_number_format():
    """tests/js/numberformat.mjs fills config.js's number as the page config does."""
    script = ("import { number } from './static/js/lib/config.js';"
              "import './tests/js/numberformat.mjs';"
              "console.log(JSON.stringify(number));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT,
                         capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == NUMBER_FORMAT
