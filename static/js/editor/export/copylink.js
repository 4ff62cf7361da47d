// "Copy link": the URL, written at once, copied to the clipboard; a view kept in the tab
// only (too large for a link, history.js) says so instead.

import { say } from "../status.js";

/** Wire ``button`` to copy the page's link, which ``urls`` (history.js) writes. */
export function wireCopyLink(button, urls) {
  button.addEventListener("click", async () => {
    urls.writeNow();
    if (location.hash.startsWith("#stored=")) {
      say("This view is too large for a link (Chrome takes links up to 2 MB): it is kept in this tab only. Use Export to keep it elsewhere.");
      return;
    }
    try {
      await navigator.clipboard.writeText(location.href);
      say("Link copied: it reproduces this view exactly.", { clearAfter: 4000 });
    } catch {
      say(`Copy this link: ${location.href}`);
    }
  });
}
