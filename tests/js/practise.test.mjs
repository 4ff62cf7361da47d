import { test } from "node:test";
import assert from "node:assert/strict";
import { checkBody, readAnswers } from "../../static/js/practise/answers.js";
import { createChecker } from "../../static/js/practise/check.js";
import { scoreText, tally } from "../../static/js/practise/score.js";
import { spoken } from "../../static/js/practise/marks.js";
import { countOf, sheetBody } from "../../static/js/practise/paper.js";
import { fileNameOf, saveTypeset } from "../../static/js/lib/typeset.js";

test("typed answers: empty blanks are left out, the page's minus is read, text is named", () => {
  const { answers, invalid } = readAnswers([
    { path: "working.weights[0]", text: " 0.187 " },
    { path: "working.weights[1]", text: "" },
    { path: "working.weights[2]", text: "\u22120.5" },
    { path: "working.z[0]", text: "0,5" },
  ]);
  assert.deepEqual(answers, { "working.weights[0]": 0.187, "working.weights[2]": -0.5 });
  assert.deepEqual(invalid, [{ path: "working.z[0]", message: "“0,5”: use a point for decimals, e.g. 0.5." }]);
  assert.deepEqual(checkBody({ seed: 17, level: "weights" }, answers),
    { seed: 17, level: "weights", answers });
});

test("the exercise's score counts each blank once, by the newest check", () => {
  assert.equal(scoreText(tally({})), "This exercise: no answer checked yet.");
  const results = { a: { correct: true }, b: { correct: false }, c: { correct: true } };
  assert.deepEqual(tally(results), { right: 2, answered: 3 });
  assert.equal(scoreText(tally(results)), "This exercise: 2 of 3 answers right.");
  assert.equal(scoreText(tally({ ...results, c: { correct: false } })), "This exercise: 1 of 3 answers right.");
  assert.equal(scoreText({ right: 1, answered: 1 }), "This exercise: 1 of 1 answer right.");
});

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

test("what the live region says for a blank just entered", () => {
  assert.equal(spoken("Weight, key 2 (mat)", { correct: true }), "Weight, key 2 (mat): right.");
  assert.equal(spoken("Weight, key 2 (mat)", { correct: false, hint: "Your 1.000 is e^s₂ itself." }),
    "Weight, key 2 (mat): not yet. Your 1.000 is e^s₂ itself.");
  assert.equal(spoken("z, entry 1", undefined, "“x” is not a number."), "z, entry 1: “x” is not a number.");
});

test("the editor's link to practise its selected row carries the request, or none", async () => {
  const { practiseHref } = await import("../../static/js/editor/export/practiselink.js");
  const request = { tokens: ["a", "b"], X: [[1, 0], [0, 1]], W_Q: [[1, 0], [0, 1]], row: 1 };
  const href = practiseHref(request, "/p/practise");
  assert.equal(href, `/p/practise?level=dots&request=${encodeURIComponent(JSON.stringify(request))}`);
  assert.deepEqual(JSON.parse(new URL(href, "http://x").searchParams.get("request")), request);
  assert.equal(practiseHref(null, "/p/practise"), "/p/practise");
  assert.equal(practiseHref({ ...request, row: null }, "/p/practise"), "/p/practise");
});

test("an example of one's own is checked by its request", () => {
  const own = { seed: null, level: "z", request: { X: [[1]] } };
  assert.deepEqual(checkBody(own, { "working.z[0]": 1 }), { request: { X: [[1]] }, level: "z", answers: { "working.z[0]": 1 } });
});

test("a worksheet's body: a class set of consecutive seeds, or one's own example", () => {
  assert.deepEqual(sheetBody({ seed: 17, level: "z", request: null }, { count: 3 }),
    { seeds: [17, 18, 19], level: "z", key: false, format: "pdf" });
  const request = { tokens: ["a", "b"], row: 1 };
  assert.deepEqual(sheetBody({ seed: null, level: "row", request }, { key: true, count: 5 }),
    { request, level: "row", key: true, format: "pdf" });
  assert.equal(countOf(" 30 ", 100), 30);
  assert.deepEqual(countOf("0", 100), { message: "Worksheets must be a whole number from 1 to 100; got “0”." });
  assert.deepEqual(countOf("2.5", 100), { message: "Worksheets must be a whole number from 1 to 100; got “2.5”." });
  assert.deepEqual(countOf("101", 100), { message: "Worksheets must be a whole number from 1 to 100; got “101”." });
});

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
