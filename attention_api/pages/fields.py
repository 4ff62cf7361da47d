"""The docs page's lists of each request's fields, read from the API document, whose request
schemas are the declarations' (attention_api.declared): a field's name, whether it is
required, what it takes and its description, so the page says what the validation does."""

from __future__ import annotations


def _component(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def takes(schema: dict) -> str:
    """What a JSON Schema takes, in words: "a whole number from 0 to 7", "a list of 1 to 8
    lists of 1 to 8 numbers", "one of "png", "svg", "typ"", "null"."""
    if "$ref" in schema:
        return _component(schema["$ref"])
    if "const" in schema:
        return _literal(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(_literal(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return "; or ".join(takes(s) for s in schema[key])
    kind = schema.get("type")
    if kind == "integer":
        return "a whole number" + _range(schema)
    if kind == "number":
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low, high) == (0, None) or (low == 0 and high and high > 1e300):
            return "a number ≥ 0"
        return "a number" if low is None or low < -1e300 else "a number" + _range(schema)
    if kind == "string":
        if "pattern" in schema:
            return "a name of the pattern " + schema["pattern"]
        most = schema.get("maxLength")
        return "text" + (f" of at most {most:,} characters" if most else "")
    if kind == "boolean":
        return "true or false"
    if kind == "null":
        return "null"
    if kind == "array":
        return f"a list of {_count(schema)}{takes(schema.get('items', {}))}"
    if kind == "object":
        return "an object"
    return "anything"


def _literal(value) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return f'"{value}"' if isinstance(value, str) else str(value)


def _range(schema: dict) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f" from {low:,} to {high:,}"
    return f" ≥ {low:,}" if low is not None else ""


def _count(schema: dict) -> str:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if high is not None:
        return f"{low or 0:,} to {high:,} of: "
    return f"{low:,} or more of: " if low else ""


def request_fields(document: dict) -> list[dict]:
    """For each operation with a JSON body, in the document's order: its path, and each
    form of its body (one, or one of several) with its fields."""
    schemas = document["components"]["schemas"]
    out = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            name = _component(body["schema"]["$ref"])
            forms = [_component(f["$ref"]) for f in schemas[name].get("oneOf", [])] or [name]
            out.append({"operation": f"{method.upper()} {path}", "request": name, "forms": [
                {"name": form, "about": schemas[form].get("description", ""), "fields": [
                    {"name": field, "required": field in schemas[form].get("required", ()),
                     "takes": takes(prop), "about": prop.get("description", "")}
                    for field, prop in schemas[form]["properties"].items()]}
                for form in forms]})
    return out
