// Counts and lists in words: a number and its noun agree wherever the page writes them
// ("1 key", "3 keys"), and a list leaves out only what it must ("Z_1, Z_2", never
// "Z_1, …, Z_2"). Pure functions, unit-tested in tests/js/lib/words.test.mjs.

/** "1 key", "3 keys"; ``many`` for a plural that is not ``one`` + "s" ("2 queries"). */
export const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "a", "a and b", "a, b and c". */
export function andList(items) {
  return items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : (items[0] ?? "");
}

const WRITTEN_OUT = 3;  // up to this many every symbol is written; beyond, the first, "…", the last

/** ``n`` numbered symbols from ``first``: "Z_1, Z_2, Z_3", or "Z_1, …, Z_4" beyond three. */
export function numbered(prefix, n, first = 1) {
  const name = (k) => `${prefix}${first + k}`;
  return n <= WRITTEN_OUT ? Array.from({ length: n }, (_, k) => name(k)).join(", ") : `${name(0)}, …, ${name(n - 1)}`;
}
