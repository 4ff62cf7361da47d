// The walk's keys: a presentation clicker sends PageDown and PageUp (some → and ←), so while
// the walk is on they step it forward and back, in present mode and out of it. Never a key
// meant for something else: typed in a field, moving the heatmap's focus (even at its edge,
// where the grid leaves the key unused), or stepping a step-by-step panel (lib/stepper.js
// marks its panel), nor one with a modifier (Alt+← is the browser's Back).

const BY = { PageDown: 1, ArrowRight: 1, PageUp: -1, ArrowLeft: -1 };
const OWN_KEYS = 'input, textarea, select, [contenteditable]:not([contenteditable="false"]), [role="grid"], [data-own-arrows]';

/** The steps a keydown moves the walk: 1, −1, or 0 when the key is not the walk's. Pure. */
export function walkKeyStep(e) {
  const by = BY[e.key] ?? 0;
  if (!by || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return 0;
  return e.target?.closest?.(OWN_KEYS) ? 0 : by;
}
