// The real-model view's requests and the answers it keeps (static/js/model/request.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { answer } from "../../../static/js/lib/config.js";
import { decodeAnswer, headKey, keptFor, merged, nothingKept, overviewMap, requestFor, rowKey, runKey, workingFields } from "../../../static/js/model/request.js";

const S = { model: "smollm2-135m", text: "The cat", layer: 1, head: 2, row: 1, causal: true };

// The config block's answer as the server sends it (tests/api/pages/test_routes.py checks the file).
const PAGE = JSON.parse(readFileSync(new URL("../../data/page_answer.json", import.meta.url)));

Object.assign(answer, PAGE.config);

test("a row's working asks the parts it asked when they were typed here", () => {
  assert.deepEqual([...workingFields()].sort(), [...PAGE.model_working_before].sort());
});

test("a request asks only what the kept answers lack", () => {
  const none = nothingKept();
  const first = requestFor(S, none, true);
  assert.deepEqual(first.fields.slice(0, 4), ["tokens", "words", "overview", "next_tokens"]);
  assert.ok(first.fields.includes("weights"));
  assert.equal(first.encoding, "base64");
  assert.equal(requestFor(S, none, false).fields.includes("next_tokens"), false);
  // A text's tokens unknown: its row is neither sent nor its working asked, whatever the
  // state's row (a link's); the run's answer tells how many tokens there are.
  assert.equal("row" in first, false);
  assert.equal(first.fields.includes("working.row"), false);
  const all = { run: runKey(S), n: 2, head: headKey(S), row: rowKey(S) };
  assert.equal(requestFor(S, all, true), null);
  // Another head: its blocks and working, not the overview.
  const head = requestFor({ ...S, head: 3 }, all, true);
  assert.equal(head.fields.includes("overview"), false);
  assert.ok(head.fields.includes("weights") && head.fields.includes("working.row"));
  // Another row: its working alone (and the tokens every answer names).
  assert.deepEqual(requestFor({ ...S, row: 0 }, all, true).fields, ["tokens", ...workingFields()]);
  // The counterfactual mask: the head again, not the run.
  assert.equal(requestFor({ ...S, causal: false }, all, true).fields.includes("overview"), false);
  // No row chosen, or one past the text's 2 tokens: the last token's, row 1.
  for (const row of [null, 2, 40]) {
    const asked = requestFor({ ...S, row }, { ...all, row: null }, true);
    assert.equal(asked.row, 1);
    assert.deepEqual(asked.fields, ["tokens", ...workingFields()]);
  }
});

test("what an answer brings is kept under its keys, the tokens' count with its run", () => {
  const request = requestFor(S, nothingKept(), true);
  const kept = merged(nothingKept(), request, { tokens: ["The", "cat"], weights: [[1, 0], [0.5, 0.5]] });
  assert.deepEqual([kept.model, kept.run, kept.n, kept.head, kept.row], ["smollm2-135m", runKey(S), 2, headKey({ ...S, row: null }), null]);
  assert.equal(kept.shown.row, null);
  // The next request asks the state's row, now known to be in the text.
  const again = merged(kept, requestFor(S, kept, true), { tokens: ["The", "cat"], working: { row: 1 } });
  assert.equal(again.head, headKey(S));
  assert.equal(again.row, rowKey(S));
  assert.equal(again.shown.row, 1);
  assert.deepEqual(again.answer.weights, [[1, 0], [0.5, 0.5]]);
});

test("what is kept of one model is nothing to another", () => {
  const kept = merged(nothingKept(), requestFor(S, nothingKept(), true), { tokens: ["The", "cat"] });
  assert.equal(keptFor(kept, { ...S, layer: 7, row: 0 }), kept);
  assert.deepEqual(keptFor(kept, { ...S, model: "minilm-l6" }), nothingKept());
});

test("the overview's bytes stay flat, each head a view of them", () => {
  // 2 layers × 2 heads × 2 × 2: bytes 0 … 15.
  const bytes = Uint8Array.from({ length: 16 }, (_, k) => k);
  const base64 = Buffer.from(bytes).toString("base64");
  const share = Buffer.from(new Float64Array([0.5, 0.25, 1, 0]).buffer).toString("base64");
  const answer = decodeAnswer({ tokens: ["a", "b"], overview: {
    weights_u8: { dtype: "uint8", shape: [2, 2, 2, 2], base64 },
    first_token_share: { dtype: "float64", shape: [2, 2], base64: share } } });
  assert.deepEqual(answer.overview.weights_u8.shape, [2, 2, 2, 2]);
  assert.deepEqual([...overviewMap(answer.overview.weights_u8, 1, 0)], [8, 9, 10, 11]);
  assert.deepEqual(answer.overview.first_token_share, [[0.5, 0.25], [1, 0]]);
  // The JSON form reads the same.
  const nested = decodeAnswer({ overview: { weights_u8: [[[[0, 1], [2, 3]], [[4, 5], [6, 7]]], [[[8, 9], [10, 11]], [[12, 13], [14, 15]]]],
    first_token_share: [[0.5, 0.25], [1, 0]] } });
  assert.deepEqual([...overviewMap(nested.overview.weights_u8, 1, 1)], [12, 13, 14, 15]);
});
