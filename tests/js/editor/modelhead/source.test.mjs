import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";
import { limits } from "../../../../static/js/lib/config.js";
import { changedCells, changedWords, compactOf, fitLabel, keepsShapes, readSource, sourceRequest, sourceWords, stateFromHead, viewFragment } from "../../../../static/js/editor/modelhead/source.js";
import { addToken, resize, setCell, setLabel, toggleBlocked } from "../../../../static/js/editor/state.js";
import { buildRequest } from "../../../../static/js/editor/request.js";
import { fromSourceHash, MAX_CHANGED, toHash } from "../../../../static/js/editor/url.js";

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

const LINK = "#from=model&model=smollm2-135m&text=The%20capital%20of%20France%20is&layer=3&head=5&row=2&causal=1";

// A decoded answer to sourceRequest: float64 numbers of every length, as a real head has.
const ANSWER = {
  tokens: ["The", "␣capital", "␣of"], positional: "rope", rope_base: 100000, causal: true,
  X: [[0.1 + 0.2, -Math.SQRT1_2 * 1e-7], [1 / 3, 2], [-0.5, 1e-300]],
  W_Q: [[Math.PI, 0], [0, Math.E]], W_K: [[1, 2], [3, 4]], W_V: [[0.7071067811865476, 0], [0, 1]],
};

const source = readSource(LINK);

test("the view's link names a head: model, text, layer, head, row and mask, 0-based", () => {
  assert.deepEqual(source, { model: "smollm2-135m", text: "The capital of France is", layer: 3, head: 5, row: 2, causal: true });
  assert.equal(readSource("#tokens=a&X=1"), null);
  assert.equal(readSource(LINK.replace("&row=2", "&row=")).row, null);
  assert.throws(() => readSource("#from=model&model=m&text=t&layer=x&head=0"), /layer “x” is not a whole number/);
  assert.deepEqual(sourceRequest(source), { model: "smollm2-135m", text: "The capital of France is", layer: 3, head: 5,
    fields: ["tokens", "X", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "positional", "rope_base", "causal"], encoding: "base64" });
});

test("the head's numbers become the state exactly: String(x) reads back as the same float64", () => {
  const s = stateFromHead(ANSWER, source);
  assert.deepEqual(s.tokens, ["The", "␣capital", "␣of"]);
  assert.equal(s.X[0][0], "0.30000000000000004");
  assert.deepEqual(buildRequest(s).request.X, ANSWER.X);  // the very numbers
  assert.deepEqual(buildRequest(s).request.W_Q, ANSWER.W_Q);
  assert.equal(s.positional, "rope");
  assert.equal(s.rope_base, "100000");
  assert.equal(buildRequest(s).request.rope_base, 100000);
  assert.equal(s.biases, false);
  assert.equal(s.causal, true);
  assert.equal(s.row, 2);
  const minilm = stateFromHead({ ...ANSWER, positional: "learned", rope_base: undefined, b_Q: [0.5, -0.25], b_K: [1, 2], b_V: [3, 4] },
    { ...source, causal: false, row: null });
  assert.equal(minilm.positional, "");
  assert.equal(minilm.rope_base, "");
  assert.equal(minilm.biases, true);
  assert.deepEqual(buildRequest(minilm).request.b_Q, [0.5, -0.25]);
  assert.equal(buildRequest(minilm).request.positional, undefined);
  assert.equal(minilm.causal, false);
  assert.equal(sourceWords(s.source, "SmolLM2-135M-Instruct"), "SmolLM2-135M-Instruct, layer 4 head 6, on “The capital of France is”");
  assert.equal(viewFragment(s), "#model=smollm2-135m&text=The%20capital%20of%20France%20is&layer=3&head=5&row=2&causal=1");
});

test("a label beyond the server's limit is shortened, the numbers untouched", () => {
  assert.equal(fitLabel("abc", 3), "abc");
  assert.equal(fitLabel("↵" + "␣".repeat(80), 64), "↵" + "␣".repeat(62) + "…");
  assert.equal([...fitLabel("↵" + "␣".repeat(80), 64)].length, 64);
  assert.equal(stateFromHead({ ...ANSWER, tokens: ["a".repeat(70), "b", "c"] }, source, { maxLabel: 64 }).tokens[0].length, 64);
});

