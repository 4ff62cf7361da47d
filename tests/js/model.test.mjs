// The "Real model" view's pure modules: its state and URL fragment, the grid's keyboard
// moves, its requests and the way it writes tokens.
import assert from "node:assert/strict";
import { test } from "node:test";

import { cellName, fits, gridMove } from "../../static/js/model/grid.js";
import { readFileSync } from "node:fs";

import { answer } from "../../static/js/lib/config.js";
import { decodeAnswer, headKey, keptFor, merged, nothingKept, overviewMap, requestFor, rowKey, runKey, workingFields } from "../../static/js/model/request.js";
import { appended, DEFAULT_TEXT, editorHref, fragmentOf, initialState, parseFragment, rowOf, withModel } from "../../static/js/model/state.js";
import { percent, shareText, visibleToken } from "../../static/js/model/tokens.js";
import { explainX } from "../../static/js/model/words.js";

const MODELS = [
  { id: "smollm2-135m", kind: "decoder", layers: 30, heads: 9, kv_heads: 3, max_tokens: 128, causal: true },
  { id: "minilm-l6", kind: "encoder", layers: 6, heads: 12, kv_heads: 12, max_tokens: 128, causal: false },
];

test("a state survives its fragment, whatever its text holds", () => {
  for (const text of ["The capital of France is", "a&b=c #hash 50% ✓\nnew line", " leading space", "<|im_start|>[SEP]"]) {
    const state = { model: "minilm-l6", text, layer: 5, head: 11, row: 3, causal: true };
    assert.deepEqual(parseFragment(`#${fragmentOf(state)}`, MODELS), state);
  }
  const noRow = { model: "smollm2-135m", text: "x y", layer: 0, head: 8, row: null, causal: false };
  assert.equal(fragmentOf(noRow), "model=smollm2-135m&text=x%20y&layer=0&head=8&row=&causal=0");
  assert.deepEqual(parseFragment(`#${fragmentOf(noRow)}`, MODELS), noRow);
});

test("a fragment out of range or malformed falls back key by key", () => {
  assert.deepEqual(parseFragment("", MODELS), initialState(MODELS));
  assert.deepEqual(parseFragment("#model=gpt&text=hi&layer=40&head=-1&row=x&causal=maybe", MODELS),
    { model: "smollm2-135m", text: "hi", layer: 0, head: 0, row: null, causal: true });
  // MiniLM has 6 layers and is bidirectional unless told; a bad escape drops its key only.
  assert.deepEqual(parseFragment("#model=minilm-l6&text=%E0%A4&layer=5&head=12", MODELS),
    { model: "minilm-l6", text: DEFAULT_TEXT, layer: 5, head: 0, row: null, causal: false });
});

test("the editor's link carries the view's fragment after from=model", () => {
  const state = { model: "smollm2-135m", text: "The cat sat", layer: 2, head: 4, row: 1, causal: false };
  assert.equal(editorHref("/explorer/", state),
    "/explorer/#from=model&model=smollm2-135m&text=The%20cat%20sat&layer=2&head=4&row=1&causal=0");
});

test("a new model keeps the text and what fits, and takes its own mask", () => {
  const state = { model: "minilm-l6", text: "hello", layer: 4, head: 11, row: 2, causal: true };
  assert.deepEqual(withModel(state, MODELS, "smollm2-135m"),
    { model: "smollm2-135m", text: "hello", layer: 4, head: 8, row: null, causal: true });
  assert.deepEqual(withModel({ ...state, layer: 20 }, MODELS, "minilm-l6").layer, 5);
  assert.equal(appended("The capital of France is", " Paris"), "The capital of France is Paris");
});

test("the grid's arrows, Home, End and Page keys stay inside it", () => {
  const at = { layer: 0, head: 0 };
  assert.deepEqual(gridMove(at, "ArrowDown", 30, 9), { layer: 1, head: 0 });
  assert.deepEqual(gridMove(at, "ArrowUp", 30, 9), at);
  assert.deepEqual(gridMove(at, "ArrowLeft", 30, 9), at);
  assert.deepEqual(gridMove({ layer: 3, head: 8 }, "ArrowRight", 30, 9), { layer: 3, head: 8 });
  assert.deepEqual(gridMove({ layer: 3, head: 2 }, "End", 30, 9), { layer: 3, head: 8 });
  assert.deepEqual(gridMove({ layer: 3, head: 2 }, "End", 30, 9, true), { layer: 29, head: 8 });
  assert.deepEqual(gridMove({ layer: 25, head: 2 }, "PageDown", 30, 9), { layer: 29, head: 2 });
  assert.deepEqual(gridMove({ layer: 5, head: 11 }, "Home", 6, 12, true), { layer: 0, head: 0 });
  assert.equal(gridMove(at, "a", 30, 9), null);
  assert.equal(cellName(2, 4), "Layer 3 head 5");
});

