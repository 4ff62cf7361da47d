// The controls bar: drawing it from the state, and its events. Every event hands a new
// state to update (main.js), which writes the URL and redraws; nothing here keeps state.

import { limits } from "./config.js";
import { setAttr, setProp, setText, symbols } from "./dom.js";
import { formatNumber } from "./format.js";
import * as S from "./state.js";
import { notWhole, typedSeed, wholeIn } from "./typed.js";

const $ = (id) => document.getElementById(id);

/** Draw the controls for ``state``; ``errors`` are the inputs' problems (the scale's is
 *  marked here), ``presetMatch`` the index of the preset the state is, or −1. */
export function drawControls(state, errors, presetMatch) {
  const dims = S.shapes(state);
  const typed = (input, value) => {  // never under the person's caret
    if (document.activeElement !== input) setProp(input, "value", String(value));
  };
  for (const dim of ["d_model", "d_k", "d_v"]) typed($(dim), dims[dim]);
  typed($("seed"), state.seed);
  typed($("heads"), state.heads);
  setProp($("causal"), "checked", state.causal);
  setProp($("cross"), "checked", state.X_kv !== null);
  setProp($("key-count"), "hidden", state.X_kv === null);
  if (state.X_kv) typed($("tokens-kv"), dims.m);
  setProp($("remove-key"), "disabled", dims.m <= 1);
  setProp($("positional"), "checked", state.positional);
  const inputs = `— X${state.X_kv ? ", X_kv" : ""}, ${state.heads > 1 ? `W_Q, W_K, W_V of each of ${state.heads} heads, W_O` : "W_Q, W_K, W_V"}`;
  if ($("inputs-sym").dataset.text !== inputs) {
    $("inputs-sym").dataset.text = inputs;
    $("inputs-sym").replaceChildren(...symbols(inputs));
  }
  document.documentElement.classList.toggle("present", state.present);
  setText($("present"), state.present ? "Exit present mode" : "Present");
  setAttr($("present"), "aria-pressed", String(state.present));
  const scale = $("scale");
  setProp($("scale-default"), "checked", state.scale === "");
  setProp(scale, "disabled", state.scale === "");
  typed(scale, state.scale === "" ? formatNumber(1 / Math.sqrt(dims.d_k)) : state.scale);
  const scaleError = errors.has("scale");
  if (scale.getAttribute("aria-invalid") !== String(scaleError)) {
    scale.setAttribute("aria-invalid", String(scaleError));
    if (scaleError) scale.setAttribute("aria-describedby", "err-in-scale");
    else scale.removeAttribute("aria-describedby");
  }
  setProp($("mask-tools"), "hidden", state.blocked.length === 0);
  setText($("mask-count"), `${state.blocked.length} score${state.blocked.length === 1 ? "" : "s"} masked by hand.`);
  typed($("tokens"), dims.n);
  setProp($("remove-token"), "disabled", dims.n <= 1);
  setProp($("add-token"), "disabled", dims.n >= limits.tokens);
  setProp($("preset"), "value", presetMatch >= 0 ? String(presetMatch) : "edited");
}

/** Wire the controls: ``page`` = {now() (the state), update(next, options), say(text,
 *  options), presets, presetState(preset, seed), initial (the state Reset gives)}. */
export function wireControls(page) {
  wireCounts(page);
  wireOptions(page);
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
  const setHeads = (h) => {
    let next = now();
    while (next.heads < h && next.heads < limits.heads) next = S.addHead(next);
    while (next.heads > h && next.heads > 1) next = S.removeHead(next);
    update(next);
  };
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

/** The checkboxes and the scale, the mask's tools, present mode. */
function wireOptions({ now, update }) {
  $("causal").addEventListener("change", (e) => update({ ...now(), causal: e.target.checked }));
  $("positional").addEventListener("change", (e) => update({ ...now(), positional: e.target.checked }));
  $("cross").addEventListener("change", (e) => update(S.setCross(now(), e.target.checked)));
  $("scale-default").addEventListener("change", (e) => update({ ...now(), scale: e.target.checked ? "" : "1" }));
  $("scale").addEventListener("input", (e) => update({ ...now(), scale: e.target.value }, { field: "scale" }));
  $("clear-masks").addEventListener("click", () => update({ ...now(), blocked: [] }));
  $("present").addEventListener("click", () => update({ ...now(), present: !now().present }));
  document.addEventListener("keydown", (e) => {
    // Escape leaves present mode once no walk is on (the walk's own Escape ends the walk).
    if (e.key === "Escape" && !e.defaultPrevented && now().present) update({ ...now(), present: false });
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
      if (Number.isInteger(size) && size >= 1 && size <= limits.dim) update(S.resize(now(), dim, size));
      else {
        say(`${dim} must be a whole number from 1 to ${limits.dim}; “${e.target.value}” is not.`, { warning: true });
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
