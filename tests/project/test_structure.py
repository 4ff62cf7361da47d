"""The code's shape: attention_api in folders by feature, each importing only the features
below it (the arrows of docs/engine-and-cli.md), no import circle between the project's
modules, no folder of the Python packages, their tests or the front end (static/js) with more
than 15 modules, and the tests in the folders of what they test, a file named for each module."""

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "attention_api"
PACKAGES = ("attention_core", "attention_models", "attention_api", "attention_server")
JS = ROOT / "static/js"
MOST_MODULES = 15  # in one folder: beyond that a newcomer cannot see what is where

# Each feature package of attention_api → the feature packages it may import ("" is the
# package's own modules at its top: values and names, which every feature reads).
FEATURES = {
    "": set(),
    "web": {""},
    "typesetting": set(),
    "attention": {"", "web"},
    "running": {"", "web", "attention"},
    "classroom": {"", "web", "attention", "typesetting"},
    "real_models": {"", "web", "attention", "classroom", "running"},
    "cli": {"", "attention", "classroom", "running"},
    "pages": {"", "web", "attention", "classroom", "running", "real_models"},
}


def module_name(path: Path) -> str:
    """"attention_api.attention.request" for attention_api/attention/request.py."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The modules of the project ``path`` imports, relative imports resolved, as dotted
    names ("from . import lab" in attention/routes.py is attention_api.attention.lab)."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            stem = ".".join([*base, *([node.module] if node.module else [])])
            # "from . import lab" names a module; "from .request import Limits" a name in one.
            out |= {f"{stem}.{alias.name}" for alias in node.names} | {stem}
    return out


def graph_of(paths) -> dict[str, set[str]]:
    """The modules at ``paths`` → those of them each imports. The packages' faces are left
    out: each __init__ describes its folder, and __main__ only hands ``python -m`` to the
    command line."""
    modules = {module_name(p): p for p in paths if p.name not in ("__init__.py", "__main__.py")}
    return {name: {m for m in imports_of(path) if m in modules and m != name}
            for name, path in modules.items()}


def api_graph() -> dict[str, set[str]]:
    """attention_api's modules → the modules of attention_api each imports."""
    return graph_of(API.rglob("*.py"))


def project_graph() -> dict[str, set[str]]:
    """Every module of the project's packages, app.py and settings.py → those it imports."""
    return graph_of([*(p for name in PACKAGES for p in (ROOT / name).rglob("*.py")),
                     ROOT / "app.py", ROOT / "settings.py"])


def feature_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else ""


def test_the_import_reader_resolves_relative_imports():
    graph = api_graph()
    assert "attention_api.attention.lab" in graph["attention_api.attention.routes"]
    assert "attention_api.values" in graph["attention_api.web.body"]
    assert "attention_api.attention.request" in graph["attention_api.classroom.exercise"]


def test_every_feature_imports_only_the_features_below_it():
    graph = api_graph()
    assert {feature_of(m) for m in graph} == set(FEATURES)
    for module, imported in graph.items():
        for target in imported:
            assert feature_of(target) in FEATURES[feature_of(module)] | {feature_of(module)}, (
                module, target)


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """The first import circle of ``graph`` (module → the modules it imports), as the
    modules along it with the first repeated at the end, or None."""
    done, path = set(), []

    def visit(module):
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        found = next((c for target in sorted(graph[module]) if (c := visit(target))), None)
        path.pop()
        done.add(module)
        return found

    return next((c for module in sorted(graph) if (c := visit(module))), None)


