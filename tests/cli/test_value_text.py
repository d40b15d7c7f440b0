"""The values of a JSONL report line, cut from the input lines: exact, or not cut at all."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals._line_scoring import ValueText, encode_value
from matchevals._scoring import Scored
from matchevals.report._lines import jsonl_line
from tests.cli.helpers import executable, no_traceback, run

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.sampled_from('ai d"\\\u00e9\u2028\ud800'), max_size=6)
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["id", "i", "d", "x", "idx"]), children, max_size=3)
    ),
    max_leaves=8,
)
idents = st.text(alphabet="ab-1é", min_size=1, max_size=4) | st.integers(-5, 10**20)


def _line(fields: list[tuple[str, Any]], compact: bool, ascii_only: bool) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    body = separators[0].join(
        json.dumps(key, ensure_ascii=ascii_only)
        + separators[1]
        + json.dumps(value, ensure_ascii=ascii_only, separators=separators)
        for key, value in fields
    )
    return ("{" + body + "}\n").encode("utf-8", "surrogatepass")


@settings(max_examples=400, deadline=None)
@given(
    rest=st.dictionaries(st.sampled_from(["x", "i", "d", "id", "y"]), values, max_size=3),
    ident=idents,
    place=st.sampled_from(["first", "last", "middle"]),
    compact=st.booleans(),
    ascii_only=st.booleans(),
    duplicate=st.booleans(),
)
def test_a_cut_text_is_the_value_without_its_id_or_nothing(
    rest: dict[str, Any],
    ident: Any,
    place: str,
    compact: bool,
    ascii_only: bool,
    duplicate: bool,
) -> None:
    rest.pop("id", None)
    fields = list(rest.items())
    at = {"first": 0, "last": len(fields), "middle": len(fields) // 2}[place]
    fields.insert(at, ("id", ident))
    if duplicate:  # a second id key: the parsed value keeps the last one
        fields.insert(random.Random(str(fields)).randrange(len(fields) + 1), ("id", "other"))
    line = _line(fields, compact, ascii_only)
    value = json.loads(line)
    parsed_ident = value.pop("id")
    text = ValueText("id")(line, parsed_ident)
    if text is not None:
        assert repr(json.loads(text)) == repr(value)
    whole = ValueText()(line)
    if whole is not None:
        assert repr(json.loads(whole)) == repr(json.loads(line))


def test_the_usual_lines_are_cut_and_the_rest_is_left_to_the_encoder() -> None:
    assert ValueText("id")(b'{"id": "a", "x": 1}\n', "a") == '{"x": 1}'
    assert ValueText("id")(b'{"x":1,"id":"a"}\n', "a") == '{"x":1}'
    assert ValueText()(b'  {"x": [1, 2]}  \n') == '{"x": [1, 2]}'
    assert ValueText("id")(b'{"id": "a"}\n', "a") == "{}"  # nothing left around it
    assert ValueText("id")(b'{"id": "a","x":1}\n', "a") == '{"x":1}'  # spacing mixed
    refused = [
        (b'{"x": 1, "id": "a", "y": 2}\n', "id", "a"),  # the id in the middle
        (b'{"id": "a", "x": "id"}\n', "id", "a"),  # the key's text elsewhere: maybe a key
        (b'{"id": "a", "\\u0069d": 2}\n', "id", "a"),  # an escaped second id
        (b'{"id": 1.0, "x": 1}\n', "id", 1),  # not the id's own text
        (b'{"id": "a",\r"x": 1}\r\n', "id", "a"),  # a carriage return
        (b'\xef\xbb\xbf{"x": 1}\n', None, None),  # a byte-order mark
        (b'{"x": "\xed\xa0\x80"}\n', None, None),  # a surrogate, read with surrogatepass
        (b'{"a.b": 1, "x": 1}\n', "a.b", 1),  # a key beyond letters, digits, _ and -
    ]
    for line, key, ident in refused:
        assert ValueText(key)(line, ident) is None, line
    assert encode_value({"s": "\u00e9", "n": float("nan")}) == '{"s": "é", "n": NaN}'


def test_report_lines_carry_the_input_lines_text_and_decode_to_the_scored_values(
    tmp_path: Path,
) -> None:
    outputs, references = tmp_path / "o.jsonl", tmp_path / "r.jsonl"
    outputs.write_text('{"id":"b","v":{"k":[1,2.50]}}\n{"v": 3, "id": "a"}\n')
    references.write_text('{"id": "a", "v": 3}\n{"v":{"k":[1,2.5]}, "note": "x", "id": "b"}\n')
    report = tmp_path / "report.jsonl"
    completed = run(
        "json", outputs, references, "--id-key", "id", "--format", "jsonl", "-o", report
    )
    no_traceback(completed)
    lines = report.read_text(encoding="utf-8").splitlines()
    assert '"outputs": {"v":{"k":[1,2.50]}}, "reference_outputs": {"v":{"k":[1,2.5]}, ' in lines[0]
    records = [json.loads(line) for line in lines if '"example"' in line]
    assert [(r["outputs"], r["reference_outputs"]) for r in records] == [
        ({"v": {"k": [1, 2.5]}}, {"v": {"k": [1, 2.5]}, "note": "x"}),
        ({"v": 3}, {"v": 3}),
    ]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_lone_surrogate_is_written_as_its_json_escape(tmp_path: Path, workers: str) -> None:
    """In a file and on standard output, whoever encodes the lines (the workers do)."""
    outputs, references = tmp_path / "o.jsonl", tmp_path / "r.jsonl"
    outputs.write_bytes(b'{"a": "\\ud800"}\n{"a": "\xed\xa0\x80"}\n')
    references.write_text('{"a": "x"}\n{"a": "x"}\n')
    for target in ("-o", None):
        report = tmp_path / "report.jsonl"
        flags = ["-o", report] if target else []
        completed = run(
            "json", outputs, references, "--format", "jsonl", "--workers", workers, *flags
        )
        no_traceback(completed)
        assert completed.returncode == 0, completed.stderr
        text = report.read_text(encoding="utf-8") if target else completed.stdout
        examples = [json.loads(line) for line in text.splitlines() if '"example"' in line]
        assert [example["outputs"] for example in examples] == [{"a": "\ud800"}] * 2
        assert "\\ud800" in examples[0]["results"][0]["comment"].encode("unicode_escape").decode()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_narrow_stdout_gets_json_escapes_that_decode_to_the_values(
    tmp_path: Path, workers: str
) -> None:
    """With ``PYTHONIOENCODING=ascii`` what stdout cannot encode is written as JSON escapes
    (``\\u00e9``, a surrogate pair beyond the BMP), so every line still decodes to its values;
    worker processes make the lines in stdout's encoding too."""
    outputs, references = tmp_path / "o.jsonl", tmp_path / "r.jsonl"
    outputs.write_text('{"a": "café 😀"}\n', encoding="utf-8")
    references.write_text('{"a": "café"}\n', encoding="utf-8")
    env = {**os.environ, "LANGSMITH_TRACING": "false", "PYTHONIOENCODING": "ascii"}
    command = [executable(), "json", str(outputs), str(references), "--format", "jsonl"]
    completed = subprocess.run(
        [*command, "--workers", workers],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr.decode()
    assert completed.stdout.isascii() and b"caf\\u00e9 \\ud83d\\ude00" in completed.stdout
    (example,) = [
        json.loads(line) for line in completed.stdout.splitlines() if b'"example"' in line
    ]
    assert (example["outputs"], example["reference_outputs"]) == ({"a": "café 😀"}, {"a": "café"})


@settings(max_examples=300, deadline=None)
@given(
    index=st.integers(0, 10**12),
    ident=st.one_of(
        st.text(alphabet=st.sampled_from('a-1é"\\\u2028\ud800'), max_size=5),
        st.integers(-(2**70), 2**70),
        st.floats(),
        st.booleans(),
    ),
    where=st.text(alphabet=st.sampled_from('o.jsonl:7é"\\\n'), max_size=12),
    score=st.floats() | st.integers(0, 1),
    results=st.lists(st.dictionaries(st.sampled_from(["key", "score"]), scalars), max_size=2),
    values=st.none() | st.tuples(st.just('{"a": 1}'), st.just("[2]")),
)
def test_an_example_line_is_the_encoders_text_of_its_record(
    index: int,
    ident: Any,
    where: str,
    score: float,
    results: list[dict[str, Any]],
    values: tuple[str, str] | None,
) -> None:
    """The line written field by field is exactly ``encode_value`` of the record (the oracle),
    with the values' texts spliced in before the closing brace."""
    item = Scored(index, ident, where, score, results)
    record = {"type": "example", "index": index, "id": ident, "where": where, "score": score}
    expected = encode_value({**record, "results": results})
    if values is not None:
        expected = f'{expected[:-1]}, "outputs": {values[0]}, "reference_outputs": {values[1]}}}'
    assert jsonl_line(item, values) == expected
