import { test } from "node:test";
import assert from "node:assert/strict";
import { fileNameOf, saveTypeset } from "../../../static/js/lib/typeset.js";

test("a typeset file's name comes from the server's Content-Disposition", () => {
  assert.equal(fileNameOf('attachment; filename="key-row-17-19.pdf"', "x.pdf"), "key-row-17-19.pdf");
  assert.equal(fileNameOf(null, "x.pdf"), "x.pdf");
});

test("a typeset file refused by a busy server (503, Retry-After) is asked again after it", async () => {
  const answers = [
    { ok: false, status: 503, headers: new Map([["Retry-After", "2"]]), json: async () => ({}) },
    { ok: false, status: 422, headers: new Map(), json: async () => ({ error: { message: "level is missing" } }) },
  ];
  const asked = [];
  const slept = [];
  const said = await saveTypeset("/w", { level: "row" }, "x.pdf",
    async (url, init) => { asked.push([url, init.body]); return answers.shift(); },
    async (ms) => { slept.push(ms); });
  assert.equal(said, "level is missing");
  assert.deepEqual(asked, [["/w", '{"level":"row"}'], ["/w", '{"level":"row"}']]);
  assert.deepEqual(slept, [2000]);
  // A 503 without Retry-After (the real models missing) is not busy: said at once.
  const missing = { ok: false, status: 503, headers: new Map(), json: async () => ({ error: { message: "not installed" } }) };
  assert.equal(await saveTypeset("/w", {}, "x.pdf", async () => missing, async () => assert.fail("slept")),
    "not installed");
});

test("a typeset file that cannot be made says why: the server's message, or the status", async () => {
  const answer = (status, body) => async () => ({ ok: status < 300, status, json: async () => body });
  const said = await saveTypeset("/w", {}, "x.pdf",
    answer(422, { error: { message: "level must be one of dots", field: "level" } }));
  assert.equal(said, "level must be one of dots");
  assert.equal(await saveTypeset("/w", {}, "x.pdf", answer(502, null)),
    "The server answered 502; nothing was made.");
  assert.equal(await saveTypeset("/w", {}, "x.pdf", async () => { throw new TypeError("down"); }),
    "The server cannot be reached; nothing was made. Try again.");
});
