"""A server started as a person starts it, by one command in a process of its own, for the
tests that run what the README and the Dockerfile give: the image's CMD, `bash scripts/run`,
`attention-explorer serve`."""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str, timeout: float = 30) -> tuple[int, str, bytes]:
    """(status, media type, body) of a GET on loopback; an error status is an answer too."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, r.headers.get_content_type(), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get_content_type(), e.read()


def post(port: int, path: str, body: dict) -> tuple[int, dict]:
    """(status, JSON body) of a JSON POST on loopback; an error status is an answer too."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Served:
    """``command`` run in ``cwd`` with exactly ``env`` (whose PORT it serves on loopback),
    its output in ``logs``/stdout.log and stderr.log; up once /health answers 200.

    ``with Served(...) as server:`` stops it at the end; ``stop()`` gives the exit status.
    """

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str], logs: Path,
                 start_seconds: float = 30, stop_seconds: float = 5):
        self.command, self.env, self.port = command, env, int(env["PORT"])
        self.stop_seconds = stop_seconds
        self.stdout_path, self.stderr_path = logs / "stdout.log", logs / "stderr.log"
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            # A session of its own: a command that starts children (a shell script) is
            # stopped with all of them if it will not stop by itself.
            self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err,
                                            start_new_session=True)
        self._wait_until_up(start_seconds)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def logs(self) -> str:
        return (self.stdout_path.read_text(errors="replace")
                + self.stderr_path.read_text(errors="replace"))

    def _wait_until_up(self, seconds: float):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"{self.command} exited with {self.process.returncode}:\n"
                            f"{self.logs()}")
            try:
                if get(self.port, "/health", timeout=1)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        pytest.fail(f"{self.command}: no answer on port {self.port} within {seconds} s:\n"
                    f"{self.logs()}")

    def stop(self) -> int:
        """SIGTERM, then the exit status; SIGKILL to its session (and a failure) if it takes
        longer than stop_seconds."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=self.stop_seconds)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            pytest.fail(f"{self.command} did not stop within {self.stop_seconds} s of SIGTERM")
