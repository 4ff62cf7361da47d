// Work that may wait for the next quiet moment: after the frame that paints new numbers,
// and after any key the person presses meanwhile.

/** Run ``task`` at background priority (a plain task where the Scheduler API is missing). */
export const inBackground = globalThis.scheduler?.postTask
  ? (task) => void globalThis.scheduler.postTask(task, { priority: "background" })
  : (task) => void setTimeout(task);

/** coalesced(fn) → {schedule(), flush(), cancel()}: schedule runs fn once in the background
 *  however often it is called before fn runs; flush runs a scheduled fn at once, cancel
 *  forgets it (each does nothing when none is scheduled). */
export function coalesced(fn) {
  let queued = false;
  const flush = () => {
    if (!queued) return;
    queued = false;
    fn();
  };
  return {
    schedule() {
      if (queued) return;
      queued = true;
      inBackground(flush);
    },
    flush,
    cancel() {
      queued = false;
    },
  };
}
