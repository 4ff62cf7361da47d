// "Walk me through it": the calculation of one query, one step at a time, each step
// quoting the real numbers of the selected row and lighting the parts it uses. Steps are
// data; drawing is one function.

import { keepRoom, showLit } from "./walkroom.js";  // the bar's room and the scroll above it
import { ROLES } from "../inputs/roles.js";
import { el, setProp } from "../../lib/dom.js";
import { formatNumber, texNumber } from "../../lib/format.js";
import { prose, proseText, typeset } from "../../draw/tex.js";
import { joinTerms, NO_KEY, scaleWords, sigText, texFactor, texInputs, texRate, texVector } from "../../draw/working.js";

const row = (key, k) => `figure[data-key="${key}"] tbody tr:nth-child(${k + 1})`;
const step = (key) => `#working [data-step="${key}"]`;
// The heatmap of the head the walk is about (with one head, the only one): its row is lit,
// not every head's, which on a phone stand one under another and cannot all be in sight.
const SHOWN_MAP = "#heatmap > :is(.shown, :only-child)";
const MAX_LISTED = 4;  // keys quoted one by one; beyond, the first ones and "…"

/** "k_1 = (2, 0), k_2 = (0, 1)" for the keys ``js``: the first few, then an ellipsis. */
function listed(js, item) {
  const shown = js.slice(0, MAX_LISTED).map(item);
  return shown.join(", ") + (js.length > MAX_LISTED ? `, … (${js.length} keys)` : "");
}

/** Each step: the block it is in, what to light (given the walk's context ``c``) and what
 *  to say, as prose with $TeX$. c = {i, t (the query's token), keys (the keys it may
 *  read), w (its working), K, V, x (the row that enters the projections), pos, cross, head
 *  (a phrase naming the head, or ""), d_k}. A query that may read no key (c.keys empty)
 *  is told so at each step from the keys on: an empty list of keys quoted as maths would
 *  print "$$", and its z would read "z = = (0, 0)". */
