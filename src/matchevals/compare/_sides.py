"""What both kinds of side share: the facts a side's runs state (their command, how their
examples are keyed), and how two sides' facts decide the pairing, or refuse it.

A saved run's summary line says its command (``kind``) and its ``id_key``: an id key means its
examples carry their own ids; none means each example's id is its position. Examples given in
Python carry ids (an ``"id"``, a LangSmith example's id) or not.

>>> base = SideFacts("base.jsonl", kinds={"json"}, id_keys={"id"})
>>> new = SideFacts("new.jsonl", kinds={"json"}, id_keys={None})
>>> pairing(base, new, None)
Traceback (most recent call last):
...
ValueError: base.jsonl was scored with --id-key 'id' and new.jsonl scored by position (no \
--id-key): their examples cannot be paired; score both runs the same way
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from matchevals._scoring import Problem

__all__ = ["SideFacts", "pairing"]

Paired = Literal["id", "position"]


@dataclass
class SideFacts:
    """What one side's runs say of themselves, and what reading it found.

    ``id_keys``: each saved run's ``--id-key`` (None for a run scored by position; empty where
    no run says); ``keyed``: for examples given in Python, whether they carry ids.
    """

    name: str
    kinds: set[str] = field(default_factory=set)
    id_keys: set[str | None] = field(default_factory=set)
    keyed: Paired | None = None
    runs: int = 0
    warnings: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def mode(self) -> tuple[Paired | None, str | None]:
        """How the side's examples are keyed (None: unknown), and the id key its runs name."""
        if len(self.id_keys) > 1:
            words = sorted(_by(key) for key in self.id_keys)
            raise ValueError(
                f"{self.name} holds runs keyed in different ways ({' and '.join(words)}): "
                "their examples cannot be paired"
            )
        if self.id_keys:
            key = next(iter(self.id_keys))
            return ("position" if key is None else "id"), key
        return self.keyed, None


def _by(key: str | None) -> str:
    return "scored by position (no --id-key)" if key is None else f"scored with --id-key {key!r}"


def _said(side: SideFacts, mode: Paired, key: str | None) -> str:
    if side.keyed is not None:  # examples given in Python
        return "given with ids" if mode == "id" else "given without ids (by position)"
    return _by(key if mode == "id" else None)


def pairing(
    base: SideFacts, new: SideFacts, id_key: str | None
) -> tuple[Paired, str | None, str | None]:
    """How the two sides pair (by id or by position), the id key, and their command; a
    ValueError when they cannot be compared: runs of different commands, examples keyed in
    different ways (or not by the ``id_key`` asked for)."""
    kinds = base.kinds | new.kinds
    if len(kinds) > 1:
        said = "; ".join(
            f"{side.name} holds {' and '.join(sorted(side.kinds))} runs"
            for side in (base, new)
            if side.kinds
        )
        raise ValueError(f"runs of different commands cannot be compared: {said}")
    modes = [(side, *side.mode()) for side in (base, new)]
    known = [(side, mode, key) for side, mode, key in modes if mode is not None]
    if len(known) == 2:
        (first, mode_1, key_1), (second, mode_2, key_2) = known
        if mode_1 != mode_2 or (key_1 is not None and key_2 is not None and key_1 != key_2):
            raise ValueError(
                f"{first.name} was {_said(first, mode_1, key_1)} and {second.name} "
                f"{_said(second, mode_2, key_2)}: their examples cannot be paired; score both "
                "runs the same way"
            )
    mode: Paired = known[0][1] if known else "id"
    named = [key for _, _, key in known if key is not None]
    key = named[0] if named else id_key
    if id_key is not None:
        for side, side_mode, side_key in known:
            if side_mode == "position":
                raise ValueError(
                    f"--id-key {id_key!r}: {side.name} was {_said(side, side_mode, side_key)}, "
                    "so its examples are known by their position; leave out --id-key"
                )
            if side_key is not None and side_key != id_key:
                raise ValueError(
                    f"--id-key {id_key!r}: {side.name} was scored with --id-key {side_key!r}; "
                    f"pass --id-key {side_key!r}"
                )
    return mode, key, next(iter(kinds), None)
