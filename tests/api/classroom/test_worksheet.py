"""POST /api/worksheet and ``attention-explorer worksheet`` (attention_api/classroom/worksheet.py,
worksheet_typst.py): a class set of worksheets and its key as PDF, their numbers read back
from the PDF's text and compared with an independent computation, and every bad input a
422 naming its field."""

import io
import json
import re
from collections import Counter

import pytest
from pypdf import PdfReader

from attention_api.classroom.worksheet import parse_seeds, seed_ranges
from attention_api.classroom.worksheet_typst import TITLES
from attention_api.cli.main import console
from attention_core.classroom.exercises import LEVELS
from tests.core.helpers import exercise_reference, exercise_value

NUMBER = re.compile(r"[−-]?\d+\.\d+")  # the working's numbers; the inputs are whole


def post(client, body):
    response = client.post("/api/worksheet", data=json.dumps(body),
                           content_type="application/json")
    return response


def pages(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


def as_shown(x: float, step: str) -> str:
    """As the page writes a number: 4 significant figures for e^s and Σ, else 3 decimals,
    with a true minus and never −0.000."""
    text = f"{x:#.4g}" if step in ("exp", "exp_sum") else f"{x:.3f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", "−")


def step_of(path: str) -> str:
    return "positional_encoding" if path.startswith("positional") else \
        re.search(r"working\.([a-z_]+)", path)[1]


@pytest.mark.parametrize("level", ["weights", "row", "heads"])
def test_a_class_set_of_30_and_its_key_hold_the_engines_numbers(client, level):
    seeds = list(range(100, 130))
    sheets = post(client, {"seeds": seeds, "level": level})
    keys = post(client, {"seeds": seeds, "level": level, "key": True})
    assert (sheets.status_code, keys.status_code) == (200, 200)
    assert sheets.mimetype == keys.mimetype == "application/pdf"
    assert keys.headers["Content-Disposition"] == \
        f'attachment; filename="key-{level}-100-129.pdf"'
    sheet_pages, key_pages = pages(sheets.data), pages(keys.data)
    assert len(sheet_pages) == len(key_pages) == 30
    for seed, sheet, key in zip(seeds, sheet_pages, key_pages, strict=True):
        # The seed and level on both, and what makes the set again.
        assert f"seed {seed} · level {level}" in sheet and f"seed {seed} · level {level}" in key
        assert f"attention-explorer worksheet --seeds 100-129 --level {level}" in sheet
        assert "Name:" in sheet and "answer key" in key and "Name:" not in key
        # What the key adds to the worksheet is exactly the blanks' numbers, computed
        # independently from the exercise's own request.
        asked = client.post("/api/exercise", json={"seed": seed, "level": level}).get_json()
        truth = exercise_reference(asked["request"])
        expected = Counter(as_shown(exercise_value(truth, p), step_of(p)) for p in asked["blanks"])
        added = Counter(NUMBER.findall(key)) - Counter(NUMBER.findall(sheet))
        assert added == expected, seed


def test_the_typst_source_is_sent_as_text_and_makes_the_same_pages(client):
    source = post(client, {"seeds": [17], "level": "dots", "format": "typ"})
    assert source.status_code == 200
    assert source.mimetype == "text/plain"
    assert source.headers["Content-Disposition"] == \
        'attachment; filename="worksheet-dots-17.typ"'
    text = source.get_data(as_text=True)
    assert text.startswith("#set document(") and "seed 17 · level dots" in text
    import typst
    pdf = typst.compile(text.encode(), format="pdf", ignore_system_fonts=True)
    assert pages(pdf) == pages(post(client, {"seeds": [17], "level": "dots"}).data)


def own(tokens):
    return {"tokens": tokens, "X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 0], [0, 1]],
            "W_K": [[1, 0], [0, 1]], "W_V": [[2, 0], [0, 1]], "row": 1}


HOSTILE = ['#import "/etc/passwd"', r"\input{/etc/passwd}", "}{"]


@pytest.mark.parametrize("fmt", ["pdf", "typ"])
def test_an_example_of_ones_own_prints_its_labels_as_text(client, fmt):
    answer = post(client, {"request": own(HOSTILE), "level": "weights", "key": True,
                           "format": fmt})
    assert answer.status_code == 200
    assert answer.headers["Content-Disposition"] == \
        f'attachment; filename="key-weights-own.{fmt}"'
    if fmt == "pdf":
        text = pages(answer.data)[0]
        assert f"1 {HOSTILE[0]}" in text and f"2 {HOSTILE[1]}" in text and "3 }{" in text
        assert f"Query 2 · “{HOSTILE[1]}”" in text
        assert "an example of one's own · level weights" in text
    else:  # each label only inside string literals, its quote and backslash escaped
        text = answer.get_data(as_text=True)
        assert '"#import \\"/etc/passwd\\""' in text and '"\\\\input{/etc/passwd}"' in text
        assert text.count("/etc/passwd") == text.count('\\"/etc/passwd\\"') + \
            text.count("\\\\input{/etc/passwd}")