export const STEPS = [
  {
    block: ".block-inputs",
    light: (c) => [row("X", c.i), row("XP", c.i), '#qkv [data-key="qx"]'],
    say: (c) => `The query token “${proseText(c.t)}” starts as its embedding: row ${c.i + 1} of X, `
      + (!c.pos ? `$x_{${c.i + 1}} = ${texInputs(c.x)}$.`
        : c.x ? `plus its position's encoding: $x_{${c.i + 1}} + PE_{${c.i + 1}} = ${texVector(c.x)}$.`
        : `plus its position's encoding $PE_{${c.i + 1}}$ (shown under Step by step).`),
  },
  {
    block: ".block-projections",
    light: (c) => [row("Q", c.i), '#qkv [data-key="qq"]', `${step("dots")} li:first-of-type`],
    say: (c) => {
      const i = c.i + 1;
      if (!c.w.b_Q && !c.w.q_unrotated) {
        return `Multiplied by ${c.head}$W_Q$ it gives its query vector, ${ROLES.W_Q}: $q_{${i}} = ${texVector(c.w.q)}$.`;
      }
      const made = c.w.b_Q ? `Multiplied by ${c.head}$W_Q$, plus the bias $b_Q = ${texInputs(c.w.b_Q)}$, it gives its query vector`
        : `Multiplied by ${c.head}$W_Q$ it gives its query vector`;
      return c.w.q_unrotated
        ? `${made} $${texVector(c.w.q_unrotated)}$, which rotary positions then turn by its position ${c.w.position}: $q_{${i}} = ${texVector(c.w.q)}$.`
        : `${made}, ${ROLES.W_Q}: $q_{${i}} = ${texVector(c.w.q)}$.`;
    },
  },
  {
    block: ".block-projections",
    light: (c) => [...c.keys.map((j) => row("K", j)), '#qkv [data-key="qk"]'],
    say: (c) => (!c.keys.length ? "Every key is masked for this query, so it may read no key: none of the keys $k_j$ enters its calculation."
      : `Every token it may read${c.cross ? " (a row of $X_{kv}$)" : ""} is multiplied by ${c.head}$W_K$`
      + (c.w.b_K ? `, plus $b_K = ${texInputs(c.w.b_K)}$` : "")
      + (c.w.k_unrotated ? ", and turned by its own position" : "")
      + `, to give its key, ${ROLES.W_K}: $${listed(c.keys, (j) => `k_{${j + 1}} = ${texVector(c.K[j])}`)}$.`),
  },
  {
    block: ".block-scores",
    light: (c) => [row("S", c.i), step("dots")],
    say: (c) => (!c.keys.length
      ? `Its raw scores are computed as for any query, $${listed(c.w.dots.map((_, j) => j), (j) => `q_{${c.i + 1}} \\cdot k_{${j + 1}} = ${texNumber(c.w.dots[j])}`)}$, but every one of them belongs to a masked key.`
      : `The dot product of $q_{${c.i + 1}}$ with each key gives the raw scores: `
      + `$${listed(c.keys, (j) => `q_{${c.i + 1}} \\cdot k_{${j + 1}} = ${joinTerms(c.w.q.map((q, d) => `${texFactor(q)} \\cdot ${texFactor(c.K[j][d])}`))} = ${texNumber(c.w.dots[j])}`)}$.`),
  },
  {
    block: ".block-scores",
    light: (c) => [row("SS", c.i), `${step("softmax")} td:nth-of-type(2)`],
    say: (c) => {
      const s = scaleWords(c.w.scale, c.d_k);
      const how = s.isDefault ? `divided by $\\sqrt{d_k} = \\sqrt{${c.d_k}} = ${formatNumber(Math.sqrt(c.d_k))}$, so their spread does not grow with the width of the vectors`
        : `multiplied by the scale ${formatNumber(c.w.scale)}, not by $1/\\sqrt{d_k} = ${formatNumber(1 / Math.sqrt(c.d_k))}$`;
      const masked = c.w.allowed.length - c.keys.length;
      // The slope is a setting, written as the working's note writes it (texRate), not rounded.
      const alibi = c.w.bias ? `, then ALiBi adds $-${texRate(c.w.alibi_slope)} \\cdot |i - j|$, less the farther the key` : "";
      if (!c.keys.length) {
        const by = s.isDefault ? `divided by $\\sqrt{d_k} = \\sqrt{${c.d_k}} = ${formatNumber(Math.sqrt(c.d_k))}$` : `multiplied by the scale ${formatNumber(c.w.scale)}`;
        const all = masked === 1 ? "its one key is masked" : `all ${masked} keys are masked`;
        return `Each score would be ${by}${alibi}, but ${all}: every scaled score $s_{${c.i + 1},j} = -\\infty$.`;
      }
      return `Each score is ${how}${alibi}: $${listed(c.keys, (j) => `s_{${c.i + 1},${j + 1}} = ${texNumber(c.w.scaled[j])}`)}$.`
        + (masked ? ` The ${masked} masked ${masked === 1 ? "key's score becomes" : "keys' scores become"} $-\\infty$.` : "");
    },
  },
  {
    block: ".block-weights",
    light: (c) => [`${SHOWN_MAP} table.grid tbody tr:nth-child(${c.i + 1})`, `${SHOWN_MAP} [role="row"][data-i="${c.i}"]`, step("softmax")],
    say: (c) => {
      if (!c.keys.length) return `Every scaled score is $-\\infty$, so every $e^{s}$ is 0. ${NO_KEY}`;
      const shifted = c.w.exp_overflow;
      const e = (j) => sigText(shifted ? c.w.exp_shifted[j] : c.w.exp[j]);
      const sum = sigText(shifted ? c.w.exp_shifted_sum : c.w.exp_sum);
      return `The softmax: $e^{s}$ for each key (${listed(c.keys, e)}${shifted ? `, after subtracting the largest score ${formatNumber(c.w.shift)} so that float64 does not overflow` : ""}), `
        + `their sum ${sum}, and each over the sum: the weights ${listed(c.keys, (j) => formatNumber(c.w.weights[j]))}. They are positive and add up to 1.`;
    },
  },
  {
    block: ".block-projections",
    light: (c) => [...c.keys.map((j) => row("V", j)), '#qkv [data-key="qv"]'],
    say: (c) => (!c.keys.length ? "It may read no key, so no value $v_j$ enters its output."
      : `Every token it may read also gives a value vector, ${ROLES.W_V}, through ${c.head}$W_V$`
      + (c.w.b_V ? ` plus $b_V = ${texInputs(c.w.b_V)}$` : "") + ": "
      + `$${listed(c.keys, (j) => `v_{${j + 1}} = ${texVector(c.V[j])}`)}$.`),
  },
  {
    block: ".block-output",
    light: (c) => [row("Z", c.i), step("output")],
    say: (c) => (!c.keys.length
      ? `The output for “${proseText(c.t)}” is the weighted sum of the values it reads, and it reads none: by the same convention $z_{${c.i + 1}} = ${texVector(c.w.z)}$. That is the end of the calculation.`
      : `The output for “${proseText(c.t)}” is the weighted sum of those values, each weighted by its row of A: `
      + `$z_{${c.i + 1}} = ${joinTerms(c.keys.map((j) => `${texNumber(c.w.weights[j])}\\,${texVector(c.V[j])}`))} = ${texVector(c.w.z)}$. That is the end of the calculation.`),
  },
];

