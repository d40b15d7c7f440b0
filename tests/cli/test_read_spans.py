"""Spans: where a chunk's lines are, found by counting newlines in blocks of the file. The
oracle is a loop of ``readline`` (how the reader took its chunks before), on random files,
limits and block sizes; and a span read after its file changed fails loudly."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.cli import _read
from matchevals.cli._read import Chunk, InputError, Reader, Span


def _readline_chunks(
    data: bytes, limits: list[tuple[int, float]]
) -> list[tuple[list[bytes], list[int]]]:
    """The oracle: each chunk's lines and offsets as a readline loop takes them."""
    handle, offset, chunks = io.BytesIO(data), 0, []
    for count, max_bytes in limits:
        lines, offsets, size = [], [], 0
        while len(lines) < count and size < max_bytes:
            line = handle.readline()
            if not line:
                break
            lines.append(line)
            offsets.append(offset)
            offset += len(line)
            size += len(line)
        chunks.append((lines, offsets))
    return chunks


pieces = st.lists(st.sampled_from([b"a", b"bc", b"\n", b"\r", b"\r\n", b'{"id": 1}', b"\n\n"]))
limit = st.tuples(st.integers(1, 6), st.one_of(st.just(float("inf")), st.integers(1, 40)))


@settings(max_examples=300, deadline=None)
@given(
    pieces=pieces,
    limits=st.lists(limit, min_size=1, max_size=12),
    block=st.integers(1, 20),
)
def test_spans_take_the_lines_a_readline_loop_takes(
    tmp_path_factory: pytest.TempPathFactory,
    pieces: list[bytes],
    limits: list[tuple[int, float]],
    block: int,
) -> None:
    data = b"".join(pieces)
    path = tmp_path_factory.mktemp("spans") / "x.jsonl"
    path.write_bytes(data)
    expected = _readline_chunks(data, limits)
    saved, _read.SCAN_BYTES = _read.SCAN_BYTES, block  # blocks of a few bytes: lines cross them
    try:
        with Reader(path) as spans, Reader(path) as chunks:
            descriptor = os.open(path, os.O_RDONLY)
            try:
                for (count, max_bytes), (lines, offsets) in zip(limits, expected, strict=True):
                    first = spans.read_so_far
                    span = spans.span(count, max_bytes)
                    assert isinstance(span, Span)
                    assert (span.first, span.count, len(span)) == (first, len(lines), len(lines))
                    assert span.chunk(descriptor) == Chunk(first, lines, offsets)
                    assert (
                        spans.bytes_read
                        == span.end
                        == (offsets[-1] + len(lines[-1]) if lines else span.start)
                    )
                    assert chunks.read(count, max_bytes) == Chunk(first, lines, offsets)
            finally:
                os.close(descriptor)
    finally:
        _read.SCAN_BYTES = saved


def test_a_json_document_gives_its_lines_not_a_span(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('[{"a": 1}, {"a": 2}, {"a": 3}]')
    with Reader(path) as reader:
        assert reader.span(2) == Chunk(0, [b'{"a": 1}', b'{"a": 2}'], [0, 1])
        assert reader.span(5) == Chunk(2, [b'{"a": 3}'], [2])


def test_a_span_read_after_its_file_changed_fails_loudly(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n')
    with Reader(path) as reader:
        span = reader.span(5)
        assert isinstance(span, Span)
    path.write_bytes(b'{"a": 1}\n{"a": 22}\n')  # the same file, another length
    descriptor = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(InputError, match=r"x\.jsonl: the file changed while it was being read"):
            span.chunk(descriptor)
    finally:
        os.close(descriptor)
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n')
    replaced = tmp_path / "y.jsonl"
    replaced.write_bytes(path.read_bytes())
    replaced.replace(path)  # another file under the same name, the same bytes
    descriptor = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(InputError, match="the file was replaced while it was being read"):
            span.chunk(descriptor)
    finally:
        os.close(descriptor)


def test_a_line_longer_than_many_blocks_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_read, "SCAN_BYTES", 7)
    long = b'{"text": "' + b"x" * 500 + b'"}\n'
    path = tmp_path / "x.jsonl"
    path.write_bytes(long + b'{"a": 1}')  # the last line has no newline
    with Reader(path) as reader:
        assert reader.read(1, 10) == Chunk(0, [long], [0])
        assert reader.read(3) == Chunk(1, [b'{"a": 1}'], [len(long)])
        assert len(reader.span(3)) == 0
