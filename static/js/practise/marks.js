// Drawing the checks: each blank marked right or wrong, its hint in the line of hints under
// its row (the element its aria-describedby names), and the sentence the live region says
// for the blank just entered. Drawing only: the results come from check.js, the inputs are
// the page's.

import { showProse } from "./maths.js";

const MARK = { right: "✓", wrong: "✗" };

/** Mark ``input`` (a blank) by ``result`` ({correct, hint, hint_tex} or undefined:
 *  unchecked) or by ``invalid`` (the message for text that is not a number). A hint is
 *  drawn from hint_tex, its maths typeset; the live region says its plain text (spoken). */
export function markBlank(input, result, invalid) {
  const box = input.closest(".blank");
  const hint = document.getElementById(input.getAttribute("aria-describedby"));
  const mark = box.querySelector(".mark");
  const state = invalid ? "invalid" : result ? (result.correct ? "right" : "wrong") : "";
  box.dataset.state = state;
  input.setAttribute("aria-invalid", String(state === "wrong" || state === "invalid"));
  mark.textContent = MARK[state] ?? "";
  if (result && !result.correct && !invalid) {
    showProse(hint, result.hint_tex);
  } else {
    delete hint.dataset.prose;
    hint.textContent = invalid ?? "";
  }
}

/** What the live region says after ``label``'s blank was entered. */
export function spoken(label, result, invalid) {
  if (invalid) return `${label}: ${invalid}`;
  if (!result) return "";
  return result.correct ? `${label}: right.` : `${label}: not yet. ${result.hint}`;
}
