"""Every setting Attention Explorer reads from the environment (ATTENTION_*, HOST and PORT):
each one's default, why it is what it is, and the one reader of them all.

app.py's ``create_app`` (``app_config``), gunicorn.conf.py (``WORKERS``, ``threads``) and
the start script attention_server/serve.py (``HOST``, ``PORT``, ``CLIENT_TIMEOUT``,
``upstreams``) read them here; docs/operations.md has a row for each. The standard library
only: gunicorn.conf.py reads this before anything imports numpy.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

# Not a setting but where the pages' files are (templates/, static/): beside this module in a
# checkout or the image; `pip install .` puts them in <prefix>/share/attention-explorer
# (pyproject.toml's data-files). The app serves them; the slides read the page's colours.
HERE = Path(__file__).resolve().parent
FILES = HERE if (HERE / "templates").is_dir() else Path(sys.prefix) / "share/attention-explorer"


@dataclass(frozen=True)
class Setting:
    """One environment variable: its name, its value when unset or empty, its type (int,
    float or str) and the least value it may take (None: any)."""

    name: str
    default: int | float | str | None
    kind: type = int
    minimum: float | None = None

    def read(self, env: Mapping[str, str] | None = None):
        """Its value in ``env`` (the process's environment when None), or the default when
        unset or empty; ValueError, naming the variable and what it got, if that is not a
        number of its kind or is below its minimum."""
        raw = (os.environ if env is None else env).get(self.name, "").strip()
        if not raw:
            return self.default
        try:
            value = self.kind(raw)
        except ValueError:
            what = "a whole number" if self.kind is int else "a number"
            raise ValueError(f"{self.name} must be {what}, got {raw!r}") from None
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"{self.name} must be at least {self.minimum:g}, got {raw!r}")
        return value


# --- Where the server listens (nginx, started by attention_server/serve.py) ---------------
# 0.0.0.0: in a container the health check calls 127.0.0.1, and clients come from outside.
HOST = Setting("HOST", "0.0.0.0", str)
PORT = Setting("PORT", 8000, minimum=1)
# Flask's development server (python app.py, ATTENTION_DEBUG=1) listens on loopback only.
DEVELOPMENT_HOST = replace(HOST, default="127.0.0.1")
DEVELOPMENT_PORT = replace(PORT, default=5000, minimum=None)
# Seconds a client may take to send its request line and headers, or stay silent while it
# sends its body or its answer waits to be read (nginx's three timeouts).
CLIENT_TIMEOUT = Setting("ATTENTION_CLIENT_TIMEOUT", 10.0, float, minimum=0.1)
# The app servers a balancer spreads requests over ("host:port", separated by commas);
# unset, this server computes, with its own gunicorn (``upstreams``).
UPSTREAMS = Setting("ATTENTION_UPSTREAMS", "", str)

# --- gunicorn (gunicorn.conf.py) -----------------------------------------------------------
# The requests are CPU-bound numpy work, so the worker count sets throughput: one a core.
WORKERS = Setting("ATTENTION_WORKERS", 2, minimum=1)
THREADS = Setting("ATTENTION_THREADS", None, minimum=1)  # unset: ``threads`` derives it
# Threads of a worker that no bound below may take: /health, and the heads of texts
# already run, answer whatever the model and the heavy requests are doing
# (benchmarks/bench_classroom.py).
SPARE_THREADS = 3

# --- The request's limits (attention_api/attention/request.py's Limits) --------------------------
# The largest request body, answered 413 beyond, by nginx (client_max_body_size) and by the
# app. A real model's head opened in the page ("Open in the editor": a 128-token SmolLM2
# head) is X 128 × 576 and W_Q, W_K, W_V 576 × 64: 184,320 numbers, each sent exactly as
# float64's shortest form. Measured as the page sends it (float32 values widened to
# float64): 20.4 bytes a number, 3.77 MB, too close to 4 MiB; at worst 25 bytes
# ("-1.2345678901234567e-123,") it is 4.61 MB, and with 128 labels of 64 four-byte
# characters (33 kB) and a 128 × 128 mask (98 kB) 4.74 MB: 5 MiB. Parsing holds ~14 times
# the body for a few milliseconds (orjson: 52 MB for 3.8 MB, 31 ms).
MAX_BODY_BYTES = Setting("ATTENTION_MAX_BODY_BYTES", 5 * 1024 * 1024)
# n and m; a 512×512 weight matrix is ~2 MB of float64.
MAX_TOKENS = Setting("ATTENTION_MAX_TOKENS", 512)
# d_model (the columns of X and X_kv, the rows of W_Q, W_K and W_V): a real model's head
# opened in the page (SmolLM2 576, MiniLM 384; BERT-large and GPT-2 medium 1024).
MAX_MODEL_DIM = Setting("ATTENTION_MAX_MODEL_DIM", 1024)
MAX_DIM = Setting("ATTENTION_MAX_DIM", 256)  # d_k, d_v and W_O's width each
# Query heads, and key/value heads: the sum of 16 heads' d_v is W_O's rows (4,096 at
# d 256), and 16 heads' weights at 512 tokens are 4.2 million of the answer's numbers.
MAX_HEADS = Setting("ATTENTION_MAX_HEADS", 16)
# Numbers in one answer (attention_api/attention/answer_size.py counts them before computing).
# The page asks for at most ~4.7 million (512 tokens, 16 heads, d 256: the heads'
# weights_u8 and the shown head's K, V and mask). 10 million floats are ~200 MB of JSON,
# and six such answers at once keep two workers under 2.5 GB (test_answer_memory.py);
# 16 heads' every intermediate at 512 tokens is ~36 million, 0.6 GB of JSON.
MAX_ANSWER_CELLS = Setting("ATTENTION_MAX_ANSWER_CELLS", 10_000_000)

# --- Requests of each heavy kind a process serves at once (attention_api/attention/admission.py)
# 4: with it two workers stayed within 2.2 GB under sixteen of the largest answers at
# once (docs/operations.md); the other threads serve the rest.
LARGE_REQUESTS = Setting("ATTENTION_LARGE_REQUESTS", 4)
# A document is typeset in a process of its own (typeset.py): a 100-page answer key
# holds ~0.2 GB and a core for seconds, so 2 a worker keep both cores of two workers
# busy, wherever a class's requests land, and 4 at once hold ~0.8 GB
# (benchmarks/bench_class_burst.py: thirty class sets at once peaked 0.8 GB above idle;
# unbounded and typeset in the workers, 5.8 GB).
TYPESETS = Setting("ATTENTION_TYPESETS", 2)
# A row's tiles or the costs take milliseconds (a measurement up to 2 s, one a server:
# cost.py); bounded so that a burst of them cannot hold every thread that /health needs.
TILES_AND_COSTS = Setting("ATTENTION_TILES_AND_COSTS", 4)
# Each, by its name in the app's config and in admission.py's BOUNDS.
ADMISSION = {"LARGE_REQUESTS": LARGE_REQUESTS, "TYPESETS": TYPESETS,
             "TILES_AND_COSTS": TILES_AND_COSTS}

# --- The real models' runs (attention_api/real_models/runs.py) -----------------------------------
# Megabytes of runs kept by a server, in the folder its workers share (shared_runs.py), or
# by a process of its own, the least recently asked let go first. One 128-token SmolLM2
# run is ~13 MB (X: 30 × 128 × 576 float32, the overview: 30 × 9 × 128 × 128 bytes); a
# class's sentences of 9–42 tokens ~1–4 MB each. Kept 8 at a time, a class of 30 evicted
# each other's runs, and a head switch ran the model again (benchmarks/bench_classroom.py:
# head switch p95 5.5–6.4 s; 64 kept: 0.23–0.51 s).
RUNS_MB = Setting("ATTENTION_RUNS_MB", 256)
# The folder a server's workers share their runs in (gunicorn.conf.py makes it and sets
# this); unset, each process keeps its own.
RUNS_DIR = Setting("ATTENTION_RUNS_DIR", None, str)
# Forward passes at once per process, and requests that may wait for one. A class of 30
# sends its first texts at once, and the two workers take them from gunicorn's socket as
# fast as each accepts, not in turn: of the forward passes in runs of bench_classroom.py,
# 29 and 8, 30 and 6, 21 and 9. So one worker may hold the whole class: 32 may wait (22
# refused a text in 1 of 3 runs), and 2 run at once, so that a worker holding most of the
# class has both cores (numpy lets go of the GIL in its products). With 1 at once, 30 and
# 7 gave a first view p95 of 4.8 s; with 2, eight runs gave 2.8-3.7 s whatever the share,
# head switch p95 17-26 ms (9-14 with 1), /health at most 17 ms, nothing refused. Two at
# once on a balanced server share the cores, and a pass is bound by memory as much as by
# its core (SmolLM2, 18 tokens: 55 ms alone, 92 ms each with two at once in two
# processes), so they cost it little. Before any limit (every pass at once, under load):
# first view p95 4.7-5.2 s.
FORWARDS = Setting("ATTENTION_FORWARDS", 2)
FORWARDS_WAITING = Setting("ATTENTION_FORWARDS_WAITING", 32)

# "1" serves python app.py with Flask's debugger (never in production).
DEBUG = Setting("ATTENTION_DEBUG", "", str)


def threads(env: Mapping[str, str] | None = None) -> int:
    """A gunicorn worker's threads: ATTENTION_THREADS, or by default one for every request
    the worker may hold at once, so that none waits for a thread: FORWARDS running the
    model, FORWARDS_WAITING waiting for it, each admission bound's heavy requests, and
    SPARE_THREADS. By default 2 + 32 + (4 + 2 + 4) + 3 = 47."""
    given = THREADS.read(env)
    if given is not None:
        return given
    return (FORWARDS.read(env) + FORWARDS_WAITING.read(env)
            + sum(bound.read(env) for bound in ADMISSION.values()) + SPARE_THREADS)


def upstreams(env: Mapping[str, str] | None = None) -> list[str]:
    """ATTENTION_UPSTREAMS as a list of "host:port" (a name may stand for several, as a
    compose service's does), or []: this server computes, with its own gunicorn."""
    raw = UPSTREAMS.read(env)
    found = [u.strip() for u in raw.split(",") if u.strip()]
    for u in found:
        if not re.fullmatch(r"([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}", u):
            raise ValueError(f"ATTENTION_UPSTREAMS must be host:port, separated by commas, "
                             f"such as app:8000,10.0.0.7:8000; got {u!r} in {raw!r}")
    return found


def app_config(env: Mapping[str, str] | None = None) -> dict:
    """The app's config, as app.create_app starts from it: each limit, bound and the runs'
    settings by its config key."""
    return {
        "MAX_CONTENT_LENGTH": MAX_BODY_BYTES.read(env),
        "MAX_TOKENS": MAX_TOKENS.read(env),
        "MAX_DIM": MAX_DIM.read(env),
        "MAX_MODEL_DIM": MAX_MODEL_DIM.read(env),
        "MAX_HEADS": MAX_HEADS.read(env),
        "MAX_ANSWER_CELLS": MAX_ANSWER_CELLS.read(env),
        **{name: bound.read(env) for name, bound in ADMISSION.items()},
        "RUNS_MB": RUNS_MB.read(env),
        "RUNS_DIR": RUNS_DIR.read(env),
        "FORWARDS": FORWARDS.read(env),
        "FORWARDS_WAITING": FORWARDS_WAITING.read(env),
    }
