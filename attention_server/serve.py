"""Serve Attention Explorer in production: nginx on HOST:PORT in front of gunicorn; or,
with ATTENTION_UPSTREAMS, nginx alone, balancing requests over app servers started so.

Run: python -m attention_server.serve [APP]     (APP defaults to "app:create_app()")

nginx reads every request whole and takes every answer whole, so slow and silent clients
cost it a connection, not one of gunicorn's threads; gunicorn (gunicorn.conf.py) listens
on a unix socket in a private directory, which nothing else can reach or collide with.
The two start together and stop together: on SIGTERM or SIGINT both stop gracefully,
and if either exits the other is stopped and this exits 1 saying which. It also exits 1,
at once and naming the address, if anything already listens at HOST:PORT.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from attention_server import startup
from settings import CLIENT_TIMEOUT, HOST, MAX_BODY_BYTES, PORT, upstreams

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # gunicorn.conf.py and app.py, in the repository and in the image
TEMPLATE = HERE / "nginx.conf"
STOP_SECONDS = 9  # gunicorn's graceful_timeout (8 s) and a second; Docker waits 10


class CannotStart(Exception):
    """The server cannot start; the message says why."""


# The signals asked of this process (SIGTERM, SIGINT), from the moment serve() starts.
ASKED: list[int] = []


def settings(env) -> dict[str, str]:
    """The values the nginx template needs, from the environment (read by settings.py,
    ATTENTION_MAX_BODY_BYTES as the app reads it too) and the app's security headers."""
    from attention_api.web.headers import SECURITY_HEADERS

    try:
        host = HOST.read(env)
        port = PORT.read(env)
        timeout = CLIENT_TIMEOUT.read(env)
        body_bytes = MAX_BODY_BYTES.read(env)
        balanced = upstreams_of(env)
    except ValueError as e:  # a setting that is not a number, or is out of its bounds
        raise CannotStart(str(e)) from None
    headers = " ".join(f'add_header {name} "{value}" always;'
                       for name, value in SECURITY_HEADERS.items())
    prefix = env.get("SCRIPT_NAME", "").rstrip("/")
    if not re.fullmatch(r"(/[A-Za-z0-9._~-]+)*", prefix):
        raise CannotStart(f"SCRIPT_NAME must be a path such as /explorer, got {prefix!r}")
    # This server's own gunicorn: @DIR@ is filled after this (start_nginx adds it last).
    servers = (" ".join(f"server {u} max_fails=1 fail_timeout=10s;" for u in balanced)
               or "server unix:@DIR@/gunicorn.sock;")
    return {"HOST": host, "PORT": str(port), "PREFIX": prefix,
            "LISTEN": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
            "CLIENT_TIMEOUT": f"{timeout:g}", "CLIENT_TIMEOUT_MS": str(round(timeout * 1000)),
            "MAX_BODY_BYTES": str(body_bytes),
            "SECURITY_HEADERS": headers,
            "UPSTREAM_SERVERS": servers, "UPSTREAM_TRIES": str(max(1, len(balanced)))}


def upstreams_of(env) -> list[str]:
    """ATTENTION_UPSTREAMS: the app servers a balancer spreads requests over, "host:port"
    separated by commas (a name may stand for several, as a compose service's does), or
    none: this server computes, with its own gunicorn."""
    try:
        return upstreams(env)
    except ValueError as e:
        raise CannotStart(str(e)) from None


def render(template: str, values: dict[str, str]) -> str:
    """``template`` with each @NAME@ replaced by values[NAME]; an unfilled one is an error."""
    for name, value in values.items():
        template = template.replace(f"@{name}@", value)
    left = re.findall(r"@[A-Z_]+@", template)
    if left:
        raise CannotStart(f"{TEMPLATE}: {', '.join(left)} left unfilled")
    return template


def nginx_executable() -> str:
    found = shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if not found:
        raise CannotStart("nginx is not installed: apt-get install nginx (bash scripts/run "
                          "installs it), or see docs/operations.md")
    return found


def wait_until(ready, process: subprocess.Popen, what: str, seconds: float) -> None:
    """Return once ``ready()``; raise CannotStart if ``process`` exits first or time is up."""
    deadline = time.monotonic() + seconds
    while not ready():
        if ASKED:
            raise CannotStart(f"stopped by signal {ASKED[0]} while {what} was starting")
        if process.poll() is not None:
            raise CannotStart(f"{what} exited with status {process.returncode} while starting "
                              f"(its message is above)")
        if time.monotonic() > deadline:
            raise CannotStart(f"{what} did not start within {seconds:g} s")
        time.sleep(0.05)


