import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";
import {
  BOX, SAMPLE_DKS, START_EXPONENT, curveSummary, dkOf, exponentOf, linear, maxExponent,
  plotScales, points, rowText, sampleCaption, sampleSummary, sampleUrl, samplesFor, valueText, winnerText,
} from "../../../../static/js/editor/lab/labmaths.js";
import { lab, urls } from "../../../../static/js/lib/config.js";

// What the server sends the page (config.js): attention_api.attention.lab's MAX_DRAWS and the default
// d_k_max of GET scaling, and its URL under a prefix the app may be mounted at.
Object.assign(lab, { max_draws: 4_000_000, curve_d_k_max: 1024 });
urls.scaling_sample = "/explorer/api/scaling/sample";
const MAX_EXPONENT = 10;  // 2^10 = 1024

// What GET /api/scaling answers, computed here independently: σ(√d_k) and σ(1).
const sigma = (x) => 1 / (1 + Math.exp(-x));
const D_K = [...Array(MAX_EXPONENT + 1).keys()].map((e) => 2 ** e);
const CURVE = { d_k: D_K, unscaled: D_K.map((d) => sigma(Math.sqrt(d))), scaled: D_K.map(() => sigma(1)) };

test("the slider's exponent steps over the powers of two 1 … 1024", () => {
  assert.equal(maxExponent(), MAX_EXPONENT);
  assert.deepEqual([...Array(MAX_EXPONENT + 1).keys()].map(dkOf), D_K);
  for (const d of D_K) assert.equal(dkOf(exponentOf(d)), d);
  assert.equal(valueText(6), "d_k = 64");
  assert.equal(valueText(0), "d_k = 1");
  assert.equal(valueText(10), "d_k = 1024");
  assert.equal(dkOf(START_EXPONENT), 64);
});

test("the readout: unscaled with 4 decimals, scaled with 3 (the worked values)", () => {
  assert.equal(winnerText(CURVE, 6), "without scaling 0.9997, with scaling 0.731");
  assert.equal(winnerText(CURVE, 2), "without scaling 0.8808, with scaling 0.731");  // 0.881 to 3 decimals
  assert.equal(winnerText(CURVE, 10), "without scaling 1.0000, with scaling 0.731");
  assert.equal(winnerText(CURVE, 0), "without scaling 0.7311, with scaling 0.731");  // d_k = 1: scaling changes nothing
  for (let e = 0; e <= MAX_EXPONENT; e++) assert.match(winnerText(CURVE, e), /with scaling 0\.731$/);
});

test("the curve plot's summary for screen readers", () => {
  assert.equal(curveSummary(CURVE),
    "Winner's weight against d_k: without scaling it rises from 0.731 to 1.000; with scaling it stays at 0.731");
  assert.match(curveSummary({ unscaled: [0.5, 0.9], scaled: [0.6, 0.7] }), /with scaling it goes from 0\.600 to 0\.700$/);
});

test("linear maps, and a y axis that runs downwards", () => {
  const f = linear([0, 10], [40, 340]);
  assert.equal(f(0), 40);
  assert.equal(f(10), 340);
  assert.equal(f(5), 190);
  const g = linear([0.5, 1], [200, 10]);
  assert.equal(g(0.5), 200);
  assert.equal(g(1), 10);
  assert.ok(g(0.9) < g(0.7), "larger values are higher up");
});

test("plot scales fill the box inside its margins", () => {
  const s = plotScales([0, 10], [0.5, 1]);
  assert.equal(s.x(0), BOX.left);
  assert.equal(s.x(10), BOX.width - BOX.right);
  assert.equal(s.y(0.5), BOX.height - BOX.bottom);
  assert.equal(s.y(1), BOX.top);
  const small = plotScales([0, 1], [0, 1], { width: 100, height: 50, left: 10, right: 10, top: 5, bottom: 5 });
  assert.deepEqual([small.x(0.5), small.y(0.5)], [50, 25]);
});

test("points are 'x,y' pairs to a tenth of a unit", () => {
  const s = { x: (v) => v * 10, y: (v) => 100 - v };
  assert.equal(points([0, 1, 2], [0, 0.5, 1 / 3], s), "0.0,100.0 10.0,99.5 20.0,99.7");
  assert.equal(points([], [], s), "");
});

