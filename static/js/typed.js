// Whole numbers typed into the controls bar (a seed, a token count): read, or said why not.
// Pure functions, unit-tested.

export const SEED_MAX = 999999999;

/** The whole number ``text`` spells when it lies in [min, max], else null ("", "2.5",
 *  "1e3" and "−1" are not whole numbers as typed). */
export function wholeIn(text, min, max) {
  const t = String(text).trim();
  if (!/^\d{1,10}$/.test(t)) return null;
  const v = Number(t);
  return v >= min && v <= max ? v : null;
}

/** What the status line says of a count that is not one, naming the field and the text. */
export const notWhole = (name, min, max, text) =>
  `${name} must be a whole number from ${min} to ${max}; “${text}” is not.`;

/** The seed "Random" uses: the one typed in the seed field when it is a seed and not the
 *  state's ``current`` one (typed, not yet applied), else null: draw a new one. */
export function typedSeed(text, current) {
  const seed = wholeIn(text, 0, SEED_MAX);
  return seed !== null && seed !== current ? seed : null;
}
