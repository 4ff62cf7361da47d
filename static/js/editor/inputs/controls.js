// The controls bar: drawing it from the state, and its events. Every event hands a new
// state to update (main.js), which writes the URL and redraws; nothing here keeps state.
// The controls beyond the chapter are in a group of their own, "Beyond the basics"
// (beyond.js), that opens by itself when the view comes to use them.

import { drawBeyond, wireBeyond } from "./beyond.js";
import { limits } from "../../lib/config.js";
import { el, setAttr, setProp, setText, symbols } from "../../lib/dom.js";
import { formatNumber } from "../../lib/format.js";
import * as H from "./heads.js";
import { fieldId } from "./fieldnames.js";
import * as S from "../state.js";
import { notWhole, typedSeed, wholeIn } from "./typed.js";
import { count } from "../../lib/words.js";

const $ = (id) => document.getElementById(id);

/** Write ``value`` into a typed control, never under the person's caret. */
function typed(input, value) {
  if (document.activeElement !== input) setProp(input, "value", String(value));
}

/** Mark ``input`` invalid while ``field`` has a problem, pointing at its message (the list
 *  under the inputs, inputs.js), as the cells' marks do. */
function mark(input, field, invalid) {
  if (input.getAttribute("aria-invalid") === String(invalid)) return;
  input.setAttribute("aria-invalid", String(invalid));
  if (invalid) input.setAttribute("aria-describedby", `err-${fieldId(field)}`);
  else input.removeAttribute("aria-describedby");
}

/** Draw the controls for ``state``; ``errors`` are the inputs' problems (those of the
 *  controls' own fields are marked here), ``presetMatch`` the index of the preset the state
 *  is, or −1. Returns the counts typed and refused (field → message: a key/value head
 *  count that does not divide the heads), to be listed with the inputs' problems. */
export function drawControls(state, errors, presetMatch) {
  const dims = S.shapes(state);
  for (const dim of ["d_model", "d_k", "d_v"]) typed($(dim), dims[dim]);
  typed($("seed"), state.seed);
  typed($("heads"), state.heads);
  setProp($("causal"), "checked", state.causal);
  setProp($("cross"), "checked", state.X_kv !== null);
  setProp($("key-count"), "hidden", state.X_kv === null);
  if (state.X_kv) typed($("tokens-kv"), dims.m);
  setProp($("remove-key"), "disabled", dims.m <= 1);
  drawInputsTitle(state);
  document.documentElement.classList.toggle("present", state.present);
  setText($("present"), state.present ? "Exit present mode" : "Present");
  setAttr($("present"), "aria-pressed", String(state.present));
  const scale = $("scale");
  setProp($("scale-default"), "checked", state.scale === "");
  setProp(scale, "disabled", state.scale === "");
  typed(scale, state.scale === "" ? formatNumber(1 / Math.sqrt(dims.d_k)) : state.scale);
  mark(scale, "scale", errors.has("scale"));
  drawPositions(state, errors);
  drawWindow(state, errors);
  setProp($("biases"), "checked", state.biases);
  const refused = drawKvHeads(state);
  setProp($("mask-tools"), "hidden", state.blocked.length === 0);
  setText($("mask-count"), `${count(state.blocked.length, "score")} masked by hand.`);
  typed($("tokens"), dims.n);
  setProp($("remove-token"), "disabled", dims.n <= 1);
  setProp($("add-token"), "disabled", dims.n >= limits.tokens);
  setProp($("preset"), "value", presetMatch >= 0 ? String(presetMatch) : "edited");
  drawPresetNote(presetMatch);
  drawBeyond(state);  // once its controls are drawn and marked
  return refused;
}

/** The sentence of the example the view is (its option's, from attention_core/presets.py
 *  through the template), under the heatmap; none once the view is edited away from it. */
function drawPresetNote(presetMatch) {
  const option = presetMatch >= 0 ? $("preset").options[presetMatch] : null;
  setProp($("preset-note"), "hidden", !option);
  if (option) setText($("preset-note"), option.dataset.description);
}

