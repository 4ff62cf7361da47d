import { test } from "node:test";
import assert from "node:assert/strict";
import { limits } from "../../../static/js/lib/config.js";
import { addHead, setBiases, setKvHeads, setPaperSlopes, setSlope } from "../../../static/js/editor/inputs/heads.js";
import { buildRequest, fromPreset, fromRequest, requestOf, uiField } from "../../../static/js/editor/request.js";
import { setCell, setLabel, toggleBlocked } from "../../../static/js/editor/state.js";

// The request the page sends for the newer kinds of attention, written out by hand from the
// API's contract: biases, rotary and ALiBi positions, shared key/value heads, the window and
// its sinks.

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

const CAT = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
};

const base = () => fromPreset(CAT);

const PLAIN = { tokens: CAT.tokens, causal: false, row: null, X: CAT.X, W_Q: CAT.W_Q, W_K: CAT.W_K, W_V: CAT.W_V };

test("single head: biases are sent as vectors at the top level, and named as the page names them", () => {
  let s = setBiases(base(), true);
  assert.deepEqual([s.b_Q, s.b_K, s.b_V], [[["0", "0"]], [["0", "0"]], [["0", "0"]]]);
  s = setCell(setCell(setCell(s, "b_Q", 0, 1, "0.5"), "b_V", 0, 0, "1"), "b_V", 0, 1, "\u22122");
  assert.deepEqual(buildRequest(s), {
    request: { ...PLAIN, b_Q: [0, 0.5], b_K: [0, 0], b_V: [1, -2] }, errors: new Map(),
  });
  const bad = buildRequest(setCell(s, "b_K", 0, 1, "x"));
  assert.equal(bad.request, null);
  assert.deepEqual([...bad.errors.keys()], ["b_K[0][1]"]);
  assert.deepEqual(buildRequest(setBiases(s, false)).request, PLAIN, "biases off: nothing is sent");
});

test("several heads: each head carries its own biases", () => {
  let s = setBiases(addHead(base()), true);
  s = setCell(setCell(s, "b_K_2", 0, 0, "3"), "b_Q", 0, 1, "1");
  const { request, errors } = buildRequest(s);
  assert.equal(errors.size, 0);
  assert.deepEqual(request.heads, [
    { W_Q: CAT.W_Q, W_K: CAT.W_K, W_V: CAT.W_V, b_Q: [0, 1], b_K: [0, 0], b_V: [0, 0] },
    { W_Q: s.W_Q_2.map((r) => r.map(Number)), W_K: s.W_K_2.map((r) => r.map(Number)),
      W_V: s.W_V_2.map((r) => r.map(Number)), b_Q: [0, 0], b_K: [3, 0], b_V: [0, 0] },
  ]);
  assert.equal("b_Q" in request, false);
  assert.deepEqual([...buildRequest(setCell(s, "b_V_2", 0, 0, "")).errors.keys()], ["b_V_2[0][0]"]);
});

// Four query heads, two key/value heads: heads 1 and 2 read key/value head 1, heads 3 and 4
// key/value head 2. Written as the API takes it; the page must send it back as it came.
const GQA = {
  tokens: ["a", "b"], X: [[1, 0], [0, 1]], causal: true,
  heads: [{ W_Q: [[1, 0], [0, 1]], b_Q: [0.5, 0] }, { W_Q: [[0, 1], [1, 0]] }, { W_Q: [[2, 0], [0, 2]] },
    { W_Q: [[1, 1], [1, -1]] }],
  kv_heads: [{ W_K: [[1, 0], [0, 1]], W_V: [[1], [0]], b_V: [2] }, { W_K: [[0, 1], [1, 0]], W_V: [[0], [1]] }],
  W_O: [[1, 0], [1, 0], [0, 1], [0, 1]],
};

