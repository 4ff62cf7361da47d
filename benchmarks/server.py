"""The production server for the benchmarks: the Dockerfile's CMD (nginx in front of
gunicorn, attention_server/serve.py) on a loopback port.

With ``baseline=True`` it serves, beside the app, the browser benchmark's baseline page
(benchmarks/baseline/) under BASELINE_PATH: the same command and settings, with the app
wrapped by ``create_app_with_baseline``. Also reads what the benchmarks report about its
processes from /proc: gunicorn's worker pids, resident memory, CPU time.
"""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The Dockerfile is read by the deployment tests' parser, so the two cannot disagree.
from tests.served import free_port
from tests.serving.test_deploy import arguments, exec_form

BASELINE_DIR = Path(__file__).resolve().parent / "baseline"
BASELINE_PATH = "/benchmark-baseline/"  # no path of the app's starts so
TICKS = os.sysconf("SC_CLK_TCK")  # /proc/<pid>/stat counts CPU time in these


def dockerfile_cmd() -> list[str]:
    """The JSON CMD of the Dockerfile, so the benchmark serves exactly what the image does."""
    return exec_form(arguments("CMD")[-1])


def health(port: int, timeout: float = 1, prefix: str = "") -> int:
    """The status of /health (under ``prefix``, the server's SCRIPT_NAME)."""
    url = f"http://127.0.0.1:{port}{prefix}/health"
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status


def create_app_with_baseline():
    """The app, with the files of benchmarks/baseline/ answered under BASELINE_PATH.

    A WSGI wrapper rather than a route: the app itself is left exactly as it is served.
    """
    from app import create_app
    app = create_app()
    types = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8"}

    def serve(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(BASELINE_PATH):
            return app(environ, start_response)
        name = path[len(BASELINE_PATH):] or "index.html"
        file = BASELINE_DIR / name
        if "/" in name or file.suffix not in types or not file.is_file():
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [f"no baseline file {name!r}".encode()]
        body = file.read_bytes()
        start_response("200 OK", [("Content-Type", types[file.suffix]),
                                  ("Content-Length", str(len(body))),
                                  ("Cache-Control", "no-store")])
        return [body]

    serve.config = app.config  # the server reads the app's body limit from it
    return serve


class Production:
    """``with Production(log_dir) as server:`` runs the server until the block ends."""

    def __init__(self, log_dir: Path, env: dict[str, str] | None = None, baseline: bool = False,
                 start_seconds: float = 120):
        self.port = free_port()
        # A ceiling, not a wait: loading the models took 20 s on a busy machine, and up to
        # 55 s while the test suite's other worker (pytest-xdist) shared its two cores.
        self.start_seconds = start_seconds
        self.log_path = log_dir / "server.log"  # nginx's and gunicorn's output together
        self.env = {**os.environ, **(env or {}), "HOST": "127.0.0.1", "PORT": str(self.port)}
        cmd = dockerfile_cmd()
        if baseline:
            assert cmd[-2:] == ["-m", "attention_server.serve"], f"the Dockerfile's CMD: {cmd}"
            cmd = [*cmd, "benchmarks.server:create_app_with_baseline()"]
        self.command = [str(Path(sys.executable).parent / cmd[0]), *cmd[1:]]
        self.process = None

    def __enter__(self):
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.start_seconds
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                up = health(self.port, prefix=self.env.get("SCRIPT_NAME", "")) == 200
                expected = self.expected_workers()
                if up and (not expected or len(self.workers()) >= expected):
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        self.__exit__()
        raise RuntimeError(f"the server did not come up on port {self.port} within "
                           f"{self.start_seconds:g} s; "
                           f"see {self.log_path}")

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def expected_workers(self) -> int:
        """gunicorn's workers; none for a balancer (ATTENTION_UPSTREAMS), nginx alone."""
        if self.env.get("ATTENTION_UPSTREAMS"):
            return 0
        return int(self.env.get("ATTENTION_WORKERS") or 2)

    def gunicorn(self) -> int:
        """The pid of gunicorn's master (nginx's master is the start script's other child)."""
        for pid in children(self.process.pid):
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"gunicorn" in f.read():
                    return pid
        raise RuntimeError("the server has no gunicorn process")

    def workers(self) -> list[int]:
        """Pids of gunicorn's live workers (a killed worker not yet reaped is left out)."""
        return children(self.gunicorn())

    def nginx(self) -> list[int]:
        """Pids of nginx's master and its workers."""
        masters = [pid for pid in children(self.process.pid) if pid != self.gunicorn()]
        return masters + [pid for m in masters for pid in children(m)]


def _stat(pid: int) -> list[str]:
    """Fields of /proc/<pid>/stat after the command name (field 3, the state, is [0])."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def _live_children() -> dict[int, list[int]]:
    """Every live process's pid under its parent's, read in one pass over /proc."""
    below: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                state, ppid = _stat(int(entry))[:2]
            except OSError:  # exited while we looked
                continue
            if state != "Z":
                below.setdefault(int(ppid), []).append(int(entry))
    return below


def children(parent: int) -> list[int]:
    return sorted(_live_children().get(parent, []))


def descendants(root: int) -> list[int]:
    """``root`` and every live process below it."""
    below = _live_children()
    pids = [root]
    for pid in pids:  # grows as it goes: each process's children after it
        pids += below.get(pid, [])
    return pids


def is_gone(pid: int) -> bool:
    """True once every thread of the process has exited, and so its sockets are closed.

    The main thread of a killed process can be a zombie while its other threads are
    still exiting, holding the sockets: hence the count of threads.
    """
    try:
        return _stat(pid)[0] in ("Z", "X") and len(os.listdir(f"/proc/{pid}/task")) <= 1
    except OSError:  # reaped
        return True


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024  # the line reads "VmRSS:  12345 kB"
    raise RuntimeError(f"/proc/{pid}/status has no VmRSS line")


def pss_bytes(pid: int) -> int:
    """The process's proportional set size: each page it shares with k processes counts
    1/k. Summed over the master and its workers, the models' pages (loaded once in the
    master, shared by every worker) count once, where a sum of RSS counts them in each."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/{pid}/smaps_rollup has no Pss line")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of the process so far."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime: fields 14 and 15
