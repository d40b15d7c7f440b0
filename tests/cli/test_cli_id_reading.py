"""Pairing by id with reference ids read from the lines' text: exact ids, and a line that is
not JSON after all reported once, in a place that says what it cost."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals._line_scoring import UNREAD, ValueText
from matchevals._line_scoring._id_index import _pack, _unpack
from matchevals.cli import main
from tests.cli.helpers import no_traceback, run
from tests.cli.test_value_text import _line

read_id = ValueText("id").read_id
plain = st.text(alphabet=st.sampled_from('ab-1é"\\\x01\u2028'), max_size=5)
idents = plain | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | st.booleans()


@settings(max_examples=500, deadline=None)
@given(
    ident=idents,
    rest=st.dictionaries(st.sampled_from(["x", "y", "idx"]), plain | st.integers(), max_size=3),
    first=st.booleans(),
    second=st.none() | st.integers(0, 3),
    compact=st.booleans(),
    ascii_only=st.booleans(),
    cut=st.none() | st.integers(1, 40),
)
def test_an_id_read_from_the_text_is_the_id_the_parser_reads(
    ident: Any,
    rest: dict[str, Any],
    first: bool,
    second: int | None,
    compact: bool,
    ascii_only: bool,
    cut: int | None,
) -> None:
    """The oracle is the parser: whatever ``read_id`` reads is what ``json.loads`` gives the
    key (same value, same type), for any layout, a second copy of the key included (the
    parser keeps the last); on a line cut short (not JSON) it reads the id the line starts
    with, or nothing."""
    fields = list(rest.items())
    fields.insert(0 if first else len(fields), ("id", ident))
    if second is not None:
        fields.insert(min(second, len(fields)), ("id", "other"))
    line = _line(fields, compact, ascii_only)
    expected = json.loads(line)["id"]
    read = read_id(line)
    if read is not UNREAD:
        assert (read, type(read)) == (expected, type(expected))
    if cut is not None:
        short = read_id(line[:cut])
        key, starts = fields[0]
        assert short is UNREAD or (key == "id" and (short, type(short)) == (starts, type(starts)))


def test_the_usual_ids_are_read_and_the_rest_left_to_the_parser() -> None:
    assert read_id(b'{"id": "ex-1", "v": [1, 2]}\n') == "ex-1"
    assert read_id(b'{"id":-7,"v":1}\n') == -7
    assert read_id(b'{"id": "caf\xc3\xa9"}\n') == "café"
    for line in (
        b'{"v": 1, "id": "a"}\n',  # not first
        b' {"id": "a"}\n',  # a space before it
        b'{"id": "a\\u0031", "v": 1}\n',  # an escape in the id
        b'{"id": 1.5, "v": 1}\n',  # not an integer
        b'{"id": 1234567890123456789, "v": 1}\n',  # 19 digits
        b'{"id": "a", "v": {"id": 2}}\n',  # the key again, nested: not read, to be safe
        b'{"id": "a", "\\u0069d": 2}\n',  # the key again, escaped: the parser takes that one
        b'{"id": "\xed\xa0\x80", "v": 1}\n',  # a lone surrogate
        b'\xef\xbb\xbf{"id": "a"}\n',  # a byte-order mark
    ):
        assert read_id(line) is UNREAD, line
    assert ValueText("a.b").read_id(b'{"a.b": 1}\n') is UNREAD  # a key beyond plain letters


REFERENCES = [
    '{"id": "a", "v": 1}',
    '{"id": "b", "v": [1,}',  # not JSON, its id readable: asked for by an output
    '{"id": "c", "v": 3',  # not JSON, asked for by nobody
    '{"id": "d", "v": ',  # not JSON, and a valid line with its id comes next
    '{"id": "d", "v": 4}',
    '{"id": "e", "v": 5}',
    '{"id": "e", broken',  # not JSON, after a valid line with its id
    '{"v": 6, "id": "f"}',  # an id the text does not give: parsed when indexed
]
OUTPUTS = [{"id": key, "v": value} for key, value in [("a", 1), ("b", 2), ("d", 4), ("e", 0)]]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    out, ref = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    out.write_text("".join(json.dumps(value) + "\n" for value in OUTPUTS))
    ref.write_text("\n".join(REFERENCES) + "\n")
    return out, ref


def test_a_reference_that_is_not_json_is_reported_once_where_it_matters(tmp_path: Path) -> None:
    out, ref = _files(tmp_path)
    reports = []
    for workers in ("1", "2"):
        report = tmp_path / f"w{workers}.jsonl"
        flags = ["--id-key", "id", "--format", "jsonl", "--workers", workers, "-o", report]
        completed = run("json", out, ref, *flags)
        no_traceback(completed)
        assert completed.returncode == 2, completed.stderr
        reports.append(report.read_bytes())
    assert reports[0] == reports[1]
    lines = [json.loads(line) for line in reports[0].decode().splitlines()]
    shown = [
        (line["where"], line.get("message", "")[:16], line.get("reference_outputs"))
        if line["type"] != "summary"
        else ("summary", line["invalid"], line["examples_scored"])
        for line in lines
    ]
    assert shown == [
        # while indexing: a line that is not JSON beside a valid one with its id
        (f"{ref}:4", "not valid JSON a", None),
        (f"{ref}:7", "not valid JSON a", None),
        (f"{out}:1", "", {"v": 1}),
        (f"{ref}:2", "not valid JSON a", None),  # in the place of the output it would score
        (f"{out}:3", "", {"v": 4}),  # the valid one of the two lines with id "d"
        (f"{out}:4", "", {"v": 5}),
        (f"{ref}:3", "not valid JSON a", None),  # asked for by nobody: found at the end
        (f"{ref}:8", "no output with i", None),
        ("summary", 5, 3),
    ]
    assert lines[3]["message"].endswith(f"(so {out}:2 is not scored)")


def _oracle(outputs: list[str], references: list[str]) -> dict[str, Any]:
    """Which output id is scored against which reference, parsing every line."""
    found: dict[Any, Any] = {}
    for text in references:
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict) and "id" in value and value["id"] not in found:
            found[value["id"]] = {k: v for k, v in value.items() if k != "id"}
    pairs, seen = {}, set()
    for text in outputs:
        try:
            ident = json.loads(text)["id"]
        except (ValueError, KeyError, TypeError):
            continue
        if ident in found and ident not in seen:
            pairs[ident] = found[ident]
        seen.add(ident)
    return pairs


def test_pairs_are_those_parsing_every_line_gives(tmp_path: Path) -> None:
    """Random files of valid, broken, duplicated and unreadable-id lines: the pairs scored are
    the oracle's, and every reference line that is not JSON is reported exactly once."""
    rng = random.Random(16)
    for trial in range(12):
        references, broken = [], []
        for position in range(40):
            ident = f"k{rng.randrange(30)}"
            text = json.dumps({"id": ident, "v": rng.randrange(3)})
            kind = rng.random()
            if kind < 0.2:
                text = text[: rng.randrange(5, len(text) - 1)]  # cut short: not JSON
                broken.append(position)
            elif kind < 0.3:
                text = json.dumps({"v": rng.randrange(3), "id": ident})  # id last
            references.append(text)
        outputs = [json.dumps({"id": f"k{rng.randrange(30)}", "v": 1}) for _ in range(30)]
        out, ref = tmp_path / f"o{trial}.jsonl", tmp_path / f"r{trial}.jsonl"
        out.write_text("\n".join(outputs) + "\n")
        ref.write_text("\n".join(references) + "\n")
        report = tmp_path / f"report{trial}.jsonl"
        main(["json", str(out), str(ref), "--id-key", "id", "--format", "jsonl", "-o", str(report)])
        lines = [json.loads(line) for line in report.read_text().splitlines()]
        scored = {
            line["id"]: line["reference_outputs"] for line in lines if line["type"] == "example"
        }
        assert scored == _oracle(outputs, references), trial
        reported = sorted(
            int(line["where"].rsplit(":", 1)[1]) - 1
            for line in lines
            if line["type"] == "invalid"
            and line["where"].startswith(str(ref))
            and line["message"].startswith("not valid JSON")
        )
        assert reported == sorted(broken), trial


@given(
    position=st.integers(0, 2**40),
    offset=st.integers(0, 2**40 - 1),
    length=st.integers(0, 2**40 - 1),
    parsed=st.booleans(),
)
def test_an_index_entry_gives_back_what_was_packed_used_or_not(
    position: int, offset: int, length: int, parsed: bool
) -> None:
    packed = _pack(position, offset, length, parsed)
    assert _unpack(packed) == _unpack(~packed) == (position, offset, length, parsed)
