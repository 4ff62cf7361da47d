// The real-model view's state and its URL fragment (static/js/model/state.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { appended, DEFAULT_TEXT, editorHref, fragmentOf, initialState, parseFragment, rowOf, withModel } from "../../../static/js/model/state.js";

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

test("the row shown is the state's when the text has it, else the last", () => {
  assert.equal(rowOf({ row: 3 }, 5), 3);
  assert.equal(rowOf({ row: null }, 5), 4);
  assert.equal(rowOf({ row: 5 }, 5), 4);
  assert.equal(rowOf({ row: 40 }, 7), 6);
});
