// How the "Real model" view writes a model's tokens and its shares: pure, unit-tested in
// tests/js/model/tokens.test.mjs.

// As attention_models.base.VISIBLE: the answer's ``tokens`` already come so.
const VISIBLE = { " ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍" };

/** A token's raw text (a next token's " Paris") with its spaces made visible, "␣Paris". */
export const visibleToken = (raw) => [...String(raw)].map((c) => VISIBLE[c] ?? c).join("");

/** A probability or share as a percentage a person reads at a glance: "62%", "4.1%",
 *  "0.3%", "<0.1%" (never "0%" for a token the model does consider). */
export function percent(p) {
  const v = 100 * p;
  if (v >= 9.95) return `${Math.round(v)}%`;
  if (v >= 0.05) return `${v.toFixed(1)}%`;
  return v > 0 ? "<0.1%" : "0%";
}

/** The number under a grid cell: its head's share of attention on the first token, as a
 *  whole percentage ("62"), so a column of them reads at a glance and fits a 2rem cell. */
export const shareText = (share) => String(Math.round(100 * share));
