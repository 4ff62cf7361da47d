"""POST /api/slide (attention_api/classroom/slide.py, slide_typst.py): a head's heatmap and a row's
working as 1920 × 1080 PNG and as SVG, their colours and numbers those of an independent
computation (tests/reference.py), labels as text, and every bad input a 422 naming it."""

import json
import re
import struct

import numpy as np
import pytest

from attention_api.classroom.colours import weight_rgb
from attention_core import default_request
from tests.numbers import colours_near
from tests.reference import reference_attention

DEFAULT = {**default_request(), "row": 2}


def post(client, body):
    return client.post("/api/slide", data=json.dumps(body), content_type="application/json")


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", data[16:24])


def fills(svg: bytes) -> set[str]:
    return set(re.findall(r'fill="(#[0-9a-f]{6})"', svg.decode()))


def literals(source: bytes) -> list[str]:
    """Every typst string literal of a source, as written."""
    return re.findall(r'"((?:[^"\\]|\\.)*)"', source.decode())


def shown(x: float) -> str:
    text = f"{x:.3f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", "−")


@pytest.mark.parametrize("causal", [False, True])
def test_the_heatmap_slide_is_1920_by_1080_in_the_colours_of_the_weights(client, causal):
    request = {**DEFAULT, "causal": causal}
    ref = reference_attention(request["X"], request["W_Q"], request["W_K"], request["W_V"],
                              causal=causal)["weights"]
    png = post(client, {"request": request, "what": "heatmap"})
    assert (png.status_code, png.mimetype) == (200, "image/png")
    assert png.headers["Content-Disposition"] == \
        'attachment; filename="slide-heatmap-row3.png"'
    assert png_size(png.data) == (1920, 1080)
    svg = post(client, {"request": request, "what": "heatmap", "format": "svg"})
    assert (svg.status_code, svg.mimetype) == (200, "image/svg+xml")
    assert b'viewBox="0 0 960 540"' in svg.data
    allowed = [w for i, r in enumerate(ref) for j, w in enumerate(r) if not causal or j <= i]
    assert colours_near([weight_rgb(w) for w in allowed], fills(svg.data)) == []
    source = post(client, {"request": request, "what": "heatmap", "format": "typ"}).data
    written = literals(source)
    assert [shown(w) in written for w in allowed] == [True] * len(allowed)
    assert ("masked" in source.decode()) is True  # the swatch; and masked cells when causal
    assert source.decode().count("fill: masked)[]") == (3 if causal else 0)


def test_the_working_slide_writes_the_rows_numbers(client):
    ref = reference_attention(DEFAULT["X"], DEFAULT["W_Q"], DEFAULT["W_K"], DEFAULT["W_V"])
    png = post(client, {"request": DEFAULT, "what": "working"})
    assert png.status_code == 200 and png_size(png.data) == (1920, 1080)
    written = literals(post(client, {"request": DEFAULT, "what": "working",
                                     "format": "typ"}).data)
    q, scores, weights = ref["Q"][2], ref["scores"][2], ref["weights"][2]
    d_k = len(q)
    exps = [2.718281828459045 ** (s / d_k ** 0.5) for s in scores]
    expected = ([shown(x) for x in q] + [shown(s) for s in scores]
                + [shown(s / d_k ** 0.5) for s in scores] + [f"{e:#.4g}" for e in exps]
                + [f"{sum(exps):#.4g}"] + [shown(w) for w in weights]
                + [shown(z) for z in ref["output"][2]])
    assert [x in written for x in expected] == [True] * len(expected), expected
    assert "“sat”" in written  # the title's token


NUMBER = re.compile(r"[−-]?\d+\.\d+")


def numbers(text: str) -> list[float]:
    return [float(x.replace("−", "-")) for x in NUMBER.findall(text)]


def dot_terms(source: str) -> list[str]:
    """The working's q·kⱼ cells, key by key: "2.000·(−2.000) + 0.000·1.000 = −4.000" (in
    the source twice, once per layout: the first m are the one-line table's)."""
    return [t for t in literals(source.encode()) if "·" in t and " = " in t]


def value_rows(source: str) -> list[list[float]]:
    """The working's vⱼ cells, key by key, as numbers (the one-line table's first)."""
    return [numbers(row) for row in re.findall(r'#box\[\(((?:#"[^"]*"(?:, …)?(?:, )?)+)\)', source)]


def check_terms(cell: str, q, k, shown_terms: int):
    """One q·kⱼ cell against q and kⱼ computed in the test: its first ``shown_terms``
    products' factors, their count when shortened, and the sum, within 5e-4 (3 decimals)."""
    written = numbers(cell)
    assert len(written) == 2 * shown_terms + 1, cell
    pairs = [(q[c], k[c]) for c in range(shown_terms)]
    assert written[:-1] == pytest.approx([x for pair in pairs for x in pair], abs=5e-4)
    assert written[-1] == pytest.approx(float(np.dot(q, k)), abs=5e-4)
    assert (f"… ({len(q)} terms)" in cell) == (shown_terms < len(q))


