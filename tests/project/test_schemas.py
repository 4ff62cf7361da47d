"""No JSON Schema is written by hand in attention_api: the API document's schemas, the
requests' and the answers', its parameters' and headers', all come from pydantic
declarations (declared.py turns them into the document's components), so a schema cannot
drift from the code it describes; only the rules between fields that no pydantic type says
are written as JSON Schema, each in one place, from the table its check reads (ALLOWED).
Read with ast: no dict literal (nor ``dict(...)`` call) in attention_api has a "type" whose
value is a JSON Schema type name, a "$ref" or "properties"."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "attention_api"
TYPES = {"object", "array", "number", "integer", "string", "boolean", "null"}

# The schemas still written by hand, and why: rules of one field about another, which no
# pydantic type says, each built from the table its check reads and kept under one JSON
# Schema keyword of a declaration's config, the place a declaration's schema is completed.
# - the answer's dependentSchemas (with several heads, an answer holds no single head's part
#   at its top), from answer_fields' table (declared.said);
# - the request's dependentSchemas (rope_base with "rope", tokens_kv with X_kv …), from
#   GOES_WITH and NEEDS (attention/declaration.said_together);
# - a working slide's row, as if/then, from NEEDS_ROW (classroom/declaration.said_row, and
#   real_models/declaration.said_row for a model's slide).
ALLOWED = {("attention_api/attention/answer.py", "dependentSchemas"),
           ("attention_api/attention/declaration.py", "dependentSchemas"),
           ("attention_api/classroom/declaration.py", "if"),
           ("attention_api/classroom/declaration.py", "then"),
           ("attention_api/real_models/declaration.py", "if"),
           ("attention_api/real_models/declaration.py", "then")}


def _text(node) -> str | None:
    """A string constant's value, or the text an f-string starts with."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return _text(node.values[0])
    return None


def _is_type_name(node) -> bool:
    """A JSON Schema type name ("object") or a list of them (["number", "null"])."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return bool(node.elts) and all(_is_type_name(e) for e in node.elts)
    return _text(node) in TYPES


def _schema_keys(pairs) -> list[str]:
    """The keys of (key, value) ``pairs`` that make a hand-written JSON Schema."""
    found = []
    for key, value in pairs:
        if key == "type" and _is_type_name(value):
            found.append("type")
        elif key == "$ref" and not (_text(value) or "").startswith("#/components/responses/"):
            found.append("$ref")  # (a response's $ref is OpenAPI's, not a schema)
        elif key == "properties":
            found.append("properties")
    return found


def hand_written(path: Path) -> list[tuple[int, str]]:
    """(line, key) of every dict in ``path`` written as a JSON Schema, but those ALLOWED."""
    module = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    tree = ast.parse(path.read_text(), filename=str(path))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            pairs = [(_text(k), v) for k, v in zip(node.keys, node.values, strict=True)
                     if k is not None]  # (None: a ** spread)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "dict":
            pairs = [(k.arg, k.value) for k in node.keywords if k.arg]
        else:
            continue
        keys = _schema_keys(pairs)
        if keys and not _allowed(module, node, parents):
            out.extend((node.lineno, key) for key in keys)
    return out


def _allowed(module: str, node, parents) -> bool:
    """``node`` is inside the value of a key (or keyword) ALLOWED in ``module``."""
    while node in parents:
        parent = parents[node]
        if isinstance(parent, ast.keyword) and (module, parent.arg) in ALLOWED:
            return True
        if isinstance(parent, ast.Dict):
            key = next((k for k, v in zip(parent.keys, parent.values, strict=True)
                        if v is node), None)
            if (module, _text(key)) in ALLOWED:
                return True
        node = parent
    return False


def test_the_check_finds_a_hand_written_schema(tmp_path):
    module = tmp_path / "module.py"
    module.write_text('A = {"type": "integer", "minimum": 0}\n'
                      'B = {"type": ["number", "null"]}\n'
                      'C = dict(properties={})\n'
                      'D = {"$ref": f"#/components/schemas/{name}"}\n'
                      'E = {"type": "worksheet", "$ref": f"#/components/responses/{s}"}\n'
                      'F = {"properties": None}  # even one key\n'
                      'G = {"type": "integer", "minimum": x}  # x: the limit\n'
                      'H = said("what", dependentSchemas={"a": {"properties": {}}})\n')
    assert hand_written(module) == [(1, "type"), (2, "type"), (3, "properties"), (4, "$ref"),
                                    (6, "properties"), (7, "type"), (8, "properties")]


def test_no_module_of_attention_api_writes_a_json_schema_by_hand():
    modules = sorted(API.rglob("*.py"))
    assert len(modules) > 50  # not vacuous: the modules were found
    offenders = [f"{path.relative_to(ROOT).as_posix()}:{line}: {key}"
                 for path in modules for line, key in hand_written(path)]
    assert offenders == []


def test_each_allowed_schema_is_still_where_it_is_said_to_be(monkeypatch):
    """Each exception names a real place: without it, that module would be an offender."""
    for module, key in ALLOWED:
        monkeypatch.setattr(f"{__name__}.ALLOWED", ALLOWED - {(module, key)})
        assert hand_written(ROOT / module), (module, key)