/** Row ``i`` of what enters the projections: x_i, or with positions (``PE``, the top-left
 *  corner of it the page fetches) x_i + PE_i, the same float64 sum the engine makes; null
 *  where that corner does not hold the whole of PE_i. */
export function enteringRow(X, PE, i) {
  if (!PE) return X[i];
  const pe = PE[i];
  return pe && pe.length === X[i].length ? X[i].map((v, c) => v + pe[c]) : null;
}

/** What the walk quotes for query ``i`` (see STEPS) from one head's answer ``body``
 *  (shownHead's) and the ``request`` it answers, or null until the answer holds that
 *  row's working. ``multi``: the answer has several heads. */
export function walkContext(body, i, request, multi) {
  const w = body.working;
  if (!w || i === null || w.row !== i) return null;
  const x = enteringRow(request.X, body.positional_encoding, i);
  return { i, t: body.tokens[i], keys: w.allowed.flatMap((ok, j) => (ok ? [j] : [])), w, K: body.K, V: body.V,
    x, pos: Boolean(body.positional_encoding), cross: Boolean(body.tokens_kv), d_k: body.d_k,
    head: multi ? `head ${body.head + 1}'s ` : "" };
}

const LIT = "walk-lit";
const BLOCK = "walk-block";

/** Draw step ``k`` (0-based) for the context ``c`` (see STEPS), or clear the walk when
 *  ``k`` is null. The first lit part that is shown is scrolled into view. The html
 *  element's class "walking" says the panel is shown, for the page's layout (app.css). */
export function renderWalk(root, panel, k, c = null) {
  for (const node of root.querySelectorAll(`.${LIT}, .${BLOCK}`)) node.classList.remove(LIT, BLOCK);
  const shown = k !== null && c !== null;
  document.documentElement.classList.toggle("walking", shown);
  if (!shown) {
    setProp(panel, "hidden", true);  // drawn on every edit: an unchanged write still restyles
    return;
  }
  const step = STEPS[k];
  root.querySelector(step.block)?.classList.add(BLOCK);
  const lit = step.light(c).flatMap((selector) => [...root.querySelectorAll(selector)]);
  for (const node of lit) node.classList.add(LIT);
  panel.hidden = false;
  panel.querySelector(".walk-count").textContent = `Step ${k + 1} of ${STEPS.length}`;
  const text = panel.querySelector(".walk-text");
  text.replaceChildren(...prose(step.say(c)));
  typeset(text);
  panel.querySelector(".walk-prev").disabled = k === 0;
  panel.querySelector(".walk-next").textContent = k === STEPS.length - 1 ? "Finish" : "Next";
  keepRoom(panel);  // the bar's new height, before the step scrolls above it
  showLit(lit.filter((node) => node.getClientRects().length > 0));
}

/** The panel's fixed parts, built once. */
export function walkPanel() {
  return el("div", { class: "walk", role: "region", "aria-label": "Walk through the calculation", hidden: true },
    el("p", { class: "walk-count" }),
    el("p", { class: "walk-text", "aria-live": "polite" }),
    el("p", { class: "walk-buttons" },
      el("button", { type: "button", class: "walk-prev", text: "Previous" }),
      el("button", { type: "button", class: "walk-next", text: "Next" }),
      el("button", { type: "button", class: "walk-end", text: "End the walk" })));
}
