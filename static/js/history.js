// The URL mirrors the state, so a reload or a link keeps every edit; every edit that
// changes the view makes one history entry, and consecutive keystrokes in one field
// make one entry between them.
//
// A small view's URL is written in the edit's own event, as TensorFlow Playground does.
// toHash measured in node (the page's state.js and url.js, one cell changed per call,
// median of 30): 3 tokens (18 cells) 0.03 ms; 64 tokens × 16 (1,800 cells) 0.4 ms; 256 tokens × 16
// (4,900 cells) 0.8 ms; 256 × 64 (29,000 cells) 4.8 ms; 256 × 64 with 4 heads (82,000
// cells) 13 ms. Up to SYNC_CELLS the write costs about a millisecond; beyond it the URL
// is written once the edit's frame has painted (while the request is at the server), and
// at once when the page is hidden or left, or before a link is copied. It does not wait
// for the answer: a reload takes the URL it loads before the page hears of it (neither
// beforeunload nor pagehide can change it, measured in chromium), so only a reload within
// that one frame loses the edit, not one while the answer is awaited.

import { coalesced } from "./later.js";
import { inputsOf } from "./state.js";
import { toHash } from "./url.js";

export const SYNC_CELLS = 5000;

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

/** How many inputs a view holds: what encoding its URL costs grows with. */
export const cellCount = (s) => inputsOf(s).reduce((sum, name) => sum + s[name].length * s[name][0].length, 0);

/** createHistory(current, {onStored}) → {edited, writeNow, listen}; ``current()`` is the
 *  page's state; onStored(where) is told where each write kept the view: "link" (its URL),
 *  "tab" (sessionStorage, too large for a link) or "nowhere" (too large for both).
 *  edited({history, field, now}): the state changed; ``history`` "push" (its own entry,
 *  joined by the next keystrokes in the same ``field``) or "replace"; the URL is written
 *  now for a small view or when ``now``, else after the next paint. listen(restore): Back and Forward hand ``restore`` the
 *  fragment of the entry returned to (the URL is then already written), and a URL waiting
 *  to be written is written when the page is hidden or left. */
export function createHistory(current, { history = window.history, location = window.location, onStored = () => {} } = {}) {
  let lastField = null;  // the field of the last edit
  let newEntry = false;  // the URL waiting to be written makes a new history entry
  const later = coalesced(() => writeNow());

  function writeNow() {
    later.cancel();
    const full = toHash(current());  // once per edit: no cache (the rows' encodings are url.js's)
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
    if (now || cellCount(current()) <= SYNC_CELLS) writeNow();
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
