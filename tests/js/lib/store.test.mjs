import assert from "node:assert/strict";
import { test } from "node:test";
import { readdirSync, readFileSync } from "node:fs";
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

// Each state object has one owner: the modules wired by editor/main.js and model/main.js read what
// the page hands them (``page``) and hand back changes through its functions; they never
// write into its objects. Read here from the files themselves.
const dir = new URL("../../../static/js/", import.meta.url);

const WRITES = [
  /\bpage\.\w+(?:\.\w+|\[[^\]]+\])+\s*(?:[-+*/]?=)(?!=)/,    // page.pointer.link = …
  /\bpage\.\w+\.(?:set|delete|clear|push|splice)\(/,          // page.pages.set(…)
  /\bconst\s*\{[^}]*\}\s*=\s*page\s*;/,                       // const { pointer } = page; then pointer.x = …
];

test("no module writes into the objects the page hands it", () => {
  for (const name of readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".js"))) {
    const lines = readFileSync(new URL(name, dir), "utf8").split("\n");
    lines.forEach((line, k) => {
      for (const write of WRITES) assert.ok(!write.test(line), `${name}:${k + 1}: ${line.trim()}`);
    });
  }
});
