"""Hypothesis strategies for JSON records that collide often enough to make pairing matter."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

KEYS = ["a", "b", "c", "d", "e_f"]
SCALARS = st.one_of(
    st.integers(-1, 2),
    st.sampled_from(["x", "y", "", "é"]),
    st.none(),
    st.booleans(),
    st.sampled_from([1.0, 2.5]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(KEYS), inner, max_size=2)
    ),
    max_leaves=4,
)
RECORDS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4)
RECORD_LISTS = st.lists(RECORDS, max_size=6)

OPTIONS = st.fixed_dictionaries(
    {
        "aggregator": st.sampled_from([None, "average", "all"]),
        "list_aggregator": st.sampled_from(["average", "all"]),
        "list_match_mode": st.sampled_from(["same_elements", "subset", "superset", "ordered"]),
        "exclude_keys": st.lists(st.sampled_from(KEYS), max_size=2, unique=True),
        "alignment": st.sampled_from(["optimal", "greedy"]),
    }
)


def pairs_of_inputs() -> st.SearchStrategy[tuple[Any, Any]]:
    """Two objects, or two lists of objects."""
    return st.one_of(st.tuples(RECORDS, RECORDS), st.tuples(RECORD_LISTS, RECORD_LISTS))