/** The inputs' heading names what there is to edit: "— X, W_Q of each of 4 heads, W_K, W_V
 *  of each of 2 key/value heads, W_O", or with one key/value head "of the one key/value
 *  head they share" (never "each of 1"). */
export function inputsTitle(state) {
  const b = (names) => (state.biases ? `, ${names}` : "");
  const kv = state.kvHeads === 1 ? "the one key/value head they share" : `each of ${state.kvHeads} key/value heads`;
  const heads = state.heads === 1 ? `W_Q, W_K, W_V${b("b_Q, b_K, b_V")}`
    : S.grouped(state)
      ? `W_Q${b("b_Q")} of each of ${state.heads} heads, W_K, W_V${b("b_K, b_V")} of ${kv}, W_O`
      : `W_Q, W_K, W_V${b("b_Q, b_K, b_V")} of each of ${state.heads} heads, W_O`;
  return `— X${state.X_kv ? ", X_kv" : ""}, ${heads}`;
}

function drawInputsTitle(state) {
  const inputs = inputsTitle(state);
  if ($("inputs-sym").dataset.text !== inputs) {
    $("inputs-sym").dataset.text = inputs;
    $("inputs-sym").replaceChildren(...symbols(inputs));
  }
}

/** The positions' choice, and θ, the offset or the ALiBi slopes where they apply. */
function drawPositions(state, errors) {
  const kind = state.positional;
  setProp($("positional"), "value", kind);
  mark($("positional"), "positional", errors.has("positional"));  // the server's: RoPE with an odd d_k
  setProp($("rope-control"), "hidden", kind !== "rope");
  typed($("rope-base"), state.rope_base);
  mark($("rope-base"), "rope_base", errors.has("rope_base"));
  setProp($("offset-control"), "hidden", kind !== "sinusoidal" && kind !== "rope");
  typed($("offset"), state.offset);
  mark($("offset"), "position_offset", errors.has("position_offset"));
  setProp($("alibi-control"), "hidden", kind !== "alibi");
  if (kind !== "alibi") return;
  const paper = state.alibi === "";
  setProp($("alibi-paper"), "checked", paper);
  const host = $("alibi-slopes");
  if (host.childElementCount !== state.heads) {
    host.replaceChildren(...Array.from({ length: state.heads }, (_, k) => el("input", {
      id: `alibi-slope-${k + 1}`, class: "short-input wide", type: "text", inputmode: "decimal",
      autocomplete: "off", spellcheck: "false", "aria-label": `ALiBi slope head ${k + 1}`, "data-slope": k,
    })));
  }
  const slopes = paper ? H.paperSlopes(state.heads).map(String) : state.alibi;
  [...host.children].forEach((input, k) => {
    setProp(input, "disabled", paper);
    typed(input, slopes[k]);
    mark(input, `alibi_slopes[${k}]`, errors.has(`alibi_slopes[${k}]`));
  });
}

/** The window, and its sinks once there is a window. */
function drawWindow(state, errors) {
  typed($("window"), state.window);
  mark($("window"), "window", errors.has("window"));
  setProp($("sinks-control"), "hidden", state.window === "");
  typed($("sinks"), state.sinks);
  mark($("sinks"), "sinks", errors.has("sinks"));
}

/** The key/value heads' stepper, shown with several heads. A count typed and refused stays
 *  in its field, marked, until it is corrected or the heads change another way (the field
 *  remembers for which heads it was refused); returns it as {kv_heads: message}. */
function drawKvHeads(state) {
  const input = $("kv-heads");
  setProp($("kv-control"), "hidden", state.heads === 1);
  const counts = H.divisors(state.heads);
  setProp($("fewer-kv"), "disabled", state.kvHeads === counts[0]);
  setProp($("more-kv"), "disabled", state.kvHeads === state.heads);
  const refused = input.dataset.refused !== undefined && input.dataset.refusedAt === `${state.heads}/${state.kvHeads}`;
  if (!refused) {
    delete input.dataset.refused;
    typed(input, state.kvHeads);
  }
  mark(input, "kv_heads", refused);
  return new Map(refused ? [["kv_heads", input.dataset.refused]] : []);
}

