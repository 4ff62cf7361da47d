"""Scale-out: nginx balancing app servers (attention_server/serve.py with
ATTENTION_UPSTREAMS, as compose.yaml runs it), one of them killed in the middle of a load,
and no request failing; and compose.yaml, checked without a Docker engine."""

import http.client
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from attention_api.real_models.runs import RUNS_MB
from benchmarks.server import ROOT, Production
from tests.serving.test_serving import wait_for

CAT_SAT = {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
           "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]}


def cat_sat_weights():
    """softmax(QKᵀ/√2) by rows for CAT_SAT, written out here: Q = [[1,0],[1,2],[2,2]],
    K = [[2,0],[0,1],[2,1]], so QKᵀ = [[2,0,2],[2,2,4],[4,2,6]]."""
    scaled = np.array([[2, 0, 2], [2, 2, 4], [4, 2, 6]]) / np.sqrt(2)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class Load:
    """``clients`` threads, each on a keep-alive connection to ``port``, sending POST
    /api/attention (CAT_SAT) and GET /health in turn until stopped; every answer that is
    not a 200 with the right weights, and every connection error, is a failure."""

    def __init__(self, port: int, clients: int = 12):
        self.port, self.done, self.failures = port, [], []
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.client) for _ in range(clients)]

    def client(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        want = cat_sat_weights()
        while not self.stopping.is_set():
            try:
                connection.request("POST", "/api/attention", json.dumps(CAT_SAT),
                                   {"Content-Type": "application/json"})
                answer = connection.getresponse()
                body = answer.read()
                if answer.status != 200 or not np.allclose(json.loads(body)["weights"], want,
                                                           rtol=1e-12, atol=1e-12):
                    self.failures.append((answer.status, body[:200]))
                connection.request("GET", "/health")
                answer = connection.getresponse()
                answer.read()
                if answer.status != 200:
                    self.failures.append((answer.status, "/health"))
                self.done.append(time.monotonic())
            except (OSError, http.client.HTTPException) as e:
                self.failures.append(repr(e))
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.close()

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(60)

    def wait_for(self, count: int):
        wait_for(lambda: len(self.done) >= count, 30, f"{count} rounds done")


def answered(server) -> int:
    """POSTs an app server's nginx logged (its access log, in the server's log)."""
    return server.log_path.read_text().count('"POST /api/attention HTTP/1.1" 200')


def kill_hard(server):
    """SIGKILL every process of an app server at once: the start script, nginx, gunicorn."""
    pids = [server.process.pid, *server.nginx(), server.gunicorn(), *server.workers()]
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    server.process.wait(10)


def test_nginx_balances_two_app_servers_and_no_request_fails_when_one_is_killed(tmp_path):
    for name in ("a", "b", "balancer"):
        (tmp_path / name).mkdir()
    one = {"ATTENTION_WORKERS": "1"}
    with Production(tmp_path / "a", env=one) as a, Production(tmp_path / "b", env=one) as b:
        upstreams = f"127.0.0.1:{a.port},127.0.0.1:{b.port}"
        with Production(tmp_path / "balancer", env={"ATTENTION_UPSTREAMS": upstreams}) as lb:
            said = "balancing over " + upstreams.replace(",", ", ")  # once nginx is up
            wait_for(lambda: said in lb.log_path.read_text(), 30, f"the log saying {said!r}")
            with Load(lb.port) as load:
                load.wait_for(100)
                assert answered(a) > 0 and answered(b) > 0  # both served before the kill
                kill_hard(a)
                killed_at, before = time.monotonic(), answered(b)
                load.wait_for(len(load.done) + 200)
            assert load.failures == []
            assert sum(t > killed_at for t in load.done) >= 200
            assert answered(b) - before >= 200  # b answered every request after the kill


def test_compose_runs_n_app_servers_behind_the_same_images_nginx(tmp_path):
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    app, balancer = compose["services"]["app"], compose["services"]["balancer"]
    assert app["build"] == "." and balancer["image"] == app["image"]
    assert "ports" not in app  # reached through the balancer alone
    assert balancer["environment"]["ATTENTION_UPSTREAMS"] == "app:8000"
    assert balancer["ports"] == ["8000:8000"] and balancer["depends_on"] == ["app"]
    assert app["deploy"]["replicas"] >= 2
    # Room in /dev/shm for the runs its workers share: 3/4 of it is theirs (shared_runs.py).
    assert int(app["shm_size"].removesuffix("m")) * 3 // 4 >= RUNS_MB


@pytest.mark.parametrize("value", ["app", "app:port", "http://app:8000", "app:8000;x"])
def test_a_bad_upstream_is_refused_naming_it(tmp_path, value):
    server = Production(tmp_path, env={"ATTENTION_UPSTREAMS": value})  # not entered: not run
    run = subprocess.run(server.command, cwd=ROOT, env=server.env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1
    assert f"got {value!r}" in run.stderr and "ATTENTION_UPSTREAMS must be host:port" in run.stderr


def test_the_runs_folder_of_a_killed_server_is_removed_by_the_next_start(tmp_path):
    (tmp_path / "a").mkdir()
    with Production(tmp_path / "a", env={"ATTENTION_WORKERS": "1"}) as server:
        master = server.gunicorn()
        (orphan,) = Path("/dev/shm").glob(f"attention-runs-{master}-*")
        kill_hard(server)
    assert orphan.exists()  # nothing removed it
    (tmp_path / "b").mkdir()
    with Production(tmp_path / "b", env={"ATTENTION_WORKERS": "1"}) as again:
        assert not orphan.exists()
        assert len(list(Path("/dev/shm").glob(f"attention-runs-{again.gunicorn()}-*"))) == 1


def test_a_killed_master_not_yet_reaped_counts_as_gone(tmp_path):
    """A zombie (killed, its parent not yet waiting on it) still has a /proc entry; its runs
    folder is an orphan all the same, and the next start removes it."""
    from attention_server.startup import remove_orphans

    child = subprocess.Popen(["sleep", "60"])
    folder = tmp_path / f"attention-runs-{child.pid}-x"
    folder.mkdir()
    remove_orphans(tmp_path)
    assert folder.exists()  # its process runs
    child.kill()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the killed child never became a zombie"
    remove_orphans(tmp_path)
    assert not folder.exists()
    child.wait()
