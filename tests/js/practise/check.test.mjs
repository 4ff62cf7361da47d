import { test } from "node:test";
import assert from "node:assert/strict";
import { createChecker } from "../../../static/js/practise/check.js";

test("only the newest check is delivered, and a lost connection is said calmly", async () => {
  const resolvers = [];
  const fetchFn = () => new Promise((resolve) => resolvers.push(resolve));
  const check = createChecker(fetchFn);
  const first = check({ n: 1 });
  const second = check({ n: 2 });
  const ok = (body) => ({ ok: true, status: 200, json: async () => body });
  resolvers[1](ok({ results: { b: { correct: true } } }));
  resolvers[0](ok({ results: { a: { correct: false } } }));
  assert.equal(await first, null);
  assert.deepEqual(await second, { ok: true, body: { results: { b: { correct: true } } } });
  const refused = createChecker(async () => ({ ok: false, status: 422, json: async () => ({ error: { message: "level must be one of …" } }) }));
  assert.deepEqual(await refused({}), { ok: false, message: "level must be one of …" });
  const lost = createChecker(async () => { throw new TypeError("Failed to fetch"); });
  assert.match((await lost({})).message, /^The server cannot be reached: your answers are kept/);
});
