// Whole numbers as a person or a link writes them: the one reader for both pages (the
// editor's URL, its counts and seed; the real-model view's layer, head and row). Pure,
// unit-tested in tests/js/lib/whole.test.mjs.

/** The whole number ``text`` spells in ASCII digits (spaces round it allowed, as typed)
 *  when it lies in [min, max], else null: "", "2.5", "1e3", "−1", "+1" and "0x10" are not
 *  whole numbers as written, and past 2^53 a float64 no longer holds each one. */
export function wholeIn(text, min = 0, max = Number.MAX_SAFE_INTEGER) {
  const t = String(text ?? "").trim();
  if (!/^\d+$/.test(t)) return null;
  const v = Number(t);
  return Number.isSafeInteger(v) && v >= min && v <= max ? v : null;
}
