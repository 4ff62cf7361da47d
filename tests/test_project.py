"""The README's two commands and CI stay in step."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_gives_exactly_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    fences = readme.split("```sh\n")[1:3]
    assert [f.split("\n")[0] for f in fences] == ["bash scripts/run", "bash scripts/test"]
    assert "exec bash scripts/test" in (ROOT / ".ci/run").read_text()


def test_core_imports_numpy_only():
    for path in (ROOT / "attention_core").glob("*.py"):
        text = path.read_text()
        assert "flask" not in text.lower(), path
