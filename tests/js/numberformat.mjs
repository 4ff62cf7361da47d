// How numbers print, as the server sends every page it in the page config (config.js's
// number): attention_core/prose.py's NUMBER_FORMAT, which tests/core/test_prose.py checks
// this against. A test whose modules print numbers imports this first, as a page is sent it.
import { number } from "../../static/js/lib/config.js";

export const NUMBER_FORMAT = { fixed_limit: 100000, decimals: 3, figures: 4 };
Object.assign(number, NUMBER_FORMAT);