test("shared key/value heads: kv_heads holds W_K and W_V, the heads only W_Q", () => {
  const s = fromRequest(GQA);
  assert.equal(s.heads, 4);
  assert.equal(s.kvHeads, 2);
  assert.equal(s.biases, true, "one bias anywhere switches biases on; the others are 0");
  assert.deepEqual(s.W_K_2, [["0", "1"], ["1", "0"]]);
  assert.equal("W_K_3" in s || "W_V_4" in s, false);
  const { request, errors } = buildRequest(s);
  assert.equal(errors.size, 0);
  assert.deepEqual(request, {
    tokens: ["a", "b"], causal: true, row: null, X: GQA.X,
    heads: [{ W_Q: [[1, 0], [0, 1]], b_Q: [0.5, 0] }, { W_Q: [[0, 1], [1, 0]], b_Q: [0, 0] },
      { W_Q: [[2, 0], [0, 2]], b_Q: [0, 0] }, { W_Q: [[1, 1], [1, -1]], b_Q: [0, 0] }],
    kv_heads: [{ W_K: [[1, 0], [0, 1]], W_V: [[1], [0]], b_K: [0, 0], b_V: [2] },
      { W_K: [[0, 1], [1, 0]], W_V: [[0], [1]], b_K: [0, 0], b_V: [0] }],
    W_O: GQA.W_O,
  });
  // Each head its own again: kv_heads goes, every head carries W_K and W_V (copies of the
  // key/value head it read, so the answer is the same).
  const own = buildRequest(setKvHeads(setBiases(s, false), 4)).request;
  assert.equal("kv_heads" in own, false);
  assert.deepEqual(own.heads.map((h) => h.W_K), [GQA.kv_heads[0].W_K, GQA.kv_heads[0].W_K, GQA.kv_heads[1].W_K, GQA.kv_heads[1].W_K]);
  assert.deepEqual(Object.keys(own.heads[3]), ["W_Q", "W_K", "W_V"]);
  assert.deepEqual([...buildRequest(setCell(s, "W_V_2", 1, 0, "?")).errors.keys()], ["W_V_2[1][0]"]);
});

test("positions: the kind, θ and the offset only where they apply", () => {
  const s = { ...base(), rope_base: "500", offset: "3", alibi: ["0.5"] };
  assert.deepEqual(buildRequest(s).request, PLAIN, "none: no setting of the others is sent");
  assert.deepEqual(buildRequest({ ...s, positional: "rope" }).request,
    { ...PLAIN, positional: "rope", rope_base: 500, position_offset: 3 });
  assert.deepEqual(buildRequest({ ...s, positional: "sinusoidal" }).request,
    { ...PLAIN, positional: "sinusoidal", position_offset: 3 });
  assert.deepEqual(buildRequest({ ...s, positional: "alibi" }).request,
    { ...PLAIN, positional: "alibi", alibi_slopes: [0.5] });
  assert.deepEqual(buildRequest({ ...base(), positional: "rope" }).request, { ...PLAIN, positional: "rope" },
    "θ left empty is the default 10000, and offset 0 is not sent");
  assert.deepEqual(buildRequest({ ...base(), positional: "alibi" }).request, { ...PLAIN, positional: "alibi" },
    "the paper's slopes are the server's default");
});

test("the window and its sinks; sinks are sent only with a window", () => {
  assert.deepEqual(buildRequest({ ...base(), sinks: "2" }).request, PLAIN);
  assert.deepEqual(buildRequest({ ...base(), window: "2" }).request, { ...PLAIN, window: 2 });
  assert.deepEqual(buildRequest({ ...base(), window: "2", sinks: "1" }).request, { ...PLAIN, window: 2, sinks: 1 });
});

test("text that is not a number is kept and named by the page's field", () => {
  const cases = [
    [{ positional: "rope", rope_base: "big" }, "rope_base"],
    [{ positional: "rope", offset: "" }, "position_offset"],
    [{ positional: "sinusoidal", offset: "two" }, "position_offset"],
    [{ window: "1,5" }, "window"],
    [{ window: "2", sinks: "x" }, "sinks"],
  ];
  for (const [change, field] of cases) {
    const { request, errors } = buildRequest({ ...base(), ...change });
    assert.equal(request, null, field);
    assert.deepEqual([...errors.keys()], [field]);
  }
  // Not applying, the same text is no problem: it waits, unsent, in the state.
  assert.equal(buildRequest({ ...base(), rope_base: "big", window: "", sinks: "x" }).errors.size, 0);
  let s = setPaperSlopes({ ...addHead(base()), positional: "alibi" }, false);
  assert.deepEqual(s.alibi, ["0.0625", "0.00390625"], "the paper's slopes for 2 heads, 2^-4 and 2^-8");
  s = setSlope(s, 1, "steep");
  assert.deepEqual([...buildRequest(s).errors.keys()], ["alibi_slopes[1]"]);
  assert.deepEqual(buildRequest(setSlope(s, 1, "0")).request.alibi_slopes, [0.0625, 0]);
});

