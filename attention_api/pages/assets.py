"""The page's own files, linked as /assets/<version>/…, the version a hash of their contents.

A browser keeps them for a year without asking again (otherwise each of ~25 modules is
revalidated on every visit), and a new release has new URLs. Module imports are relative,
so a page's whole module graph shares its version. Templates link a file with
``asset("css/app.css")``. Text files are also kept gzipped (compression.py), and sent so
to a browser that takes gzip.
"""

from __future__ import annotations

import hashlib
import io
import mimetypes
import posixpath
import re
from pathlib import Path, PurePosixPath

from flask import Blueprint, abort, current_app, send_file, send_from_directory, url_for

from ..web.compression import accepts_gzip, precompress

bp = Blueprint("assets", __name__)

ONE_YEAR = 365 * 24 * 3600  # seconds

# The kinds of file the page is made of. Anything else that is under static/ (a vendor's
# note, a source map, an editor's backup) is a 404 even though it is there.
SERVED_SUFFIXES = {".css", ".js", ".png", ".svg", ".woff2"}
# KaTeX's LICENSE is served beside its script: the minified build carries no notice, and
# its MIT licence asks that the notice go with every copy.
LICENCES = {"LICENSE"}


def contents_hash(folder: Path) -> str:
    """12 hex digits of a hash of every file's path and bytes under ``folder``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# A module's static imports and literal dynamic ones: from "./x.js", import("../lib/y.js").
IMPORT = re.compile(r'(?:\bfrom|\bimport)\s*\(?\s*"(\.{1,2}/[^"]+\.js)"')


def modules(static: Path, main: str = "js/editor/main.js") -> list[str]:
    """Every module the editor's ``main`` imports, itself or through others, for the page
    to preload at once (not as a waterfall of imports). Read from the modules' own import
    lines, so a new module cannot be forgotten, and a module of the real-model view alone
    is not preloaded for the editor. (main.js is loaded after them; boot.js, which preloads
    them, is a classic script; so is KaTeX's build, which tex.js loads.)"""
    found, todo = set(), [PurePosixPath(main)]
    while todo:
        module = todo.pop()
        for spec in IMPORT.findall((static / module).read_text(encoding="utf-8")):
            path = PurePosixPath(posixpath.normpath(module.parent / spec))
            if path not in found:
                found.add(path)
                todo.append(path)
    return sorted(p.as_posix() for p in found)


@bp.record_once
def _version(state) -> None:
    """Hash the static folder, and gzip its text files, once, when the app registers this
    blueprint."""
    static = Path(state.app.static_folder)
    version = contents_hash(static)
    state.app.extensions["assets_version"] = version
    state.app.extensions["assets_gzip"] = precompress(static)
    state.app.jinja_env.globals["asset"] = asset_url


def served(filename: str) -> bool:
    """Whether ``filename`` (a path under the static folder) is one of the page's files:
    one of SERVED_SUFFIXES or a licence, with no hidden part (".name") on its path."""
    path = PurePosixPath(filename)
    if any(part.startswith(".") for part in path.parts):
        return False
    return path.suffix in SERVED_SUFFIXES or path.name in LICENCES


def asset_url(filename: str) -> str:
    """The URL of a file of the static folder, at today's version."""
    return url_for("assets.asset", version=current_app.extensions["assets_version"],
                   filename=filename)


@bp.get("/assets/<version>/<path:filename>")
def asset(version: str, filename: str):
    """A static file, gzipped if the client takes it; kept a year if its version is today's."""
    if not served(filename):
        abort(404)
    today = current_app.extensions["assets_version"]
    max_age = ONE_YEAR if version == today else 0  # an old link gets today's file
    packed = current_app.extensions["assets_gzip"].get(filename)
    if packed is not None and accepts_gzip():
        mimetype = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        response = send_file(io.BytesIO(packed), mimetype=mimetype, max_age=max_age,
                             etag=f"{today}-{filename}-gzip", conditional=True)
        response.headers["Content-Encoding"] = "gzip"
    else:
        text = "text/plain" if PurePosixPath(filename).name in LICENCES else None
        response = send_from_directory(current_app.static_folder, filename, max_age=max_age,
                                       mimetype=text)
    # One URL, two encodings: a shared cache must not hand the gzipped bytes to a client
    # that did not ask for them.
    response.vary.add("Accept-Encoding")
    return response
