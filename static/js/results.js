// Drawing an answer of POST /api/attention into the page's blocks: the projections, the
// scores, one heatmap per head, the output and the working. It only draws: what is
// selected, focused and lit is given to it by main.js.

import { el, keyed } from "./dom.js";
import { formatNumber } from "./format.js";
import { renderHeatmap, TABLE_MAX } from "./heatmap.js";
import { afterPaint } from "./later.js";
import { updateLabRow } from "./lab.js";
import { renderLink } from "./link.js";
import { renderMatrix, SHOWN } from "./matrix.js";
import { renderWorking } from "./working.js";

const $ = (id) => document.getElementById(id);
let workingTicket = 0;  // the newest drawing's turn to typeset the working

// What the page draws, and no more. Q, Z, Concat, the output and PE are printed as their
// top-left SHOWN × SHOWN corner, so only that corner is fetched ("Q[:16,:16]"); K and V
// come whole, for the working's k_j and v_j; beyond SHOWN tokens the n × n scores are
// not printed, so not fetched. Beyond TABLE_MAX tokens no weight is printed either: every
// heatmap is drawn from weights_u8 (one byte per weight) and the shown head's rows are
// read out from strongest_keys. Exports fetch a whole matrix when they need it.
// At 512 tokens with 4 heads this cuts the answer from 7.4 MB to 2.5 MB.
const corner = (field) => `${field}[:${SHOWN},:${SHOWN}]`;
const WORKING = ["row", "token", "q", "dots", "scale", "scaled", "allowed", "exp", "exp_sum",
  "exp_overflow", "shift", "exp_shifted", "exp_shifted_sum", "weights", "z", "entropy",
  "jacobian_norm"].map((f) => `working.${f}`);
const SHARED = ["tokens", "tokens_kv", "causal", corner("positional_encoding")];  // not per head

/** The fields a head's blocks draw (its heatmap's apart, see fieldsFor). */
const headFields = (n) => ["d_k", "scale", corner("Q"), "K", "V", "mask", corner("output"),
  "warnings", ...WORKING, ...(n > SHOWN ? [] : ["scores", "scaled_scores"])];

/** The fields to ask of POST /api/attention for n queries and m keys: with several heads
 *  (``multi``), every head's heatmap and the shown ``head``'s blocks. */
export function fieldsFor(n, multi, head = 0, m = n) {
  const big = Math.max(n, m) > TABLE_MAX;
  const map = big ? ["weights_u8", "strongest_keys"] : ["weights"];
  if (!multi) return [...SHARED, ...headFields(n), ...map];
  const each = big ? ["heads.weights_u8"] : ["heads.weights"];
  const shown = [...headFields(n), ...(big ? ["strongest_keys"] : [])].map((f) => `heads[${head}].${f}`);
  return [...SHARED, corner("concat"), corner("output"), "warnings", ...each, ...shown];
}

/** The head an answer can show: ``head`` when the answer holds its matrices, else (until
 *  the answer for ``head`` arrives) the head it was fetched for. 0 with a single head. */
export function drawableHead(answer, head) {
  if (!answer.heads) return 0;
  const k = Math.min(head, answer.heads.length - 1);
  return answer.heads[k].mask ? k : Math.max(0, answer.heads.findIndex((h) => h.mask));
}

/** The answer as one head's answer: the shown head's own matrices with the shared fields. */
export function shownHead(answer, head) {
  if (!answer.heads) return answer;
  const k = drawableHead(answer, head);
  const { tokens, tokens_kv, causal, positional_encoding } = answer;
  return { ...answer.heads[k], tokens, tokens_kv, causal, positional_encoding, head: k };
}

/** Draw every block of an answer of POST /api/attention (asked with fieldsFor's fields).
 *  view: {row, head, focus: {i, j}, link: {i, j} or null, now: typeset the working at once,
 *  d_model: the width of X, which the corners fetched do not show}.
 *  Returns {focus (kept inside the grid), warning: a sentence for the status line or null}. */
