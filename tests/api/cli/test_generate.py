"""attention-explorer generate (attention_api/cli/generate.py): the trace of a generation
with a key/value cache, its numbers those of the causal default example worked by hand."""

import json

from attention_api.cli.main import console
from attention_core import default_request


def test_the_default_example_step_by_step(capsys):
    """Causal "the cat sat": token 2 reads keys 1 and 2 equally (q_2·k_1 = q_2·k_2 = 2),
    token 3 has the page's row 3, 0.187, 0.045, 0.768."""
    assert console(["generate"]) == 0
    out = capsys.readouterr().out.split("\n\n")
    assert out[0] == "Generation with a key/value cache, head 1 of 1"
    assert out[2].splitlines() == [
        "Step 2: token 2 'cat' reads 2 keys", "  weights = (0.500, 0.500)",
        "  z = (0.500, 1.000)", "  2 dot products (4 to compute every row again)",
        "  cache: 2 tokens, 8 numbers, 64 bytes"]
    assert out[3].splitlines()[1] == "  weights = (0.187, 0.045, 0.768)"


def test_a_window_reads_fewer_keys_and_bad_input_exits_2(tmp_path, capsys):
    request = tmp_path / "window.json"
    request.write_text(json.dumps({**default_request(), "window": 2}))
    assert console(["generate", str(request)]) == 0
    assert "Step 3: token 3 'sat' reads 2 of 3 keys" in capsys.readouterr().out
    assert console(["generate", "--head", "2"]) == 2
    assert "error (field head): head must be a whole number from 0 to 0" in \
        capsys.readouterr().err
    assert console(["generate", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
