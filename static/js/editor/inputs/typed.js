// Whole numbers typed into the controls bar (a seed, a token count): read (whole.js, the
// one reader of whole numbers), or said why not. Pure functions, unit-tested.

import { wholeIn } from "../../lib/whole.js";

export { wholeIn };

export const SEED_MAX = 999999999;

/** What the status line says of a count that is not one, naming the field and the text. */
export const notWhole = (name, min, max, text) =>
  `${name} must be a whole number from ${min} to ${max}; “${text}” is not.`;

/** The seed "Random" uses: the one typed in the seed field when it is a seed and not the
 *  state's ``current`` one (typed, not yet applied), else null: draw a new one. */
export function typedSeed(text, current) {
  const seed = wholeIn(text, 0, SEED_MAX);
  return seed !== null && seed !== current ? seed : null;
}
