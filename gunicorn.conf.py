"""Gunicorn settings for Attention Explorer: the one place serving is configured.

Run: gunicorn -c gunicorn.conf.py "app:create_app()"

Environment, with defaults:
  HOST [0.0.0.0], PORT [8000]       where to listen
  ATTENTION_WORKERS [2]             worker processes; one per CPU core the server may use
  ATTENTION_THREADS [8]             threads per worker (requests in progress per worker)
  ATTENTION_CLIENT_TIMEOUT [10]     seconds a client may stay silent, sending or reading
  ATTENTION_REQUEST_TIMEOUT [30]    seconds a whole request may take to arrive
  ATTENTION_BUFFER_BYTES [67108864] bytes of requests arriving, and of answers waiting to
                                    be read, a worker holds in memory (each its own budget)
Any other gunicorn setting can be overridden through GUNICORN_CMD_ARGS.
"""

import os
import sys

from attention_server import startup

# numpy's BLAS/OpenMP pools start one thread per core when numpy is imported; N workers
# would then run N × cores threads on N cores and slow each other down. Parallelism comes
# from the worker processes instead. Setting this here works because gunicorn reads this
# file in the master, before any worker imports the app (and with it numpy).
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_name] = "1"


def _env_number(name: str, default, kind=int, minimum=1):
    """The environment variable ``name`` as ``kind``, or ``default`` when unset or empty."""
    raw = os.environ.get(name, "")
    value = default if raw.strip() == "" else kind(raw)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {raw!r}")
    return value


bind = f"{os.environ.get('HOST') or '0.0.0.0'}:{_env_number('PORT', 8000)}"

# gthread, with each request read whole by the worker's event loop before one of its
# threads takes it (attention_server/worker.py): a client that sends slowly, or sends
# half a request and then nothing, costs memory in the loop, not a thread. The requests
# are CPU-bound numpy work (a 256-token request is ~65 ms, the default example ~1 ms),
# so the worker count, not threads, sets throughput: two workers on this 2-core test
# machine. A thread computes an answer and writes what the client takes at once; the loop
# sends the rest as the client reads (attention_server/sending.py).
worker_class = "attention_server.worker.BufferingWorker"
workers = _env_number("ATTENTION_WORKERS", 2)
threads = _env_number("ATTENTION_THREADS", 8)
# Connections a worker holds at once, idle and slow ones included; past it the worker
# stops accepting, and new clients wait. A waiting connection costs the loop little: at
# worst its unfinished head (32 KiB at most, attention_server/framing.py), so 4096 of
# them ~128 MiB. gunicorn's default, 1000, would let 2,000 slow connections fill both
# workers; with 4096, 3,800 of them left other clients served (benchmarks/bench_faults.py).
worker_connections = 4096

# With one shared listening socket, whichever worker wakes first accepts a burst of new
# connections; keep-alive then pins them: 20 clients connecting at once landed 20/0 on
# two workers in 3 of 4 trials, leaving a core idle. With SO_REUSEPORT each worker has its
# own socket and the kernel spreads connections by address (10/10, 8/12, 11/9, 6/14).
# The price: connections still waiting in a killed worker's own accept queue are reset,
# and the master, which then binds nothing, would neither notice a port that is taken nor
# name the address in its log: on_starting and when_ready below do both.
reuse_port = True


def on_starting(server):
    """Stop at once (exit status 1), naming the address, if anything listens there; then
    load the real models, once, before any worker is forked."""
    for address in server.cfg.address:
        if isinstance(address, tuple):  # (host, port); a unix socket path needs no check
            try:
                startup.check_free(address)
            except startup.AddressInUse as e:
                server.log.error("%s", e)
                sys.exit(1)
    startup.load_models(server.log)


def when_ready(server):
    """Say where the server listens (gunicorn's own line is empty with reuse_port)."""
    for address in server.cfg.address:
        if isinstance(address, tuple):
            server.log.info("Attention Explorer listening at %s (a socket per worker: "
                            "reuse_port)", startup.url(address))

# A gthread worker's main loop sends its heartbeat whatever its threads are doing, so this
# restarts a worker whose main loop is stuck (a deadlock), not a slow request: requests
# are bounded by the app's own limits (ATTENTION_MAX_TOKENS and ATTENTION_MAX_DIM).
timeout = 30
# Below Docker's 10 s stop grace period, so in-flight requests finish before SIGKILL.
graceful_timeout = 8
# Idle keep-alive connections wait in the poller and cost no thread, so a few seconds
# save clients a reconnect without tying anything up. Behind a load balancer, raise it
# above the balancer's own idle timeout (GUNICORN_CMD_ARGS="--keep-alive 75").
keepalive = 5

# The worker's loop closes a client that stays silent for client_timeout seconds (before
# its first byte, or mid-request: answered 408), and a request that has not arrived whole
# within request_timeout seconds of its first byte (408): a trickle of a byte every few
# seconds is closed too. 30 s lets the largest body (ATTENTION_MAX_BODY_BYTES, 4 MiB)
# arrive at 140 KB/s. While the answer is written, client_timeout bounds each wait for
# the client to take more of it, not the whole answer: a slow reader gets every byte.
client_timeout = _env_number("ATTENTION_CLIENT_TIMEOUT", 10.0, kind=float, minimum=0.1)
request_timeout = _env_number("ATTENTION_REQUEST_TIMEOUT", 30.0, kind=float, minimum=0.1)
# Requests still arriving, held in memory per worker. Past it the loop stops reading
# bodies (not headers) until earlier requests have gone to a thread: 64 MiB is sixteen
# 4 MiB bodies, or four hundred of the page's largest (512 tokens, ~160 KB). Answers
# waiting for slow readers have a budget of the same size, beside it.
buffer_bytes = _env_number("ATTENTION_BUFFER_BYTES", 64 * 1024 * 1024)


def post_worker_init(worker):
    """Give the worker its limits; the body limit is the app's own (ATTENTION_MAX_BODY_BYTES)."""
    worker.configure(client_timeout=client_timeout, request_timeout=request_timeout,
                     max_body_bytes=worker.wsgi.config["MAX_CONTENT_LENGTH"],
                     buffer_bytes=buffer_bytes)


def pre_request(worker, req):
    """Bound each wait of a thread for the client to read (only when the worker's budget
    for answers waiting in memory, buffer_bytes, is full; else the loop sends the rest)."""
    sock = getattr(req.unreader, "sock", None)
    if sock is not None:  # gthread resets it to blocking for the next keep-alive request
        sock.settimeout(client_timeout)


# Access log on stdout, errors on stderr: the container's log driver collects both.
# %(M)s is the time to answer in milliseconds.
accesslog = "-"
errorlog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'

# Gunicorn 25+ opens a control socket under $HOME by default; the container's user has
# no home, and two servers on one machine would fight over the same path.
control_socket_disable = True
