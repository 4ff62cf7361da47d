"""attention_api.attention.lab: GET /api/scaling and /api/scaling/sample, their numbers and
their 422s."""

import json
import math

import pytest


def strict_json(r):
    def refuse(token):
        raise AssertionError(f"non-strict JSON token {token} in the response")
    return json.loads(r.get_data(as_text=True), parse_constant=refuse)


# ---- /api/scaling ----

def test_default_curve_runs_over_powers_of_two_to_1024(client):
    r = client.get("/api/scaling")
    assert r.status_code == 200 and r.mimetype == "application/json"
    body = strict_json(r)
    assert list(body) == ["d_k", "unscaled", "scaled"]
    assert body["d_k"] == [2 ** p for p in range(11)]
    assert len(body["unscaled"]) == len(body["scaled"]) == 11


@pytest.mark.parametrize("d_k, unscaled, digits", [(4, 0.881, 3), (64, 0.9997, 4),
                                                   (1024, 1.0000, 4)])
def test_known_winner_probabilities(client, d_k, unscaled, digits):
    body = client.get("/api/scaling?d_k_max=1024").get_json()
    i = body["d_k"].index(d_k)
    assert round(body["unscaled"][i], digits) == unscaled
    assert round(body["scaled"][i], 3) == 0.731


def test_scaled_winner_is_sigmoid_of_one_at_every_width(client):
    body = client.get("/api/scaling?d_k_max=4096").get_json()
    assert body["d_k"][-1] == 4096
    assert all(p == pytest.approx(1 / (1 + math.exp(-1)), abs=1e-15) for p in body["scaled"])
    assert body["unscaled"] == sorted(body["unscaled"])  # grows towards 1 with d_k


@pytest.mark.parametrize("d_k_max, last", [(1, 1), (2, 2), (3, 2), (1000, 512), (1025, 1024),
                                           (4095, 2048)])
def test_a_d_k_max_that_is_not_a_power_of_two_keeps_every_power_below_it(client, d_k_max, last):
    body = client.get(f"/api/scaling?d_k_max={d_k_max}").get_json()
    assert body["d_k"] == [2 ** p for p in range(last.bit_length())]


# ---- /api/scaling/sample ----

def test_sample_defaults_and_shape(client):
    r = client.get("/api/scaling/sample")
    assert r.status_code == 200
    body = strict_json(r)
    assert list(body) == ["d_k", "samples", "seed", "variance_raw", "variance_scaled"]
    assert (body["d_k"], body["samples"], body["seed"]) == (64, 10000, 0)
    assert body == client.get("/api/scaling/sample?d_k=64&samples=10000&seed=0").get_json()


def test_sample_is_reproducible_for_the_same_seed(client):
    url = "/api/scaling/sample?d_k=32&samples=5000&seed=7"
    assert client.get(url).get_json() == client.get(url).get_json()


@pytest.mark.parametrize("d_k, samples", [(1, 40000), (16, 40000), (256, 15000)])
def test_variance_is_about_d_k_raw_and_about_1_scaled(client, d_k, samples):
    # The variance of a sample variance is ~2σ⁴/samples: 15 000 samples give ~1.2 %.
    r = client.get(f"/api/scaling/sample?d_k={d_k}&samples={samples}&seed=0")
    assert r.status_code == 200
    body = r.get_json()
    assert body["variance_raw"] == pytest.approx(d_k, rel=0.06)
    assert body["variance_scaled"] == pytest.approx(1.0, rel=0.06)


def test_different_seeds_give_different_samples(client):
    a = client.get("/api/scaling/sample?d_k=16&samples=1000&seed=1").get_json()
    b = client.get("/api/scaling/sample?d_k=16&samples=1000&seed=2").get_json()
    assert a["variance_raw"] != b["variance_raw"]
    assert a["variance_scaled"] != b["variance_scaled"]


def test_the_extremes_of_every_range_are_accepted(client):
    for query in ("d_k=1&samples=100&seed=0", "d_k=1024&samples=100&seed=4294967295",
                  "d_k=2&samples=100000&seed=0"):
        assert client.get(f"/api/scaling/sample?{query}").status_code == 200, query
    assert client.get("/api/scaling?d_k_max=1").status_code == 200


# ---- bad query parameters: one table, status + JSON shape + named field ----

