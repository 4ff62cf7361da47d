import { test } from "node:test";
import assert from "node:assert/strict";
import { createJournal } from "../js/journal.js";

/** A Storage with the three methods the journal uses, over a Map. */
function memoryStorage() {
  const items = new Map();
  return {
    items,
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => void items.set(k, String(v)),
    removeItem: (k) => void items.delete(k),
  };
}

test("a note written over the loaded URL gives back the URL it was going to", () => {
  const storage = memoryStorage();
  const journal = createJournal(storage);
  journal.note("#X=1,0", "#X=1,5", true);
  assert.deepEqual(journal.pending("#X=1,0"), { to: "#X=1,5", push: true });
  assert.deepEqual(journal.pending("#X=1,0"), { to: "#X=1,5", push: true }, "reading it does not use it up");
  journal.note("#X=1,0", "#X=1,6");
  assert.deepEqual(journal.pending("#X=1,0"), { to: "#X=1,6", push: false }, "replacing the entry is the default");
});

test("later notes over the same URL keep the newest target", () => {
  const journal = createJournal(memoryStorage());
  journal.note("#a", "#b");
  journal.note("#a", "#c");
  assert.equal(journal.pending("#a").to, "#c");
});

test("a note written over another URL is dropped, not applied", () => {
  const storage = memoryStorage();
  const journal = createJournal(storage);
  journal.note("#X=1,0", "#X=1,5");
  assert.equal(journal.pending("#X=9,9"), null);
  assert.equal(storage.items.size, 0, "the stale note is removed");
  assert.equal(journal.pending("#X=1,0"), null);
});

test("clear forgets the note", () => {
  const journal = createJournal(memoryStorage());
  journal.note("#a", "#b");
  journal.clear();
  assert.equal(journal.pending("#a"), null);
});

test("an unreadable note is dropped", () => {
  const storage = memoryStorage();
  storage.setItem("attention-explorer:pending-url", "{not json");
  assert.equal(createJournal(storage).pending("#a"), null);
  assert.equal(storage.items.size, 0);
  storage.setItem("attention-explorer:pending-url", JSON.stringify({ from: "#a", to: 5 }));
  assert.equal(createJournal(storage).pending("#a"), null, "a target that is not a fragment");
});

test("storage that refuses every call makes the journal a no-op, never an error", () => {
  const refuse = () => { throw new DOMException("denied", "SecurityError"); };
  const journal = createJournal({ getItem: refuse, setItem: refuse, removeItem: refuse });
  assert.doesNotThrow(() => journal.note("#a", "#b"));
  assert.equal(journal.pending("#a"), null);
  assert.doesNotThrow(() => journal.clear());
});

test("without sessionStorage at all (a script outside a page) the journal is a no-op", () => {
  const journal = createJournal();  // node has no sessionStorage
  assert.doesNotThrow(() => journal.note("#a", "#b"));
  assert.equal(journal.pending("#a"), null);
});
