// The controls every step-by-step panel shares ("Generate step by step" in the editor and on
// the real-model view, "Step through the tiles"): a back and a forward button, ← and → inside
// the panel, and the step shown kept while what it shows is asked again after an edit.
// The panel says what to load, how many steps it holds and how to draw one; this module
// only moves between them.

/** Wire ``previous`` and ``next`` (buttons) and the arrow keys inside ``host`` (not in a text
 *  field, where they move the caret). ``load()`` resolves to what the steps are drawn from,
 *  or throws an Error saying why there is none; ``count(source)`` is its number of steps;
 *  ``draw(source, k)`` draws step k (0-based); ``fail(error)`` shows why nothing can be.
 *  Returns {go(delta): move by delta steps (0: load again, keep the step), started()}. */
export function createStepper({ host, previous, next, load, count, draw, fail }) {
  let k = -1;  // the step shown; −1 before the first
  let asked = 0;  // the newest go's number: only its answer is drawn, with every move since
  let moves = 0;  // the steps asked while the source was loading: five presses are five steps

  async function go(delta) {
    const mine = ++asked;
    moves += delta;
    let source;
    try {
      source = await load();
    } catch (err) {
      if (mine !== asked) return;
      [k, moves] = [-1, 0];
      [previous.disabled, next.disabled] = [true, false];
      fail(err);
      return;
    }
    if (mine !== asked) return;
    const last = count(source) - 1;
    k = Math.max(0, Math.min(last, k + moves));
    moves = 0;
    const focused = document.activeElement;
    [previous.disabled, next.disabled] = [k <= 0, k >= last];
    // A button disabled under the keyboard would drop the focus (and ← and → with it).
    if (focused === next && next.disabled) previous.focus();
    if (focused === previous && previous.disabled) next.focus();
    draw(source, k);
  }

  next.addEventListener("click", () => go(1));
  previous.addEventListener("click", () => go(-1));
  host.dataset.ownArrows = "";  // ← and → here are the panel's, not the walk's (editor/walk/walkkeys.js)
  host.addEventListener("keydown", (event) => {
    if (event.target.matches("input, textarea, select")) return;
    if (event.key === "ArrowRight" && !next.disabled) { event.preventDefault(); next.click(); }
    if (event.key === "ArrowLeft" && !previous.disabled) { event.preventDefault(); previous.click(); }
  });
  return { go, started: () => k >= 0 };
}

/** ``ask(body)``'s promise, asked once per body (by its JSON): the same body again (a press
 *  while its answer is on its way, a redraw after an edit elsewhere) gets the same promise;
 *  one that failed is asked again. Only the newest body's is kept. */
export function askedOnce(ask) {
  let kept = { key: null, promise: null };
  return (body) => {
    const key = JSON.stringify(body);
    if (key !== kept.key) {
      const promise = ask(body);
      kept = { key, promise };
      promise.catch(() => { if (kept.promise === promise) kept = { key: null, promise: null }; });
    }
    return kept.promise;
  };
}
