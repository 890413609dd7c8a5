"""The rules' version, apart from the rules: deciding whether stored mentions are current (each
derive's digest, each ingest's check) must not compile the rules' patterns (0.25 s a process).

Bump `RULES_VERSION` when a rule in `vyre/extract/rules.py` changes what it finds: every
home then finds its mentions again from its stored turns.
"""

RULES_VERSION = "7"  # 7: quotes cut at word boundaries, with an ellipsis