@pytest.mark.parametrize(("body", "field", "says"), [
    ({"seeds": [1, -1], "level": "row"}, "seeds[1]", "got -1"),
    ({"seeds": [1, 1_000_000], "level": "row"}, "seeds[1]", "999999"),
    ({"seeds": [1.5], "level": "row"}, "seeds[0]", "1.5"),
    ({"seeds": "1-3", "level": "row"}, "seeds", 'the string "1-3"'),
    ({"seeds": [], "level": "row"}, "seeds", "1 to 100 seeds"),
    ({"seeds": list(range(101)), "level": "row"}, "seeds", "at most 100 worksheets at once"),
    ({"seeds": [1], "level": "rows"}, "level", "'rows'"),
    ({"seeds": [1]}, "level", "level is missing"),
    ({"seeds": [1], "level": "row", "key": "yes"}, "key", 'the string "yes"'),
    ({"seeds": [1], "level": "row", "format": "svg"}, "format", 'the string "svg"'),
    ({"level": "row"}, "seeds", "one of the two"),
    ({"seeds": [1], "request": own(["a", "b", "c"]), "level": "row"}, "seeds", "one of the two"),
    ({"seeds": [1], "level": "row", "pages": 2}, "pages", 'Unknown field "pages". The fields are'),
    ({"request": own(["a", "b", "c"]), "level": "heads"}, "level", "example of your own"),
    ({"request": {**own(["a", "b", "c"]), "X": [[1, 0], [0, "x"], [1, 1]]}, "level": "row"},
     "request.X[1][1]", "x"),
])
def test_bad_input_is_a_422_naming_the_field(client, body, field, says):
    answer = post(client, body)
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["field"] == field
    assert says in error["message"]


def test_a_body_that_is_not_json_or_not_an_object(client):
    answer = client.post("/api/worksheet", data="{", content_type="application/json")
    assert answer.status_code == 400
    answer = client.post("/api/worksheet", data="[1]", content_type="application/json")
    assert answer.status_code == 422 and "JSON object" in answer.get_json()["error"]["message"]


def test_every_level_has_a_typeset_title():
    assert set(TITLES) == set(LEVELS)


@pytest.mark.parametrize(("text", "seeds"), [
    ("17", [17]), ("1-3", [1, 2, 3]), ("1-3,9, 11-12", [1, 2, 3, 9, 11, 12]), ("5-5", [5]),
])
def test_the_command_lines_seeds(text, seeds):
    assert parse_seeds(text) == seeds
    assert parse_seeds(seed_ranges(seeds)) == seeds


