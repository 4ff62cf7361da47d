// "On paper": this exercise as a worksheet to print and its answer key, typeset on the server
// (POST /api/worksheet); from a seed, a class set of consecutive seeds from it.

import { limits, urls } from "../lib/config.js";
import { saveTypeset } from "../lib/typeset.js";

/** The body of POST /api/worksheet for ``exercise`` ({seed, level, request}): ``count``
 *  worksheets from its seed on, or its own example; ``key`` for the answer key. */
export function sheetBody(exercise, { key = false, format = "pdf", count = 1 } = {}) {
  const which = exercise.seed === null
    ? { request: exercise.request }
    : { seeds: Array.from({ length: count }, (_, k) => exercise.seed + k) };
  return { ...which, level: exercise.level, key, format };
}

/** How many worksheets the field asks for: a whole number from 1 to the limit, or a
 *  sentence saying what it must be. */
export function countOf(text, max = limits.worksheets) {
  const n = Number(text.trim());
  return Number.isInteger(n) && n >= 1 && n <= max ? n
    : { message: `Worksheets must be a whole number from 1 to ${max}; got “${text.trim()}”.` };
}

/** Wire the section's buttons; ``exercise`` is the page's. */
export function wirePaper(exercise) {
  const status = document.getElementById("paper-status");
  const countField = document.getElementById("sheet-count");
  const say = (text, warning = false) => {
    status.textContent = text;
    status.classList.toggle("field-error", warning);
  };
  const make = async (button, options, what) => {
    const count = countField ? countOf(countField.value) : 1;
    if (typeof count !== "number") return say(count.message, true);
    button.disabled = true;
    say(`Typesetting ${what}…`);
    const problem = await saveTypeset(urls.worksheet, sheetBody(exercise, { ...options, count }), "worksheet.pdf");
    button.disabled = false;
    say(problem ?? `Saved ${what}.`, Boolean(problem));
  };
  for (const [id, options, what] of [
    ["worksheet-pdf", {}, "the worksheet"],
    ["key-pdf", { key: true }, "the answer key"],
    ["worksheet-typ", { format: "typ" }, "the worksheet's typst source"]]) {
    const button = document.getElementById(id);
    button.addEventListener("click", () => make(button, options, what));
  }
}
