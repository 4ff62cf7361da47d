// The marks a real model's tokens carry in their labels, as attention_models.base.VISIBLE
// writes them ("␣Paris"): wherever labels show one, the editor says what it stands for.
// Pure, unit-tested in tests/js/editor/modelhead/marks.test.mjs.

import { andList } from "../../lib/words.js";

const MARKS = [["␣", "a space"], ["↵", "a new line"], ["⇥", "a tab"], ["␍", "a carriage return"]];

/** "In the labels, ␣ is a space and ↵ a new line (…)." for the marks ``labels`` hold, each
 *  named once; "" when they hold none. */
export function marksNote(labels) {
  const text = labels.join("");
  const held = MARKS.filter(([mark]) => text.includes(mark));
  if (held.length === 0) return "";
  const said = held.map(([mark, words], k) => `${mark} ${k === 0 ? "is " : ""}${words}`);
  const space = held[0][0] === "␣" ? " (a model's token often begins with the space before its word)" : "";
  return `In the labels, ${andList(said)}${space}.`;
}
