"""attention-explorer exercise and check (attention_api/cli/exercise.py)."""

import json

import pytest

from attention_api.cli.main import console
from tests.core.helpers import exercise_reference, exercise_value


def test_exercise_prints_the_inputs_the_row_and_the_blanks_without_their_numbers(capsys):
    assert console(["exercise", "--seed", "17", "--level", "weights"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Exercise: seed 17, level weights (the weights")
    assert "W_Q =\n" in text and "X (one row per token) =\n" in text
    assert text.rstrip().endswith("working.weights[3]")
    assert "." not in "".join(text.split("working.weights")[1:]).replace("working", "")
    assert console(["exercise", "--seed", "17", "--level", "weights", "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["blanks"] == [f"working.weights[{j}]" for j in range(4)]
    assert f"for query {body['row'] + 1} ('{body['request']['tokens'][body['row']]}')" in text


def test_check_prints_right_wrong_and_the_hint_and_exits_1_when_one_is_wrong(tmp_path, capsys):
    console(["exercise", "--seed", "3", "--level", "exp", "--format", "json"])
    body = json.loads(capsys.readouterr().out)
    truth = exercise_reference(body["request"])
    exps = {p: exercise_value(truth, p) for p in body["blanks"]}
    first, last = body["blanks"][0], body["blanks"][-1]  # working.exp[0], working.exp_sum
    answers = tmp_path / "answers.json"
    wrong = round(exps[last] + 5, 2)
    answers.write_text(json.dumps({"seed": 3, "level": "exp", "answers": {
        first: float(f"{exps[first]:.4g}"), last: wrong}}))
    assert console(["check", str(answers)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"right  {first}"
    assert out[1] == f"wrong  {last}"
    assert out[2].strip().startswith(f"Your {wrong:#.4g} ")  # 4 figures, as the page
    assert out[3] == f"1 of 2 answered right; {len(exps) - 2} of {len(exps)} blanks not answered."
    answers.write_text(json.dumps({"seed": 3, "level": "exp", "answers": {
        first: float(f"{exps[first]:.4g}")}}))
    assert console(["check", str(answers)]) == 0


@pytest.mark.parametrize("content, words", [
    ('{"seed": 3, "level": "exp", "answers": {"working.exp[0]": true}}',
     'error (field answers["working.exp[0]"]): answers["working.exp[0]"] must be a number; '
     "got true"),
    ('{"seed": 3, "level": "exp"', "error: "),
    ('{"seed": -1, "level": "exp", "answers": {}}', "error (field seed): seed must be a whole"),
])
def test_a_bad_answers_file_prints_the_field_and_exits_2(tmp_path, capsys, content, words):
    answers = tmp_path / "answers.json"
    answers.write_text(content)
    assert console(["check", str(answers)]) == 2
    assert capsys.readouterr().err.startswith(words)
    assert console(["check", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_python_m_attention_api_is_the_command():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "attention_api", "exercise", "--seed", "2",
                          "--level", "z"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Exercise: seed 2, level z")
    assert out.stdout.rstrip().endswith("working.z[1]")
