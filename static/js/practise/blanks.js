// The practice page's blanks: what is typed goes into the state (practise/main.js's
// ``page.type``), a blank entered (Enter, or the focus leaving it changed) is checked, and
// Enter moves on to the next. Two panels draw the store: the numbers typed in the blanks,
// and each blank's mark and hint from the newest check (marks.js).

import { whenChanged } from "../lib/store.js";
import { markBlank } from "./marks.js";

/** Wire ``blanks`` (the inputs, in the page's order); ``page`` = {type(path, text),
 *  check(entered)}. */
export function wireBlanks(blanks, page) {
  blanks.forEach((input, k) => {
    input.addEventListener("input", () => page.type(input.dataset.path, input.value));
    input.addEventListener("change", () => {
      page.type(input.dataset.path, input.value);  // its input events may have come before this script
      page.check(input);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();  // Enter checks this blank (change) and goes to the next
      (blanks[k + 1] ?? input).focus();
      if (!blanks[k + 1]) page.check(input);
    });
  });
}

/** The numbers typed, from the state: written into a blank only when it holds another (a
 *  link, Back or Forward), so what is being typed is never written over. */
export const typedPanel = (blanks) => ({
  changed({ state }) {
    for (const input of blanks) {
      const text = state.typed[input.dataset.path] ?? "";
      if (input.value !== text) input.value = text;
    }
  },
});

/** Each blank marked by the newest check (the view's ``marks``: {results: path → {correct,
 *  hint, hint_tex}, invalid: path → message}), drawn again only when a check has come. */
export const marksPanel = (blanks) => whenChanged((store) => store.view.marks, ({ view: { marks } }) => {
  for (const input of blanks) markBlank(input, marks.results[input.dataset.path], marks.invalid[input.dataset.path]);
});
