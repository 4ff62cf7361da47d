// The scores' block, QKᵀ and the scaled scores, and the headings of the blocks, which say
// what is really computed: the scale used, ALiBi's bias, the mask, the head. Drawn by
// results.js; maskWords and alibiCaption are pure, unit-tested.

import { el, symbols } from "../../lib/dom.js";
import { formatNumber, rateText } from "../../lib/format.js";
import { renderMatrix } from "../../draw/matrix.js";
import { scaleWords } from "../../draw/working.js";

const $ = (id) => document.getElementById(id);

/** The block headings say what is really computed: the scale used, ALiBi's bias, the
 *  mask, the head. */
export function drawHeadings(body, multi, inputs) {
  const w = scaleWords(body.scale, body.d_k);
  const scaled = (w.isDefault ? "QKᵀ / √d_k" : `${formatNumber(body.scale)} · QKᵀ`) + (body.alibi_slope === undefined ? "" : " − m·|i − j|");
  const masked = maskWords(body.causal, inputs?.window, inputs?.sinks).heading;
  const head = multi ? `, head ${body.head + 1}` : "";
  setSymbols($("scores-sym"), `— QKᵀ and ${scaled}${head}`);
  setSymbols($("weights-sym"), `— A = softmax(${scaled})${masked}${multi ? ", each head" : ""}`);
  setSymbols($("output-sym"), multi ? "— Z = A·V of each head, then Concat·W_O" : "— Z = A·V");
  const explain = w.isDefault
    ? "Score (i, j) is the dot product of query i with key j: large when they point the same way. Dot products of d_k random components grow like √d_k, so they are divided by √d_k to keep the softmax from saturating."
    : `Score (i, j) is the dot product of query i with key j: large when they point the same way. Here every score is multiplied by ${formatNumber(body.scale)}, not by 1/√d_k = ${formatNumber(1 / Math.sqrt(body.d_k))}: a larger factor sharpens the softmax, a smaller one flattens it.`;
  setSymbols($("scores-explain"), `${explain} Click a scaled score to mask it: that query may then not read that key, and its score becomes −∞.`);
}

/** Text with subscripts as nodes, written only when it changes. */
export function setSymbols(node, text) {
  if (node.dataset.text !== text) {
    node.dataset.text = text;
    node.replaceChildren(...symbols(text));
  }
}

/** What the causal mask and the window (with its sinks) leave out, said for the weights'
 *  heading and as the scaled scores' shape note (i and j counted from 1, as the working). */
export function maskWords(causal, window, sinks = 0) {
  const kinds = [causal ? "after the query" : null, window ? `outside a window of ${window}` : null].filter(Boolean);
  const rule = [causal ? "j > i" : null, window ? `|i − j| ≥ ${window}` : null].filter(Boolean).join(" or ");
  const open = window && sinks ? (sinks === 1 ? "; key 1 stays open as a sink" : `; keys 1 ${sinks === 2 ? "and" : "to"} ${sinks} stay open as sinks`) : "";
  return { heading: kinds.length ? `, keys ${kinds.join(" or ")} masked${open}` : "",
    note: rule ? `masked: ${rule}${window && sinks ? `, but not j ≤ ${sinks}` : ""}` : "" };
}

export function drawScores(body, labels, sel, shape, figure, inputs) {
  const scores = $("scores");
  const note = scores.querySelector(".too-many");
  const n = labels.length;
  const m = (body.tokens_kv ?? labels).length;
  if (!body.scores) {
    scores.replaceChildren(el("p", { class: "too-many", text: `With ${body.tokens_kv ? `${n} queries and ${m} keys` : `${n} tokens`} the ${n} × ${m} scores are not printed: the heatmap shows every weight, and the working shows the scores of the selected row.` }));
    return;
  }
  note?.remove();
  const keysN = body.tokens_kv ? "m" : "n";
  const masked = (i, j) => !body.mask[i][j];
  renderMatrix(figure(scores, "S"), { data: body.scores, caption: ["QKᵀ", "raw scores"], ...shape("S", "n", keysN), rowLabels: labels, highlight: sel });
  const w = scaleWords(body.scale, body.d_k);
  const root = Math.sqrt(body.d_k);
  const ss = shape("S", "n", keysN);
  const maskNote = maskWords(body.causal, inputs?.window, inputs?.sinks).note;
  renderMatrix(figure(scores, "SS"), {
    data: body.scaled_scores,
    caption: alibiCaption(body, w.isDefault ? ["QKᵀ / √d_k", `÷ ${formatNumber(root)}, d_k = ${body.d_k}`]
      : [`${formatNumber(body.scale)} · QKᵀ`, `× ${formatNumber(body.scale)}, instead of 1/√d_k = ${formatNumber(1 / root)}`]),
    ...ss,
    ...(maskNote ? { shape: `${ss.shape} · ${maskNote}` } : {}),
    rowLabels: labels, highlight: sel, masked,
  });
}

/** The scaled scores' caption with ALiBi: they hold its bias −m·|i − j| too, its slope
 *  written as the working's note writes it (4 significant figures, not 0.15749013123685915). */
export function alibiCaption(body, [what, how]) {
  if (body.alibi_slope === undefined) return [what, how];
  return [`${what} − m·|i − j|`, `${how}, then ALiBi's bias, m = ${rateText(body.alibi_slope)}`];
}
