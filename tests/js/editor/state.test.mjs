import { test } from "node:test";
import assert from "node:assert/strict";
import { addKeyToken, addToken, dimLimit, randomize, removeKeyToken, removeToken, resize, rng, setCell, setCross, setKeyTokenCount, setLabel, setTokenCount, shapes, toggleBlocked } from "../../../static/js/editor/state.js";
import { addHead } from "../../../static/js/editor/inputs/heads.js";
import { buildRequest, fromPreset } from "../../../static/js/editor/request.js";
import { limits } from "../../../static/js/lib/config.js";
import { fromHash, toHash } from "../../../static/js/editor/url.js";

// The page learns its limits from the server (config.js); outside a page a test gives them.
// These are the app's defaults: attention_api.attention.request.Limits and multihead.MAX_HEADS.
const SERVER = { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 };

Object.assign(limits, SERVER);

/** Run ``body`` with the limits ``lowered``, as a server configured so sends them. */
function withLimits(lowered, body) {
  Object.assign(limits, lowered);
  try { body(); } finally { Object.assign(limits, SERVER); }
}

const CAT = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
};

const base = () => fromPreset(CAT);

test("adding and removing tokens", () => {
  let s = addToken(base());
  assert.deepEqual(s.tokens, ["the", "cat", "sat", "on"]);
  assert.equal(s.X.length, 4);
  assert.deepEqual(addToken(base()).X[3], s.X[3], "same seed, same new row");
  s = { ...s, row: 3 };
  const removed = removeToken(s, 1);
  assert.deepEqual(removed.tokens, ["the", "sat", "on"]);
  assert.equal(removed.row, 2, "selection follows its token");
  assert.equal(removeToken({ ...s, row: 1 }, 1).row, null);
  let one = base();
  for (let k = 0; k < 5; k++) one = removeToken(one);
  assert.deepEqual(one.tokens, ["the"], "never fewer than one token");
});

test("resizing keeps existing numbers and fills sensibly", () => {
  const s = resize(base(), "d_model", 3);
  assert.deepEqual(shapes(s), { n: 3, m: 3, d_model: 3, d_k: 2, d_v: 2 });
  assert.deepEqual(s.X, [["1", "0", "0"], ["0", "1", "0"], ["1", "1", "0"]]);
  assert.deepEqual(s.W_Q[2], ["0", "0"]);
  const k = resize(base(), "d_k", 3);
  assert.deepEqual(k.W_Q, [["1", "0", "0"], ["1", "2", "0"]]);
  assert.deepEqual(k.W_K[1], ["0", "1", "0"]);
  assert.deepEqual(shapes(resize(base(), "d_v", 1)), { n: 3, m: 3, d_model: 2, d_k: 2, d_v: 1 });
  assert.deepEqual(shapes(resize(base(), "d_k", 0)), shapes(base()), "0 is refused");
  assert.deepEqual(shapes(resize(base(), "d_k", 257)), shapes(base()), "over 256 is refused");
});

test("randomize is reproducible from the seed and stays in [-2, 2] with one decimal", () => {
  const a = randomize(base(), 7);
  assert.deepEqual(a, randomize(base(), 7));
  assert.notDeepEqual(a.X, randomize(base(), 8).X);
  assert.equal(a.seed, 7);
  for (const name of ["X", "W_Q", "W_K", "W_V"]) {
    for (const v of a[name].flat()) {
      assert.ok(Math.abs(Number(v)) <= 2 && /^-?\d(\.\d)?$/.test(v), v);
    }
  }
});

test("rng is mulberry32: first values for seed 1 agree with a Python port of it", () => {
  // From an independent Python implementation with explicit 32-bit masking.
  const next = rng(1);
  assert.equal(next(), 0.6270739405881613);
  assert.equal(next(), 0.002735721180215478);
  assert.equal(next(), 0.5274470399599522);
});

test("setCell copies only the row it changes and leaves the old state alone", () => {
  const a = base();
  const b = setCell(a, "X", 1, 0, "7");
  assert.equal(b.X[0], a.X[0]);
  assert.equal(b.X[2], a.X[2]);
  assert.notEqual(b.X[1], a.X[1]);
  assert.deepEqual(a.X[1], ["0", "1"]);
  assert.deepEqual(buildRequest(b).request.X, [[1, 0], [7, 1], [1, 1]]);
  assert.deepEqual(buildRequest(a).request.X, [[1, 0], [0, 1], [1, 1]]);
  assert.equal(toHash(b).includes("X=1,0;7,1;1,1"), true);
});

test("removing a token drops and renumbers its masked cells", () => {
  const s = { ...base(), blocked: [[0, 2], [1, 0], [2, 1]] };
  assert.deepEqual(removeToken(s, 1).blocked, [[0, 1]]);
});

