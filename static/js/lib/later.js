// Work that may wait for the next quiet moment: after the frame that paints new numbers,
// and after any key the person presses meanwhile.

/** Run ``task`` at background priority (a plain task where the Scheduler API is missing). */
export const inBackground = globalThis.scheduler?.postTask
  ? (task) => void globalThis.scheduler.postTask(task, { priority: "background" })
  : (task) => void setTimeout(task);

/** Run ``task`` in the background once the next frame has painted. (A background task
 *  alone may run before that frame, while the browser waits for its moment to paint.) */
export const afterPaint = (task) => void requestAnimationFrame(() => inBackground(task));

/** Run ``tasks`` one after another, each after the frame that follows the one before (so
 *  that each one's drawing is laid out in a frame of its own). */
export function oneAFrame(...tasks) {
  if (tasks.length) afterPaint(() => { tasks[0](); oneAFrame(...tasks.slice(1)); });
}

/** coalesced(fn) → {schedule(), cancel()}: schedule runs fn once, after the next paint,
 *  however often it is called before fn runs; cancel forgets a scheduled run. */
export function coalesced(fn) {
  let queued = false;
  const run = () => {
    if (!queued) return;
    queued = false;
    fn();
  };
  return {
    schedule() {
      if (queued) return;
      queued = true;
      afterPaint(run);
    },
    cancel() {
      queued = false;
    },
  };
}

/** ``promise`` settled, or ``ms`` passed without it (a lost connection retries forever). */
export const settledWithin = (promise, ms) => Promise.race([promise, new Promise((r) => setTimeout(r, ms))]);
