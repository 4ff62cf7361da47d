// The guided walk's events: "Walk me through it" starts it, its buttons, a clicker's keys
// (walkkeys.js) and Escape step through and end it. The step on screen is the walk's own
// (not part of the URL's state).

import { renderWalk, STEPS, walkPanel } from "./walk.js";
import { walkKeyStep } from "./walkkeys.js";

const $ = (id) => document.getElementById(id);

/** Build and wire the walk's panel. ``page`` = {now() (the state), context() (walkContext
 *  for the selected row, or null without an answer), selectRow(i)}. Returns {draw(),
 *  walking()}: the page calls draw after drawing an answer, so the step quotes the new
 *  numbers; walking() says whether a step is on screen. */
export function createWalk(page) {
  const host = $("walk-panel");
  host.append(walkPanel());
  let step = null;  // the step on screen (0-based), or null
  const draw = () => renderWalk($("page"), host.firstChild, step, step === null ? null : page.context());
  const walkTo = (k) => {
    step = k;
    draw();
    if (k === null) $("walk").focus();
  };
  $("walk").addEventListener("click", () => {
    const state = page.now();
    if (state.row === null) page.selectRow(state.tokens.length - 1);
    walkTo(0);
    host.querySelector(".walk-next").focus({ preventScroll: true });
  });
  $("skip-walk").addEventListener("click", (e) => {
    e.preventDefault();  // a skip link moves focus without touching the URL's fragment
    $("walk").focus();
  });
  const move = (by) => walkTo(by < 0 ? Math.max(0, step - 1) : step + 1 < STEPS.length ? step + 1 : null);
  host.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.classList.contains("walk-prev")) move(-1);
    else if (b.classList.contains("walk-next")) move(1);
    else walkTo(null);
  });
  document.addEventListener("keydown", (e) => {
    const by = step === null ? 0 : walkKeyStep(e);
    if (!by) return;
    e.preventDefault();  // PageDown would scroll the page the step has just placed
    move(by);
  });
  host.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();  // ends the walk only, not present mode as well
    walkTo(null);
  });
  return { draw, walking: () => step !== null };
}
