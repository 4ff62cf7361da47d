// A page's history (static/js/lib/history.js): a view too large for a link is kept in the
// tab's storage.
import { test } from "node:test";
import assert from "node:assert/strict";

test("a fragment too long for a link is kept in the tab's storage, others dropped when it is full", async () => {
  const { kept, unstored, LINK_CHARS } = await import("../../../static/js/lib/history.js");
  const storage = (quota) => {
    const items = new Map();
    return {
      get length() { return items.size; }, key: (k) => [...items.keys()][k], getItem: (k) => items.get(k) ?? null,
      removeItem: (k) => items.delete(k),
      setItem: (k, v) => {
        const used = [...items].reduce((n, [key, text]) => n + (key === k ? 0 : text.length), 0);
        if (used + v.length > quota) throw new Error("QuotaExceededError");
        items.set(k, v);
      },
    };
  };
  const store = storage(LINK_CHARS * 2.5);
  assert.equal(kept("#tokens=a", "x1", store), "#tokens=a");
  const big = "#tokens=" + "a".repeat(LINK_CHARS);
  assert.equal(kept(big, "x1", store), "#stored=x1");
  assert.equal(unstored("#stored=x1", store), big);
  assert.equal(kept(big + "b", "x2", store), "#stored=x2");
  assert.equal(kept(big + "c", "x3", store), "#stored=x3", "the older views make room");
  assert.equal(unstored("#stored=x3", store), big + "c");
  assert.equal(unstored("#stored=x1", store), null, "dropped: the page says so");
  assert.equal(unstored("#tokens=a", store), "#tokens=a");
  assert.equal(kept("#" + "a".repeat(LINK_CHARS * 3), "x4", store), null, "beyond the storage itself");
});
