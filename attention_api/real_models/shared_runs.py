"""The real models' runs one server's worker processes share: files in a folder of shared
memory (/dev/shm), read back memory-mapped, so that each text is run once per server.

nginx hands each request to whichever gunicorn worker takes it first, not to the worker
that ran the student's text: kept in each worker's own memory, a class's texts were run
twice, and a head switch that reached the other worker waited its turn for a forward pass
(benchmarks/bench_classroom.py, head switch p95 1.15 s in one of four runs; shared, 9-12 ms
in six). Here a worker finds a run another has made, and one about to run a text first
claims it, so that a worker asked for the same text meanwhile waits for that run instead
of making its own.

A run is a folder named for its key: X.npy, overview_u8.npy, first_token_share.npy and
meta.json (the tokens, the next tokens, its bytes), written under another name and renamed
into place whole. A claim is a folder KEY.claim holding a file named for its process id.
The runs are kept within a budget of bytes, the least recently read let go first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from attention_models.base import Tokenized

from .run import ARRAYS, Run

POLL = 0.02  # seconds between two looks at a claimed run
UNSIGNED = 5  # seconds after which a claim without its process id is taken as abandoned


def key_of(model_id: str, text: str) -> str:
    """A file name for a (model, text): the text may hold anything, the name must not."""
    return hashlib.sha256(f"{model_id}\0{text}".encode()).hexdigest()[:40]


class Folder:
    """Runs in ``path``, kept within ``budget`` bytes (the newest even when larger), and
    within three quarters of the space of the file system that holds the folder: a
    container's /dev/shm is 64 MB unless it is given more (docs/operations.md)."""

    def __init__(self, path: Path, budget: int):
        self.path = Path(path)
        space = os.statvfs(self.path)
        self.budget = min(budget, space.f_frsize * space.f_blocks * 3 // 4)

    def load(self, key: str):
        """The run saved under ``key``, its arrays memory-mapped (read-only), or None."""
        place = self.path / key
        try:
            meta = json.loads((place / "meta.json").read_text())
            # Plain arrays over the mapped file (a memmap is not an array orjson writes).
            arrays = {name: np.load(place / f"{name}.npy", mmap_mode="r").view(np.ndarray)
                      for name in ARRAYS}
            os.utime(place)  # read now: the last to be let go
        except (FileNotFoundError, NotADirectoryError):  # not there, or let go meanwhile
            return None
        return Run(tokenized=Tokenized(**meta["tokenized"]), next_tokens=meta["next_tokens"],
                   **arrays)

    def save(self, key: str, run) -> None:
        """Save ``run`` under ``key``, whole or not at all, then keep within the budget."""
        self._let_go(room=run.nbytes)
        draft = self.path / f".draft-{os.getpid()}-{key}"
        try:
            draft.mkdir()
            for name in ARRAYS:
                np.save(draft / f"{name}.npy", getattr(run, name))
            meta = {"tokenized": asdict(run.tokenized), "next_tokens": run.next_tokens,
                    "nbytes": run.nbytes}
            (draft / "meta.json").write_text(json.dumps(meta))
            draft.rename(self.path / key)
        except OSError:  # saved meanwhile by another process, or no space: it goes unshared
            shutil.rmtree(draft, ignore_errors=True)

    def claim(self, key: str) -> bool:
        """Claim the running of ``key`` for this process: False when another holds it."""
        claim = self.path / f"{key}.claim"
        try:
            claim.mkdir()
        except FileExistsError:
            return False
        (claim / str(os.getpid())).touch()
        return True

    def release(self, key: str) -> None:
        shutil.rmtree(self.path / f"{key}.claim", ignore_errors=True)

    def wait(self, key: str, seconds: float):
        """The run of ``key`` once the process that claimed it has saved it; None when the
        claim is gone without it (its process refused or failed), its process has died, or
        ``seconds`` have passed: the caller then runs the text itself."""
        claim = self.path / f"{key}.claim"
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            run = self.load(key)
            if run is not None:
                return run
            holder = self._holder(key)
            if not claim.exists():
                return self.load(key)  # saved just before the claim was let go, or never
            if (not _alive(holder)) if holder is not None else _age(claim) > UNSIGNED:
                self.release(key)  # its process died (before it signed, if it never did)
                return None
            time.sleep(POLL)
        return None

    def _holder(self, key: str) -> int | None:
        """The process holding the claim of ``key``; None when there is no claim, or its
        process has not yet written its id (the caller looks again)."""
        with contextlib.suppress(FileNotFoundError, ValueError, StopIteration):
            return int(next((self.path / f"{key}.claim").iterdir()).name)
        return None

    def _let_go(self, room: int) -> None:
        """Remove the least recently read runs until the rest and ``room`` bytes more fit
        the budget."""
        runs = []
        for place in self.path.iterdir():
            if place.name.startswith(".") or place.name.endswith(".claim"):
                continue
            with contextlib.suppress(FileNotFoundError, ValueError, KeyError):
                nbytes = json.loads((place / "meta.json").read_text())["nbytes"]
                runs.append((place.stat().st_mtime, nbytes, place))
        runs.sort()
        held = room + sum(nbytes for _, nbytes, _ in runs)
        for _, nbytes, place in runs:
            if held <= self.budget:
                break
            shutil.rmtree(place, ignore_errors=True)
            held -= nbytes


def _age(path: Path) -> float:
    """Seconds since ``path`` was made (0 if it is gone meanwhile)."""
    with contextlib.suppress(FileNotFoundError):
        return time.time() - path.stat().st_mtime
    return 0.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True
