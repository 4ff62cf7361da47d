"""Gunicorn settings for Attention Explorer, behind nginx (attention_server/serve.py).

Run: python -m attention_server.serve, which starts nginx on HOST:PORT and this on a
private unix socket (--bind); every client-facing limit and timeout is nginx's
(attention_server/nginx.conf).

Environment (read, with every other setting, by settings.py), with defaults:
  ATTENTION_WORKERS [2]             worker processes; one per CPU core the server may use
  ATTENTION_THREADS [47]            threads per worker (requests in progress per worker)
Any other gunicorn setting can be overridden through GUNICORN_CMD_ARGS.
"""

import os

import settings
from attention_server import startup

# numpy's BLAS/OpenMP pools start one thread per core when numpy is imported; N workers
# would then run N × cores threads on N cores and slow each other down. Parallelism comes
# from the worker processes instead. Setting this here works because gunicorn reads this
# file in the master, before any worker imports the app (and with it numpy).
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_name] = "1"


# Stock gthread. nginx hands over each request whole and takes each answer whole, so a
# thread never waits on a client. The requests are CPU-bound numpy work (a 256-token
# request is ~65 ms, the default example ~1 ms), so the worker count, not threads, sets
# throughput: two workers on this 2-core test machine. Threads are for waiting and for the
# bounded heavy requests: one for each request a worker may hold at once, so that none of
# them waits for a thread. A class of 30 sends its first texts at once, which may all reach
# one worker and wait there for the model in turn (ATTENTION_FORWARDS running,
# ATTENTION_FORWARDS_WAITING waiting); the heavy requests admission.py lets in
# (ATTENTION_LARGE_REQUESTS, ATTENTION_TYPESETS, ATTENTION_TILES_AND_COSTS) hold one each
# while they compute; and SPARE_THREADS more are for /health and the heads of texts already
# run, whatever the rest is doing (benchmarks/bench_classroom.py). With the defaults:
# 2 + 32 + (4 + 2 + 4) + 3 = 47 (settings.threads; tests/serving/test_deploy.py checks it).
SPARE_THREADS = settings.SPARE_THREADS
worker_class = "gthread"
workers = settings.WORKERS.read()
threads = settings.threads()

# nginx bounds the request line and headers (8 KiB a line, 32 KiB in all) and answers
# past them in the app's JSON; what it passes on gunicorn takes as it is.
limit_request_line = 0
limit_request_field_size = 0
limit_request_fields = 32768

# The heartbeat file in RAM: on an overlay filesystem (a container) a worker's heartbeat
# write can block and get a healthy worker killed.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None


def on_starting(server):
    """Load the real models, once, before any worker is forked, and make the folder the
    workers share their runs of them in (attention_api/real_models/shared_runs.py)."""
    startup.load_models(server.log)
    os.environ["ATTENTION_RUNS_DIR"] = startup.make_runs_folder()


def on_exit(server):
    startup.remove_runs_folder(settings.RUNS_DIR.read())


# A gthread worker's main loop sends its heartbeat whatever its threads are doing, so this
# restarts a worker whose main loop is stuck (a deadlock), not a slow request: requests
# are bounded by the app's own limits (ATTENTION_MAX_TOKENS and ATTENTION_MAX_DIM).
timeout = 30
# Below Docker's 10 s stop grace period, so in-flight requests finish before SIGKILL.
graceful_timeout = 8
# nginx keeps up to 16 connections to gunicorn open between requests (its upstream's
# keepalive); they wait in the poller and cost no thread. Longer than nginx's own reuse.
keepalive = 75


# nginx writes the access log (it sees every request, its own answers included, and the
# client's address); gunicorn's errors go to stderr, which the container's log collects.
accesslog = None
errorlog = "-"

# Gunicorn 25+ opens a control socket under $HOME by default; the container's user has
# no home, and two servers on one machine would fight over the same path.
control_socket_disable = True
