// Which part of a large input matrix is on screen: ``size`` rows and columns at a time,
// turned a page at a time. This is the page's own state, not the view's: it is not in the
// URL, and the matrices themselves stay whole in state.js. Pure functions, unit-tested.

/** The window {r0, r1, c0, c1} (half-open, 0-based) that ``page`` ({row, col}: the first
 *  row and column wanted) shows of a rows × cols matrix, kept inside it: a matrix that
 *  shrank under its page shows its last page. */
export function windowOf(page, rows, cols, size) {
  const start = (first, total) => {
    const last = Math.max(0, Math.floor((total - 1) / size) * size);
    return Math.min(Math.max(0, Math.floor((first ?? 0) / size) * size), last);
  };
  const r0 = start(page?.row, rows);
  const c0 = start(page?.col, cols);
  return { r0, r1: Math.min(rows, r0 + size), c0, c1: Math.min(cols, c0 + size) };
}

/** The page after turning ``page`` by ``step`` pages (±1) along "rows" or "cols". */
export function turned(page, axis, step, rows, cols, size) {
  const w = windowOf(page, rows, cols, size);
  const next = { row: w.r0, col: w.c0 };
  if (axis === "rows") next.row = w.r0 + step * size;
  else next.col = w.c0 + step * size;
  const t = windowOf(next, rows, cols, size);
  return { row: t.r0, col: t.c0 };
}

/** "Rows 17–32 of 40": the part of one axis shown, 1-based as the inputs are named. */
export function pageText(axis, start, end, total) {
  const word = axis === "rows" ? "Rows" : "Columns";
  return end - start === 1 ? `${word.slice(0, -1)} ${start + 1} of ${total}` : `${word} ${start + 1}–${end} of ${total}`;
}
