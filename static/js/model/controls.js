// The real-model view's controls: the model, the text (a pause in typing ends a word), the
// mask, the next tokens appended, the working's every-term switch and its folded steps.
// Each event hands a new state to ``page.update`` (model/main.js's one path) or a change of
// the view to the store; the panel's changed() shows the state in the controls.

import { drawModel } from "./view.js";
import { appended, withModel } from "./state.js";

// A forward pass takes ~0.2 s: a pause this long in typing is taken as the end of a word.
const TYPING_MS = 350;

const $ = (id) => document.getElementById(id);

/** Wire the controls; ``page`` = {store, models, info(), update(next, options), status(text)}.
 *  Returns the panel: changed() shows the state in them, and restored() drops a word still
 *  waiting for its pause (Back and Forward's state replaces it, text box and all). */
export function mountControls(page) {
  const store = page.store;
  const models = page.models;
  const pending = { typing: null, text: null };  // the word waiting for its pause; the text last shown

  function cancelTyping() {
    clearTimeout(pending.typing);
  }

  /** The text box shows the state's text at the next changed(), whatever is typed in it. */
  function restored() {
    cancelTyping();
    pending.text = null;
  }

  $("model").addEventListener("change", () => {
    pending.text = null;  // the text box shows the state's text, as every control does
    const next = withModel(store.state, models, $("model").value);
    store.look({ focus: { ...store.view.focus, grid: { layer: next.layer, head: next.head } } });
    page.update(next);
  });

  $("text").addEventListener("input", () => {
    cancelTyping();
    pending.typing = setTimeout(() => {
      const text = $("text").value;
      if (text === store.state.text) return;
      page.update({ ...store.state, text, row: null }, { field: "text" });  // one entry while typing goes on
    }, TYPING_MS);
  });

  $("causal").addEventListener("change", () => page.update({ ...store.state, causal: $("causal").checked }));

  $("next-tokens").addEventListener("click", (e) => {
    const refused = e.target.closest("button[data-reason]");
    if (refused) {
      page.status(`“${refused.querySelector(".token").textContent}” cannot be appended: ${refused.dataset.reason}.`);
      return;
    }
    const button = e.target.closest("button[data-text]");
    if (!button) return;
    cancelTyping();
    const text = appended(store.state.text, button.dataset.text);
    $("text").value = text;
    page.update({ ...store.state, text, row: null });
  });

  $("dot-terms").addEventListener("click", () => {
    store.look({ expanded: !store.view.expanded });
    store.changed();
  });

  // Opened or closed, the folded steps stay so for the next row and head ("toggle" does not
  // bubble: it is heard on its way down).
  $("working").addEventListener("toggle", (e) => {
    if (!e.target.matches?.("details.beyond") || e.target.open === store.view.opened) return;
    store.look({ opened: e.target.open });
    store.changed();
  }, true);

  /** The state in the controls. The text box is written only when the state's text is not
   *  the one it last showed (Back, Forward, a link): what is being typed stays. */
  function changed({ state }) {
    $("model").value = state.model;
    if (state.text !== pending.text) {
      pending.text = state.text;
      if ($("text").value !== state.text) $("text").value = state.text;
    }
    $("causal").checked = state.causal;
    drawModel(page.info());  // the model's own mask and sizes
  }

  return { changed, restored };
}

/** Say ``message`` under the text box (null: nothing is wrong with the text). */
export function textError(message) {
  const box = $("text-error");
  box.textContent = message ?? "";
  box.hidden = !message;
  $("text").setAttribute("aria-invalid", String(Boolean(message)));
}
