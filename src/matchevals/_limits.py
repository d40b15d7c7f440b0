"""How much an explanation shows, for every evaluator: the one place these limits live.

A comment lists at most :data:`MAX_COMMENT_CLAUSES` differences (then ``… and 3 more``);
``metadata["mismatches"]`` holds at most :data:`MAX_METADATA_MISMATCHES` entries (then
``mismatches_omitted`` counts the rest), so a result stays small whatever the inputs hold.

>>> MAX_COMMENT_CLAUSES, MAX_METADATA_MISMATCHES
(5, 25)
"""

from __future__ import annotations

__all__ = ["MAX_COMMENT_CLAUSES", "MAX_METADATA_MISMATCHES"]

MAX_COMMENT_CLAUSES = 5
MAX_METADATA_MISMATCHES = 25