test("the server's field names become the page's", () => {
  const cases = {
    "b_Q[1]": "b_Q[0][1]", "heads[1].b_Q[0]": "b_Q_2[0][0]", "heads[0].b_V[2]": "b_V[0][2]",
    "kv_heads[1].W_K[0][0]": "W_K_2[0][0]", "kv_heads[0].W_V[1][0]": "W_V[1][0]",
    "kv_heads[2].b_K[1]": "b_K_3[0][1]", "heads[3].W_Q[1][0]": "W_Q_4[1][0]",
    "b_K": "b_K", "heads[1].b_Q": "b_Q_2", "window": "window", "sinks": "sinks",
    "rope_base": "rope_base", "position_offset": "position_offset", "alibi_slopes[2]": "alibi_slopes[2]",
    "kv_heads": "kv_heads", "positional": "positional",
  };
  for (const [api, page] of Object.entries(cases)) assert.equal(uiField(api), page, api);
  assert.equal(uiField(null), null);
});

test("an imported request with rotary positions, ALiBi slopes, a window and sinks becomes a state", () => {
  const rope = fromRequest({ ...CAT, positional: "rope", rope_base: 100, position_offset: 7, window: 2, sinks: 1 });
  assert.deepEqual([rope.positional, rope.rope_base, rope.offset, rope.window, rope.sinks], ["rope", "100", "7", "2", "1"]);
  assert.deepEqual(buildRequest(rope).request,
    { ...PLAIN, positional: "rope", rope_base: 100, position_offset: 7, window: 2, sinks: 1 });
  const alibi = fromRequest({ ...CAT, positional: "alibi", alibi_slopes: [0.25] });
  assert.deepEqual(alibi.alibi, ["0.25"]);
  assert.equal(fromRequest(CAT).positional, "");
  assert.equal(fromRequest({ ...CAT, positional: null }).positional, "");
  assert.throws(() => fromRequest({ ...CAT, positional: "learned" }), /not a kind of positions/);
  assert.throws(() => fromRequest({ ...CAT, positional: "alibi", alibi_slopes: [1, 2] }), /2 ALiBi slopes for 1 head$/);
  assert.throws(() => fromRequest({ ...CAT, b_K: [1, 2, 3] }), /b_K must be 2 wide/);
  assert.throws(() => fromRequest({ ...GQA, kv_heads: [...GQA.kv_heads, GQA.kv_heads[0]] }), /3 key\/value heads for 4 heads/);
  assert.throws(() => fromRequest({ ...GQA, kv_heads: [{ ...GQA.kv_heads[0], W_V: [[1, 0], [0, 1]] }, GQA.kv_heads[1]] }),
    /head 2 has d_k = 2 and d_v = 1, head 1 has 2 and 2/);
});

test("requestOf builds a state's request once: the same request for the same state, a new one for a new state", () => {
  const state = base();
  assert.equal(requestOf(state), requestOf(state));
  assert.deepEqual(requestOf(state), buildRequest(state));
  const edited = setCell(state, "X", 0, 0, "x");
  assert.notEqual(requestOf(edited), requestOf(state));
  assert.equal(requestOf(edited).request, null);
});

test("buildRequest parses cells and names the invalid ones as the API does", () => {
  const ok = buildRequest({ ...base(), row: 2 });
  assert.equal(ok.errors.size, 0);
  assert.deepEqual(ok.request.X, [[1, 0], [0, 1], [1, 1]]);
  assert.equal(ok.request.row, 2);
  const bad = buildRequest(setCell(base(), "W_K", 0, 1, "x"));
  assert.equal(bad.request, null);
  assert.deepEqual([...bad.errors.keys()], ["W_K[0][1]"]);
  const long = buildRequest(setLabel(base(), 1, "y".repeat(65)));
  assert.match(long.errors.get("tokens[1]"), /65/);
});

