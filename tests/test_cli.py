"""The command line (attention_api.cli): python -m attention_core and attention-explorer."""

import json
import subprocess
import sys

import pytest

from attention_api.cli import main


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
                    "head 2: Z = A·V", "Concat(Z_1, …, Z_h)", "Output = Concat·W_O", "Head 2"):
        assert heading in out, heading
    assert "a_2,3 (z) = 0 (masked)" in out  # causal, aligned top left: query 2 reads keys 1, 2
    assert "Entropy of the weights" in out


def test_attention_explorer_compute_is_the_worksheet_command(capsys):
    from attention_api.cli import console
    assert console(["compute", "--row", "2"]) == 0
    out = capsys.readouterr().out
    assert main(["--row", "2"]) == 0
    assert out == capsys.readouterr().out and "  sat  0.187  0.045  0.768" in out


def test_attention_explorer_serve_runs_the_app_on_host_and_port(monkeypatch):
    import flask

    from attention_api.cli import console
    served = []
    monkeypatch.setattr(flask.Flask, "run", lambda app, **kw: served.append((app.name, kw)))
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.delenv("ATTENTION_DEBUG", raising=False)
    assert console(["serve"]) == 0
    assert served == [("app", {"host": "0.0.0.0", "port": 8123, "debug": False})]


def test_attention_explorer_needs_a_subcommand(capsys):
    from attention_api.cli import console
    with pytest.raises(SystemExit) as exit_:
        console([])
    assert exit_.value.code == 2 and "serve,compute" in capsys.readouterr().err