@pytest.mark.parametrize(("n", "d", "causal"), [(3, 2, False), (5, 8, True), (16, 4, False)])
def test_the_working_slide_writes_each_dot_product_term_by_term_and_the_values(client, n, d,
                                                                               causal):
    """Each q·kⱼ as its sum of products with the numbers (a vector of more than 4 numbers
    by its first 3 terms and their count), and each vⱼ that z sums, against Q, K and V
    computed in the test."""
    row = 2 if causal else n - 1
    request = {**view(n, lambda i: f"w{i}", d), "causal": causal, "row": row}
    request["W_K"] = [[(r + 2 * c) % 3 - 1 for c in range(d)] for r in range(d)]
    request["W_V"] = [[(2 * r + c) % 5 - 2 for c in range(d)] for r in range(d)]
    answer = post(client, {"request": request, "what": "working", "format": "typ"})
    assert answer.status_code == 200
    source = answer.get_data(as_text=True)
    X = np.array(request["X"], float)
    q = (X @ np.array(request["W_Q"]))[row]
    K, V = X @ np.array(request["W_K"]), X @ np.array(request["W_V"])
    cells = dot_terms(source)
    assert len(cells) in (n, 2 * n)  # the one-line table, and the two-line one
    for j in range(n):
        check_terms(cells[j], q, K[j], d if d <= 4 else 3)
    rows = value_rows(source)[:n]
    for j in range(n):
        want = list(V[j]) if d <= 4 else [*V[j][:3], V[j][-1]]
        assert rows[j] == pytest.approx(want, abs=5e-4), j
    # A masked key (keys 4 and 5 of query 3) still shows its dot product; its weight is 0,
    # hatched, in each layout's table.
    assert source.count("fill: masked)[0]") == (2 * 2 if causal else 0)


def test_a_few_keys_write_z_as_its_sum_of_weighted_values(client):
    """Up to 4 keys: z₃ = 0.003·v₁ + 0.056·v₂ + 0.941·v₃ written with the numbers."""
    ref = reference_attention(DEFAULT["X"], DEFAULT["W_Q"], DEFAULT["W_K"], DEFAULT["W_V"])
    source = post(client, {"request": DEFAULT, "what": "working", "format": "typ"})
    assert source.status_code == 200
    text = source.get_data(as_text=True)
    mix = re.search(r"sum_j a_j v_j = \$ (.*)$", text, re.M)[1]
    terms = re.findall(r'#"([^"]*)·";\(([^)]*)\)', mix)
    assert len(terms) == 3
    for (a, v), weight, value in zip(terms, ref["weights"][2], ref["V"], strict=True):
        assert numbers(a) == pytest.approx([weight], abs=5e-4)
        assert numbers(v) == pytest.approx(list(value), abs=5e-4)
    assert numbers(mix.split(" = ")[-1]) == pytest.approx(list(ref["output"][2]), abs=5e-4)


