import { all, host, read } from "../../fakedom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";

// The panel waits for a painted frame before its side requests leave; typesetting is
// KaTeX's business, not this test's.
globalThis.requestAnimationFrame ??= (task) => setTimeout(task);
globalThis.katex ??= { render: () => {} };
const { createLessons } = await import("../../../../static/js/editor/lessons/lessonpanel.js");

const I = [[1, 0], [0, 1]];
const REQUEST = { tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: I, W_K: I, W_V: I, row: 2, positional: "rope" };
// The answer's working for query 3 (what the lesson shows of this view): q_3 and its scores.
const answer = (q, dots) => ({ tokens: REQUEST.tokens, d_k: 2, K: [[1, 0], [0, 1], [1, 1]], V: I, mask: [[true, true, true]],
  working: { row: 2, q, dots } });

/** A post() whose answers the test gives, one by one: {requests, answer(k, body)}. */
function server() {
  const requests = [];
  const waiting = [];
  const post = (request) => new Promise((resolve) => {
    requests.push(request);
    waiting.push(resolve);
  });
  return { post, requests, answer: (k, body) => waiting[k]({ status: 200, body }) };
}
async function until(cond, what) {
  const deadline = Date.now() + 2000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`${what}: not so after 2 s`);
    await new Promise((r) => setTimeout(r, 1));
  }
}
const settle = () => new Promise((r) => setTimeout(r, 5));
const ropeRows = (out) => all(all(out, "table")[0], "tr").slice(1).map((tr) => tr.childNodes.map(read));

test("side answers for a view no longer shown are dropped; the newest view's are drawn", async () => {
  const { post, requests, answer: reply } = server();
  const out = host();
  const lessons = createLessons(out, { post });
  lessons.draw({ request: REQUEST, answer: answer([1, 2], [1, 2, 3]), head: 0, row: 2 });
  await until(() => requests.length === 3, "three side requests");  // RoPE at offset 1, sinusoidal at 0 and 1
  assert.deepEqual(requests.map((r) => [r.positional, r.position_offset]), [["rope", 1], ["sinusoidal", 0], ["sinusoidal", 1]]);
  // An edit: the view is now at offset 4, before the first view's answers came.
  // Sinusoidal positions at offset 0 are asked already: two more requests, not three.
  lessons.draw({ request: { ...REQUEST, position_offset: 4 }, answer: answer([3, 4], [1, 2, 3]), head: 0, row: 2 });
  await until(() => requests.length === 5, "two more side requests");
  assert.deepEqual(requests.slice(3).map((r) => [r.positional, r.position_offset]), [["rope", 0], ["sinusoidal", 4]]);
  reply(0, { working: { row: 2, q: [9, 9], dots: [1, 2, 3] } });  // the stale RoPE answer, at offset 1
  await settle();
  assert.deepEqual(ropeRows(out), [["offset 0", "…", "…"], ["offset 4", "3.000", "4.000", "1.000", "2.000", "3.000"]]);
  reply(3, { working: { row: 2, q: [5, 6], dots: [1, 2, 3] } });  // the newest view's, at offset 0
  await settle();
  assert.deepEqual(ropeRows(out), [["offset 0", "5.000", "6.000", "1.000", "2.000", "3.000"], ["offset 4", "3.000", "4.000", "1.000", "2.000", "3.000"]]);
});

test("a plain request hides the block and asks nothing", async () => {
  const { post, requests } = server();
  const out = host();
  const lessons = createLessons(out, { post });
  const { positional, ...plain } = REQUEST;  // eslint-disable-line no-unused-vars
  lessons.draw({ request: plain, answer: answer([1, 2], [1, 2, 3]), head: 0, row: 2 });
  await settle();
  assert.equal(out.hidden, true);
  assert.equal(out.childNodes.length, 0);
  assert.equal(requests.length, 0);
});

test("a large view's side requests wait for the edits to pause, and only the newest view's leave", async () => {
  const { QUIET_CELLS, inputCells } = await import("../../../../static/js/editor/lessons/lessonpanel.js");
  const D = 600;
  const wide = (v) => Array.from({ length: 3 }, () => Array(D).fill(v));
  const W = Array.from({ length: D }, () => [0, 1]);
  const big = { ...REQUEST, X: wide(1), W_Q: W, W_K: W, W_V: W };
  assert.equal(inputCells(big), 3 * D + 3 * D * 2);
  assert.equal(inputCells(REQUEST), 6 + 12);
  assert.ok(inputCells(big) < QUIET_CELLS);  // still small: asked after the next paint
  const { post, requests } = server();
  const lessons = createLessons(host(), { post, quietMs: 30 });
  const many = { ...big, X: Array.from({ length: 3 }, () => Array(QUIET_CELLS).fill(1)), W_Q: [[0, 1]], W_K: [[0, 1]], W_V: [[0, 1]] };
  assert.ok(inputCells(many) > QUIET_CELLS);
  lessons.draw({ request: many, answer: answer([1, 2], [1, 2, 3]), head: 0, row: 2 });
  lessons.draw({ request: { ...many, position_offset: 4 }, answer: answer([3, 4], [1, 2, 3]), head: 0, row: 2 });
  await settle();
  assert.equal(requests.length, 0, "nothing leaves while the edits come");
  await until(() => requests.length === 3, "the newest view's three side requests");
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(requests.map((r) => [r.positional, r.position_offset]), [["rope", 0], ["sinusoidal", 0], ["sinusoidal", 4]]);
});
