"""Scoring files of examples, a chunk of raw JSON lines at a time: the pure core of the
command line.

Nothing here reads a file or starts a process: the command line (:mod:`matchevals.cli`) reads
the files in chunks of raw lines and decides where each chunk is scored; this package pairs
the lines (by position, by id through :class:`ReferenceIndex`, or against one reference),
parses them, scores each pair with the evaluator of the job (:func:`build_evaluator`) and
renders the report's lines (:class:`ChunkScorer`). Whichever process scores a chunk, its
:class:`Batch` is the same, so every engine writes the same bytes.
"""

from matchevals._line_scoring._chunk_scorer import (
    Batch,
    ChunkScorer,
    Job,
    Lines,
    Pairing,
    Partner,
    Row,
    Span,
)
from matchevals._line_scoring._evaluators import Kind, build_evaluator, is_message
from matchevals._line_scoring._id_index import (
    Decision,
    ReferenceIndex,
    line_places,
    output_ids,
    place_of,
    reference_ids,
    reference_lines,
)
from matchevals._line_scoring._raw_lines import Chunk, Side, id_of, keyed
from matchevals._line_scoring._value_text import UNREAD, ValueText, encode_value

__all__ = [
    "UNREAD",
    "Batch",
    "Chunk",
    "ChunkScorer",
    "Decision",
    "Job",
    "Kind",
    "Lines",
    "Pairing",
    "Partner",
    "ReferenceIndex",
    "Row",
    "Side",
    "Span",
    "ValueText",
    "build_evaluator",
    "encode_value",
    "id_of",
    "is_message",
    "keyed",
    "line_places",
    "output_ids",
    "place_of",
    "reference_ids",
    "reference_lines",
]