export function drawAnswer(answer, { row: selected, head, focus: wanted, link, now = false, d_model }) {
  const body = shownHead(answer, head);
  const multi = Boolean(answer.heads);
  const n = body.tokens.length;
  const m = (body.tokens_kv ?? body.tokens).length;
  const d_v = body.V[0].length;
  const row = selected !== null && selected < n ? selected : null;
  const sel = new Set(row === null ? [] : [row]);
  // A matrix's whole size: only a corner of Q, Z, Concat, the output and PE is fetched.
  const size = { Q: [n, body.d_k], K: [m, body.d_k], V: [m, d_v], Z: [n, d_v], S: [n, m],
    C: [n, (answer.heads?.length ?? 1) * d_v], O: [n, d_model], PE: [n, d_model] };
  const shape = (key, a, b) => ({ size: size[key], shape: `${size[key][0]} × ${size[key][1]}  (${a} × ${b})` });
  const labels = body.tokens;
  const keyLabels = body.tokens_kv ?? labels;  // K and V belong to the keys' tokens
  // The keys the selected query may read: their rows of K and V share its highlight.
  const keys = new Set(row === null ? [] : keyLabels.map((_, j) => j).filter((j) => body.mask[row][j]));
  const figure = (host, key) => keyed(host, key, () => el("figure", { class: "matrix" }));
  const proj = $("projections");
  const source = body.tokens_kv ? ["X_kv", "m"] : ["X", "n"];
  const of = multi ? `, head ${body.head + 1}` : "";  // which head's matrices these are
  renderMatrix(figure(proj, "Q"), { data: body.Q, caption: [`Q${of}`, "= X·W_Q"], ...shape("Q", "n", "d_k"), rowLabels: labels, highlight: sel });
  renderMatrix(figure(proj, "K"), { data: body.K, caption: [`K${of}`, `= ${source[0]}·W_K`], ...shape("K", source[1], "d_k"), rowLabels: keyLabels, highlight: keys });
  renderMatrix(figure(proj, "V"), { data: body.V, caption: [`V${of}`, `= ${source[0]}·W_V`], ...shape("V", source[1], "d_v"), rowLabels: keyLabels, highlight: keys });
  drawScores(body, labels, sel, shape, figure);
  const focus = { i: Math.min(wanted.i, n - 1), j: Math.min(wanted.j, keyLabels.length - 1) };
  drawHeatmaps(answer, body.head ?? 0, body.mask, row, focus, labels, keyLabels);
  $("cross-note").hidden = !body.tokens_kv;
  $("cross-note").textContent = !body.tokens_kv ? "" : `Queries come from X (${n} tokens), keys and values from X_kv (${m} tokens), so A is ${n} × ${m}.`
    + (body.causal ? ` The causal mask is aligned at the top left, as torch's is_causal: query i may read keys 1 to i${n !== m ? ", whatever the lengths" : ""}.` : "");
  const out = $("output");
  renderMatrix(figure(out, "Z"), { data: body.output, caption: [`Z${of}`, "= A·V"], ...shape("Z", "n", "d_v"), rowLabels: labels, highlight: sel });
  if (multi) {
    renderMatrix(figure(out, "C"), { data: answer.concat, caption: ["Concat", `(Z_1, …, Z_${answer.heads.length})`], ...shape("C", "n", "h·d_v"), rowLabels: labels, highlight: sel });
    renderMatrix(figure(out, "O"), { data: answer.output, caption: ["Output", "= Concat·W_O"], ...shape("O", "n", "d_model"), rowLabels: labels, highlight: sel });
  } else {
    for (const key of ["C", "O"]) out.querySelector(`[data-key="${key}"]`)?.remove();
  }
  // A new selection's working arrives with the next answer; until then the old one stays.
  // Typesetting takes longer than all the matrices, so it waits for the frame after
  // theirs and then runs at background priority: the new numbers paint first, and a
  // key the person presses meanwhile is handled before the working, not after it.
  // (The first drawing, before the first paint, typesets at once.)
  if (row === null || body.working?.row === row) {
    const ticket = ++workingTicket;
    const draw = () => {
      if (ticket !== workingTicket) return;  // a newer draw has its own
      renderWorking($("working"), { working: row === null ? undefined : body.working, tokens: labels, keys: keyLabels, d_k: body.d_k, K: body.K, V: body.V });
      $("working").dataset.row = row ?? "";
      $("working-sym").textContent = row === null ? "" : `— query ${row + 1}, “${labels[row]}”${of}`;
      renderLink($("page"), link);
    };
    if (now) draw();
    else afterPaint(draw);
  }
  renderLink($("page"), link);
  updateLabRow($("lab-panel"), row === null || body.working?.row !== row ? null
    : { row, token: labels[row], weights: body.working.weights, entropy: body.working.entropy, jacobian_norm: body.working.jacobian_norm });
  const pe = $("positions");
  if (body.positional_encoding) {
    renderMatrix(figure(pe, "PE"), { data: body.positional_encoding, caption: ["PE", "sinusoidal positions, added to X"], ...shape("PE", "n", "d_model"), rowLabels: labels });
  } else {
    pe.replaceChildren();
  }
  const silent = body.mask.map((r, i) => (r.some(Boolean) ? null : `${i + 1} “${labels[i]}”`)).filter(Boolean);
  const warning = silent.length
    ? `Query ${silent.join(", ")} may read no key: every weight of that row is 0, and so is its output.` : null;
  return { focus, warning };
}

