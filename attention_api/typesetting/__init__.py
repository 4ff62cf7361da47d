"""Typesetting with typst, in a child process a document."""