test("samples are capped so that samples × d_k stays within the API's 4,000,000", () => {
  assert.equal(samplesFor("10000", 256), "10000");
  assert.equal(samplesFor("100000", 64), "62500");
  assert.equal(samplesFor("100000", 256), "15625");
  for (const d of SAMPLE_DKS) assert.ok(Number(samplesFor("100000", d)) * d <= lab.max_draws, `d_k = ${d}`);
  // What is not a whole number goes as typed: the API's message says what is wrong with it.
  assert.equal(samplesFor("abc", 256), "abc");
  assert.equal(samplesFor("1e9", 256), "1e9");
  assert.equal(samplesFor("", 4), "");
  // The cap is the server's, whatever it is.
  lab.max_draws = 1000;
  try { assert.equal(samplesFor("10000", 4), "250"); } finally { lab.max_draws = 4_000_000; }
});

test("sample URLs: five d_k, the typed text encoded, never spliced in raw", () => {
  assert.deepEqual(SAMPLE_DKS, [1, 4, 16, 64, 256]);
  assert.equal(sampleUrl(16, "10000", "0"), "/explorer/api/scaling/sample?d_k=16&samples=10000&seed=0");
  assert.equal(sampleUrl(256, "100000", "7"), "/explorer/api/scaling/sample?d_k=256&samples=15625&seed=7");
  assert.equal(sampleUrl(1, "1&d_k=9", "a b"), "/explorer/api/scaling/sample?d_k=1&samples=1%26d_k%3D9&seed=a%20b");
});

const rows = (samples, seed) => SAMPLE_DKS.map((d) => ({
  d_k: d, samples: Math.min(samples, Math.floor(lab.max_draws / d)), seed, variance_raw: d * 1.01, variance_scaled: 1.01,
}));

test("the caption names the sample size and seed, and any capped d_k", () => {
  assert.equal(sampleCaption(rows(10000, 0)), "10000 samples, seed 0");
  assert.equal(sampleCaption(rows(100000, 3)),
    "100000 samples (62500 at d_k = 64, 15625 at d_k = 256: samples × d_k is at most 4,000,000), seed 3");
});

test("the variance plot's summary for screen readers", () => {
  assert.match(sampleSummary(null), /nothing measured yet/);
  const measured = rows(10000, 0);
  measured[2].variance_scaled = 0.97;
  assert.equal(sampleSummary(measured), "Measured variance against d_k, both axes logarithmic: of q·k, from 1.010 at d_k = 1"
    + " to 258.560 at d_k = 256, about d_k; of q·k/√d_k, between 0.970 and 1.010, about 1");
});

test("the selected row's readout, with ln of the number of keys it may read as the bound", () => {
  const sat = { row: 2, token: "sat", weights: [0.18669, 0.04539, 0.76792], allowed: [true, true, true], entropy: 0.656475, jacobian_norm: 0.316821 };
  assert.equal(rowText(sat), "Query 3 “sat”: entropy 0.656 nats of at most 1.099 (ln 3); softmax Jacobian size 0.317");
  assert.match(rowText({ ...sat, allowed: [true, true, false] }), /at most 0\.693 \(ln 2\)/);
  // Causal, query 1: one readable key of three, so the bound is ln 1 = 0, not ln 3.
  assert.equal(rowText({ row: 0, token: "the", weights: [1, 0, 0], allowed: [true, false, false], entropy: 0, jacobian_norm: 0 }),
    "Query 1 “the”: entropy 0.000 nats of at most 0.000 (ln 1); softmax Jacobian size 0.000");
  assert.throws(() => rowText({ row: 0, token: "the", weights: [1, 0], entropy: 0, jacobian_norm: 0 }), /allowed/);
  assert.equal(rowText({ row: 0, token: "x", weights: [0, 0], allowed: [false, false], entropy: 0, jacobian_norm: 0 }),
    "Query 1 “x” may read no key: its weights, entropy and Jacobian are all 0.");
  assert.match(rowText(null), /^Select a row/);
});
