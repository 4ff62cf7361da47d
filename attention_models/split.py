"""Matrix products split in two by columns, each half on its own thread.

The server runs numpy's BLAS on one thread per worker (gunicorn.conf.py), so that two
workers do not run four BLAS threads on two cores, which spin waiting for each other (a
SmolLM2 forward took 1.2–2.8 s that way with the other worker busy, against 0.35 s). A
forward pass, though, is 13.6 GFLOP of products at 64 tokens, ~0.35 s on one core here,
over the 0.3 s an answer may take. Splitting the big products' columns over two Python
threads (numpy releases the GIL in BLAS) uses the second core when it is free and merely
shares it when it is not: nothing spins. Each output column is computed exactly as
unsplit, so the results are the same to the bit (a 64 × 576 by 576 × 3072 product: 4.1 ms
whole, 2.8 ms split, in the same run).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_pools: dict[int, ThreadPoolExecutor] = {}  # per process: a forked worker makes its own
_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    pid = os.getpid()
    with _lock:
        if pid not in _pools:
            _pools[pid] = ThreadPoolExecutor(1, thread_name_prefix="split-matmul")
        return _pools[pid]


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for a (m, k) and b (k, n): the right half of the columns on a second thread."""
    out = np.empty((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
    half = b.shape[1] // 2
    right = _pool().submit(np.matmul, a, b[:, half:], out=out[:, half:])
    np.matmul(a, b[:, :half], out=out[:, :half])
    right.result()
    return out
