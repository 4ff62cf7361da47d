import { test } from "node:test";
import assert from "node:assert/strict";
import { createApi, requestJSON } from "../js/api.js";

const reply = (status, body) => ({ status, json: async () => body });

function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

test("posts the request as JSON and returns status and body", async () => {
  const seen = [];
  const api = createApi({ fetch: async (url, init) => { seen.push([url, init]); return reply(200, { ok: 1 }); } });
  assert.deepEqual(await api.compute({ X: [[1]] }), { status: 200, body: { ok: 1 } });
  assert.equal(seen[0][0], "/api/attention");
  assert.equal(seen[0][1].headers["Content-Type"], "application/json");
  assert.deepEqual(JSON.parse(seen[0][1].body), { X: [[1]] });
});

test("an answer asked in base64 comes back as nested lists", async () => {
  const bytes = Buffer.alloc(16);
  bytes.writeDoubleLE(0.25, 0);
  bytes.writeDoubleLE(-Infinity, 8);
  const packed = { weights: { dtype: "float64", shape: [1, 2], base64: bytes.toString("base64") }, d_k: 2 };
  const api = createApi({ fetch: async () => reply(200, packed) });
  assert.deepEqual(await api.compute({ X: [[1]], encoding: "base64" }), { status: 200, body: { weights: [[0.25, null]], d_k: 2 } });
  // Asked in JSON, an object of that shape is left alone (it is not the server's doing).
  assert.deepEqual((await api.compute({ X: [[1]] })).body, packed);
});

test("a slow answer never overwrites a newer one", async () => {
  const slow = deferred();
  const api = createApi({
    fetch: async (_url, init) => (JSON.parse(init.body).n === 1 ? slow.promise : reply(200, { n: 2 })),
  });
  const first = api.compute({ n: 1 });
  const second = await api.compute({ n: 2 });
  slow.resolve(reply(200, { n: 1 }));
  assert.equal(await first, null);
  assert.deepEqual(second.body, { n: 2 });
});

test("an older request is aborted when a newer one starts", async () => {
  const signals = [];
  const api = createApi({
    fetch: (_url, init) => {
      signals.push(init.signal);
      return new Promise((resolve, reject) => {
        init.signal.addEventListener("abort", () => reject(Object.assign(new Error("x"), { name: "AbortError" })));
        if (signals.length === 2) resolve(reply(200, {}));
      });
    },
  });
  const first = api.compute({});
  await api.compute({});
  assert.equal(signals[0].aborted, true);
  assert.equal(await first, null);
});

test("a lost connection is reported once, retried, and recovery reported", async () => {
  let calls = 0;
  const events = [];
  const waits = [];
  const api = createApi({
    fetch: async () => {
      calls += 1;
      if (calls <= 3) throw new TypeError("Failed to fetch");
      return reply(200, { back: true });
    },
    onConnection: (up) => events.push(up),
    sleep: async (ms) => { waits.push(ms); },
  });
  const result = await api.compute({});
  assert.deepEqual(result.body, { back: true });
  assert.equal(calls, 4);
  assert.deepEqual(events, [false, true]);
  assert.deepEqual(waits, [500, 1000, 2000]);
});

test("a gateway error counts as unreachable; a 422 is an answer", async () => {
  const statuses = [503, 422];
  const api = createApi({
    fetch: async () => reply(statuses.shift(), { error: { message: "m", field: "X[0][0]" } }),
    sleep: async () => {},
  });
  const result = await api.compute({});
  assert.equal(result.status, 422);
  assert.equal(result.body.error.field, "X[0][0]");
});

test("requestJSON writes what JSON.stringify writes, and reuses a row's text", () => {
  const row = [1, -0.5, 1e-7, 2];
  const request = { tokens: ["the", "a\"b"], X: [row, [3, 4]], causal: false, scale: undefined,
    mask: [[true, false]], heads: [{ W_Q: [[1]] }], fields: ["weights", "heads[0].Q"], row: null };
  assert.equal(requestJSON(request), JSON.stringify(request));
  assert.equal(requestJSON({ X: [row] }), JSON.stringify({ X: [row] }));  // the cached text
  assert.equal(requestJSON([]), "[]");
});
