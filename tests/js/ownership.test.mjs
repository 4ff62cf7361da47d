import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

// Each state object has one owner: the modules wired by editor/main.js and model/main.js read what
// the page hands them (``page``) and hand back changes through its functions; they never
// write into its objects. Read here from the files themselves.
const dir = new URL("../../static/js/", import.meta.url);
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
