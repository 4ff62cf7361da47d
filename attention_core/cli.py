"""``python -m attention_core``: compute a request from a JSON file and print it for a worksheet."""

from __future__ import annotations

import argparse
import json
import sys

from .errors import AttentionInputError
from .presets import default_request
from .report import latex_report, text_report
from .request import parse_request
from .response import compute, plain, response_body
from .values import JSONSyntaxError, parse_json


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m attention_core",
        description="Compute scaled dot-product attention and print every matrix and the "
                    "working of one row. Without a file, uses the default example "
                    "\"the cat sat\".")
    p.add_argument("request", nargs="?",
                   help="a JSON file in the request format of POST /api/attention "
                        "('-' reads standard input)")
    p.add_argument("--row", type=int, default=None,
                   help="0-based query row whose working to print (default: the request's "
                        "\"row\", or none)")
    p.add_argument("--causal", action="store_true", help="apply the causal mask")
    p.add_argument("--format", choices=("text", "latex", "json"), default="text")
    p.add_argument("--decimals", type=int, default=3, choices=range(0, 13), metavar="0..12",
                   help="decimals shown in text and LaTeX (default 3)")
    return p


def _load(path: str | None):
    if path is None:
        return default_request()
    if path == "-":
        return parse_json(sys.stdin.buffer.read())
    with open(path, "rb") as fh:
        return parse_json(fh.read())


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    args = _parser().parse_args(argv)
    try:
        payload = _load(args.request)
        if isinstance(payload, dict):
            if args.causal:
                payload["causal"] = True
            if args.row is not None:
                payload["row"] = args.row
        request = parse_request(payload)
        computed = compute(request)
    except OSError as exc:
        print(f"error: cannot read {args.request}: {exc.strerror}", file=sys.stderr)
        return 2
    except JSONSyntaxError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except AttentionInputError as exc:
        where = f" (field {exc.field})" if exc.field else ""
        print(f"error{where}: {exc.message}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(plain(response_body(request, computed)), allow_nan=False, indent=1))
    elif args.format == "latex":
        print(latex_report(request, computed, args.decimals), end="")
    else:
        print(text_report(request, computed, args.decimals), end="")
    return 0