def accepts(path: Path) -> bool:
    """Whether a unix socket at ``path`` accepts a connection."""
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.connect(str(path))
        except OSError:
            return False
    return True


def copy_out(fd: int) -> None:
    """Copy what arrives on ``fd`` to this process's stdout until it closes."""
    while chunk := os.read(fd, 65536):
        os.write(sys.stdout.fileno(), chunk)


def start_nginx(folder: Path, values: dict[str, str]) -> subprocess.Popen:
    """nginx with the filled template; up once it has bound the port and written its pid."""
    conf = folder / "nginx.conf"
    conf.write_text(render(TEMPLATE.read_text(), {**values, "DIR": str(folder)}))
    # Its access log is /dev/stdout, which nginx opens anew: an unprivileged user may
    # not open the container's stdout by that path, but may open a pipe of its own,
    # which a thread copies to this process's stdout.
    process = subprocess.Popen([nginx_executable(), "-p", str(folder), "-e", "stderr",
                                "-c", str(conf)], process_group=0, stdout=subprocess.PIPE)
    threading.Thread(target=copy_out, args=(process.stdout.fileno(),), daemon=True).start()
    wait_until((folder / "nginx.pid").exists, process, "nginx", 20)
    return process


def start_gunicorn(folder: Path, app: str) -> subprocess.Popen:
    """gunicorn on the private socket; up once the socket accepts (the models are loaded)."""
    sock = folder / "gunicorn.sock"
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c",
                                str(ROOT / "gunicorn.conf.py"), "--bind", f"unix:{sock}", app],
                               process_group=0)
    # Loading both real models on a busy 2-core machine takes seconds, a cold disk more.
    wait_until(lambda: accepts(sock), process, "gunicorn", 300)
    return process


def stop(processes: dict[str, subprocess.Popen]) -> None:
    """Stop each gracefully (gunicorn: SIGTERM; nginx: SIGQUIT), then kill what is left.

    Each runs in a process group of its own (a terminal's Ctrl-C reaches only this
    process, which stops them in order), and the whole group is killed at the end: nginx's
    workers outlive a master that was killed, still holding the port."""
    graceful = {"gunicorn": signal.SIGTERM, "nginx": signal.SIGQUIT}
    for name, process in processes.items():
        if process.poll() is None:
            process.send_signal(graceful[name])
    deadline = time.monotonic() + STOP_SECONDS
    for process in processes.values():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def supervise(processes: dict[str, subprocess.Popen]) -> int:
    """Wait for SIGTERM or SIGINT (then 0) or for either process to exit (then 1)."""
    while not ASKED:
        for name, process in processes.items():
            if process.poll() is not None:
                print(f"Attention Explorer: {name} exited with status {process.returncode}; "
                      f"stopping the server.", file=sys.stderr, flush=True)
                return 1
        time.sleep(0.2)
    return 0


def serve(app: str = "app:create_app()") -> int:
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda n, _frame: ASKED.append(n))
    values = settings(os.environ)
    url = startup.url((values["HOST"], int(values["PORT"])))
    startup.check_free((values["HOST"], int(values["PORT"])))
    processes: dict[str, subprocess.Popen] = {}
    with tempfile.TemporaryDirectory(prefix="attention-explorer-") as name:
        folder = Path(name)
        if os.geteuid() == 0:
            # As root, nginx's workers run as nobody (its default user): the folder is
            # theirs, so they reach gunicorn's socket and their temporary files, and no
            # other user reaches gunicorn past nginx.
            nobody = pwd.getpwnam("nobody")
            os.chown(folder, nobody.pw_uid, nobody.pw_gid)
        try:
            processes["nginx"] = start_nginx(folder, values)
            balancing = upstreams_of(os.environ)
            if not balancing:
                processes["gunicorn"] = start_gunicorn(folder, app)
            how = (f"balancing over {', '.join(balancing)}" if balancing
                   else "nginx, in front of gunicorn")
            print(f"Attention Explorer listening at {url} ({how})", file=sys.stderr, flush=True)
            status = supervise(processes)
        except CannotStart as e:
            print(f"Attention Explorer cannot start at {url}: {e}", file=sys.stderr, flush=True)
            status = 1
        finally:
            stop(processes)
    return status


def main(argv: list[str]) -> int:
    try:
        return serve(*argv[:1])
    except (CannotStart, startup.AddressInUse) as e:
        print(e, file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
