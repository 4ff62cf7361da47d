// The shuffle test: the inputs in their order and shuffled, without and with positions,
// each pair sent as requests of their own. Shown once "Shuffle tokens" is pressed, and
// run again for every answer after that.

import { postOnce } from "../../lib/api.js";
import { SHOWN } from "../../draw/matrix.js";
import { permutation, renderShuffle, shuffledRequest } from "./shuffle.js";

const $ = (id) => document.getElementById(id);

/** Wire the button. ``page`` = {now() (the state), request() (its request, or null while an
 *  input is invalid), say(text, options)}. Returns {refresh()}: the page calls it after
 *  each good answer; it does nothing until the button was first pressed. */
export function createShuffleTest(page) {
  let presses = 0;  // each press shuffles anew; 0: the test is not shown
  let ticket = 0;   // the newest run: one that comes back late is not shown
  async function run() {
    const state = page.now();
    const request = page.request();
    const n = state.tokens.length;
    if (!request || n < 2 || n > SHOWN || state.X_kv) {
      $("shuffle-result").replaceChildren();
      $("shuffle-order").textContent = state.X_kv ? "The shuffle test is for self-attention: turn cross-attention off."
        : n < 2 ? "Add a second token to shuffle." : n > SHOWN ? `Shown for up to ${SHOWN} tokens.` : "";
      return;
    }
    const mine = ++ticket;
    const perm = permutation(n, state.seed + presses);
    const runs = await pairs(request, perm).catch((err) => { page.say(err.message, { warning: true }); return null; });
    if (!runs || mine !== ticket) return;  // a newer test is on its way
    $("shuffle-order").textContent = `Shuffled order: ${perm.map((k) => state.tokens[k]).join(", ")}`;
    renderShuffle($("shuffle-result"), { tokens: state.tokens, perm, runs });
  }
  $("shuffle").addEventListener("click", () => {
    presses += 1;
    run();
  });
  return { refresh: () => { if (presses) run(); } };
}

/** The outputs of ``request`` in its order and in the order ``perm``, without and with
 *  positions: [{title, Z, Zs}]; rejects with the server's message. */
function pairs(request, perm) {
  const identity = [...perm.keys()];
  return Promise.all([false, true].map(async (positional) => {
    const [a, b] = await Promise.all([identity, perm].map((p) => postOnce(shuffledRequest(request, p, positional))));
    if (a.status !== 200 || b.status !== 200 || a.unreadable || b.unreadable) throw new Error((a.body.error ?? b.body.error).message);
    return { title: positional ? "With sinusoidal positions" : "Without positions", Z: a.body.output, Zs: b.body.output };
  }));
}
