"""The classroom: exercises, the practice page's view, worksheets and slides."""
