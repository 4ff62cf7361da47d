"""The project's shape: the README's two commands and CI in step, the core numpy only."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_gives_exactly_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    fences = readme.split("```sh\n")[1:3]
    assert [f.split("\n")[0] for f in fences] == ["bash scripts/run", "bash scripts/test"]
    assert "exec bash scripts/test" in (ROOT / ".ci/run").read_text()


def imported_modules(path: Path) -> list[tuple[str, int]]:
    """(top-level module, level) of every import in ``path``; level > 0 is relative."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name.split(".")[0], 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append(((node.module or "").split(".")[0], node.level))
    return out


def test_core_imports_numpy_the_standard_library_and_itself_only():
    allowed = {"numpy", *sys.stdlib_module_names}
    paths = sorted((ROOT / "attention_core").glob("*.py"))
    assert len(paths) >= 8  # not vacuous: the core was found
    for path in paths:
        for module, level in imported_modules(path):
            if level > 0 or module in allowed:
                continue
            # python -m attention_core hands over to the request format's command line.
            assert path.name == "__main__.py" and module == "attention_api", (path, module)


def test_the_import_check_sees_every_form_of_import(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import os.path, flask\nfrom . import engine\nfrom werkzeug.x import y\n"
                 "def f():\n    import orjson\n")
    assert imported_modules(f) == [("os", 0), ("flask", 0), ("", 1), ("werkzeug", 0),
                                   ("orjson", 0)]