test("the URL of a model's head is its reference and the cells changed, and reads back exactly", () => {
  const s = stateFromHead(ANSWER, source);
  const plain = toHash(s);
  assert.ok(plain.startsWith(LINK + "&cells=&"), plain);
  assert.deepEqual(changedCells(s), []);
  const edited = setLabel(setCell(setCell(s, "W_Q", 1, 0, "0.25"), "X", 2, 1, "1,5;x|%"), 1, "␣city");
  assert.deepEqual(changedCells(edited), [["tokens", 1, 0, "␣city"], ["X", 2, 1, "1,5;x|%"], ["W_Q", 1, 0, "0.25"]]);
  assert.deepEqual([s, setCell(s, "W_Q", 1, 0, "0.25"), edited].map(changedWords),
    ["", "; 1 number changed since", "; 3 numbers changed since"]);
  const hash = toHash({ ...toggleBlocked(edited, 2, 0), row: 1, causal: false, scale: "1" });
  assert.ok(hash.length < 400, hash);
  assert.match(hash, /&row=1&causal=0&cells=tokens:1:0:%E2%90%A3city,X:2:1:1%252C5%253Bx%257C%2525,W_Q:1:0:0.25&scale=1&/);
  const { state: back, problem } = fromSourceHash(hash, s);
  assert.equal(problem, null);
  for (const key of ["tokens", "X", "W_Q", "W_K", "W_V", "row", "causal", "scale", "blocked", "positional", "rope_base"]) {
    assert.deepEqual(back[key], { ...toggleBlocked(edited, 2, 0), row: 1, causal: false, scale: "1" }[key], key);
  }
  assert.equal(toHash(back), hash, "the same fragment again");
  // The contract's own link (no cells, no options) is the head as it is.
  assert.deepEqual(fromSourceHash(LINK, s).state.X, s.X);
  assert.match(fromSourceHash(LINK + "&cells=W_Q:9:0:1", s).problem, /outside the head/);
});

test("other shapes, or many changed cells, write the full form, which loses nothing", () => {
  const s = stateFromHead(ANSWER, source);
  const longer = addToken(s);
  assert.equal(keepsShapes(longer), false);
  assert.ok(toHash(longer).startsWith("#tokens="));
  assert.equal(keepsShapes(resize(s, "d_k", 3)), false);
  const wide = stateFromHead({ ...ANSWER, X: ANSWER.X.map((r) => Array.from({ length: MAX_CHANGED }, (_, j) => r[j % 2])),
    W_Q: Array(MAX_CHANGED).fill([1, 0]), W_K: Array(MAX_CHANGED).fill([1, 0]), W_V: Array(MAX_CHANGED).fill([1, 0]) }, source);
  assert.ok(toHash(wide).startsWith("#from=model"));
  const most = { ...wide, X: wide.X.map((r, i) => (i === 0 ? r.map(() => "0") : r)) };  // MAX_CHANGED cells
  assert.ok(toHash(most).startsWith("#from=model"));
  const beyond = setCell(most, "X", 1, 0, "9");
  assert.ok(toHash(beyond).startsWith("#tokens="), "one cell more: the full form");
});

test("a source's long number shows compactly; a typed one, or a short one, as it is", () => {
  const s = stateFromHead(ANSWER, source);
  assert.equal(compactOf(s, "X", 0, 0, s.X[0][0]), "0.300");
  assert.equal(compactOf(s, "X", 0, 1, s.X[0][1]), "0.000");
  assert.equal(compactOf(s, "W_K", 0, 0, "1"), null);
  assert.equal(compactOf(s, "X", 0, 1, s.X[0][1]), "0.000");
  const typed = setCell(s, "X", 0, 0, "0.30000000000000004");  // the same text typed again is the source's
  assert.equal(compactOf(typed, "X", 0, 0, typed.X[0][0]), "0.300");
  const other = setCell(s, "X", 0, 0, "0.12345");
  assert.equal(compactOf(other, "X", 0, 0, other.X[0][0]), null);
  assert.equal(compactOf({ ...s, source: undefined }, "X", 0, 0, s.X[0][0]), null);
});