def test_the_circle_finder_finds_a_circle_and_nothing_else():
    assert circle({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]
    assert circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_module_of_the_project_is_in_an_import_circle():
    graph = project_graph()
    assert sum(map(len, graph.values())) > 150  # not vacuous: the imports were read
    assert "attention_core.classroom.exercises" in graph["attention_api.classroom.exercise"]
    assert circle(graph) is None


def test_no_folder_of_the_python_packages_holds_more_than_15_modules():
    folders = [p.parent for name in PACKAGES for p in (ROOT / name).rglob("__init__.py")]
    assert len(folders) >= 12  # not vacuous: the packages and their sub-packages
    for folder in folders:
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        assert len(modules) <= MOST_MODULES, (folder.relative_to(ROOT), len(modules))


# The tests of each package, in the folders of the package they test.
MIRRORS = {"tests/core": "attention_core", "tests/api": "attention_api",
           "tests/models": "attention_models"}


def module_tested(test: Path, tests: Path, package: Path) -> Path | None:
    """The module that ``test`` is named for at the mirrored path: test_tiles.py in
    tests/api/running/ tests attention_api/running/tiles.py; a name may add an aspect
    after the module's (test_answer_fields_pinned.py: answer_fields.py, its answers pinned)."""
    folder = package / test.parent.relative_to(tests)
    words = test.stem.removeprefix("test_").split("_")
    for end in range(len(words), 0, -1):
        module = folder / f"{'_'.join(words[:end])}.py"
        if module.exists():
            return module
    return None


def test_the_tested_module_is_found_from_the_test_s_path():
    tests, package = ROOT / "tests/api", ROOT / "attention_api"
    assert module_tested(tests / "running/test_tiles.py", tests, package) == \
        package / "running/tiles.py"
    assert module_tested(tests / "attention/test_answer_fields_pinned.py", tests, package) == \
        package / "attention/answer_fields.py"
    assert module_tested(tests / "running/test_request.py", tests, package) is None


def test_each_python_test_file_is_named_for_a_module_at_the_mirrored_path():
    found = 0
    for tests, package in MIRRORS.items():
        for test in sorted((ROOT / tests).rglob("test_*.py")):
            assert module_tested(test, ROOT / tests, ROOT / package) is not None, \
                test.relative_to(ROOT)
            found += 1
    assert found > 50  # not vacuous


def test_no_folder_of_the_python_tests_holds_more_than_15_modules():
    folders = [p.parent for p in (ROOT / "tests").rglob("__init__.py")]
    assert len(folders) >= 15
    for folder in folders:
        modules = [p for p in folder.glob("*.py") if p.name not in ("__init__.py", "conftest.py")]
        assert len(modules) <= MOST_MODULES, (folder.relative_to(ROOT), len(modules))


def js_folders() -> dict[Path, int]:
    """Every folder of static/js, sub-folders included, → how many modules it holds."""
    folders = [JS, *(p for p in JS.rglob("*") if p.is_dir())]
    return {folder: len(list(folder.glob("*.js"))) for folder in folders}


def test_no_folder_of_the_front_end_holds_more_than_15_modules():
    folders = js_folders()
    assert len(folders) >= 10 and sum(folders.values()) > 80  # not vacuous: the modules were found
    assert max(folders.values()) >= MOST_MODULES - 5  # and counted, not each found empty
    for folder, count in folders.items():
        assert count <= MOST_MODULES, (folder.relative_to(ROOT).as_posix(), count)


def test_pip_install_takes_every_folder_of_the_front_end():
    """setuptools' data-files take one folder's files a line, not its sub-folders: each
    folder that holds modules has its line in pyproject.toml."""
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "data-files"]
    for folder, count in js_folders().items():
        if count:
            name = folder.relative_to(ROOT).as_posix()
            assert data_files.get(f"share/attention-explorer/{name}") == [f"{name}/*.js"], name


TESTS_JS = ROOT / "tests/js"
# Shared by the node tests, imported by relative path; each is named for no module.
JS_TEST_HELPERS = {"fakedom.mjs", "numberformat.mjs"}


def unmirrored(tests: Path, js: Path) -> list[str]:
    """The files under ``tests`` that break the mirror of ``js``: a test file
    (``editor/export/export.test.mjs``) whose module (``editor/export/export.js``) is not
    at the same path, or that does not import it; anything else but the helpers at the top."""
    out = []
    for path in sorted(p for p in tests.rglob("*") if p.is_file()):
        name = path.relative_to(tests).as_posix()
        if name in JS_TEST_HELPERS:
            continue
        if not name.endswith(".test.mjs"):
            out.append(name)
            continue
        module = js / name.removesuffix(".test.mjs")
        module = module.with_name(module.name + ".js")
        imported = {(path.parent / spec).resolve() for spec in
                    re.findall(r'(?:from|import)\s*\(?\s*"(\.[^"]+)"', path.read_text())}
        if not module.is_file() or module.resolve() not in imported:
            out.append(name)
    return out


def test_the_mirror_check_finds_a_test_file_that_drifted(tmp_path):
    js, tests = tmp_path / "js", tmp_path / "tests"
    (js / "lib").mkdir(parents=True)
    (js / "lib/words.js").write_text("")
    (tests / "lib").mkdir(parents=True)
    (tests / "fakedom.mjs").write_text("")
    (tests / "lib/words.test.mjs").write_text('import { x } from "../../js/lib/words.js";\n')
    assert unmirrored(tests, js) == []
    # Not mirrored: words.js is in lib/.
    (tests / "words.test.mjs").write_text('import { x } from "../js/lib/words.js";\n')
    (tests / "lib/colour.test.mjs").write_text("")  # no such module
    (tests / "lib/util.mjs").write_text("")  # a helper away from the top
    (tests / "lib/later.test.mjs").write_text('import "../../js/lib/words.js";\n')
    (js / "lib/later.js").write_text("")  # there, but its test imports another
    assert unmirrored(tests, js) == ["lib/colour.test.mjs", "lib/later.test.mjs", "lib/util.mjs",
                                     "words.test.mjs"]


def test_every_node_test_file_is_named_for_the_module_it_tests_at_the_same_path():
    tests = list(TESTS_JS.rglob("*.test.mjs"))
    assert len(tests) > 60 and {p.parent for p in tests} > {TESTS_JS / "lib", TESTS_JS / "draw"}
    assert {p.name for p in TESTS_JS.iterdir() if p.is_file()} == JS_TEST_HELPERS
    assert unmirrored(TESTS_JS, JS) == []
