"""Asking memory: recall over what was said (`recall`), and answers grounded in it, with
sources, or "Not sure yet." with what memory does know (`answer.ask`, behind `Memory.ask`)."""
