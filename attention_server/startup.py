"""Starting: refuse an address that is already taken, and load the models before the fork.

``check_free`` tries the address once before anything starts, so that a port in use
stops the server at once with a sentence naming it (attention_server/serve.py), rather
than with nginx's own bind error after gunicorn has spent seconds loading the models.

gunicorn's master loads the real models before forking (``load_models``, from
gunicorn.conf.py): the workers then share their 0.6 GB of weights page for page, instead
of holding a copy each. It also makes the folder in which the workers share the runs of
those models (``make_runs_folder``, attention_api/real_models/shared_runs.py), removed on exit.
"""

from __future__ import annotations

import errno
import gc
import os
import shutil
import socket
import tempfile
from pathlib import Path


class AddressInUse(Exception):
    """The server cannot start; the message names the address."""

    def __init__(self, url: str):
        super().__init__(f"Cannot listen at {url}: another program, or another copy of this "
                         f"server, is listening there. Stop it, or choose another HOST or PORT.")


def url(address: tuple[str, int]) -> str:
    host, port = address[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def check_free(address: tuple[str, int]) -> None:
    """Raise AddressInUse if anything listens at ``address`` (host, port)."""
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    try:
        # SO_REUSEADDR (create_server's default) only lets the bind past connections in
        # TIME_WAIT from an earlier run; a socket that listens still refuses it.
        probe = socket.create_server(address[:2], family=family, reuse_port=False)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise AddressInUse(url(address)) from None
        raise
    probe.close()


def make_runs_folder() -> str:
    """A new folder for the workers' shared runs, named for this process (gunicorn's
    master): in RAM (/dev/shm) where there is one, readable by this user alone."""
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    remove_orphans(Path(shm or tempfile.gettempdir()))
    return tempfile.mkdtemp(prefix=f"attention-runs-{os.getpid()}-", dir=shm)


def remove_orphans(parent: Path) -> None:
    """Remove the runs folders of masters that died without removing theirs (killed): a
    folder of shared memory otherwise holds its runs until the machine restarts."""
    for folder in parent.glob("attention-runs-*-*"):
        pid = folder.name.split("-")[2]
        if pid.isdigit() and not _alive(pid):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: str) -> bool:
    """Whether process ``pid`` runs: a killed master that its parent has not yet reaped is
    still in /proc, as a zombie (state Z), but holds nothing any more."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"  # the state follows "(name)"


def remove_runs_folder(path: str | None) -> None:
    if path:
        shutil.rmtree(path, ignore_errors=True)


def load_models(log) -> None:
    """Load every real model into this process (the master, before it forks) and log which
    are loaded; a model that cannot be is logged with the command that installs it, and its
    requests answer 503 saying the same."""
    from attention_models import registry  # numpy's threads are set by then (gunicorn.conf.py)

    if registry.log_loading(log):
        # What the master holds now is the workers' to share: kept out of the collector's
        # reach, a collection in a worker does not write to (and so copy) its pages.
        gc.freeze()
