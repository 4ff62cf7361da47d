"""The command line: compute a request from a JSON file and print it for a worksheet.

``attention-explorer compute …`` and ``python -m attention_core …`` run ``main``;
``attention-explorer serve`` serves the web app (``app.create_app``) as ``scripts/run`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from attention_core.errors import AttentionInputError
from attention_core.presets import default_request
from attention_core.scaling import score_variance, winner_probability

from ..attention.request import POSITIONAL, parse_request
from ..attention.response import compute, plain, response_body
from ..names import page_message
from ..values import JSONSyntaxError, parse_json
from .exercise import (
    CHECK,
    EXERCISE,
    WORKSHEET,
    check_arguments,
    exercise_arguments,
    run_check,
    run_exercise,
    run_worksheet,
    worksheet_arguments,
)
from .generate import GENERATE, generate_arguments, run_generate
from .report import latex_report, text_report

COMPUTE = ("Compute scaled dot-product attention and print every matrix and the working "
           "of one row. Without a file, uses the default example \"the cat sat\".")


def _parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=COMPUTE)
    _compute_arguments(p)
    return p


def _compute_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the compute command, on ``p``."""
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
    p.add_argument("--positional", nargs="?", const="sinusoidal", default=None,
                   metavar="{sinusoidal,rope,alibi}",
                   help="positions: sinusoidal encodings added to X (the default when the "
                        "option is given alone), rope (rotary: q and k turned by their "
                        "positions) or alibi (-m·|i - j| added to the scores)")
    for flag, help_ in _REQUEST_OPTIONS.values():
        p.add_argument(flag, type=_option_value, default=None, metavar="N", help=help_)
    p.add_argument("--scaling-lab", action="store_true",
                   help="instead of a request, print why scores are divided by sqrt(d_k): the "
                        "winner's weight for two keys one standard deviation apart, and the "
                        "measured variance of q.k, for d_k = 1, 4, 16, …, 1024")
    p.add_argument("--samples", type=int, default=10_000,
                   help="(pairs of q, k) drawn per d_k by --scaling-lab (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="random seed of --scaling-lab (default 0)")


# The options that set a request field, and their help. Their values are read as JSON, so
# the request's own validation judges them and names the field, as it does a file's.
_REQUEST_OPTIONS = {
    "rope_base": ("--rope-base", "θ of rotary positions (default 10000; with --positional rope)"),
    "position_offset": ("--position-offset",
                        "the position of the first token (default 0; with --positional "
                        "sinusoidal or rope)"),
    "window": ("--window", "sliding window: query i reads key j only when |i - j| < N"),
    "sinks": ("--sinks", "the first N keys stay readable from every query whatever the window"),
}


def _option_value(text: str):
    """The value of an option as JSON reads it ("2" is 2, "1e999" too large), else the text."""
    try:
        return parse_json(text)
    except JSONSyntaxError:
        return text


def _options(args: argparse.Namespace, payload: dict) -> None:
    """Set the request fields the options give, over those of the request file."""
    if args.causal:
        payload["causal"] = True
    if args.positional is not None:
        payload["positional"] = args.positional
    for name in _REQUEST_OPTIONS:
        value = getattr(args, name)
        if value is not None:
            payload[name] = value
    if args.row is not None:
        payload["row"] = args.row


def _file_after_positional(args: argparse.Namespace) -> None:
    """``--positional request.json``: argparse gives the file to --positional, which may
    stand alone; it is the request file when it names one and no file was given."""
    value = args.positional
    if (value is not None and value not in POSITIONAL and args.request is None
            and (value == "-" or os.path.exists(value))):
        args.request, args.positional = value, "sinusoidal"


def scaling_lab_text(samples: int, seed: int) -> str:
    """The scaling lab as a table: d_k, winner's weight unscaled and scaled, variances."""
    lines = [f"Two keys whose raw scores differ by one standard deviation (sqrt(d_k)); "
             f"variances of q.k over {samples} random pairs, seed {seed}.", "",
             f"{'d_k':>5}  {'winner, unscaled':>16}  {'winner, scaled':>14}  "
             f"{'Var(q.k)':>10}  {'Var(q.k/sqrt d_k)':>17}"]
    for d_k in (1, 4, 16, 64, 256, 1024):
        raw, scaled = score_variance(d_k, samples=samples, seed=seed)
        lines.append(f"{d_k:>5}  {winner_probability(d_k, scaled=False):>16.4f}  "
                     f"{winner_probability(d_k):>14.3f}  {raw:>10.3f}  {scaled:>17.3f}")
    return "\n".join(lines) + "\n"


def _load(path: str | None):
    if path is None:
        return default_request()
    if path == "-":
        return parse_json(sys.stdin.buffer.read())
    with open(path, "rb") as fh:
        return parse_json(fh.read())


def main(argv: list[str] | None = None, prog: str = "attention-explorer compute") -> int:
    """Run the compute command; returns the process exit status."""
    return _compute(_parser(prog).parse_args(argv))


def _compute(args: argparse.Namespace) -> int:
    if args.scaling_lab:
        if not (100 <= args.samples <= 100_000) or args.seed < 0:
            print(f"error: --samples must be from 100 to 100000 and --seed at least 0, got "
                  f"{args.samples} and {args.seed}", file=sys.stderr)
            return 2
        print(scaling_lab_text(args.samples, args.seed), end="")
        return 0
    _file_after_positional(args)
    try:
        payload = _load(args.request)
        if isinstance(payload, dict):
            _options(args, payload)
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
        print(f"error{where}: {page_message(exc)}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(plain(response_body(request, computed)), allow_nan=False, indent=1))
    elif args.format == "latex":
        print(latex_report(request, computed, args.decimals), end="")
    else:
        print(text_report(request, computed, args.decimals), end="")
    return 0


def _serve(args: argparse.Namespace) -> int:
    """Serve the web app with Flask's server, on HOST:PORT as ``scripts/run`` does."""
    from app import create_app, run  # only serve needs Flask

    run(create_app())
    return 0


def console(argv: list[str] | None = None) -> int:
    """``attention-explorer serve``, ``compute …``, ``exercise …``, ``check …``,
    ``worksheet …`` or ``generate …``; the exit status."""
    p = argparse.ArgumentParser(prog="attention-explorer",
                                description="Scaled dot-product attention, every step shown.")
    commands = p.add_subparsers(dest="command", required=True,
                                metavar="{serve,compute,exercise,check,worksheet,generate}")
    commands.add_parser("serve", help="serve the web page and API (HOST, PORT; default "
                        "http://127.0.0.1:5000/)").set_defaults(run=_serve)
    compute_command = commands.add_parser("compute", help="print a request's matrices and "
                                          "working, for a worksheet", description=COMPUTE)
    _compute_arguments(compute_command)
    compute_command.set_defaults(run=_compute)
    for name, short, about, arguments, run in (
            ("exercise", "print an exercise from a seed and a level", EXERCISE,
             exercise_arguments, run_exercise),
            ("check", "check a student's answers and print hints", CHECK, check_arguments,
             run_check),
            ("worksheet", "write worksheets and their answer key as PDF", WORKSHEET,
             worksheet_arguments, run_worksheet),
            ("generate", "print a generation with a key/value cache, step by step", GENERATE,
             generate_arguments, run_generate)):
        command = commands.add_parser(name, help=short, description=about)
        arguments(command)
        command.set_defaults(run=run)
    args = p.parse_args(argv)
    return args.run(args)