/** One heatmap per head, side by side; the shown head's is marked. ``mask`` is every
 *  head's: it depends on the causal switch and the masked cells, not on the head. */
function drawHeatmaps(answer, head, mask, row, focus, labels, keyLabels) {
  const heads = answer.heads ?? [answer];
  const host = $("heatmap");
  while (host.children.length > heads.length) host.lastChild.remove();
  heads.forEach((answer, k) => {
    const box = keyed(host, `head-${k}`, () => el("div", { class: "heatmap-head", "data-head": k },
      el("p", { class: "head-caption" }), el("div", { class: "heatmap" })));
    const shown = heads.length === 1 || k === head;
    box.classList.toggle("shown", heads.length > 1 && shown);
    const caption = box.querySelector(".head-caption");
    const words = heads.length === 1 ? "" : `Head ${k + 1}${shown ? " — shown in the other blocks" : ""}`;
    if (caption.textContent !== words) caption.textContent = words;
    renderHeatmap(box.querySelector(".heatmap"), {
      weights: answer.weights, weights_u8: answer.weights_u8, strongest: answer.strongest_keys,
      mask, tokens: labels, keys: keyLabels, selected: row,
      focus,  // every head's grid keeps one tab stop, so each is reachable by keyboard
      name: heads.length === 1 ? "Attention weights" : `Attention weights, head ${k + 1}`,
    });
  });
}

function drawScores(body, labels, sel, shape, figure) {
  const scores = $("scores");
  const note = scores.querySelector(".too-many");
  if (!body.scores) {
    scores.replaceChildren(el("p", { class: "too-many", text: `With ${labels.length} tokens the ${labels.length} × ${labels.length} scores are not printed: the heatmap shows every weight, and the working shows the scores of the selected row.` }));
    return;
  }
  note?.remove();
  const masked = (i, j) => !body.mask[i][j];
  renderMatrix(figure(scores, "S"), { data: body.scores, caption: ["QKᵀ", "raw scores"], ...shape("S", "n", "n"), rowLabels: labels, highlight: sel });
  const root = Math.sqrt(body.d_k);
  const isDefault = Math.abs(body.scale - 1 / root) < 1e-12;
  renderMatrix(figure(scores, "SS"), {
    data: body.scaled_scores,
    caption: isDefault ? ["QKᵀ / √d_k", `÷ ${formatNumber(root)}, d_k = ${body.d_k}`]
      : ["scale · QKᵀ", `× ${formatNumber(body.scale)} (not 1/√d_k)`],
    ...shape("S", "n", "n"),
    ...(body.causal ? { shape: `${shape("S", "n", "n").shape} · masked: j > i` } : {}),
    rowLabels: labels, highlight: sel, masked,
  });
}

