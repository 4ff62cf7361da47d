// What a generation's step looks like and says, on both pages' "Generate step by step"
// (editor/running/generate.js, model/generate.js): a step's words, a weight's coloured cell, and
// the subscripts and vectors of its lines.

import { el } from "../lib/dom.js";
import { formatNumber, grouped } from "../lib/format.js";
import { rgbCss, textRGB, weightRGB } from "../lib/colour.js";
import { count as counted } from "../lib/words.js";

export { vectorText as vector } from "../lib/format.js";
const SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉";
/** i as a subscript: 12 → "₁₂". */
export const sub = (i) => [...String(i)].map((d) => SUBSCRIPT[d]).join("");

/** What step ``s`` (one of POST /api/kv-cache's or /api/model/kv-cache's steps) says in
 *  words, for the status line and the cost line: the keys it reads are its working's
 *  allowed ones, or (a real model's step, which carries no working) every key of its row.
 *  Pure. */
export function stepWords(s, n) {
  const t = s.t + 1;
  const reads = s.working ? s.working.allowed.filter(Boolean).length : s.weights.length;
  const shared = s.cache.without_sharing !== undefined && s.cache.without_sharing !== s.cache.numbers;
  return {
    status: `Step ${t} of ${n}: token ${t} “${s.token}” reads ${counted(reads, "key")}`,
    cost: `${counted(s.cost.dot_products, "dot product")} with the cache, against ` +
      `${grouped(s.cost.without_cache)} to compute every row again`,
    cache: `Cache: ${counted(s.cache.tokens, "token")}, ${grouped(s.cache.numbers)} numbers, ${grouped(s.cache.bytes)} bytes` +
      (shared ? ` (${grouped(s.cache.without_sharing)} numbers without shared key/value heads)` : ""),
  };
}

/** A weight in its colour, as the heatmap draws it; null: masked (hatched, 0); undefined:
 *  a row not generated yet. ``tag``: the element, a table's "td" or a list's "li". */
export function weightCell(w, tag = "td") {
  if (w === undefined) return el(tag, { class: "gen-later", text: "·" });
  if (w === null) return el(tag, { class: "gen-masked", text: "0", title: "masked" });
  return coloured(el(tag, { text: formatNumber(w) }), w);
}

/** ``node`` in the colour of weight ``w``, its text in the colour that reads on it. */
export function coloured(node, w) {
  const bg = weightRGB(w);
  node.style.backgroundColor = rgbCss(bg);  // through the DOM: the page's CSP allows no style attribute
  node.style.color = rgbCss(textRGB(bg));
  return node;
}
