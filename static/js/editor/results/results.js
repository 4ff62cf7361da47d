// Drawing an answer of POST /api/attention into the page's blocks: the projections, the
// scores, one heatmap per head, the output and the working. It only draws: what is
// selected, focused and lit is given to it by main.js.

import { el, keyed, setProp, setText } from "../../lib/dom.js";
import { renderHeatmap, TABLE_MAX } from "../../draw/heatmap.js";
import { bandLegend } from "../../draw/heatmapband.js";
import { afterPaint } from "../../lib/later.js";
import { updateLabRow } from "../lab/lab.js";
import { renderLink } from "./link.js";
import { renderMatrix, SHOWN } from "../../draw/matrix.js";
import { createNear } from "./near.js";
import { typeset, typesetWhenNear } from "../../draw/tex.js";
import { drawPositions, drawRowsUsed, projectionWords } from "./projections.js";
import { drawHeadings, drawScores, setSymbols } from "./scores.js";
import { enteringRow } from "../walk/walk.js";
import { renderWorking } from "../../draw/working.js";
import { andList, count, numbered } from "../../lib/words.js";
import { answer as asks } from "../../lib/config.js";

const $ = (id) => document.getElementById(id);
let workingTicket = 0;  // the newest drawing's turn to typeset the working
const block = (node) => node.closest(".block");
// The projections, the scores and the outputs, below the first screen, are drawn after the
// frame of the new weights unless they are near the screen (near.js says why); a print
// draws them first.
const near = createNear();
globalThis.addEventListener?.("beforeprint", () => near.flush());

/** Draw at once the blocks still waiting to be drawn (the walk lights their parts). */
export const drawWaiting = () => near.flush();

// What the page draws, and no more. Q, Z, Concat, the output and PE are printed as their
// top-left SHOWN × SHOWN corner, so only that corner is fetched ("Q[:16,:16]"); K and V
// come whole, for the working's k_j and v_j; beyond SHOWN tokens the n × m scores are
// not printed, so not fetched. Beyond TABLE_MAX tokens no weight is printed either: every
// heatmap is drawn from weights_u8 (one byte per weight) and the shown head's rows are
// read out from strongest_keys. Exports fetch a whole matrix when they need it.
// At 512 tokens with 4 heads this cuts the answer from 7.4 MB to 2.5 MB.
const corner = (field) => `${field}[:${SHOWN},:${SHOWN}]`;
// Which fields come whole, as a corner, only while the scores are printed, or as the
// heatmap's bytes, is said for each field by the server (config.js's answer, from
// attention_api/attention/answer_fields.py). The working's parts for biases, RoPE, ALiBi, a window and
// sinks come only when the request has them on, so they cost a plain request nothing.
const of = (group, how) => asks[group]?.[how] ?? [];
const asked = (group) => [...of(group, "ask"), ...of(group, "corner").map(corner)];
const workingFields = () => (asks.working ?? []).map((f) => `working.${f}`);

/** The fields a head's blocks draw (its heatmap's apart, see fieldsFor). */
const headFields = (n) => [...asked("head"), ...workingFields(), ...(n > SHOWN ? [] : of("head", "small"))];

/** The fields to ask of POST /api/attention for n queries and m keys: with several heads
 *  (``multi``), every head's heatmap and the shown ``head``'s blocks. */
export function fieldsFor(n, multi, head = 0, m = n) {
  const big = Math.max(n, m) > TABLE_MAX;
  const map = of("head", big ? "heatmap_big" : "heatmap");
  const readout = big ? of("head", "readout_big") : [];
  if (!multi) return [...asked("whole"), ...headFields(n), ...map, ...readout];
  // Every head's key/value head (with kv_heads only): the working says which share one.
  const each = [...map, ...of("head", "every_head")].map((f) => `heads.${f}`);
  const shown = [...headFields(n), ...readout].map((f) => `heads[${head}].${f}`);
  return [...asked("whole"), ...asked("beside"), ...each, ...shown];
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
  const whole = [...of("whole", "ask"), ...of("whole", "corner")].map((f) => [f, answer[f]]);
  return { ...answer.heads[k], ...Object.fromEntries(whole), head: k };
}

/** Draw every block of an answer of POST /api/attention (asked with fieldsFor's fields).
 *  view: {row, head, focus: {i, j}, link: {i, j} or null, workingWhenNear: write the
 *  working out at once and typeset it when it nears the screen, two spans a frame (below
 *  the first screen, as the page opens),
 *  d_model: the width of X, which the corners fetched do not show, inputs: {X, X_kv} as
 *  numbers, the request answered, present: draw the rows the query uses for present mode}.
 *  Returns {warning: a sentence for the status line, or null}. */
