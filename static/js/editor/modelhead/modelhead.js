// A real model's head, opened in the editor from the real-model view ("Open in the editor",
// source.js): reading its link, fetching its numbers once per head, and the note that says
// where the inputs came from, with a link back.

import { postOnce } from "../../lib/api.js";
import { limits, urls as routes } from "../../lib/config.js";
import { setProp } from "../../lib/dom.js";
import { reveal } from "../reveal.js";
import { changedWords, readSource, sourceKey, sourceRequest, sourceWords, stateFromHead, viewFragment } from "./source.js";
import { say } from "../status.js";
import { fromSourceHash } from "../url.js";

/** createModelHeads({store, update, seed}) → {sourceOf(hash), open(source, hash), drawNote()}.
 *  ``update`` is the page's one path of a change; ``seed`` the seed of a head's state. */
export function createModelHeads({ store, update, seed }) {
  // Caches: a head's state as fetched (sourceKey → state: Back and Forward reuse it), and
  // the models' names from GET /api/models (model id → name), asked once.
  const bases = new Map();
  const names = new Map();
  let namesAsked = null;

  function askNames() {
    namesAsked ??= fetch(routes.models).then((r) => r.json()).then((body) => {
      for (const m of body.models ?? []) names.set(m.id, m.name);
    }).catch(() => {});  // the id stands in for the name
    return namesAsked;
  }

  /** The head a fragment names, or null (a fragment that names none, or cannot be read). */
  function sourceOf(hash) {
    try {
      return readSource(hash);
    } catch (err) {
      say(`The link to a model's head could not be read (${err.message}); showing the default example.`, { warning: true });
      return null;
    }
  }

  /** Fetch the head ``source`` names (once per head), then show it with the options and
   *  changed cells of ``hash``. The URL is left as it is until the head has come: a link
   *  whose head cannot be fetched now is kept, to work once it can. */
  async function open(source, hash) {
    const key = sourceKey(source);
    const asked = store.state;
    if (!bases.has(key)) {
      say(`Fetching the numbers of ${sourceWords(source)}…`);
      let answered;
      try {
        [answered] = await Promise.all([postOnce(sourceRequest(source), { url: routes.model_attention }), askNames()]);
      } catch {
        answered = { status: 0, body: { error: { message: "the server cannot be reached" } } };
      }
      if (answered.status !== 200 || answered.unreadable) {
        const why = answered.body.error?.message ?? `the server answered ${answered.status}`;
        say(`The numbers of ${sourceWords(source)} could not be fetched: ${why}. The link is kept as it is; reload to try again.`, { warning: true });
        reveal();
        return;
      }
      bases.set(key, stateFromHead(answered.body, source, { seed, maxLabel: limits.label }));
    }
    if (store.state !== asked) return;  // edited meanwhile: the person's edit stands
    const { state: opened, problem } = fromSourceHash(hash, bases.get(key));
    if (problem) say(problem, { warning: true });
    else say(`Opened ${sourceWords(source, names.get(source.model))}.`, { clearAfter: 4000 });
    update(opened, { history: "replace", urlDrawn: true });
  }

  /** Where the numbers came from, with a link back to the real-model view, while the state
   *  holds a real model's head. */
  function drawNote() {
    const note = document.getElementById("source-note");
    const { state } = store;
    const source = state.source;
    setProp(note, "hidden", !source);
    if (!source) return;
    const since = changedWords(state);
    const href = routes.model + viewFragment(state);
    const words = `These inputs are ${sourceWords(source, names.get(source.model))}${since}.`;
    if (note.dataset.words === words && note.dataset.href === href) return;
    Object.assign(note.dataset, { words, href });
    note.replaceChildren(`${words} `, Object.assign(document.createElement("a"), { href, textContent: "Back to the real-model view" }));
  }

  return { sourceOf, open, drawNote };
}
