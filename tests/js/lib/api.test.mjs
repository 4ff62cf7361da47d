import { test } from "node:test";
import assert from "node:assert/strict";
import { createApi, postOnce, requestJSON } from "../../../static/js/lib/api.js";
import { urls } from "../../../static/js/lib/config.js";

// The API's URL comes from the server (config.js), with the prefix the app is mounted under.
urls.attention = "/explorer/api/attention";

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
  assert.equal(seen[0][0], "/explorer/api/attention");
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

/** An answer whose body is ``text`` of ``type``, read as fetch reads it. */
const raw = (status, type, text) => ({
  status, headers: new Headers({ "Content-Type": type }), json: async () => JSON.parse(text),
});

test("an error answer in JSON is an answer, whatever its status but 503: delivered, not retried", async () => {
  for (const status of [422, 500]) {
    let calls = 0;
    const api = createApi({
      fetch: async () => { calls += 1; return reply(status, { error: { message: "m", field: "X[0][0]" } }); },
      sleep: async () => { throw new Error("no retry"); },
    });
    const result = await api.compute({});
    assert.deepEqual(result, { status, body: { error: { message: "m", field: "X[0][0]" } } });
    assert.equal(calls, 1);
  }
});

test("a proxy's HTML error page is reported once with its status and type, never retried", async () => {
  let calls = 0;
  const events = [];
  const api = createApi({
    fetch: async () => { calls += 1; return raw(502, "text/html", "<html><h1>502 Bad Gateway</h1></html>"); },
    onConnection: (up) => events.push(up),
    sleep: async () => { throw new Error("no retry"); },
  });
  const result = await api.compute({ encoding: "base64" });
  assert.equal(calls, 1);
  assert.equal(result.status, 502);
  assert.equal(result.unreadable, true);
  assert.equal(result.body.error.field, null);
  assert.match(result.body.error.message, /^The server's answer could not be read \(status 502, text\/html\)/);
  assert.deepEqual(events, [], "the server is not called unreachable: something answered");
});

test("a 200 with a malformed or non-object body is unreadable, not a result", async () => {
  for (const [type, text] of [["application/json", '{"weights": [[0.5,'], ["text/plain", "OK"], ["application/json", "null"],
    ["application/json", "[1, 2]"]]) {
    const api = createApi({ fetch: async () => raw(200, type, text), sleep: async () => { throw new Error("no retry"); } });
    const result = await api.compute({});
    assert.equal(result.unreadable, true, text);
    assert.ok(result.body.error.message.includes(`status 200, ${type}`), result.body.error.message);
  }
});

test("a connection lost while the body arrives is retried, as a lost connection is", async () => {
  let calls = 0;
  const events = [];
  const api = createApi({
    fetch: async () => {
      calls += 1;
      return calls === 1 ? { status: 200, json: async () => { throw new TypeError("network error"); } } : reply(200, { ok: 1 });
    },
    onConnection: (up) => events.push(up),
    sleep: async () => {},
  });
  assert.deepEqual(await api.compute({}), { status: 200, body: { ok: 1 } });
  assert.deepEqual(events, [false, true]);
});

test("postOnce reads an answer as compute does: an HTML page is unreadable", async () => {
  const result = await postOnce({ X: [[1]], fields: [] }, { fetch: async () => raw(504, "text/html; charset=utf-8", "<p>timeout</p>") });
  assert.equal(result.unreadable, true);
  assert.match(result.body.error.message, /status 504, text\/html; charset=utf-8/);
  const seen = [];
  assert.deepEqual(await postOnce({}, { fetch: async (url) => { seen.push(url); return reply(200, {}); } }), { status: 200, body: {} });
  assert.deepEqual(seen, ["/explorer/api/attention"]);
});

test("requestJSON writes what JSON.stringify writes, and reuses a row's text", () => {
  const row = [1, -0.5, 1e-7, 2];
  const request = { tokens: ["the", "a\"b"], X: [row, [3, 4]], causal: false, scale: undefined,
    mask: [[true, false]], heads: [{ W_Q: [[1]] }], fields: ["weights", "heads[0].Q"], row: null };
  assert.equal(requestJSON(request), JSON.stringify(request));
  assert.equal(requestJSON({ X: [row] }), JSON.stringify({ X: [row] }));  // the cached text
  assert.equal(requestJSON([]), "[]");
});

test("a 503 (busy with large answers) is sent again after Retry-After, then answered", async () => {
  const waits = [];
  const answers = [
    { status: 503, headers: new Map([["Retry-After", "2"]]), json: async () => ({ error: { message: "busy", field: null } }) },
    { status: 503, headers: new Map(), json: async () => ({ error: { message: "busy", field: null } }) },
    reply(200, { ok: 1 }),
  ];
  let posts = 0;
  const api = createApi({ fetch: async () => answers[posts++], sleep: async (ms) => { waits.push(ms); } });
  assert.deepEqual(await api.compute({ X: [[1]] }), { status: 200, body: { ok: 1 } });
  assert.equal(posts, 3);
  assert.deepEqual(waits, [2000, 1000]);  // the header's seconds, else one second
});

test("a newer edit while a 503 waits supersedes the retry", async () => {
  const gate = deferred();
  const sent = [];
  const api = createApi({
    fetch: async (_url, init) => {
      const { n } = JSON.parse(init.body);
      sent.push(n);
      return n === 1 ? { status: 503, headers: new Map(), json: async () => ({ error: { message: "busy", field: null } }) }
        : reply(200, { n });
    },
    sleep: () => gate.promise,
  });
  const first = api.compute({ n: 1 });
  await new Promise((r) => setImmediate(r));  // the first is answered 503 and waits
  const newer = api.compute({ n: 2 });
  gate.resolve();
  assert.equal(await first, null);  // not sent again: the newer request took its place
  assert.deepEqual(await newer, { status: 200, body: { n: 2 } });
  assert.deepEqual(sent, [1, 2]);
});