test("tokens and shares are written to be read at a glance", () => {
  assert.equal(visibleToken(" Paris"), "␣Paris");
  assert.equal(visibleToken("\n\tx\r"), "↵⇥x␍");
  assert.equal(percent(0.6234), "62%");
  assert.equal(percent(0.0412), "4.1%");
  assert.equal(percent(0.0004), "<0.1%");
  assert.equal(percent(0), "0%");
  assert.equal(shareText(0.376), "38");
});

const S = { model: "smollm2-135m", text: "The cat", layer: 1, head: 2, row: 1, causal: true };

// The config block's answer as the server sends it (tests/api/pages/test_routes.py checks the file).
const PAGE = JSON.parse(readFileSync(new URL("../data/page_answer.json", import.meta.url)));
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

test("the row shown is the state's when the text has it, else the last", () => {
  assert.equal(rowOf({ row: 3 }, 5), 3);
  assert.equal(rowOf({ row: null }, 5), 4);
  assert.equal(rowOf({ row: 5 }, 5), 4);
  assert.equal(rowOf({ row: 40 }, 7), 6);
});

test("an overview is drawn in a grid of its own size only", () => {
  const overview = (L, H) => ({ weights_u8: { shape: [L, H, 2, 2], data: new Uint8Array(L * H * 4) },
    first_token_share: Array.from({ length: L }, () => Array(H).fill(0.5)) });
  assert.equal(fits(overview(30, 9), 30, 9), true);
  assert.equal(fits(overview(6, 12), 30, 9), false);
  assert.equal(fits(overview(30, 9), 6, 12), false);
  assert.equal(fits(null, 6, 12), false);
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

test("what X is: plain words first, then the recipe, for the layer asked", () => {
  const smol = { ...MODELS[0], d_model: 576, d_head: 64, rope_base: 100000 };
  const mini = { ...MODELS[1], d_model: 384, d_head: 32 };
  const [plain, recipe] = explainX(smol, 1);  // layer 2
  assert.match(plain, /^Here X holds one row for each token: that token's vector as layer 2 reads it, after the layer before, normalised\. /);
  assert.match(plain, /\(RoPE, θ = 100000\): X itself holds no position\.$/);
  assert.match(recipe, /^Exactly: X = RMSNorm\(h\) ⊙ g, where h is the residual stream: the token's embedding plus the attention and MLP outputs of the layer before/);
  assert.match(explainX(smol, 0)[1], /^Exactly: X = RMSNorm\(e_token\) ⊙ g, where e_token is the token's learned embedding \(576 numbers\)\./);
  const [first, embeddings] = explainX(mini, 0);
  assert.match(first, /as layer 1 reads it, its embedding, normalised\. W_Q, W_K and W_V \(384 × 32 for one head\) multiply it, each projection adding its bias\.$/);
  assert.match(embeddings, /^Exactly: X = LayerNorm\(e_token \+ e_position \+ e_type\)/);
  assert.match(explainX(mini, 5)[1], /^Exactly: X is layer 5's output\./);
});

test("a head's slide asks for the state's row, or leaves it to the server before the run", async () => {
  const { slideBody } = await import("../../static/js/model/slides.js");
  const state = { model: "smollm2-135m", text: "The capital", layer: 3, head: 5, causal: true, row: 9 };
  assert.deepEqual(slideBody(state, 2, "working"),
    { model: "smollm2-135m", text: "The capital", layer: 3, head: 5, causal: true, row: 1, what: "working", format: "png" });
  assert.deepEqual(slideBody({ ...state, row: 0 }, 2, "heatmap").row, 0);
  assert.equal("row" in slideBody(state, null, "heatmap"), false);
});
