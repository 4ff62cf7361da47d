"""The project's shape: the README's two commands and CI in step, the README a short front
door to docs/, every link of them leading somewhere, and the packages importing only what
the README says they may."""

import ast
import math
import re
import sys
from pathlib import Path

from tests.api.helpers import close, docs_requests, guide_requests, ok

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/engine-and-cli.md", "docs/http-api.md", "docs/front-end.md", "docs/operations.md")


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
    paths = sorted((ROOT / "attention_core").rglob("*.py"))
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


def test_the_readme_is_short_and_links_each_document():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 170
    for doc in DOCS:
        assert f"]({doc})" in readme, doc
    assert "](docs/screenshot.png)" in readme


def relative_links(path: Path) -> list[str]:
    """The targets of ``path``'s Markdown links and images that are not URLs nor anchors."""
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", path.read_text())
    return [t for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def test_the_link_reader_sees_relative_links_only(tmp_path):
    f = tmp_path / "a.md"
    f.write_text("[a](docs/x.md) ![b](p.png \"t\") [c](https://x.org/) [d](#top) [e](../y.md#z)\n")
    assert relative_links(f) == ["docs/x.md", "p.png", "../y.md#z"]


def test_every_relative_link_of_the_readme_and_the_docs_leads_to_a_file():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert len(pages) >= 1 + len(DOCS)
    seen = 0
    for page in pages:
        for target in relative_links(page):
            assert (page.parent / target.split("#")[0]).exists(), (page.name, target)
            seen += 1
    assert seen >= 2 * len(DOCS)  # not vacuous: the README's links and the docs' own


def test_operations_documents_every_setting_the_server_reads():
    sources = [ROOT / "settings.py", ROOT / "app.py", ROOT / "gunicorn.conf.py",
               ROOT / "Dockerfile", *(ROOT / "scripts").iterdir(),
               *(ROOT / "attention_server").glob("*.py")]
    read = {v for path in sources for v in re.findall(r"ATTENTION_[A-Z_]+", path.read_text())}
    assert {"ATTENTION_WORKERS", "ATTENTION_MAX_HEADS", "ATTENTION_DEBUG"} <= read
    rows = re.findall(r"^\| `([A-Z_]+)`", (ROOT / "docs/operations.md").read_text(), re.M)
    assert read <= set(rows), read - set(rows)


# The arrows the README's "The packages" draws: which of the project's own packages each
# may import. app: only attention_api.cli.main's `serve`, inside the function (app imports
# attention_api at its top).
ARROWS = {
    "attention_core": set(),  # its __main__ apart: see the test above
    "attention_models": {"attention_core"},
    "attention_api": {"attention_core", "attention_models", "settings", "app"},
    "attention_server": {"attention_api", "attention_models", "settings", "app"},
    "app": {"attention_api", "attention_models", "settings"},
    "settings": set(),  # the standard library only: gunicorn.conf reads it before numpy
    "gunicorn.conf": {"attention_server", "settings"},
}


def test_each_python_package_imports_only_the_packages_its_arrows_allow():
    ours = {name for name in ARROWS if name != "gunicorn.conf"}
    for name, allowed in ARROWS.items():
        folder = ROOT / name
        paths = sorted(folder.rglob("*.py")) if folder.is_dir() else [ROOT / f"{name}.py"]
        assert paths and all(p.exists() for p in paths), name
        for path in paths:
            used = {m for m, level in imported_modules(path) if level == 0 and m in ours} - {name}
            if path.name == "__main__.py" and name == "attention_core":
                used -= {"attention_api"}
            assert used <= allowed, (path, used - allowed)


JS = ROOT / "static/js"
# Each part of the editor, in a sub-folder of editor/, reads the page's state, request and
# status from editor/ itself, whose main.js wires every part around the store.
EDITOR_PARTS = ("inputs", "results", "walk", "lessons", "lab", "export", "running", "modelhead")
PART = {"lib", "draw", "editor"}
# Folder → the folders (or single modules) its modules may import from. The editor reads one
# module of the real-model view, the fragment of a model's head (model/state.js's
# fragmentOf), and the practice page typesets its maths with draw/tex.js. A part of the
# editor reads another's module only where it draws or names what that one owns: the inputs
# name a model's head they came from, the results draw the walk and the lab, the lessons and
# the steppers ask for the fields the results draw, the walk says the projections' roles.
JS_ARROWS = {
    "lib": {"lib"}, "draw": {"lib", "draw"}, "model": {"lib", "draw", "model"},
    "practise": {"lib", "practise", "draw/tex.js"},
    "editor": PART | {f"editor/{part}" for part in EDITOR_PARTS} | {"model/state.js"},
    "editor/inputs": PART | {"editor/inputs", "editor/modelhead/source.js"},
    "editor/results": PART | {"editor/results", "editor/walk/walk.js", "editor/lab/lab.js"},
    "editor/walk": PART | {"editor/walk", "editor/inputs/roles.js"},
    "editor/lessons": PART | {"editor/lessons", "editor/results/results.js"},
    "editor/lab": PART | {"editor/lab"},
    "editor/export": PART | {"editor/export"},
    "editor/running": PART | {"editor/running", "editor/results/results.js"},
    "editor/modelhead": PART | {"editor/modelhead", "model/state.js"},
}


def js_folders() -> list[str]:
    """Every folder of static/js/ that holds a module, as "editor/inputs"."""
    return sorted({p.parent.relative_to(JS).as_posix() for p in JS.rglob("*.js")})


def test_each_front_end_folder_imports_only_what_its_arrows_allow():
    assert js_folders() == sorted(JS_ARROWS)
    seen = 0
    for folder, allowed in JS_ARROWS.items():
        modules = sorted((JS / folder).glob("*.js"))
        assert len(modules) >= 3, folder
        for module in modules:
            for spec in re.findall(r'(?:from|import)\s*\(?\s*"([^"]+)"', module.read_text()):
                target = (module.parent / spec).resolve().relative_to(JS).as_posix()
                assert target.rsplit("/", 1)[0] in allowed or target in allowed, (module, spec)
                seen += 1
    assert seen > 300  # not vacuous: the imports were read


def test_the_arrows_refuse_an_import_they_do_not_draw():
    """A part of the editor may not import another part's module unless its arrow names it,
    nor the real-model view the editor: the rule reads a target's whole folder."""
    def allowed(folder, target):
        return target.rsplit("/", 1)[0] in JS_ARROWS[folder] or target in JS_ARROWS[folder]
    assert allowed("editor/inputs", "editor/state.js")
    assert allowed("editor/results", "editor/walk/walk.js")
    assert not allowed("editor/results", "editor/walk/walkkeys.js")
    assert not allowed("editor/lab", "editor/export/export.js")
    assert not allowed("model", "editor/state.js")
    assert not allowed("editor/inputs", "model/view.js")


def test_the_guides_name_every_module():
    """docs/engine-and-cli.md maps every Python module, docs/front-end.md every module of
    static/js/, as the README's guides say."""
    python = (ROOT / "docs/engine-and-cli.md").read_text()
    modules = [p for name in ARROWS if (ROOT / name).is_dir()
               for p in sorted((ROOT / name).rglob("*.py")) if p.name != "__init__.py"]
    assert len(modules) > 40
    # A module of a package's top by its name, one in a feature's folder by its path there
    # ("`attention/request.py`"): the name alone is the same in several folders.
    named = {p: f"`{p.stem}`" if p.parent.name in ARROWS else
             f"`{p.parent.name}/{p.name}`" for p in modules}
    assert [p for p in modules if named[p] not in python] == []
    front = (ROOT / "docs/front-end.md").read_text()
    scripts = sorted(JS.rglob("*.js"))
    assert len(scripts) > 80
    assert [p for p in scripts if f"`{p.name}`" not in front] == []


NEW_FIELDS = ("b_Q", "positional", "kv_heads", "window")  # one in each new example



def test_the_guide_and_the_docs_page_give_the_same_example_of_each_new_field(client):
    guide = [b for b in guide_requests() if any(f in b for f in NEW_FIELDS)]
    docs = [b for b in docs_requests(client) if any(f in b for f in NEW_FIELDS)]
    assert guide == docs and len(guide) == 5
    assert [sorted(set(b) & {"b_Q", "positional", "kv_heads", "window", "sinks"})
            for b in guide] == [["b_Q"], ["positional"], ["positional"], ["kv_heads"],
                                 ["sinks", "window"]]


def test_every_documented_example_computes(client):
    answers = [ok(client, body) for body in [*guide_requests(), *docs_requests(client)]]
    assert len(answers) == 6 + 6
    biases, rope, alibi, kv, window = answers[1:6]
    assert biases["working"]["q"] == [2, 0]  # x_1·W_Q + b_Q = (1, 0) + (1, 0)
    close(rope["Q"][0], [math.cos(5), math.sin(5)])  # q_1 = (1, 0) at position 5
    assert alibi["bias"][2] == [-1, -0.5, 0]
    assert [h["kv_head"] for h in kv["heads"]] == [0, 0]
    # Token 4 reads its window (tokens 3, 4) and the sink, token 1.
    assert window["working"]["allowed"] == [True, False, True, True]