def test_another_head_and_cross_attention(client):
    heads = [{"W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]},
             {"W_Q": [[2, 0], [0, 1]], "W_K": [[0, 1], [1, 0]], "W_V": [[1, 1], [0, 1]]}]
    request = {"tokens": ["a", "b", "c"], "X": [[1, 0], [0, 1], [1, 1]], "heads": heads,
               "W_O": [[1, 0], [0, 1], [1, 0], [0, 1]], "row": 0}
    svg = post(client, {"request": request, "what": "heatmap", "head": 1, "format": "svg"})
    assert svg.status_code == 200
    assert svg.headers["Content-Disposition"] == \
        'attachment; filename="slide-heatmap-row1-head2.svg"'
    ref = reference_attention(request["X"], *(heads[1][k] for k in ("W_Q", "W_K", "W_V")))
    assert colours_near([weight_rgb(w) for r in ref["weights"] for w in r], fills(svg.data)) == []
    cross = {**DEFAULT, "X_kv": [[1, 0], [0, 1], [2, 2], [1, 1]],
             "tokens_kv": ["le", "chat", "dort", "ici"]}
    source = post(client, {"request": cross, "what": "heatmap", "format": "typ"}).data.decode()
    assert all(f'"{t}"' in source for t in cross["tokens_kv"])
    assert "4 keys (cross-attention)" in source


HOSTILE = ['#import "/etc/passwd"', r"\input{/etc/passwd}", "}{"]


@pytest.mark.parametrize("fmt", ["png", "svg", "typ"])
@pytest.mark.parametrize("what", ["heatmap", "working"])
def test_labels_are_text_in_every_format(client, what, fmt):
    request = {**DEFAULT, "tokens": HOSTILE}
    answer = post(client, {"request": request, "what": what, "format": fmt})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    if fmt == "typ":  # outside its string literals, the source holds nothing of a label
        outside = re.sub(r'"(?:[^"\\]|\\.)*"', '""', answer.get_data(as_text=True))
        assert "passwd" not in outside and "input" not in outside and "}{" not in outside
        assert '"#import \\"/etc/passwd\\""' in answer.get_data(as_text=True)
    elif fmt == "png":
        assert png_size(answer.data) == (1920, 1080)
    else:
        assert answer.data.startswith(b"<svg")


@pytest.mark.parametrize(("body", "field", "says"), [
    ({"request": DEFAULT}, "what", "what must be heatmap or working; got nothing"),
    ({"request": DEFAULT, "what": "table"}, "what", '"table"'),
    ({"request": DEFAULT, "what": "heatmap", "format": "pdf"}, "format", "png or svg or typ"),
    ({"what": "heatmap"}, "request", "request is missing"),
    ({"request": DEFAULT, "what": "heatmap", "row": 3}, "row", "from 0 to 2"),
    ({"request": DEFAULT, "what": "heatmap", "row": True}, "row", "got true"),
    ({"request": DEFAULT, "what": "heatmap", "head": 1}, "head", "from 0 to 0"),
    ({"request": {**DEFAULT, "row": None}, "what": "working"}, "row", "row is missing"),
    ({"request": DEFAULT, "what": "heatmap", "size": 2}, "size",
     'Unknown field "size". The fields are'),
    ({"request": {**DEFAULT, "X": [[1, 0], [0, "x"], [1, 1]]}, "what": "heatmap"},
     "request.X[1][1]", "x"),
    ({"request": {"tokens": [f"t{i}" for i in range(65)], "X": [[1, 0]] * 65,
                  "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]},
      "what": "heatmap"}, "request", "at most 64 × 64 weights; this view has 65 × 65"),
    ({"request": {"tokens": [f"t{i}" for i in range(17)], "X": [[1, 0]] * 17,
                  "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]],
                  "row": 0}, "what": "working"}, "request", "at most 16 keys"),
])
def test_bad_input_is_a_422_naming_the_field(client, body, field, says):
    answer = post(client, body)
    assert answer.status_code == 422, answer.get_data(as_text=True)[:300]
    error = answer.get_json()["error"]
    assert error["field"] == field
    assert says in error["message"]


def view(n, label, d=2):
    """n tokens labelled ``label(i)``, d_model = d_k = d_v = d, its weights varied."""
    X = [[(i * 7 + c * 3) % 5 - 2 for c in range(d)] for i in range(n)]
    eye = [[1 if r == c else 0 for c in range(d)] for r in range(d)]
    return {"tokens": [label(i) for i in range(n)], "X": X, "W_Q": eye, "W_K": eye,
            "W_V": eye, "row": n - 1}


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 16, 24, 40, 64])
@pytest.mark.parametrize("label", ["short", "long"])
def test_every_slide_is_one_page(client, n, label):
    """Whatever the view's size and labels (up to the 64 characters a label may have), the
    slide is one page: nothing runs off it onto a second that a PNG would not show."""
    from io import BytesIO

    import typst
    from pypdf import PdfReader

    name = (lambda i: f"w{i}") if label == "short" else (lambda i: (f"{i}" + "ẅ" * 63)[:64])
    whats = ["heatmap", "working"] if n <= 16 else ["heatmap"]
    for what in whats:
        for d in (2, 4, 8, 64) if what == "working" else (2,):
            body = {"request": view(n, name, d), "what": what, "format": "typ"}
            source = post(client, body)
            assert source.status_code == 200, source.get_data(as_text=True)[:300]
            pdf = typst.compile(source.data, format="pdf", ignore_system_fonts=True)
            assert len(PdfReader(BytesIO(pdf)).pages) == 1, (n, label, what, d)


@pytest.mark.parametrize(("change", "formula", "s_j"), [
    ({}, 'softmax"(Q K^T \\/ sqrt(d_k))', "s_j = q_3 dot k_j \\/ sqrt(2)"),
    ({"scale": 1}, 'softmax"(Q K^T times 1)', "s_j = q_3 dot k_j times 1"),
    ({"positional": "alibi"}, 'softmax"(Q K^T \\/ sqrt(d_k) + B)',
     "s_j = q_3 dot k_j \\/ sqrt(2) - m abs(3 - j)"),
])
def test_the_formulas_say_what_the_view_computes(client, change, formula, s_j):
    request = {**DEFAULT, **change}
    heatmap = post(client, {"request": request, "what": "heatmap", "format": "typ"})
    working = post(client, {"request": request, "what": "working", "format": "typ"})
    assert formula in heatmap.get_data(as_text=True)
    assert s_j in working.get_data(as_text=True)


@pytest.mark.parametrize("sinks, about", [(1, "window 2, 1 sink"), (2, "window 2, 2 sinks")])
def test_the_slide_counts_its_sinks_in_words_that_agree(client, sinks, about):
    request = {**DEFAULT, "causal": True, "window": 2, "sinks": sinks}
    r = post(client, {"request": request, "what": "heatmap", "format": "typ"})
    assert r.status_code == 200
    assert f"3 tokens · causal mask · {about}\"]" in r.data.decode()
