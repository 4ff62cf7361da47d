"""The classroom's routes: exercises and their check, worksheets and slides."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from ..attention.admission import admitted, keep_slots
from ..attention.routes import limits
from ..web.body import json_payload
from .exercise import check_body, exercise_body
from .slide import slide
from .worksheet import worksheet

bp = Blueprint("classroom", __name__)
bp.record_once(keep_slots)


def attachment(sheet) -> Response:
    """A typeset document (a worksheet, a key, a slide) as a file to save."""
    return Response(sheet.data, mimetype=sheet.media_type, headers={
        "Content-Disposition": f'attachment; filename="{sheet.filename}"'})


@bp.post("/api/exercise")
def api_exercise():
    """An exercise from a seed and a level: its inputs, row and blanks, not their numbers."""
    return jsonify(exercise_body(json_payload(), limits()))


@bp.post("/api/exercise/check")
def api_exercise_check():
    """A student's numbers for an exercise checked, with a hint for each wrong one."""
    return jsonify(check_body(json_payload(), limits()))


@bp.post("/api/worksheet")
@admitted("TYPESETS")
def api_worksheet():
    """Worksheets or their answer key, a page per seed, as PDF (or the typst source)."""
    return attachment(worksheet(json_payload(), limits()))


@bp.post("/api/slide")
@admitted("TYPESETS")
def api_slide():
    """A head's heatmap or a row's working as a 1920 × 1080 PNG slide, or SVG."""
    return attachment(slide(json_payload(), limits()))
