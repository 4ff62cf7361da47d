"""The command line (attention_api.cli.main): python -m attention_core and attention-explorer."""

import json
import subprocess
import sys

import pytest

from attention_api.cli.main import main


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "attention_core", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_default_example_prints_weights_outputs_and_working():
    p = run("--row", "2")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    for line in ("  the  0.446  0.108  0.446", "  cat  0.164  0.164  0.673",
                 "  sat  0.187  0.045  0.768", "  the  0.892  1.108", "  sat  0.955  1.627"):
        assert line in out
    assert "e^2.828 = 16.919" in out and "sum = 90.623" in out
    assert "a_3,3 (sat) = 69.591 / 90.623 = 0.768" in out
    assert "= (0.955, 1.627)" in out


def test_causal_flag_and_latex(capsys):
    assert main(["--causal", "--row", "1", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert "1.414 & -\\infty & -\\infty" in out
    assert "0.500 & 0.500 & 0.000" in out
    assert "a_{2,1} &= 4.113 / 8.227 = 0.500" in out
    assert "\\begin{align*}" in out


def test_json_format_reads_a_request_file(tmp_path, capsys):
    f = tmp_path / "req.json"
    f.write_text(json.dumps({"X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 0], [1, 2]],
                             "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]], "row": 0}))
    assert main([str(f), "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [round(x, 3) for x in body["weights"][0]] == [0.446, 0.108, 0.446]
    assert body["working"]["row"] == 0


def test_bad_request_file_names_the_field(tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('{"X": [[1, "a"]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}')
    p = run(str(f))
    assert p.returncode == 2
    assert p.stderr.startswith("error (field X[0][1]): X row 1 column 2 must be a number")


def test_a_lone_surrogate_in_a_label_is_named_not_printed(tmp_path):
    # A terminal cannot be written half a UTF-16 pair: the message spells it as its escape.
    f = tmp_path / "lone.json"
    f.write_text('{"tokens": ["\\ud800"], "X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}')
    p = run(str(f))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith('error (field tokens[0]): Token 1 label is "\\ud800": its '
                               "character 1, \\ud800, is a lone UTF-16 surrogate")


@pytest.mark.parametrize("stdin, words", [("{", "not valid JSON"), ("[]", "JSON object")])
def test_bad_stdin_is_reported_not_raised(stdin, words):
    p = run("-", stdin=stdin)
    assert p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr


def test_missing_file_is_reported():
    p = run("/nonexistent/req.json")
    assert p.returncode == 2 and "cannot read" in p.stderr


def test_json_format_equals_the_api_answer(tmp_path, capsys, client):
    """Two serialisers (orjson in the HTTP layer, json in the CLI) give the same JSON."""
    req = {"tokens": ["a", "b", "c"], "X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 0], [1, 2]],
           "W_K": [[900, 0], [0, 1]], "W_V": [[1, 0], [0, 2]], "causal": True, "row": 2,
           "scale": 1}
    f = tmp_path / "req.json"
    f.write_text(json.dumps(req))
    assert main([str(f), "--format", "json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    r = client.post("/api/attention", json=req)
    assert r.status_code == 200
    assert from_cli == json.loads(r.get_data(as_text=True))
    assert from_cli["working"]["exp_overflow"] is True and from_cli["working"]["exp_sum"] is None


def test_scaling_lab_table(capsys):
    assert main(["--scaling-lab", "--samples", "20000", "--seed", "1"]) == 0
    rows = {int(line.split()[0]): line.split() for line in capsys.readouterr().out.splitlines()
            if line.strip() and line.split()[0].isdigit()}
    assert sorted(rows) == [1, 4, 16, 64, 256, 1024]
    assert rows[4][1] == "0.8808" and rows[64][1] == "0.9997" and rows[1024][1] == "1.0000"
    assert all(r[2] == "0.731" for r in rows.values())
    for d_k, r in rows.items():
        assert abs(float(r[3]) / d_k - 1) < 0.06 and abs(float(r[4]) - 1) < 0.06


def test_scaling_lab_refuses_a_bad_sample_size():
    p = run("--scaling-lab", "--samples", "5")
    assert p.returncode == 2 and "--samples must be from 100 to 100000" in p.stderr


def test_multi_head_cross_attention_with_positions_from_a_file(tmp_path, capsys):
    req = {"tokens": ["a", "b"], "X": [[1, 0], [0, 1]],
           "heads": [{"W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1], [0]]},
                     {"W_Q": [[0, 1], [1, 0]], "W_K": [[1, 0], [0, 1]], "W_V": [[0], [1]]}],
           "W_O": [[1, 0], [0, 1]], "X_kv": [[1, 1], [0, 1], [2, 0]], "tokens_kv": ["x", "y", "z"],
           "causal": True, "row": 1}
    f = tmp_path / "mh.json"
    f.write_text(json.dumps(req))
    assert main([str(f), "--positional"]) == 0
    out = capsys.readouterr().out
    for heading in ("X_kv (keys and values)", "PE, sinusoidal positions", "head 1: A = softmax",
                    "head 2: Z = A·V", "Concat(Z_1, Z_2)  (2×2)", "Output = Concat·W_O", "Head 2"):
        assert heading in out, heading
    assert "…" not in out  # two heads are both written out
    assert "a_2,3 (z) = 0 (masked)" in out  # causal, aligned top left: query 2 reads keys 1, 2
    assert "Entropy of the weights" in out


def test_attention_explorer_compute_is_the_worksheet_command(capsys):
    from attention_api.cli.main import console
    assert console(["compute", "--row", "2"]) == 0
    out = capsys.readouterr().out
    assert main(["--row", "2"]) == 0
    assert out == capsys.readouterr().out and "  sat  0.187  0.045  0.768" in out


def test_attention_explorer_serve_runs_the_app_on_host_and_port(monkeypatch):
    import flask

    from attention_api.cli.main import console
    served = []
    monkeypatch.setattr(flask.Flask, "run", lambda app, **kw: served.append((app.name, kw)))
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.delenv("ATTENTION_DEBUG", raising=False)
    assert console(["serve"]) == 0
    assert served == [("app", {"host": "0.0.0.0", "port": 8123, "debug": False})]


def test_attention_explorer_needs_a_subcommand(capsys):
    from attention_api.cli.main import console
    with pytest.raises(SystemExit) as exit_:
        console([])
    assert exit_.value.code == 2 and "serve,compute" in capsys.readouterr().err


# ---- the options of the newer variants ---------------------------------------------------

WIDE = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
        "W_Q": [[1, 0, 1, 0], [0, 1, 0, 1]], "W_K": [[1, 0, 1, 0], [0, 1, 0, 1]],
        "W_V": [[1, 0], [0, 1]]}  # d_k = 4: two pairs for RoPE


def test_positional_rope_turns_q_and_k(capsys):
    # q_3 = (2, 2) at position 2, turned by 2 rad: (2cos2 − 2sin2, 2sin2 + 2cos2).
    assert main(["--positional", "rope", "--row", "2"]) == 0
    out = capsys.readouterr().out
    assert "q_3 before rotation = x_3·W_Q = (2.000, 2.000)\n" in out
    assert "q_3 = (-2.651, 0.986)\n" in out
    assert "  k_2 (cat) at p_2 = 1, angles (1.000): (0.000, 1.000) turns to (-0.841, 0.540)" in out
    assert "sinusoidal" not in out


def test_rope_base_and_position_offset_options(tmp_path, capsys):
    # θ = 100, offset 5: query 3 at p = 7; pair c = 1 turns by 7·100^(−2/4) = 0.7 rad.
    f = tmp_path / "wide.json"
    f.write_text(json.dumps(WIDE))
    assert main([str(f), "--positional", "rope", "--rope-base", "100", "--position-offset", "5",
                 "--row", "2"]) == 0
    out = capsys.readouterr().out
    assert "RoPE, θ = 100: query 3 is at position p_3 = 7;" in out
    assert "  c = 1, components 3 and 4: angle 7·100^(-2/4) = 0.700 rad;" in out
    assert "  k_1 (the) at p_1 = 5, angles (5.000, 0.500):" in out


def test_positional_alibi_in_latex(capsys):
    # One head: the paper's slope 2^−8; s_3,1 = 4/√2 − 2·2^−8 = 2.8206.
    assert main(["--positional", "alibi", "--row", "2", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert ("s_{3,1} = 4.000 \\times 0.707 - 0.00390625 \\cdot |3 - 1| = 2.828 - 0.008 = 2.821"
            in out)
    assert "\\[ B_{\\text{ALiBi}} = -0.00390625 \\, |i - j| = \\begin{pmatrix}" in out


def test_window_and_sinks_options_win_over_the_file(tmp_path, capsys):
    f = tmp_path / "windowed.json"
    f.write_text(json.dumps({**WIDE, "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]],
                             "window": 3, "sinks": 0, "row": 0}))
    assert main([str(f), "--window", "1", "--sinks", "1", "--row", "2"]) == 0
    out = capsys.readouterr().out
    assert ("Readable keys: |3 - j| < 1 (the window), or j ≤ 1 (the sink):\n"
            "  k_1 (the): |3 - 1| = 2 ≥ 1, a sink  →  readable\n"
            "  k_2 (cat): |3 - 2| = 1 ≥ 1  →  not readable: outside the window\n"
            "  k_3 (sat): |3 - 3| = 0 < 1  →  readable\n") in out
    # a_3,1 = 1 / (1 + e^(6/√2 − 4/√2)) = 1 / (1 + e^√2)
    assert "  a_3,1 (the) = 16.919 / 86.510 = 0.196" in out


def test_window_and_rope_options_in_json(capsys):
    assert main(["--positional", "rope", "--window", "2", "--row", "2", "--format", "json"]) == 0
    working = json.loads(capsys.readouterr().out)["working"]
    assert working["position"] == 2 and working["positions_k"] == [0, 1, 2]
    assert working["window"] == 2 and working["in_window"] == [False, True, True]
    assert working["allowed"] == [False, True, True]


def test_positional_alone_before_the_file_still_means_sinusoidal(tmp_path, capsys):
    f = tmp_path / "req.json"
    f.write_text(json.dumps(WIDE))
    assert main(["--positional", str(f)]) == 0
    out = capsys.readouterr().out
    # PE rows: (sin 0, cos 0), (sin 1, cos 1), (sin 2, cos 2)
    assert ("PE, sinusoidal positions (added to X)  (3×2)\n  the   0.000   1.000\n"
            "  cat   0.841   0.540\n  sat   0.909  -0.416\n") in out


@pytest.mark.parametrize("args, message", [
    (["--window", "0"], "error (field window): window must be a whole number from 1 to "
                        "1,000,000 (query i reads key j only when |i − j| < window), got 0"),
    (["--window", "1.5"], "error (field window): window must be a whole number"),
    (["--window", "abc"], "error (field window): window must be a whole number from 1 to "
                          "1,000,000 (query i reads key j only when |i − j| < window), got the "
                          'string "abc"'),
    (["--sinks", "-1"], "error (field sinks): sinks must be a whole number from 0 to 1,000,000"),
    (["--rope-base", "100"], 'error (field rope_base): rope_base goes with "positional": "rope"; '
                             "this request has no positional"),
    (["--positional", "rope", "--rope-base", "0"],
     "error (field rope_base): rope_base (θ) must be a positive number, got 0"),
    (["--positional", "rope", "--rope-base", "1e999"],
     "error (field rope_base): rope_base is a number too large for float64"),
    (["--positional", "foo"], 'error (field positional): positional must be null, "sinusoidal", '
                              '"rope" or "alibi", got the string "foo"'),
    (["--positional", "alibi", "--position-offset", "2"],
     'error (field position_offset): position_offset goes with "positional": "sinusoidal" or '
     '"rope"'),
    (["--positional", "rope", "--position-offset", "-1"],
     "error (field position_offset): position_offset must be a whole number from 0"),
])
def test_bad_option_values_are_refused_by_the_request_validation(capsys, args, message):
    assert main([*args, "--row", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message), captured.err
    assert captured.out == ""


def test_a_bad_option_exits_the_process_with_status_2():
    p = run("--positional", "rope", "--window", "0")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("error (field window): window must be a whole number")


def test_the_guides_example_of_the_options(capsys):
    """docs/engine-and-cli.md shows part of this command's output; it must be what it prints."""
    from pathlib import Path
    guide = (Path(__file__).resolve().parents[3] / "docs/engine-and-cli.md").read_text()
    command = ".venv/bin/python -m attention_core --positional rope --window 2 --sinks 1 " \
              "--causal --row 2"
    after = guide[guide.index(command):]
    shown = after[after.index("```text\n") + 8:]
    shown = shown[:shown.index("```")].rstrip("\n").split("\n")
    assert main(command.split()[3:]) == 0
    out = capsys.readouterr().out
    for part in "\n".join(shown).split("\n…\n"):
        assert part in out, part
