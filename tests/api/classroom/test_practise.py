"""GET /practise (attention_api/classroom/practise.py, templates/practise.html): the page holds the
numbers a level gives and blanks for the rest, never a blank's number."""

import re

import pytest

from attention_core.classroom.diagnosis import shown
from attention_core.classroom.exercises import GIVEN, LEVELS, exercise, request
from tests.core.helpers import exercise_reference, exercise_value


@pytest.mark.parametrize("level", LEVELS)
def test_every_blank_is_an_empty_input_and_every_number_shown_is_one_the_level_gives(client,
                                                                                     level):
    for seed in range(0, 60, 7):
        response = client.get(f"/practise?seed={seed}&level={level}")
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        e = exercise(seed, level)
        inputs = re.findall(r'<input class="answer"[^>]*data-path="([^"]+)"[^>]*>', html)
        assert sorted(inputs) == sorted(e.blanks) and len(inputs) == len(set(inputs))
        assert not re.search(r'<input class="answer"[^>]*value=', html)
        reference = exercise_reference(request(e))
        for path, text in re.findall(r'<span class="num" data-path="([^"]+)">([^<]+)</span>',
                                     html):
            step = re.sub(r"\[\d+\]", "", path.split(".")[-1])
            value = exercise_value(reference, path) if step != "scaled" or text != "−∞" \
                else float("-inf")
            assert step in GIVEN[level] or text == "−∞", (seed, path)
            assert text == ("−∞" if value == float("-inf") else shown(value, step)), path


def test_a_level_or_seed_that_is_not_one_is_a_422_page_naming_it(client):
    response = client.get("/practise?seed=5&level=softmax")
    assert response.status_code == 422
    assert "level must be one of dots, scaled" in response.get_data(as_text=True)
    response = client.get("/practise?seed=-2&level=z")
    assert response.status_code == 422
    assert "got &#39;-2&#39;" in response.get_data(as_text=True)
    assert client.get("/practise").status_code == 200


def test_an_example_of_ones_own_in_the_link_and_a_seed_typed_beside_it(client):
    import json
    from urllib.parse import quote

    own = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
           "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[0.5, 0], [0, 2]],
           "row": 2}
    link = f"/practise?level=z&request={quote(json.dumps(own))}"
    html = client.get(link).get_data(as_text=True)
    assert "on your own example" in html and 'id="own-request"' in html
    # The inputs as typed (0.5 stays 0.5), the weights given, z blank.
    assert "<td>0.5</td>" in html and 'data-path="working.weights[2]">0.768<' in html
    assert re.findall(r'data-path="(working\.z\[\d\])" aria-label', html) == \
        ["working.z[0]", "working.z[1]"]
    options = re.findall(r'<option value="([a-z]+)"', html)
    assert options == ["dots", "scaled", "exp", "weights", "z", "row"]
    seeded = client.get(link + "&seed=4")
    assert seeded.status_code == 200 and "seed 4," in seeded.get_data(as_text=True)
    broken = client.get("/practise?level=z&request=%7B%22X%22")
    assert broken.status_code == 422
    assert "This link&#39;s example cannot be read: " in broken.get_data(as_text=True)


def test_an_own_example_with_its_own_scale_says_that_scale(client):
    """A scale of 0.5 sent with one's own example: the column and the note say × 0.5, as the
    numbers are made, not × 1."""
    import json
    from urllib.parse import quote

    request = {"tokens": ["a", "b"], "X": [[1, 0], [0, 1]], "W_Q": [[2, 0], [0, 2]],
               "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]], "scale": 0.5, "row": 1}
    r = client.get(f"/practise?level=scaled&request={quote(json.dumps(request))}")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert 'data-tex="s_j = q_{2} \\cdot k_j \\times 0.5"' in page
    assert "Scale 0.5: the scores are multiplied by 0.5, not divided by $\\sqrt{d_k}$." in page
