// A write-ahead note of the URL the page is about to write, kept in sessionStorage.
//
// Writing the URL (history.replaceState) costs 1–3 ms of the main thread plus work in
// the browser process, and a keystroke's answer is waited for by that same thread: so
// the URL is written once the answer has painted. Until then a reload would load the
// old URL and lose the keystroke; this note, written in the keystroke's own event
// (~0.2 ms), carries it across the reload. It lives as long as the tab, never leaves
// the machine, and is only believed when the URL loaded is the one it was written over.

const KEY = "attention-explorer:pending-url";

/** createJournal(storage = sessionStorage) → {note(from, to, push), pending(current), clear()}.
 *  note: the URL will go from fragment ``from`` to ``to``, in a new history entry when
 *  ``push``; pending: {to, push} of a note written over ``current`` (else null, and a
 *  stale note is dropped); clear: the URL has been written. Storage that fails (full,
 *  or disabled) makes every call a no-op. */
export function createJournal(storage = null) {
  // Even reading window.sessionStorage throws where storage is disabled: so it is read
  // inside attempt, and the URL alone still works there.
  const attempt = (fn, fallback = undefined) => {
    try {
      return fn(storage ?? globalThis.sessionStorage);
    } catch {
      return fallback;
    }
  };
  return {
    note(from, to, push = false) {
      attempt((store) => store.setItem(KEY, JSON.stringify({ from, to, push })));
    },
    pending(current) {
      const raw = attempt((store) => store.getItem(KEY), null);
      if (raw === null) return null;
      const entry = attempt(() => JSON.parse(raw), null);
      if (entry?.from === current && typeof entry.to === "string") return { to: entry.to, push: entry.push === true };
      this.clear();  // written over another URL: a link opened since, or Back and Forward
      return null;
    },
    clear() {
      attempt((store) => store.removeItem(KEY));
    },
  };
}