@pytest.mark.parametrize(("text", "says"), [
    ("1-x", "got '1-x'"), ("3-1", "runs backwards"), ("1-200", "at most 100"), ("", "got ''"),
])
def test_the_command_lines_bad_seeds(text, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        parse_seeds(text)


def test_the_command_writes_the_worksheets_and_with_key_their_key(tmp_path, capsys):
    assert console(["worksheet", "--seeds", "1-3", "--level", "z", "--key",
                    "--out", str(tmp_path)]) == 0
    written = capsys.readouterr().out.split()
    assert written == [str(tmp_path / "worksheet-z-1-3.pdf"), str(tmp_path / "key-z-1-3.pdf")]
    sheet, key = (pages((tmp_path / name).read_bytes()) for name in
                  ("worksheet-z-1-3.pdf", "key-z-1-3.pdf"))
    assert [p.count("seed ") for p in sheet] == [1, 1, 1]
    assert "attention-explorer worksheet --seeds 1-3 --level z --key" in key[2]
    assert console(["worksheet", "--seeds", "2", "--format", "typ", "--out",
                    str(tmp_path)]) == 0
    assert (tmp_path / "worksheet-weights-2.typ").read_text().startswith("#set document(")


def test_the_command_says_what_is_wrong_and_exits_2(tmp_path, capsys):
    assert console(["worksheet", "--seeds", "999999-1000000"]) == 2
    assert "seeds[1]" in capsys.readouterr().err
    assert console(["worksheet", "--seeds", "3", "--out", str(tmp_path / "none")]) == 2
    assert "cannot write" in capsys.readouterr().err


def largest_seed(level: str, seeds=range(40)) -> int:
    """The seed, of the first 40, of the level's largest exercise: most tokens, then the
    widest X and W (4 tokens, d_model 3 and d_k 4 at most: exercises.TOKENS, D_MODEL, D_K)."""
    from attention_core.classroom.exercises import exercise
    size = {s: (len(e.tokens), e.X.shape[1], e.heads[0]["W_Q"].shape[1])
            for s in seeds for e in [exercise(s, level)]}
    return max(size, key=size.get)


@pytest.mark.parametrize("level", LEVELS)
def test_each_worksheet_and_key_is_one_page_at_the_levels_largest(client, level):
    seed = largest_seed(level)
    for key in (False, True):
        answer = post(client, {"seeds": [seed], "level": level, "key": key})
        assert answer.status_code == 200
        assert len(pages(answer.data)) == 1, (level, seed, key)


def text_sizes(pdf: bytes) -> list[tuple[str, float]]:
    """Each piece of the first page's text with its size in pt, as the PDF sets it (the
    font's size scaled by the text and current matrices); maths sets a minus apart from
    its number, and here it is joined to it again."""
    out = []

    def piece(text, cm, tm, font, size):
        if text.strip():
            out.append((text.strip(), size * tm[3] * cm[3]))
        if len(out) > 1 and out[-2][0] == "−" and out[-1][0] != "−":
            out[-2:] = [("−" + out[-1][0], out[-1][1])]
    PdfReader(io.BytesIO(pdf)).pages[0].extract_text(visitor_text=piece)
    return out


@pytest.mark.parametrize(("level", "seed"), [("heads", 3), ("positions", 14)])
def test_the_weight_matrices_are_set_at_the_body_size(client, level, seed):
    """Every entry of X, W_Q, W_K, W_V (and W_O) is printed at 10.5 pt, the body text's
    size: inline maths would set the matrices' entries at 7.35 pt."""
    asked = client.post("/api/exercise", json={"seed": seed, "level": level})
    assert asked.status_code == 200
    body = asked.get_json()["request"]
    heads = body.get("heads") or [body]
    matrices = [body["X"], *(h[w] for h in heads for w in ("W_Q", "W_K", "W_V"))]
    matrices += [body["W_O"]] if "W_O" in body else []
    entries = Counter(str(int(x)) for m in matrices for r in m for x in r)
    answer = post(client, {"seeds": [seed], "level": level})
    assert answer.status_code == 200
    whole = re.compile(r"[−-]?\d+")
    at_body_size = Counter(t.replace("−", "-") for t, size in text_sizes(answer.data)
                           if whole.fullmatch(t) and abs(size - 10.5) < 0.01)
    assert entries - at_body_size == Counter()


@pytest.mark.parametrize("level", ["positions", "unscaled", "causal", "heads"])
def test_the_notes_maths_is_typeset(client, level):
    """d_k, d_model, √, 10000^(…) and −∞ in the notes are typst maths, not plain text: no
    "d_k" or "^(" reaches the PDF's text, and no string literal of the source holds them."""
    seed = largest_seed(level)
    for key in (False, True):
        pdf = post(client, {"seeds": [seed], "level": level, "key": key})
        source = post(client, {"seeds": [seed], "level": level, "key": key, "format": "typ"})
        assert (pdf.status_code, source.status_code) == (200, 200)
        text = pages(pdf.data)[0]
        assert [s for s in ("d_k", "d_model", "^(", "√d") if s in text] == []
        strings = re.findall(r'"((?:[^"\\]|\\.)*)"', source.get_data(as_text=True))
        assert [s for s in strings if re.search(r"d_k|d_model|√|−∞|\^\(", s)] == []
    notes = source.get_data(as_text=True)
    assert "$d_k$" in notes if level != "unscaled" else "$sqrt(d_k)$" in notes
    if level == "positions":
        assert '$sin(p \\/ 10000^(2c \\/ d_"model"))$' in notes
    if level == "causal":
        assert "$-infinity$" in notes


def test_the_scaled_scores_heading_is_on_one_line_at_the_body_size(client):
    """s_j = q_i·k_j / √d_k with a slash: a fraction in a table's heading would set q·k at
    7.35 pt. Seed 13 of "mask": query 2, d_k = 4."""
    source = post(client, {"seeds": [13], "level": "mask", "format": "typ"})
    assert source.status_code == 200
    assert "[$s_j = q_2 dot k_j \\/ sqrt(4)$]" in source.get_data(as_text=True)