/** Wire the controls: ``page`` = {now() (the state), update(next, options), say(text,
 *  options), redraw() (the inputs and the controls, when a count typed is refused),
 *  presets, presetState(preset, seed), initial (the state Reset gives)}. */
export function wireControls(page) {
  wireBeyond();
  wireCounts(page);
  wireKvHeads(page);
  wireOptions(page);
  wirePositions(page);
  wireSeedAndSizes(page);
}

/** Tokens, key tokens and heads: steppers and typed counts. */
function wireCounts({ now, update, say }) {
  $("add-token").addEventListener("click", () => update(S.addToken(now())));
  $("remove-token").addEventListener("click", () => update(S.removeToken(now())));
  $("tokens").addEventListener("change", (e) => {
    const n = wholeIn(e.target.value, 1, limits.tokens);
    if (n !== null) update(S.setTokenCount(now(), n));
    else say(notWhole("Tokens", 1, limits.tokens, e.target.value), { warning: true });  // the text stays to be corrected
  });
  $("add-key").addEventListener("click", () => update(S.addKeyToken(now())));
  $("remove-key").addEventListener("click", () => update(S.removeKeyToken(now())));
  $("tokens-kv").addEventListener("change", (e) => {
    const m = wholeIn(e.target.value, 1, limits.tokens);
    if (m !== null) update(S.setKeyTokenCount(now(), m));
    else say(notWhole("Key tokens", 1, limits.tokens, e.target.value), { warning: true });
  });
  const setHeads = (h) => update(H.setHeadCount(now(), h));
  $("heads").addEventListener("change", (e) => {
    const h = Number(e.target.value);
    if (Number.isInteger(h) && h >= 1 && h <= limits.heads) setHeads(h);
    else {
      say(`Heads must be a whole number from 1 to ${limits.heads}; “${e.target.value}” is not.`, { warning: true });
      e.target.value = now().heads;
    }
  });
  $("fewer-heads").addEventListener("click", () => setHeads(now().heads - 1));
  $("more-heads").addEventListener("click", () => setHeads(now().heads + 1));
}

/** The key/value heads: the stepper goes through the divisors of the head count; a count
 *  typed that is not one of them is refused, and stays in the field to be corrected. */
function wireKvHeads({ now, update, redraw }) {
  const input = $("kv-heads");
  const step = (by) => {
    const counts = H.divisors(now().heads);
    const g = counts[counts.indexOf(now().kvHeads) + by];
    if (g !== undefined) update(H.setKvHeads(now(), g));
  };
  $("fewer-kv").addEventListener("click", () => step(-1));
  $("more-kv").addEventListener("click", () => step(1));
  input.addEventListener("change", () => {
    const { heads, kvHeads } = now();
    const g = wholeIn(input.value, 1, heads);
    if (g !== null && heads % g === 0) {
      delete input.dataset.refused;
      if (g === kvHeads) redraw();  // the same count: only the mark goes
      else update(H.setKvHeads(now(), g));
      return;
    }
    const counts = H.divisors(heads);
    input.dataset.refused = `Key/value heads must divide the ${heads} heads (${counts.slice(0, -1).join(", ")} or `
      + `${counts.at(-1)}); “${input.value}” is not one of them.`;
    input.dataset.refusedAt = `${heads}/${kvHeads}`;
    redraw();
  });
}

