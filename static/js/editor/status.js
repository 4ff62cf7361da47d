// The status line under the controls (an aria-live region): one sentence at a time, a
// warning marked as one, a passing note cleared after a while.

let clearing = 0;  // the timer that clears a passing note

/** Show ``text``; ``warning`` marks it as a problem, ``clearAfter`` (ms) clears it then. */
export function say(text, { warning = false, clearAfter = 0 } = {}) {
  const status = document.getElementById("status");
  clearTimeout(clearing);
  status.textContent = text;
  status.classList.toggle("is-warning", warning);
  if (clearAfter) clearing = setTimeout(() => say(""), clearAfter);
}

/** Clear the status line if it shows a warning (a good answer ends the last problem). */
export function clearWarning() {
  if (document.getElementById("status").classList.contains("is-warning")) say("");
}
