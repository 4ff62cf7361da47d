"""``attention-explorer generate``: a causal view generated token by token with a key/value
cache, printed as a trace: each step's new row of weights, z, its cost and the cache it
leaves (the answer of POST /api/kv-cache, kv_cache.py, written for a person)."""

from __future__ import annotations

import argparse
import sys

from attention_core.errors import AttentionInputError, counted
from attention_core.presets import default_request

from ..running.kv_cache import kv_cache_body
from ..values import JSONSyntaxError, parse_json
from .printing import vector

GENERATE = ("Generate a view token by token with a key/value cache and print each step: the "
            "new row of weights, z, the dot products it takes against recomputing every row, "
            "and the cache it leaves. The view is made causal. Without a file, the default "
            "example \"the cat sat\".")


def generate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("request", nargs="?", help="a JSON file in the request format of "
                   "POST /api/attention ('-' reads standard input)")
    p.add_argument("--head", type=int, default=0, help="the query head, 0-based (default 0)")


def trace(body: dict) -> str:
    """The steps of POST /api/kv-cache's answer, one paragraph each."""
    lines = [f"Generation with a key/value cache, head {body['head'] + 1} of {body['heads']}"]
    for s in body["steps"]:
        t, c, cost = s["t"], s["cache"], s["cost"]
        read = sum(s["working"]["allowed"])  # a window may leave some of the t + 1 out
        reads = counted(t + 1, "key") if read == t + 1 else f"{read} of {t + 1} keys"
        lines += [
            "",
            f"Step {t + 1}: token {t + 1} {s['token']!r} reads {reads}",
            f"  weights = {vector(s['weights'], 3)}",
            f"  z = {vector(s['z'], 3)}",
            f"  {counted(cost['dot_products'], 'dot product')} "
            f"({cost['without_cache']} to compute every row again)",
            f"  cache: {counted(c['tokens'], 'token')}, {c['numbers']} numbers, "
            f"{c['bytes']} bytes" + (f" ({c['without_sharing']} numbers without shared "
                                      f"key/value heads)" if c["kv_heads"] > 1 or
                                     c["without_sharing"] != c["numbers"] else "")]
    return "\n".join(lines) + "\n"


def run_generate(args: argparse.Namespace) -> int:
    try:
        if args.request is None:
            payload = default_request()
        elif args.request == "-":
            payload = parse_json(sys.stdin.buffer.read())
        else:
            with open(args.request, "rb") as fh:
                payload = parse_json(fh.read())
        if not isinstance(payload, dict):
            raise AttentionInputError("the request must be a JSON object", None)
        body = kv_cache_body({**payload, "causal": True, "head": args.head})
    except OSError as exc:
        print(f"error: cannot read {args.request}: {exc.strerror}", file=sys.stderr)
        return 2
    except (JSONSyntaxError, AttentionInputError) as exc:
        where = f" (field {exc.field})" if getattr(exc, "field", None) else ""
        print(f"error{where}: {exc}", file=sys.stderr)
        return 2
    print(trace(body), end="")
    return 0
