"""POST /api/cost (attention_api/running/cost.py): the view's costs by formula, a measurement at
n = 64 … 512 with its fitted slopes, one measurement at a time per server, and every bad
input a 422 naming its field."""

import pytest

from attention_api.running.cost import one_at_a_time

VIEW = {"n": 3, "d_model": 2, "d_k": 2, "d_v": 2}


def test_the_costs_of_the_default_example(client):
    r = client.post("/api/cost", json=VIEW)
    assert r.status_code == 200
    body = r.get_json()
    assert "measured" not in body  # only when asked: it takes a core for up to 2 s
    assert [s["multiply_adds"] for s in body["steps"]] == [12, 12, 12, 18, 18]
    assert [m["bytes"] for m in body["matrices"]] == [48, 48, 48, 72, 72, 48]


def test_a_measurement_answers_times_slopes_and_the_scores_held(client):
    r = client.post("/api/cost", json={**VIEW, "measure": True})
    assert r.status_code == 200
    got = r.get_json()["measured"]
    assert got["sizes"] == [64, 128, 256, 512] and got["complete"] is True
    assert got["block"] == 64
    for kind in ("standard", "tiled"):
        assert len(got[kind]["seconds"]) == 4 and all(s > 0 for s in got[kind]["seconds"])
        assert isinstance(got[kind]["slope"], float)
    assert got["standard"]["score_bytes"] == [n * n * 8 for n in (64, 128, 256, 512)]
    assert got["tiled"]["score_bytes"] == [64 * 64 * 8] * 4


def test_a_second_measurement_is_refused_while_one_runs(client, tmp_path, monkeypatch):
    import attention_api.running.cost as cost

    lock = str(tmp_path / "cost.lock")
    monkeypatch.setattr(cost, "LOCK_FILE", lock)
    with one_at_a_time(lock):
        r = client.post("/api/cost", json={**VIEW, "measure": True})
        assert r.status_code == 503 and r.headers["Retry-After"] == "2"
        assert "one measurement at a time" in r.get_json()["error"]["message"]
        assert client.post("/api/cost", json=VIEW).status_code == 200  # formulas need no lock
    assert client.post("/api/cost", json={**VIEW, "measure": True}).status_code == 200


@pytest.mark.parametrize(("change", "field", "says"), [
    ({"n": 0}, "n", "from 1 to 512; got 0"),
    ({"n": None}, "n", "got null"),
    ({"d_k": 2.5}, "d_k", "got 2.5"),
    ({"d_model": 100000}, "d_model", "got 100000"),
    ({"measure": "yes"}, "measure", 'the string "yes"'),
    ({"x": 1}, "x", 'Unknown field "x". The fields are n, m, d_model'),
])
def test_bad_input_is_a_422_naming_the_field(client, change, field, says):
    r = client.post("/api/cost", json={**VIEW, **change})
    assert r.status_code == 422
    assert r.get_json()["error"]["field"] == field and says in r.get_json()["error"]["message"]


def test_sizes_sent_as_floats_are_those_sizes(client):
    as_floats = client.post("/api/cost", json={**VIEW, **{k: float(VIEW[k]) for k in (
        "n", "d_model", "d_k", "d_v")}})
    as_ints = client.post("/api/cost", json=VIEW)
    assert as_floats.status_code == as_ints.status_code == 200
    assert as_floats.get_json() == as_ints.get_json()
