import { test } from "node:test";
import assert from "node:assert/strict";
import { addHead, setBiases, setKvHeads, setPaperSlopes } from "../../../static/js/editor/inputs/heads.js";
import { limits } from "../../../static/js/lib/config.js";
import { setCell, setLabel } from "../../../static/js/editor/state.js";
import { fromPreset } from "../../../static/js/editor/request.js";
import { fromHash, toHash } from "../../../static/js/editor/url.js";

// url.js: the state's URL form and its way back. How the URL follows several heads and a
// second sequence is tested with those states, in inputs/heads.test.mjs and state.test.mjs.

const CAT = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
};

const base = () => fromPreset(CAT);

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

test("the default example's URL is short and readable", () => {
  assert.equal(toHash(base()),
    "#tokens=the|cat|sat&X=1,0;0,1;1,1&W_Q=1,0;1,2&W_K=2,0;0,1&W_V=1,0;0,2&heads=1&head=0&kv_heads=1"
    + "&biases=0&causal=0&scale=&positional=&rope_base=&offset=0&alibi=&window=&sinks=0&blocked=&tokens_kv=&X_kv="
    + "&row=&seed=1&present=0");
});

test("a state survives the URL round trip, awkward text included", () => {
  let s = setLabel(base(), 0, "a|b,c;d%e & <img src=x>");
  s = setCell(s, "X", 1, 1, "1,5");  // an invalid cell is kept as typed
  s = { ...s, causal: true, row: 2, seed: 42, scale: "0.5", positional: "sinusoidal", blocked: [[0, 1], [2, 2]] };
  const { state, problem } = fromHash(toHash(s), base());
  assert.equal(problem, null);
  assert.deepEqual(state, s);
});

test("absent properties come from the fallback", () => {
  const { state } = fromHash("#causal=1", base());
  assert.equal(state.causal, true);
  assert.deepEqual(state.X, base().X);
});

test("a URL whose parts do not fit falls back with a reason", () => {
  for (const q of ["#X=1,0;0,1", "#W_Q=1;2;3", "#X=1,0;0", "#row=abc", "#tokens=%E0%A4%A",
    "#blocked=0-9", "#blocked=x"]) {
    const { state, problem } = fromHash(q, base());
    assert.deepEqual(state, base(), q);
    assert.match(problem, /could not be read/, q);
  }
});

test("a selected row beyond the tokens is dropped", () => {
  assert.equal(fromHash("#row=7", base()).state.row, null);
});

test("links from before the positions' choice still load: positional=1 is sinusoidal, 0 none", () => {
  assert.equal(fromHash("#positional=1", base()).state.positional, "sinusoidal");
  assert.equal(fromHash("#positional=0", base()).state.positional, "");
  assert.equal(fromHash("#positional=rope", base()).state.positional, "rope");
  assert.match(fromHash("#positional=learned", base()).problem, /“learned” is not a kind of positions/);
  // A link with several heads and no kv_heads is from before them: each head its own.
  const two = fromHash(toHash(addHead(base())).replace("&kv_heads=2", ""), base());
  assert.equal(two.problem, null);
  assert.equal(two.state.kvHeads, 2);
});

test("the newer settings' URL keys, written out", () => {
  let s = setBiases(base(), true);
  s = setCell(setCell(s, "b_Q", 0, 1, "0.5"), "b_V", 0, 0, "-1");
  s = { ...s, positional: "rope", rope_base: "500", offset: "3", window: "2", sinks: "1" };
  assert.equal(toHash(s),
    "#tokens=the|cat|sat&X=1,0;0,1;1,1&W_Q=1,0;1,2&W_K=2,0;0,1&W_V=1,0;0,2&heads=1&head=0&kv_heads=1"
    + "&biases=1&b_Q=0,0.5&b_K=0,0&b_V=-1,0&causal=0&scale=&positional=rope&rope_base=500&offset=3&alibi="
    + "&window=2&sinks=1&blocked=&tokens_kv=&X_kv=&row=&seed=1&present=0");
  assert.deepEqual(fromHash(toHash(s), base()), { state: s, problem: null });
  const slopes = { ...setPaperSlopes(addHead(base()), false), positional: "alibi" };
  assert.match(toHash(slopes), /&positional=alibi&rope_base=&offset=0&alibi=0.0625,0.00390625&/);
  assert.deepEqual(fromHash(toHash(slopes), base()).state, slopes);
});

test("shared key/value heads and their biases survive the URL", () => {
  let s = base();
  for (let k = 0; k < 3; k++) s = addHead(s);
  s = setBiases(setKvHeads(s, 2), true);
  s = setCell(s, "b_K_2", 0, 0, "7");
  const hash = toHash(s);
  assert.match(hash, /&kv_heads=2&W_Q_2=[^&]*&W_K_2=[^&]*&W_V_2=[^&]*&W_Q_3=[^&]*&W_Q_4=[^&]*&W_O=/);
  assert.match(hash, /&biases=1&b_Q=0,0&b_K=0,0&b_V=0,0&b_Q_2=0,0&b_K_2=7,0&b_V_2=0,0&b_Q_3=0,0&b_Q_4=0,0&causal/);
  assert.deepEqual(fromHash(hash, base()), { state: s, problem: null });
});

test("a link whose new parts do not fit falls back with a reason", () => {
  const four = toHash(addHead(addHead(addHead(base()))));
  for (const [change, why] of [
    [(h) => h.replace("kv_heads=4", "kv_heads=3"), /3 key\/value heads for 4 heads/],
    [(h) => h.replace("kv_heads=4", "kv_heads=x"), /“x” is not a whole number/],
    [(h) => h.replace("alibi=", "alibi=1,2"), /2 ALiBi slopes for 4 heads/],
    [(h) => h.replace("biases=0", "biases=1"), /b_Q is missing/],
    [(h) => h.replace("biases=0", "biases=1&b_Q=1&b_K=1,2&b_V=1,2&b_Q_2=0,0&b_K_2=0,0&b_V_2=0,0&b_Q_3=0,0"
      + "&b_K_3=0,0&b_V_3=0,0&b_Q_4=0,0&b_K_4=0,0&b_V_4=0,0"), /b_Q must be 2 wide/],
  ]) {
    const { state, problem } = fromHash(change(four), base());
    assert.deepEqual(state, base());
    assert.match(problem, why);
  }
});

test("present mode is part of the link, so a lesson's slide reopens as it was", () => {
  const s = { ...base(), present: true };
  assert.match(toHash(s), /&present=1$/);
  assert.equal(fromHash(toHash(s), base()).state.present, true);
  assert.equal(fromHash("#causal=1", base()).state.present, false);
});