CURVE = "/api/scaling"
SAMPLE = "/api/scaling/sample"
BAD = [
    # (id, url, field, words in the message)
    ("max-abc", f"{CURVE}?d_k_max=abc", "d_k_max",
     'd_k_max must be a whole number from 1 to 4096, got "abc"'),
    ("max-float", f"{CURVE}?d_k_max=1.5", "d_k_max", 'got "1.5"'),
    ("max-empty", f"{CURVE}?d_k_max=", "d_k_max", 'got ""'),
    ("max-zero", f"{CURVE}?d_k_max=0", "d_k_max", 'from 1 to 4096, got "0"'),
    ("max-negative", f"{CURVE}?d_k_max=-4", "d_k_max", 'got "-4"'),
    ("max-above", f"{CURVE}?d_k_max=4097", "d_k_max", 'from 1 to 4096, got "4097"'),
    ("max-huge", f"{CURVE}?d_k_max={'9' * 5000}", "d_k_max", "from 1 to 4096, got \"999"),
    ("max-exponent", f"{CURVE}?d_k_max=1e3", "d_k_max", 'got "1e3"'),
    ("max-space", f"{CURVE}?d_k_max=%2016", "d_k_max", 'got " 16"'),
    ("max-arabic-digit", f"{CURVE}?d_k_max=%D9%A1", "d_k_max", "from 1 to 4096"),
    ("max-twice", f"{CURVE}?d_k_max=4&d_k_max=8", "d_k_max", 'more than once ("4", then "8")'),
    ("curve-unknown", f"{CURVE}?dk=4", "dk", 'Unknown parameter "dk"'),
    ("curve-unknown-sample-param", f"{CURVE}?d_k=4", "d_k", 'did you mean "d_k_max"?'),
    ("too-many-draws", f"{SAMPLE}?d_k=1024&samples=10000", "samples",
     "samples × d_k is 10000 × 1024 = 10,240,000; at most 4,000,000"),
    ("d_k-abc", f"{SAMPLE}?d_k=abc", "d_k", 'd_k must be a whole number from 1 to 1024, got "abc"'),
    ("d_k-float", f"{SAMPLE}?d_k=1.5", "d_k", 'got "1.5"'),
    ("d_k-empty", f"{SAMPLE}?d_k=", "d_k", 'got ""'),
    ("d_k-zero", f"{SAMPLE}?d_k=0", "d_k", 'from 1 to 1024, got "0"'),
    ("d_k-above", f"{SAMPLE}?d_k=1025", "d_k", 'from 1 to 1024, got "1025"'),
    ("samples-abc", f"{SAMPLE}?samples=abc", "samples", 'from 100 to 100000, got "abc"'),
    ("samples-float", f"{SAMPLE}?samples=1000.0", "samples", 'got "1000.0"'),
    ("samples-empty", f"{SAMPLE}?samples=", "samples", 'got ""'),
    ("samples-below", f"{SAMPLE}?samples=99", "samples", 'from 100 to 100000, got "99"'),
    ("samples-above", f"{SAMPLE}?samples=100001", "samples", 'got "100001"'),
    ("seed-abc", f"{SAMPLE}?seed=abc", "seed", 'from 0 to 4294967295, got "abc"'),
    ("seed-float", f"{SAMPLE}?seed=1.5", "seed", 'got "1.5"'),
    ("seed-empty", f"{SAMPLE}?seed=", "seed", 'got ""'),
    ("seed-below", f"{SAMPLE}?seed=-1", "seed", 'from 0 to 4294967295, got "-1"'),
    ("seed-above", f"{SAMPLE}?seed=4294967296", "seed", 'got "4294967296"'),
    ("sample-unknown", f"{SAMPLE}?dk=64", "dk", 'Unknown parameter "dk"; did you mean "d_k"?'),
    ("sample-unknown-after-good", f"{SAMPLE}?d_k=64&sample=10", "sample",
     'Unknown parameter "sample"'),
]


@pytest.mark.parametrize("url, field, words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_query_parameters_are_422_naming_the_parameter(client, url, field, words):
    r = client.get(url)
    assert r.status_code == 422
    assert r.mimetype == "application/json"
    payload = strict_json(r)
    assert set(payload) == {"error"} and set(payload["error"]) == {"message", "field"}
    assert payload["error"]["field"] == field
    assert words in payload["error"]["message"], payload["error"]["message"]
    assert len(payload["error"]["message"]) < 200  # a long value is cut short, not echoed whole


@pytest.mark.parametrize("path", [CURVE, SAMPLE])
def test_lab_routes_answer_only_get(client, path):
    r = client.post(path)
    assert r.status_code == 405 and r.get_json()["error"]["field"] is None
