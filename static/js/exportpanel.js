// Export and import: matrices, the heatmap and the whole configuration. (Filled in by its own change.)

/** Build the export panel inside ``host``; ``page`` gives {state, request, body} and takes imports. */
export function mountExport(host, page) {
  void host;
  void page;
}
