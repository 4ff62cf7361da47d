import assert from "node:assert/strict";
import { test } from "node:test";

import { createStore } from "../../../static/js/lib/store.js";

test("set replaces the state, and look makes a new view with the change merged", () => {
  const first = { row: 1 };
  const store = createStore({ state: first, view: { answer: null, page: 0 } });
  const viewBefore = store.view;
  store.set({ row: 2 });
  assert.deepEqual(store.state, { row: 2 });
  assert.deepEqual(first, { row: 1 }, "the old state is left as it was");
  store.look({ page: 3 });
  assert.deepEqual(store.view, { answer: null, page: 3 });
  assert.notEqual(store.view, viewBefore);
  assert.deepEqual(viewBefore, { answer: null, page: 0 });
});

test("changed tells every mounted panel, in the order they were mounted, with the store", () => {
  const store = createStore({ state: {} });
  const told = [];
  const a = store.mount({ changed: (s) => told.push(["a", s]) });
  store.mount({ changed: (s) => told.push(["b", s]) });
  assert.equal(typeof a.changed, "function");
  assert.equal(store.panels, 2);
  store.changed();
  assert.deepEqual(told.map(([name]) => name), ["a", "b"]);
  assert.ok(told.every(([, s]) => s === store));
});

test("a store without a view starts with an empty one", () => {
  assert.deepEqual(createStore({ state: { x: 1 } }).view, {});
});

test("whenChanged tells its panel the first time and then only when its key changes", async () => {
  const { whenChanged } = await import("../../../static/js/lib/store.js");
  const store = createStore({ state: { text: "a", row: 0 } });
  const told = [];
  store.mount(whenChanged((s) => s.state.text, (s) => told.push(s.state.text)));
  store.changed();
  store.changed();
  store.set({ text: "a", row: 1 });
  store.changed();
  store.set({ text: "b", row: 1 });
  store.changed();
  assert.deepEqual(told, ["a", "b"]);
});
