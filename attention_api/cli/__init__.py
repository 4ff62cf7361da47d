"""The command line: ``attention-explorer`` (compute, exercise, check, generate, worksheets
as text and LaTeX)."""
