"""The command line's exercises: ``attention-explorer exercise`` prints one,
``attention-explorer check`` checks a student's answers file and prints the hints, and
``attention-explorer worksheet`` writes a class set of worksheets, and their key, as PDF.

An answers file is the body of POST /api/exercise/check: ``{"seed": 17, "level":
"weights", "answers": {"working.weights[0]": 0.469, …}}``; ``exercise --format json``
prints the body of POST /api/exercise, whose "blanks" are the answers' keys.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from attention_core.classroom.exercises import LEVELS
from attention_core.errors import AttentionInputError

from ..classroom.exercise import check_body, exercise_body
from ..classroom.worksheet import MAX_SHEETS, parse_seeds, worksheet
from ..values import JSONSyntaxError, parse_json

EXERCISE = ("Print an exercise: a small attention problem from a seed and a level, and the "
            "numbers to work out (its blanks), without their values.")
CHECK = ("Check a student's answers file (the body of POST /api/exercise/check: seed, level "
         "and answers, from a blank's path to a number) and print a hint for each wrong one. "
         "Exit status 0 when every answer is correct, 1 when one is not, 2 for a bad file.")


WORKSHEET = ("Write worksheets as PDF, typeset by typst: a page per seed, each with the "
             "exercise's inputs and the row's working with blanks; with --key, the answer key "
             "too, in a second PDF, every blank filled in. The seed is printed on every page.")


def worksheet_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seeds", required=True,
                   help=f"a seed, a range or a list: 17, 1-30, 1-5,9 (at most {MAX_SHEETS})")
    p.add_argument("--level", default="weights", choices=LEVELS, metavar="LEVEL",
                   help="one of " + ", ".join(LEVELS) + " (default weights)")
    p.add_argument("--key", action="store_true", help="write the answer key too")
    p.add_argument("--format", choices=("pdf", "typ"), default="pdf",
                   help="pdf (default), or typ: the typst source")
    p.add_argument("--out", default=".", help="the folder to write into (default: here)")


def exercise_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, required=True, help="a whole number from 0 to 999999")
    p.add_argument("--level", required=True, choices=LEVELS, metavar="LEVEL",
                   help="one of " + ", ".join(LEVELS))
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text for a person (default), json for a script")


def check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("answers", help="the answers file (JSON); - reads standard input")


def _rows(name: str, matrix: list) -> list[str]:
    """A matrix as text, one row a line, its entries right-aligned."""
    width = max(len(str(x)) for row in matrix for x in row)
    return [f"{name} ="] + ["  " + "  ".join(f"{x:>{width}}" for x in row) for row in matrix]


def exercise_text(body: dict) -> str:
    r = body["request"]
    n = len(r["tokens"])
    lines = [f"Exercise: seed {body['seed']}, level {body['level']} ({body['title']})",
             f"Tokens: {', '.join(f'{j + 1} {t!r}' for j, t in enumerate(r['tokens']))}",
             *_rows("X (one row per token)", r["X"])]
    heads = r.get("heads") or [r]
    for h, head in enumerate(heads):
        label = f" (head {h + 1})" if "heads" in r else ""
        for w in ("W_Q", "W_K", "W_V"):
            lines += _rows(w + label, head[w])
    if "W_O" in r:
        lines += _rows("W_O", r["W_O"])
    if r.get("causal"):
        lines.append("Causal mask: query i reads keys 1 to i.")
    if "mask" in r:
        readable = [str(j + 1) for j in range(n) if r["mask"][body["row"]][j]]
        lines.append(f"Mask: query {body['row'] + 1} reads keys {', '.join(readable)} only.")
    if "scale" in r:
        lines.append(f"Scale: {r['scale']} (the scores are not divided by √d_k).")
    if r.get("positional"):
        lines.append("Positions: sinusoidal encodings are added to X, positions from 0.")
    lines.append(f"Work out, for query {body['row'] + 1} ({r['tokens'][body['row']]!r}), "
                 f"row {body['row']} as the API counts:")
    lines += [f"  {path}" for path in body["blanks"]]
    return "\n".join(lines) + "\n"


def check_text(body: dict) -> str:
    lines = []
    for path, r in body["results"].items():
        lines.append(f"{'right' if r['correct'] else 'wrong'}  {path}" +
                     ("" if r["correct"] else f"\n       {r['hint']}"))
    s = body["score"]
    lines.append(f"{s['correct']} of {s['answered']} answered right; "
                 f"{s['blanks'] - s['answered']} of {s['blanks']} blanks not answered.")
    return "\n".join(lines) + "\n"


def _failed(exc: Exception) -> int:
    where = f" (field {exc.field})" if getattr(exc, "field", None) else ""
    print(f"error{where}: {exc}", file=sys.stderr)
    return 2


def run_exercise(args: argparse.Namespace) -> int:
    try:
        body = exercise_body({"seed": args.seed, "level": args.level})
    except AttentionInputError as exc:
        return _failed(exc)
    print(json.dumps(body, indent=1) if args.format == "json" else exercise_text(body),
          end="\n" if args.format == "json" else "")
    return 0


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as fh:
        return fh.read()


def run_check(args: argparse.Namespace) -> int:
    try:
        body = check_body(parse_json(_read(args.answers)))
    except OSError as exc:
        print(f"error: cannot read {args.answers}: {exc.strerror}", file=sys.stderr)
        return 2
    except (JSONSyntaxError, AttentionInputError) as exc:
        return _failed(exc)
    print(check_text(body), end="")
    return 0 if all(r["correct"] for r in body["results"].values()) else 1


def run_worksheet(args: argparse.Namespace) -> int:
    """Write the worksheets (and with --key their key) into --out; print each file's path."""
    try:
        seeds = parse_seeds(args.seeds)
        sheets = [worksheet({"seeds": seeds, "level": args.level, "key": key,
                             "format": args.format})
                  for key in ((False, True) if args.key else (False,))]
    except AttentionInputError as exc:
        return _failed(exc)
    for sheet in sheets:
        path = Path(args.out) / sheet.filename
        try:
            path.write_bytes(sheet.data)
        except OSError as exc:
            print(f"error: cannot write {path}: {exc.strerror}", file=sys.stderr)
            return 2
        print(path)
    return 0
