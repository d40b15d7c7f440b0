"""Evaluate a structured-extraction model: nested paths, per-field comparators, one report.

Run: python examples/structured_extraction.py

An "extractor" (here a stand-in with typical mistakes) turns receipts into JSON. Each output is
scored against its reference leaf by leaf (``nested=True``): ``json_match:merchant.name``,
``json_match:items[*].price``, ... with tolerance where exact equality would be unfair:

* ``total`` and ``items[*].price``: numbers within a cent;
* ``merchant.name``: case and spacing do not matter;
* ``tags``: a set, order does not matter;
* ``*.internal_*``: bookkeeping fields, excluded wherever they appear.
"""

from __future__ import annotations

from typing import Any

from matchevals.json_match import comparators as cmp
from matchevals.json_match import create_json_match_evaluator

REFERENCES: list[dict[str, Any]] = [
    {
        "merchant": {"name": "Blue Bottle Coffee", "city": "Oakland"},
        "items": [{"name": "latte", "price": 5.5}, {"name": "croissant", "price": 4.25}],
        "total": 9.75,
        "tags": ["coffee", "breakfast"],
    },
    {
        "merchant": {"name": "Hardware Hut", "city": "Portland"},
        "items": [{"name": "hammer", "price": 19.99}, {"name": "nails", "price": 3.49}],
        "total": 23.48,
        "tags": ["tools"],
    },
    {
        "merchant": {"name": "Green Grocer", "city": "Austin"},
        "items": [{"name": "apples", "price": 3.0}],
        "total": 3.0,
        "tags": ["food", "fruit"],
    },
]

OUTPUTS: list[dict[str, Any]] = [
    {  # right, modulo case, float noise, tag order and a bookkeeping field
        "merchant": {"name": "BLUE BOTTLE  coffee", "city": "Oakland", "internal_id": 17},
        "items": [{"name": "croissant", "price": 4.25}, {"name": "latte", "price": 5.500001}],
        "total": 9.75,
        "tags": ["breakfast", "coffee"],
    },
    {  # the total is off by a dollar and the city is wrong
        "merchant": {"name": "Hardware Hut", "city": "Salem"},
        "items": [{"name": "hammer", "price": 19.99}, {"name": "nails", "price": 3.49}],
        "total": 24.48,
        "tags": ["tools"],
    },
    {  # a hallucinated line item
        "merchant": {"name": "Green Grocer", "city": "Austin"},
        "items": [{"name": "apples", "price": 3.0}, {"name": "bag", "price": 0.1}],
        "total": 3.0,
        "tags": ["fruit", "food"],
    },
]

evaluator = create_json_match_evaluator(
    nested=True,
    list_aggregator="average",
    comparators={
        "total": cmp.numeric(abs_tol=0.01),
        "items[*].price": cmp.numeric(abs_tol=0.01),
        "merchant.name": cmp.text(case=False, whitespace=False),
        "tags": cmp.unordered(),
    },
    exclude_keys=["*.internal_*"],
)


def main() -> None:
    per_path: dict[str, list[float]] = {}
    for index, (output, reference) in enumerate(zip(OUTPUTS, REFERENCES, strict=True)):
        results = evaluator(outputs=output, reference_outputs=reference)
        print(f"receipt {index}:")
        for result in results:
            per_path.setdefault(result["key"], []).append(float(result["score"]))
            if result["score"] < 1:
                print(f"  {result['key']} = {result['score']:.3g}: {result['comment']}")
        if all(result["score"] == 1 for result in results):
            print("  all fields match")
    print("\nmean score per field:")
    for key, scores in sorted(per_path.items()):
        print(f"  {key} = {sum(scores) / len(scores):.3g}")


if __name__ == "__main__":
    main()
