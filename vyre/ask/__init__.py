"""Asking memory: recall over what was said (`recall`), and answers grounded in it."""
