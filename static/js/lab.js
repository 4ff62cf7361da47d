// The scaling lab: why the scores are divided by √d_k. (Filled in by its own change.)

/** Build the lab's panel inside ``host`` (a section the page provides). */
export function mountLab(host) {
  void host;
}

/** Show the selected row's entropy and softmax-Jacobian size, or nothing for null. */
export function updateLabRow(host, row) {
  void host;
  void row;
}
