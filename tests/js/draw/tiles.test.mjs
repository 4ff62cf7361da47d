// "Step through the tiles"'s words (static/js/draw/tiles.js): a tile's effect on the
// running m, ℓ and O, and the last step's z and log-sum-exp, with hand-worked numbers.
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { test } from "node:test";

import { finalWords, heldText, keysText, span, tileNote, tileWords } from "../../../static/js/draw/tiles.js";

const tile = (fields) => ({ key_block: 0, keys: [0, 2], skipped: false, m_before: null, m_after: 4,
  l_before: 0, l_after: 1, O_before: [0, 0], O_after: [1, 0], rescale: 0, scores: [4, 2], ...fields });

test("keys and queries are written 1-based, a single one alone", () => {
  assert.equal(span([0, 2]), "1–2");
  assert.equal(span([2, 3]), "3");
  assert.equal(keysText([2, 3]), "key 3");
  assert.equal(keysText([24, 30]), "keys 25–30");
});

// The rescale's line, as KaTeX typesets it: its formula, then its numbers.
const RESCALE = "\\mathrm{rescale} = e^{m_\\mathrm{before} - m_\\mathrm{after}}";

test("the first tile starts m; a later one keeps it or raises it and rescales", () => {
  assert.deepEqual(tileWords(tile({}), 0, 3), {
    status: "Tile 1 of 3: keys 1–2: the row's first keys; m starts at 4.000",
    rescale: `$${RESCALE} = e^{-\\infty} = 0$: $\\ell$ and $O$ were still empty` });
  assert.deepEqual(tileWords(tile({ keys: [2, 3], m_before: 4, m_after: 4, rescale: 1, scores: [-1] }), 1, 3), {
    status: "Tile 2 of 3: key 3: the maximum stays 4.000, nothing is rescaled",
    rescale: `$${RESCALE} = e^{4.000 - 4.000} = 1$: the maximum did not grow` });
  // 4 → 6: e^(4 − 6) = e^−2 = 0.1353…
  assert.deepEqual(tileWords(tile({ keys: [3, 4], m_before: 4, m_after: 6, rescale: Math.exp(-2), scores: [6] }), 2, 3), {
    status: "Tile 3 of 3: key 4: the maximum grew from 4.000 to 6.000, so ℓ and O are multiplied by 0.135",
    rescale: `$${RESCALE} = e^{4.000 - 6.000} = 0.135$` });
});

test("a skipped tile and a tile whose keys this row may not read change nothing", () => {
  assert.equal(tileWords(tile({ skipped: true, scores: [null, null] }), 1, 2).status,
    "Tile 2 of 2: keys 1–2, skipped: every score in it is masked, so it is never computed");
  assert.equal(tileWords(tile({ scores: [null, null], m_before: 1, m_after: 1, rescale: 1 }), 0, 2).status,
    "Tile 1 of 2: keys 1–2: this row may read none of its keys, so m, ℓ and O pass unchanged");
  assert.equal(tileWords(tile({ scores: [null, null], m_before: 1, m_after: 1, rescale: 1 }), 0, 2).rescale,
    "$\\mathrm{rescale} = 1$: nothing was added");
});

test("the last step writes z = O/ℓ and m + ln ℓ, and says whether the page's z agrees", () => {
  // Scores 4, 2, 6 (the cat-sat example, scale 1): ℓ = 1 + e^−2 + e^−4, O = (1 + e^−2, 2 + 2e^−4).
  const l = 1 + Math.exp(-2) + Math.exp(-4);
  const O = [1 + Math.exp(-2), 2 + 2 * Math.exp(-4)];
  const z = O.map((o) => o / l);
  const answer = { tiles: [tile({ m_after: 6, l_after: l, O_after: O })], final: { z, logsumexp: 6 + Math.log(l) },
    memory: { held: 1, whole: 9 } };
  const words = finalWords(answer, [0.9841, 1.7653]);
  assert.equal(words.status, "After 1 tile: z = O/ℓ = (0.984, 1.765)");
  assert.equal(words.z, "$z = O / \\ell$ = (1.135, 2.037) / 1.154 = (0.984, 1.765); the whole computation's z, " +
    "in the working above, is the same: (0.984, 1.765).");
  assert.ok(words.logsumexp.startsWith("log-sum-exp $= m + \\ln \\ell = 6.000 + \\ln 1.154 = 6.143$: "));
  assert.equal(finalWords(answer, [0.9, 1.7653]).z.endsWith("in the working above, is (0.900, 1.765)."), true);
  assert.equal(finalWords(answer, null).z, "$z = O / \\ell$ = (1.135, 2.037) / 1.154 = (0.984, 1.765).");
  assert.equal(words.memory, "Held at once: one tile's scores, at most 1, never all 9 of the whole matrix.");
});

test("a row that may read no key ends with z = 0 and no log-sum-exp", () => {
  const answer = { tiles: [tile({ skipped: true, m_after: null, l_after: 0, O_after: [0, 0], rescale: 1 })],
    final: { z: [0, 0], logsumexp: null }, memory: { held: 2, whole: 6 } };
  const words = finalWords(answer, null);
  assert.equal(words.status, "After 1 tile (1 skipped): z = O/ℓ = (0.000, 0.000)");
  assert.equal(words.z, "$z$ = (0.000, 0.000): this row may read no key, so $\\ell = 0$ and $z$ is 0.");
  assert.equal(words.logsumexp, "log-sum-exp: $-\\infty$ (no key to read).");
  assert.equal(heldText({ held: 2, whole: 6 }), "Held at once: one tile's scores, at most 2, never all 6 of the whole matrix.");
});

test("the note under the heatmap says which tile the box is", () => {
  assert.equal(tileNote({ rows: [2, 3], keys: [0, 2], skipped: false }),
    "Boxed: the tile followed in “Step through the tiles” below, query 3 with keys 1–2.");
  assert.equal(tileNote({ rows: [0, 2], keys: [2, 3], skipped: true }),
    "Boxed: the tile followed in “Step through the tiles” below, queries 1–2 with key 3 " +
    "(dashed: skipped, nothing in it is computed).");
});

test("a real model's z of 64 numbers is compared whole and written short", () => {
  const z = Array.from({ length: 64 }, (_, k) => k / 100);
  const answer = { tiles: [tile({ m_after: 1, l_after: 2, O_after: z.map((x) => 2 * x) })], final: { z, logsumexp: 1 + Math.log(2) },
    memory: { held: 4, whole: 16 } };
  assert.equal(finalWords(answer, z).z, "$z = O / \\ell$ = (0.000, 0.020, 0.040, 0.060, 0.080, 0.100, …) 64 numbers / 2.000 = " +
    "(0.000, 0.010, 0.020, 0.030, 0.040, 0.050, …) 64 numbers; the whole computation's z, in the working above, " +
    "is the same, every one of its numbers.");
  const other = [...z.slice(0, 63), 0.9];  // only the last number differs: not "the same"
  assert.ok(finalWords(answer, other).z.endsWith("is (0.000, 0.010, 0.020, 0.030, 0.040, 0.050, …) 64 numbers."));
});