test("scale, positions and hand-made masks reach the request", () => {
  const plain = buildRequest(base()).request;
  assert.equal("scale" in plain || "positional" in plain || "mask" in plain, false);
  let s = { ...base(), scale: "1", positional: "sinusoidal" };
  s = toggleBlocked(toggleBlocked(s, 2, 0), 0, 1);
  const { request } = buildRequest(s);
  assert.equal(request.scale, 1);
  assert.equal(request.positional, "sinusoidal");
  assert.deepEqual(request.mask, [[true, false, true], [true, true, true], [false, true, true]]);
  assert.deepEqual(toggleBlocked(s, 0, 1).blocked, [[2, 0]], "a second click unmasks");
  assert.equal(buildRequest({ ...base(), scale: "fast" }).errors.has("scale"), true);
});

test("an imported request becomes a state, masks as cells masked by hand", () => {
  const req = { tokens: ["a", "b"], X: [[1, 2], [3, 4]], W_Q: [[1], [0]], W_K: [[1], [1]], W_V: [[2], [1]],
    causal: true, scale: 0.5, positional: "sinusoidal", mask: [[true, false], [true, true]], row: 1 };
  const s = fromRequest(req, 9);
  assert.deepEqual(s.X, [["1", "2"], ["3", "4"]]);
  assert.equal(s.scale, "0.5");
  assert.equal(s.positional, "sinusoidal");
  assert.deepEqual(s.blocked, [[0, 1]]);
  assert.equal(s.row, 1);
  assert.equal(s.seed, 9);
  const back = buildRequest(s).request;
  assert.deepEqual(back.mask, req.mask);
  assert.equal(back.scale, 0.5);
  assert.deepEqual(fromRequest({ X: [[1]], W_Q: [[1]], W_K: [[1]], W_V: [[1]] }).tokens, ["t1"]);
});

test("an imported request with several heads and a second sequence becomes a state", () => {
  const req = { tokens: ["a", "b"], X: [[1, 0], [0, 1]],
    heads: [{ W_Q: [[1, 0], [0, 1]], W_K: [[1, 0], [0, 1]], W_V: [[1, 0], [0, 1]] },
      { W_Q: [[0, 1], [1, 0]], W_K: [[1, 0], [0, 1]], W_V: [[0, 1], [1, 0]] }],
    W_O: [[1, 0], [0, 1], [1, 0], [0, 1]], X_kv: [[1, 1], [0, 1], [2, 0]], tokens_kv: ["x", "y", "z"] };
  const s = fromRequest(req);
  assert.equal(s.heads, 2);
  assert.deepEqual(s.W_V_2, [["0", "1"], ["1", "0"]]);
  assert.deepEqual(s.tokens_kv, ["x", "y", "z"]);
  const { request } = buildRequest(s);
  assert.deepEqual(request.heads, req.heads);
  assert.deepEqual(request.W_O, req.W_O);
  assert.deepEqual(request.X_kv, req.X_kv);
  const uneven = { ...req, heads: [req.heads[0], { ...req.heads[1], W_V: [[1], [0]] }], W_O: [[1, 0], [0, 1], [1, 0]] };
  assert.throws(() => fromRequest(uneven), /head 2 has d_k = 2 and d_v = 1/);
  assert.throws(() => fromRequest({ ...req, W_O: [[1], [0], [1], [0]] }), /W_O is 1 wide and d_model is 2/);
});

test("a label's length is counted in characters, as the server counts it, not in UTF-16 units", () => {
  const emoji = "\u{1F600}".repeat(64);  // 64 characters, 128 UTF-16 units: one valid label
  assert.equal(emoji.length, 128);
  const ok = buildRequest(setLabel(base(), 1, emoji));
  assert.equal(ok.errors.size, 0);
  assert.equal(ok.request.tokens[1], emoji);
  const over = buildRequest(setLabel(base(), 1, emoji + "é"));
  assert.equal(over.request, null);
  assert.equal(over.errors.get("tokens[1]"), "Labels have at most 64 characters; this one has 65.");
  // An accent written as a combining mark is two characters to the server, so here too.
  assert.equal(buildRequest(setLabel(base(), 0, "e\u0301".repeat(32) + "x")).errors.get("tokens[0]"),
    "Labels have at most 64 characters; this one has 65.");
});
