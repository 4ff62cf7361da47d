"""schemathesis, with every one of its checks, against the production server (nginx in front
of gunicorn, as `bash scripts/run` and the image start it) and the document it serves.

It must find nothing but what JSON Schema cannot say, which each field's description says
instead: a request the document allows may be refused with a 422 when its rows differ in
length, its shapes disagree across fields or a product of two fields is too large, and the
422 names a field whose description (or operation's) says so. Anything else (a 5xx, an
answer unlike its schema, a request the document forbids but the server takes, a method
without 405 and Allow) fails.

Small limits keep every generated request cheap; a fixed seed and few examples per
operation keep the run short and the same on every machine.
"""

import re
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.core.failures import FailureGroup

from benchmarks.server import Production

# The limits every generated request is within (the README's environment variables).
SMALL = {"ATTENTION_MAX_TOKENS": "8", "ATTENTION_MAX_DIM": "8", "ATTENTION_MAX_MODEL_DIM": "8",
         "ATTENTION_MAX_HEADS": "4"}
EXAMPLES = 20  # per operation, beside schemathesis's own boundary cases
load_all_checks()  # the OpenAPI checks register themselves only when loaded
ALL_CHECKS = [CHECKS.get_one(name) for name in CHECKS.get_all_names()]
SEEN = Counter()  # cases sent, and refusals of what the document allows, by operation


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with Production(tmp_path_factory.mktemp("fuzzed"), env=SMALL) as running:
        yield running


@pytest.fixture(scope="module")
def served_schema(server):
    return schemathesis.openapi.from_url(f"http://127.0.0.1:{server.port}/api/openapi.json")


@pytest.fixture(scope="module")
def described(served_schema) -> set[str]:
    """The names whose description (or their operation's) says what JSON Schema cannot:
    each property with a description, and each query parameter its operation describes."""
    document = served_schema.raw_schema
    names = set()

    def walk(node):
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                if isinstance(prop, dict) and prop.get("description"):
                    names.add(name)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(document["components"])
    for operations in document["paths"].values():
        for operation in operations.values():
            said = operation.get("description", "")
            names |= {p["name"] for p in operation.get("parameters", []) if p["name"] in said}
    return names


schema = schemathesis.pytest.from_fixture("served_schema")


def root_field(field: str | None) -> str | None:
    """"W_K" of "W_K[0][1]", "request" of "request.X", "heads" of "heads[1].W_V"."""
    return None if field is None else re.split(r"[.\[]", field, maxsplit=1)[0]


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_the_server_keeps_to_its_document(case, described):
    response = case.call(timeout=120)
    SEEN["cases"] += 1
    try:
        case.validate_response(response, checks=ALL_CHECKS)
    except FailureGroup as found:
        field = refused_field(response)
        SEEN[f"{case.operation.label}: {field}"] += 1
        # ST202: a request the document allows, refused; allowed only as a 422 naming a
        # field whose description says the rule.
        unsaid = [f for f in found.exceptions if not (f.code == "ST202" and field in described)]
        assert not unsaid, (found, response.status_code, response.content[:500])


def refused_field(response) -> str | None:
    """The field a 422 with the API's Error body names, at its root; else None."""
    if response.status_code != 422:
        return None
    try:
        return root_field(response.json()["error"]["field"])
    except (ValueError, KeyError, TypeError):  # not the Error body: an HTML page's 422
        return None


def test_the_fuzzing_was_not_vacuous():
    """Run after the fuzzing (in file order): every check was run, on many cases, and some
    requests the document allows were refused for a rule a description states."""
    assert len(ALL_CHECKS) >= 10 and "positive_data_acceptance" in {
        check.__name__ for check in ALL_CHECKS}
    assert SEEN["cases"] >= 100, SEEN
    refused = {key for key in SEEN if key != "cases"}
    # Random matrices seldom agree in shape: the attention request is refused for it.
    assert any(key.startswith("POST /api/attention: ") for key in refused), SEEN
