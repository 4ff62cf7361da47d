"""Gunicorn settings for Attention Explorer: the one place serving is configured.

Run: gunicorn -c gunicorn.conf.py "app:create_app()"

Environment, with defaults:
  HOST [0.0.0.0], PORT [8000]       where to listen
  ATTENTION_WORKERS [2]             worker processes; one per CPU core the server may use
  ATTENTION_THREADS [8]             threads per worker (requests in progress per worker)
  ATTENTION_CLIENT_TIMEOUT [10]     seconds a request may wait on a silent client
Any other gunicorn setting can be overridden through GUNICORN_CMD_ARGS.
"""

import os

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

# gthread: each worker's main loop accepts connections and parks idle keep-alive ones in
# a poller; a request holds one thread only while it is read, computed and written. The
# requests are CPU-bound numpy work (a 256-token request is ~65 ms, the default example
# ~1 ms) so the worker count, not threads, sets throughput: two workers on this 2-core
# test machine. Threads are for waiting, not computing: a client that uploads its body
# slowly holds one thread while the other seven keep serving (benchmarks/bench_faults.py
# measures this). More trickling clients than a worker has threads do stall it; where
# that is a risk, put a proxy that buffers request bodies (nginx) in front. gevent would
# make slow clients cheaper, but it is not in requirements.txt and a CPU-bound request
# blocks its whole gevent worker meanwhile.
worker_class = "gthread"
workers = _env_number("ATTENTION_WORKERS", 2)
threads = _env_number("ATTENTION_THREADS", 8)

# With one shared listening socket, whichever worker wakes first accepts a burst of new
# connections; keep-alive then pins them: 20 clients connecting at once landed 20/0 on
# two workers in 3 of 4 trials, leaving a core idle. With SO_REUSEPORT each worker has its
# own socket and the kernel spreads connections by address (10/10, 8/12, 11/9, 6/14).
# The price: connections still waiting in a killed worker's own accept queue are reset.
reuse_port = True

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

# gthread reads a request body with blocking reads and no time limit of its own: a client
# that stops sending (or vanishes without a FIN) would hold a thread for ever. Like
# nginx's client_body_timeout this bounds each wait for the next bytes, not the whole
# upload; a read that times out makes werkzeug raise ClientDisconnected, which the app
# answers with 408 (attention_api/errors.py).
client_timeout = _env_number("ATTENTION_CLIENT_TIMEOUT", 10.0, kind=float, minimum=0.1)


def pre_request(worker, req):
    """Give this request's socket a per-read timeout of ``client_timeout`` seconds."""
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