export function drawAnswer(answer, { row: selected, head, focus, link, workingWhenNear = false, d_model, inputs, present = false }) {
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
  const pos = Boolean(body.positional_encoding);
  const cross = Boolean(body.tokens_kv);
  // What the projections really multiply: X, or X + PE with positions (X_kv for K and V).
  const qIn = pos ? "(X + PE)" : "X";
  const kvIn = cross ? (pos ? "(X_kv + PE_kv)" : "X_kv") : qIn;
  const of = multi ? `, head ${body.head + 1}` : "";  // which head's matrices these are
  // K and V of a head that shares them are its key/value head's.
  const ofKV = body.kv_head === undefined ? of : `, key/value head ${body.kv_head + 1}`;
  const keysN = cross ? "m" : "n";
  const f = projectionWords(inputs, body.head ?? 0, body.kv_head, { qIn, kvIn });
  near.draw(block(proj), () => {
    renderMatrix(figure(proj, "Q"), { data: body.Q, caption: [`Q${of}`, f.Q], ...shape("Q", "n", "d_k"), rowLabels: labels, highlight: sel });
    renderMatrix(figure(proj, "K"), { data: body.K, caption: [`K${ofKV}`, f.K], ...shape("K", keysN, "d_k"), rowLabels: keyLabels, highlight: keys });
    renderMatrix(figure(proj, "V"), { data: body.V, caption: [`V${ofKV}`, f.V], ...shape("V", keysN, "d_v"), rowLabels: keyLabels, highlight: keys });
    drawPositions(body, inputs, labels, keyLabels, sel, keys, figure);
    renderLink(block(proj), link);
  });
  drawHeadings(body, multi, inputs);
  drawRowsUsed(present ? body : null, row, inputs, labels, keyLabels, keys, figure);
  near.draw(block($("scores")), () => {
    drawScores(body, labels, sel, shape, figure, inputs);
    renderLink(block($("scores")), link);
  });
  drawHeatmaps(answer, body.head ?? 0, body.mask, row, focus, labels, keyLabels, band(inputs));
  // Masking by M works on the printed grid only; beyond TABLE_MAX a scaled score is not printed.
  const big = Math.max(n, m) > TABLE_MAX;
  const how = "Each row is one query token; it spreads a total weight of 1 over the keys across the top. Darker means more attention. Click a row, or use the arrow keys, to see its working"
    + (big ? "." : "; press M on a cell to mask or unmask it.");
  setText($("how-to-read"), `${how}${band(inputs) ? ` ${bandLegend(band(inputs), keyLabels)}` : ""}`);
  setProp($("cross-note"), "hidden", !body.tokens_kv);
  setSymbols($("cross-note"), !body.tokens_kv ? "" : crossWords(n, m, body.causal));
  near.draw(block($("output")), () => drawOutputs(answer, body, { of, multi, labels, sel, shape, figure }));
  drawWorkingOf(body, row, { workingWhenNear, link, labels, keyLabels, of, inputs, answer });
  renderLink($("page"), link);
  updateLabRow($("lab-panel"), row === null || body.working?.row !== row ? null
    : { row, token: labels[row], weights: body.working.weights, allowed: body.working.allowed,
      entropy: body.working.entropy, jacobian_norm: body.working.jacobian_norm });
  const silent = body.mask.map((r, i) => (r.some(Boolean) ? null : `${i + 1} “${labels[i]}”`)).filter(Boolean);
  return { warning: noKeyWords(silent) };
}

/** Cross-attention's note: where queries, keys and values come from, for n queries and m
 *  keys, and how the causal mask lines up. */
export function crossWords(n, m, causal) {
  return `Queries come from X (${count(n, "token")}), keys and values from X_kv (${count(m, "token")}), so A is ${n} × ${m}.`
    + (causal ? ` The causal mask is aligned at the top left, as torch's is_causal: query i may read keys 1 to i${n !== m ? ", whatever the lengths" : ""}.` : "");
}

/** The status line's warning for the queries ``silent`` ("1 “the”") that may read no key,
 *  or null when there is none. */
export function noKeyWords(silent) {
  if (!silent.length) return null;
  return silent.length === 1
    ? `Query ${silent[0]} may read no key: every weight of that row is 0, and so is its output.`
    : `Queries ${andList(silent)} may read no key: every weight of those rows is 0, and so are their outputs.`;
}

/** One heatmap per head; the shown head's is marked, and app.css draws it large beside the
 *  working, the others as tiles at its left. ``mask`` is every
 *  head's: it depends on the causal switch and the masked cells, not on the head. */
