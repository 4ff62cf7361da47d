// The inputs' events: a typed cell or label makes a new state (one history entry per
// field's run of keystrokes, history.js); a pager's button turns the page of a large
// matrix shown, which is the inputs' own view, not part of the state.

import { SHOWN } from "../../draw/matrix.js";
import { turned } from "./pages.js";
import * as S from "../state.js";

/** Wire ``host`` (the inputs). ``page`` = {now() (the state), update(next, options),
 *  pages (a Map, the store's view's, read only here: matrix name → the page of its inputs shown,
 *  {row, col}, see pages.js), turnPage(name, {row, col}), redraw() (the inputs)}. */
export function wireInputs(host, page) {
  host.addEventListener("input", (e) => {
    const t = e.target;
    const state = page.now();
    if (t.dataset.matrix) {
      const field = `${t.dataset.matrix}[${t.dataset.i}][${t.dataset.j}]`;
      page.update(S.setCell(state, t.dataset.matrix, Number(t.dataset.i), Number(t.dataset.j), t.value), { field });
    } else if (t.dataset.label !== undefined) {
      page.update(S.setLabel(state, Number(t.dataset.label), t.value), { field: `tokens[${t.dataset.label}]` });
    } else if (t.dataset.labelKv !== undefined) {
      const i = Number(t.dataset.labelKv);
      page.update(S.setLabel(state, i, t.value, "tokens_kv"), { field: `tokens_kv[${i}]` });
    }
  });
  host.addEventListener("click", (e) => {  // a page of a large matrix's inputs
    const b = e.target.closest("button[data-turn]");
    if (!b) return;
    const name = b.closest("[data-key]").dataset.key;
    const { turn, step } = b.dataset;
    const m = page.now()[name];
    page.turnPage(name, turned(page.pages.get(name), turn, Number(step), m.length, m[0].length, SHOWN));
    page.redraw();
    // The inputs were rebuilt: focus the same button again, or its twin at the end.
    const pager = host.querySelector(`:scope > [data-key="${name}"] .pager-axis[data-axis="${turn}"]`);
    const [previous, next] = pager.querySelectorAll("button");
    (Number(step) > 0 ? (next.disabled ? previous : next) : (previous.disabled ? next : previous)).focus();
  });
}
