// ESLint for the front end (static/js) and its node tests (tests/js); scripts/test runs
// it and fails on any finding. max-lines-per-function keeps every function readable in one
// screen (STYLE.md: short functions).
import js from "@eslint/js";
import globals from "globals";

export default [
  // What we did not write: installed packages (the venv holds other projects' JavaScript) and
  // the vendored KaTeX.
  { ignores: [".venv/", "node_modules/", "build/", "static/vendor/", "benchmarks/lighthouse/node_modules/"] },
  js.configs.recommended,
  {
    rules: {
      "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  { files: ["static/js/**/*.js", "benchmarks/**/*.js"], languageOptions: { globals: globals.browser } },
  { files: ["tests/js/**/*.mjs", "tests/js/**/*.js", "eslint.config.js"], languageOptions: { globals: globals.node } },
];