function drawHeatmaps(answer, head, mask, row, focus, labels, keyLabels, band) {
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
    setText(caption, words);
    renderHeatmap(box.querySelector(".heatmap"), {
      weights: answer.weights, weights_u8: answer.weights_u8, strongest: answer.strongest_keys,
      mask, tokens: labels, keys: keyLabels, selected: row,
      focus,  // every head's grid keeps one tab stop, so each is reachable by keyboard
      band,
      name: heads.length === 1 ? "Attention weights" : `Attention weights, head ${k + 1}`,
    });
  });
}

/** Z, and with several heads Concat and the output Concat·W_O. */
function drawOutputs(answer, body, { of, multi, labels, sel, shape, figure }) {
  const out = $("output");
  renderMatrix(figure(out, "Z"), { data: body.output, caption: [`Z${of}`, "= A·V"], ...shape("Z", "n", "d_v"), rowLabels: labels, highlight: sel });
  if (multi) {
    renderMatrix(figure(out, "C"), { data: answer.concat, caption: ["Concat", `(${numbered("Z_", answer.heads.length)})`], ...shape("C", "n", "h·d_v"), rowLabels: labels, highlight: sel });
    renderMatrix(figure(out, "O"), { data: answer.output, caption: ["Output", "= Concat·W_O"], ...shape("O", "n", "d_model"), rowLabels: labels, highlight: sel });
  } else {
    for (const key of ["C", "O"]) out.querySelector(`[data-key="${key}"]`)?.remove();
  }
}

/** The sliding window and its sinks, for the heatmaps to mark; null without a window. */
function band(inputs) {
  return inputs?.window === undefined ? null : { window: inputs.window, sinks: inputs.sinks ?? 0 };
}

/** What the working says of the request beyond the working's own numbers: the positions
 *  used, θ and the offset, and the key/value head the shown head reads. */
function workingContext(body, inputs, answer) {
  const kv = body.kv_head === undefined || !answer.heads ? null : {
    head: body.head, kvHead: body.kv_head, kvHeads: inputs?.kv_heads?.length ?? new Set(answer.heads.map((h) => h.kv_head)).size,
    readers: answer.heads.every((h) => h.kv_head !== undefined)
      ? answer.heads.map((h, k) => (h.kv_head === body.kv_head ? k : null)).filter((k) => k !== null) : null,
  };
  return { causal: body.causal, positional: inputs?.positional, ropeBase: inputs?.rope_base, offset: inputs?.position_offset, kv,
    made: inputs && projected(body, inputs) };
}

/** What the shown head's projections multiply, for "how q_i is made": the rows entering
 *  them (x, or x + PE where the PE fetched holds the row; null where not) and the head's
 *  W_Q and its key/value head's W_K and W_V, as the request has them. */
function projected(body, inputs) {
  const h = inputs.heads ? inputs.heads[body.head ?? 0] : inputs;
  const kv = body.kv_head !== undefined && inputs.kv_heads ? inputs.kv_heads[body.kv_head] : h;
  const cross = Boolean(inputs.X_kv);
  const row = body.working?.row;
  return { x: row === undefined ? null : enteringRow(inputs.X, body.positional_encoding, row),
    xk: (j) => (cross ? enteringRow(inputs.X_kv, body.positional_encoding_kv, j) : enteringRow(inputs.X, body.positional_encoding, j)),
    W_Q: h.W_Q, W_K: kv.W_K, W_V: kv.W_V, pe: inputs.positional === "sinusoidal", cross };
}

/** The working of the selected row, once its answer holds it (see the comment inside). */
function drawWorkingOf(body, row, { workingWhenNear, link, labels, keyLabels, of, inputs, answer }) {
  // A new selection's working arrives with the next answer; until then the old one stays.
  // Typesetting takes longer than all the matrices, so it waits for the frame after
  // theirs and then runs at background priority: the new numbers paint first, and a
  // key the person presses meanwhile is handled before the working, not after it.
  if (row === null || body.working?.row === row) {
    const ticket = ++workingTicket;
    const draw = () => {
      if (ticket !== workingTicket) return;  // a newer draw has its own
      renderWorking($("working"), { working: row === null ? undefined : body.working, tokens: labels, keys: keyLabels,
        d_k: body.d_k, K: body.K, V: body.V, ...workingContext(body, inputs, answer) });
      if (workingWhenNear) typesetWhenNear($("working"), WORKING_SPANS_PER_FRAME);
      else typeset($("working"));
      setProp($("working").dataset, "row", String(row ?? ""));
      setText($("working-sym"), row === null ? "" : `— query ${row + 1}, “${labels[row]}”${of}`);
      renderLink($("page"), link);
    };
    if (workingWhenNear) draw();
    else afterPaint(draw);
  }
}

// Eight frames for the default example's 16 maths spans, each of them then under 10 ms of a
// phone's time once KaTeX has warmed up.
const WORKING_SPANS_PER_FRAME = 2;
