// The URL mirrors the state, so a reload or a link keeps every edit; every edit that
// changes the view makes one history entry, and consecutive keystrokes in one field
// make one entry between them. Both pages' history: each gives its own fragment and says
// which of its states are written in the edit's own event (the editor's url.js, the
// real-model view's model/main.js).

import { coalesced } from "./later.js";

// A fragment longer than this is kept in the tab's sessionStorage, and the URL is
// "#stored=<id>": Chrome refuses URLs over 2 MB, and a real model's head reshaped (a token
// added to a 128-token SmolLM2 head) is ~3.7 MB written out. The view then survives a
// reload and Back and Forward in this tab, not a copied link; the page says so.
export const LINK_CHARS = 1_500_000;
const STORED = "attention-explorer:view:";

/** The fragment a URL stands for: a "#stored=<id>" one's from sessionStorage (null when
 *  this tab no longer holds it), any other as it is. */
export function unstored(hash, storage = globalThis.sessionStorage) {
  const m = /^#stored=([0-9a-z]+)$/.exec(hash);
  return m ? storage?.getItem(STORED + m[1]) ?? null : hash;
}

/** ``url`` as the URL may hold it: itself, or once stored under ``id`` "#stored=<id>";
 *  the other views kept are dropped when the storage is full. Null when it cannot be kept. */
export function kept(url, id, storage = globalThis.sessionStorage) {
  if (url.length <= LINK_CHARS) return url;
  for (const clear of [false, true]) {
    if (clear) {
      for (let k = storage.length - 1; k >= 0; k--) {
        const key = storage.key(k);
        if (key.startsWith(STORED) && key !== STORED + id) storage.removeItem(key);
      }
    }
    try {
      storage.setItem(STORED + id, url);
      return `#stored=${id}`;
    } catch {
      // full: try again with the other views gone, then give up
    }
  }
  return null;
}

/** createHistory(current, {onStored, encode, immediate}) → {edited, writeNow, listen};
 *  ``current()`` is the page's state; onStored(where) is told where each write kept the
 *  view: "link" (its URL), "tab" (sessionStorage, too large for a link) or "nowhere" (too
 *  large for both). ``encode(state)`` is its fragment and ``immediate(state)`` whether it
 *  is written in the edit's own event (the editor's: url.js's toHash and writtenAtOnce; the
 *  real-model view's fragment is always short, and always written at once).
 *  edited({history, field, now}): the state changed; ``history`` "push" (its own entry,
 *  joined by the next keystrokes in the same ``field``) or "replace"; the URL is written
 *  now for a small view or when ``now``, else after the next paint. listen(restore): Back and Forward hand ``restore`` the
 *  fragment of the entry returned to (the URL is then already written), and a URL waiting
 *  to be written is written when the page is hidden or left. */
export function createHistory(current, { history = window.history, location = window.location, onStored = () => {},
  encode, immediate }) {
  let lastField = null;  // the field of the last edit
  let newEntry = false;  // the URL waiting to be written makes a new history entry
  const later = coalesced(() => writeNow());

  function writeNow() {
    later.cancel();
    const full = encode(current());
    // A stored view's id: the entry's own while it is replaced, a new one for a new entry.
    const own = /^#stored=([0-9a-z]+)$/.exec(location.hash)?.[1];
    const id = !newEntry && own ? own : Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
    const stored = kept(full, id);
    const url = stored ?? full;
    onStored(full.length <= LINK_CHARS ? "link" : stored ? "tab" : "nowhere");
    if (url !== location.hash) {
      try {
        if (newEntry) history.pushState(null, "", url);
        else history.replaceState(null, "", url);
      } catch {
        onStored("nowhere");  // a URL the browser refuses: the view lives in the page alone
      }
    } else if (newEntry) {
      // The edits since the last entry changed nothing ("1" typed over "1"): they made no
      // entry, so the next keystroke in that field starts one instead of joining them.
      lastField = null;
    }
    newEntry = false;
  }

  function edited({ history: kind = "push", field = null, now = false } = {}) {
    if (kind === "push" && !(field !== null && field === lastField)) newEntry = true;
    lastField = field;
    if (now || immediate(current())) writeNow();
    else later.schedule();
  }

  function restored() {
    later.cancel();  // the history's state replaces the one waiting to be written
    newEntry = false;
    lastField = null;
  }

  function listen(restore) {
    window.addEventListener("popstate", () => {
      restored();
      restore(location.hash);
    });
    window.addEventListener("pagehide", () => writeNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") writeNow();
    });
  }

  return { edited, writeNow, listen };
}
