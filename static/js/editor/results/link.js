// Linked highlighting: the weight a_ij under the pointer or focus lights up what it
// is made of and what it feeds — q_i, k_j, v_j, the score (i, j) and the term of z_i.
// Drawing only: it is told which cell, and knows nothing of how that was chosen.

const LIT = "linked";

/** Light the parts of weight (i, j), or nothing when ``link`` is null. */
export function renderLink(root, link) {
  for (const node of root.querySelectorAll(`.${LIT}`)) node.classList.remove(LIT);
  if (!link) return;
  const { i, j } = link;
  const light = (node) => node?.classList.add(LIT);
  const row = (key, k) => root.querySelector(`figure[data-key="${key}"] tbody tr:nth-child(${k + 1})`);
  light(row("Q", i));
  light(row("K", j));
  light(row("V", j));
  for (const key of ["S", "SS"]) light(row(key, i)?.cells[j + 1]);
  const working = root.querySelector("#working");
  if (working?.dataset.row === String(i)) {
    for (const node of working.querySelectorAll(`[data-j="${j}"]`)) light(node);
  }
}