/** The checkboxes and the scale, the window and its sinks, the mask's tools, present mode. */
function wireOptions({ now, update }) {
  $("causal").addEventListener("change", (e) => update({ ...now(), causal: e.target.checked }));
  $("biases").addEventListener("change", (e) => update(H.setBiases(now(), e.target.checked)));
  $("cross").addEventListener("change", (e) => update(S.setCross(now(), e.target.checked)));
  $("scale-default").addEventListener("change", (e) => update({ ...now(), scale: e.target.checked ? "" : "1" }));
  $("scale").addEventListener("input", (e) => update({ ...now(), scale: e.target.value }, { field: "scale" }));
  // Typed text goes into the state as it is, right or wrong: request.js marks what is not a number.
  $("window").addEventListener("input", (e) => update({ ...now(), window: e.target.value }, { field: "window" }));
  $("sinks").addEventListener("input", (e) => update({ ...now(), sinks: e.target.value }, { field: "sinks" }));
  $("clear-masks").addEventListener("click", () => update({ ...now(), blocked: [] }));
  // Present mode's URL is written at once, not after the next paint: a projector's page
  // may be given no frame for a while, and its address bar kept "present=1" meanwhile.
  const present = (on) => update({ ...now(), present: on }, { urlNow: true });
  $("present").addEventListener("click", () => present(!now().present));
  document.addEventListener("keydown", (e) => {
    // Escape leaves present mode once no walk is on (the walk's own Escape ends the walk).
    if (e.key === "Escape" && !e.defaultPrevented && now().present) present(false);
  });
}

/** The positions' choice, θ, the offset, and the ALiBi slopes (the paper's, or typed). */
function wirePositions({ now, update }) {
  $("positional").addEventListener("change", (e) => update({ ...now(), positional: e.target.value }));
  $("rope-base").addEventListener("input", (e) => update({ ...now(), rope_base: e.target.value }, { field: "rope_base" }));
  $("offset").addEventListener("input", (e) => update({ ...now(), offset: e.target.value }, { field: "position_offset" }));
  $("alibi-paper").addEventListener("change", (e) => update(H.setPaperSlopes(now(), e.target.checked)));
  $("alibi-slopes").addEventListener("input", (e) => {
    const k = Number(e.target.dataset.slope);
    update(H.setSlope(now(), k, e.target.value), { field: `alibi_slopes[${k}]` });
  });
}

/** Preset, Reset, the seed and Random, the dimensions. */
function wireSeedAndSizes({ now, update, say, presets, presetState, initial }) {
  $("reset").addEventListener("click", () => update(initial));
  // A seed typed and not yet applied is what "Random" uses. Pressing the button blurs the
  // seed field, whose change event applies the seed first: the field is read at the press.
  let pressedSeed = null;
  $("random").addEventListener("pointerdown", () => { pressedSeed = typedSeed($("seed").value, now().seed); });
  $("random").addEventListener("click", (e) => {
    const pressed = e.detail > 0 ? pressedSeed : null;  // a click of the pointer pressed just now
    pressedSeed = null;
    const seed = pressed ?? typedSeed($("seed").value, now().seed);
    if (seed === null) update(S.randomize(now(), Math.floor(Math.random() * 1e6)));
    else if (seed !== now().seed) update(S.randomize(now(), seed));  // else the change event applied it
  });
  $("seed").addEventListener("change", (e) => {
    const seed = Number(e.target.value);
    if (Number.isInteger(seed) && seed >= 0 && seed <= 999999999) update(S.randomize(now(), seed));
    else say(`Seed “${e.target.value}” must be a whole number from 0 to 999999999.`, { warning: true });
  });
  for (const dim of ["d_model", "d_k", "d_v"]) {
    $(dim).addEventListener("change", (e) => {
      const size = Number(e.target.value);
      if (Number.isInteger(size) && size >= 1 && size <= S.dimLimit(dim)) update(S.resize(now(), dim, size));
      else {
        say(`${dim} must be a whole number from 1 to ${S.dimLimit(dim)}; “${e.target.value}” is not.`, { warning: true });
        e.target.value = S.shapes(now())[dim];
      }
    });
  }
  document.querySelectorAll("button.step").forEach((b) => b.addEventListener("click", () => {
    const dim = b.dataset.dim;
    update(S.resize(now(), dim, S.shapes(now())[dim] + Number(b.dataset.step)));
  }));
  $("preset").addEventListener("change", (e) => {
    const preset = presets[Number(e.target.value)];
    if (preset) update(presetState(preset, now().seed));
  });
}