test("cross-attention: a second sequence for keys and values, in the URL and the request", () => {
  let s = setCross(base(), true);
  assert.deepEqual(shapes(s), { n: 3, m: 3, d_model: 2, d_k: 2, d_v: 2 });
  assert.deepEqual(s.tokens_kv, ["s1", "s2", "s3"]);
  s = addKeyToken(setLabel(s, 0, "le", "tokens_kv"));
  s = toggleBlocked(s, 2, 3);
  assert.equal(shapes(s).m, 4);
  const { request, errors } = buildRequest(s);
  assert.equal(errors.size, 0);
  assert.equal(request.X_kv.length, 4);
  assert.deepEqual(request.tokens_kv, ["le", "s2", "s3", "s4"]);
  assert.deepEqual(request.mask[2], [true, true, true, false]);
  const back = fromHash(toHash(s), base());
  assert.equal(back.problem, null);
  assert.deepEqual(back.state, s);
  assert.deepEqual(removeKeyToken(s).blocked, [], "a masked cell of the removed key goes");
  assert.deepEqual(removeToken(s, 0).blocked, [[1, 3]], "removing a query keeps key indices");
  assert.equal(setCross(s, false).X_kv, null);
  assert.deepEqual(shapes(resize(s, "d_model", 3)).d_model, 3);
  assert.equal(resize(s, "d_model", 3).X_kv[0].length, 3);
  assert.match(fromHash("#X_kv=1,0&tokens_kv=a|b", base()).problem, /2 labels for 1 row of X_kv/);
});

test("setTokenCount adds or removes tokens at the end, within 1 and the limit", () => {
  const s = base();
  const six = setTokenCount(s, 6);
  assert.deepEqual(six.tokens, ["the", "cat", "sat", "on", "the", "mat"]);
  let stepped = s;
  for (let k = 0; k < 3; k++) stepped = addToken(stepped);
  assert.deepEqual(six.X, stepped.X, "the same rows as Add token pressed three times");
  assert.deepEqual(setTokenCount(six, 2).X, [["1", "0"], ["0", "1"]]);
  assert.equal(setTokenCount(s, 0).tokens.length, 1);
  assert.equal(setTokenCount(s, 10000).tokens.length, 512);
});

test("setKeyTokenCount sets the key sequence's length, and only in cross-attention", () => {
  const cross = setCross(base(), true);
  const five = setKeyTokenCount(cross, 5);
  assert.equal(five.X_kv.length, 5);
  assert.deepEqual(five.tokens_kv, ["s1", "s2", "s3", "s4", "s5"]);
  assert.deepEqual(five.X_kv, addKeyToken(addKeyToken(cross)).X_kv);
  assert.equal(setKeyTokenCount(five, 1).X_kv.length, 1);
  assert.equal(setKeyTokenCount(base(), 5).X_kv, null);
});

test("every transition keeps within the server's limits as config.js gives them", () => {
  withLimits({ tokens: 4, dim: 3, label: 5, heads: 2 }, () => {
    const four = addToken(base());
    assert.equal(four.tokens.length, 4);
    assert.equal(addToken(four), four, "a fifth token is refused");
    assert.equal(setTokenCount(base(), 64).tokens.length, 4);
    const cross = setCross(base(), true);
    assert.equal(setKeyTokenCount(cross, 64).X_kv.length, 4);
    assert.equal(shapes(resize(base(), "d_k", 3)).d_k, 3);
    assert.deepEqual(shapes(resize(base(), "d_k", 4)), shapes(base()), "d_k = 4 is over 3");
    const two = addHead(base());
    assert.equal(addHead(two), two, "a third head is refused");
    assert.equal(buildRequest(setLabel(base(), 0, "abcdef")).errors.get("tokens[0]"),
      "Labels have at most 5 characters; this one has 6.");
    assert.match(fromHash("#heads=3", base()).problem, /3 heads; there may be 1 to 2/);
    assert.equal(fromHash(toHash(setTokenCount(base(), 4)), base()).problem, null);
  });
  withLimits({ tokens: 3 }, () => {
    assert.match(fromHash("#tokens=a|b|c|d&X=1,0;0,1;1,1;1,1", base()).problem, /too large/);
  });
});

test("d_model has its own limit (a real model's width), d_k and d_v theirs", () => {
  withLimits({ model_dim: 6, dim: 3 }, () => {
    assert.equal(dimLimit("d_model"), 6);
    assert.equal(dimLimit("d_k"), 3);
    assert.equal(shapes(resize(base(), "d_model", 6)).d_model, 6, "d_model beyond d_k's limit");
    assert.deepEqual(shapes(resize(base(), "d_model", 7)), shapes(base()), "7 is over 6");
    assert.deepEqual(shapes(resize(base(), "d_v", 4)), shapes(base()), "d_v = 4 is over 3");
    const wide = resize(base(), "d_model", 6);
    assert.equal(fromHash(toHash(wide), base()).problem, null);
  });
});
