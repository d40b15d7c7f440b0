"""Write the HTML report of a ``langsmith.evaluate`` run, offline.

Run: python examples/html_report.py [FOLDER]      (writes FOLDER/report.html; default: here)

A structured-extraction "model" reads people out of text and gets some of them wrong; a
json_match evaluator scores each against its reference inside ``langsmith.evaluate`` (locally:
no API key, no upload), and ``write_html_report`` turns the rows into one page that opens
offline: scores, per-key bars, and each example's values side by side with the differing paths
highlighted.
"""

from __future__ import annotations

import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import langsmith
from langsmith.schemas import Example

from matchevals.json_match import create_json_match_evaluator
from matchevals.report import write_html_report

PEOPLE = [
    ("Ann, 30, lives at 4 Rue Cler in Paris", {"name": "Ann", "age": 30, "city": "Paris"}),
    ("Bob, 41, lives in Rome", {"name": "Bob", "age": 41, "city": "Rome"}),
    ("Cy, 5, from Oslo", {"name": "Cy", "age": 5, "city": "Oslo"}),
    ("Di, 62, moved to Lyon", {"name": "Di", "age": 62, "city": "Lyon"}),
]


def extract(inputs: dict[str, Any]) -> dict[str, Any]:
    """The 'model': right about names, off by one on the oldest, and it misses 'moved to'."""
    name, age, rest = (part.strip() for part in inputs["text"].split(",", 2))
    city = rest.split()[-1] if "moved" not in rest else None
    return {"name": name, "age": int(age) + (int(age) > 60), "city": city}


def main(folder: Path) -> Path:
    client = langsmith.Client(
        api_key="offline", api_url="http://127.0.0.1:9", auto_batch_tracing=False
    )
    data = [
        Example(
            id=uuid.uuid4(),
            dataset_id=uuid.uuid4(),
            inputs={"text": text},
            outputs=person,
            created_at=datetime.now(timezone.utc),
        )
        for text, person in PEOPLE
    ]
    rows = langsmith.evaluate(
        extract,
        data=data,
        evaluators=[create_json_match_evaluator(aggregator="average")],
        client=client,
        upload_results=False,
    )
    path = write_html_report(rows, folder / "report.html", title="people", fail_under=0.9)
    print(f"wrote {path} ({len(PEOPLE)} examples)")
    return path


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
