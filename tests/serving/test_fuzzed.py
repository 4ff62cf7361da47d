"""schemathesis, with every one of its checks, against the production server (nginx in front
of gunicorn, as `bash scripts/run` and the image start it) and the document it serves.

It must find nothing but what JSON Schema cannot say, which each field's description says
instead. A request the document allows may be refused only with a 422 whose message is one
of UNSAYABLE's kinds (rows of different lengths; shapes or counts that must agree across
fields; a product of fields, or a number beyond float64 made by multiplying the inputs; a
part named in fields both whole and cut to a corner) and whose field's description (or
operation's) says so. Any other refusal of what the document
allows is a rule the document should state (a field required, one field only with another)
and fails, printing the operation, the field and the message; so does anything else (a
5xx, an answer unlike its schema, a request the document forbids but the server takes, a
method without 405 and Allow). A refusal of a body the generator sent as allowed that the
document forbids (``allows``) is counted, not failed.

Small limits keep every generated request cheap; a fixed seed and few examples per
operation keep the run short and the same on every machine.
"""

import re
from collections import Counter

import jsonschema_rs
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
SEEN = Counter()  # cases sent, and refusals of what the document allows, by kind and operation
# The rules JSON Schema cannot say, by the words of the 422 that refuses a request breaking
# one: a request the document allows may be refused for these and nothing else.
ACROSS_FIELDS = (  # a phrase of each message, and what must agree
    r"must have one row per embedding component",  # W_Q's, W_K's, W_V's rows: X's columns
    r"must use the same embedding width",  # X_kv's columns: X's
    r"needs one row per concatenated column",  # W_O's rows: the heads' d_v
    r"must have the same width d_k",  # W_K's columns: W_Q's
    r"it is added to every row of",  # b_Q, b_K, b_V: d_k or d_v numbers
    r"so d_k must be even",  # rope: W_Q's columns
    r"; with \d+ quer(y|ies) and \d+ keys? it must be",  # mask: n × m
    r"give one label per row of X",  # tokens: X's rows
    r"give one slope per head",  # alibi_slopes: the heads
    r"so their number must divide",  # kv_heads: the heads
    r"so k in heads\[k\] runs from",  # fields' heads[k]: the heads
    r"\((0-based, queries|the query, 0-based, of|0-based: the text makes)",  # row: the tokens
    r"\((the head, 0-based, of|0-based, of|0-based: each layer of)",  # head: the heads
    r"\(0-based: \S+ has \d+ layers\)",  # layer: the model's
    r"tokens for \S+, more than the \d+ it takes",  # text: the model's tokenizer and limit
    r"which is not a blank of this exercise",  # answers: the seed's and level's blanks
)
UNSAYABLE = {
    "ragged rows": re.compile(r"every row must be the same length"),
    "shapes or counts across fields": re.compile("|".join(ACROSS_FIELDS)),
    "a product of fields": re.compile(r"is too large for float64|samples × d_k is"),
    # fields: "X" and "X[:1]" name one part twice; uniqueItems sees two different strings.
    "a name asked whole and cut": re.compile(r"is already asked for( as a corner)?: name each "
                                             r"field once"),
}


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


@pytest.fixture(scope="module")
def allows(served_schema):
    """Whether the document allows a case's JSON body, by a JSON Schema 2020-12 validator.

    schemathesis's boundary cases (its coverage phase) hold a generated object to the rules
    between its fields only at the top of a body (dependentSchemas there, if/then nowhere):
    an exercise's request with position_offset but no positional, or a working slide with
    no row, is sent as allowed. The server rightly refuses such a body; it is no finding."""
    document, judges = served_schema.raw_schema, {}

    def judge(case) -> bool:
        body = (case.operation.definition.raw.get("requestBody") or {}).get(
            "content", {}).get("application/json")
        if body is None or case.body is None:
            return True
        label = case.operation.label
        if label not in judges:
            judges[label] = jsonschema_rs.Draft202012Validator(
                {**body["schema"], "components": document["components"]})
        return judges[label].is_valid(case.body)
    return judge


schema = schemathesis.pytest.from_fixture("served_schema")


def root_field(field: str | None) -> str | None:
    """"W_K" of "W_K[0][1]", "request" of "request.X", "heads" of "heads[1].W_V"."""
    return None if field is None else re.split(r"[.\[]", field, maxsplit=1)[0]


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_the_server_keeps_to_its_document(case, described, allows):
    response = case.call(timeout=120)
    SEEN["cases"] += 1
    try:
        case.validate_response(response, checks=ALL_CHECKS)
    except FailureGroup as found:
        field, message = refusal(response)
        kind = unsayable(message) if allows(case) else "outside the document"
        SEEN[f"{kind}: {case.operation.label}: {field}"] += 1
        # ST202: a request the document allows, refused; allowed only as a 422 for a rule
        # JSON Schema cannot say, naming a field whose description says it (or for a body
        # the document does not allow after all: see allows).
        unsaid = [f for f in found.exceptions if not (f.code == "ST202" and kind and (
            field in described or kind == "outside the document"))]
        assert not unsaid, (f"{case.operation.label} refused {field}: {message}", found,
                            response.status_code, response.content[:500])


def refusal(response) -> tuple[str | None, str | None]:
    """The field a 422 with the API's Error body names, at its root, and its message; else
    (None, None)."""
    if response.status_code != 422:
        return None, None
    try:
        error = response.json()["error"]
        return root_field(error["field"]), error["message"]
    except (ValueError, KeyError, TypeError):  # not the Error body: an HTML page's 422
        return None, None


def unsayable(message: str | None) -> str | None:
    """The kind of rule JSON Schema cannot say that ``message`` refuses for, or None."""
    return next((kind for kind, said in UNSAYABLE.items()
                 if message and said.search(message)), None)


def test_the_fuzzing_was_not_vacuous():
    """Run after the fuzzing (in file order): every check was run, on many cases, and
    requests the document allows were refused for each kind of rule a description states."""
    assert len(ALL_CHECKS) >= 10 and "positive_data_acceptance" in {
        check.__name__ for check in ALL_CHECKS}
    assert SEEN["cases"] >= 100, SEEN
    refused = {key for key in SEEN if key != "cases"}
    print("\n".join(f"{count:5} {key}" for key, count in sorted(SEEN.items())))  # with -rP
    for kind in UNSAYABLE:
        assert any(key.startswith(f"{kind}: ") for key in refused), (kind, SEEN)
    # Random matrices seldom agree in shape: the attention request is refused for it.
    assert any(key.startswith("shapes or counts across fields: POST /api/attention: ")
               for key in refused), SEEN
