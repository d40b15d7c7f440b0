"""Command-line flags derived from an evaluator factory's signature.

Every keyword argument whose type a command line can express gets a flag named after it
(``list_match_mode`` → ``--list-match-mode``), so options added to a factory appear here without
a change. Flags default to "not given", and only given flags reach the factory, so the factory's
own defaults and validation always apply.

=====================================  ==========================================================
annotation                             flag
=====================================  ==========================================================
``bool``                               ``--name`` / ``--no-name``
``Literal[...]`` (``| None``)          ``--name CHOICE`` (``none`` for None)
``str`` / ``int`` / ``float``          ``--name VALUE``
``list[str]``, ``Iterable[str]``, ...  ``--name A B`` or ``--name A,B`` (repeatable)
``dict[str, X]``, ``Mapping[str, X]``  ``--name KEY=VALUE`` (repeatable); a callable ``X`` takes
                                       ``KEY=factory(args)`` naming a built-in comparator
``Any``, callables, anything else      no flag (``judge`` is replaced by ``--model``)
=====================================  ==========================================================
"""

from __future__ import annotations

import argparse
import ast
import collections.abc
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

__all__ = ["add_factory_flags", "given_options"]

_SEQUENCE_ORIGINS = {
    list,
    tuple,
    set,
    frozenset,
    collections.abc.Iterable,
    collections.abc.Sequence,
    collections.abc.Collection,
    collections.abc.Set,
}
_MAPPING_ORIGINS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}
_COMPARATORS_MODULE = "matchevals.json_match.comparators"


def _strip_none(annotation: Any) -> tuple[Any, bool]:
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        members = [arg for arg in get_args(annotation) if arg is not type(None)]
        allows_none = len(members) < len(get_args(annotation))
        if len(members) == 1:
            return members[0], allows_none
        return Union[tuple(members)], allows_none  # noqa: UP007 - built at runtime
    return annotation, False


def _is_callable(annotation: Any) -> bool:
    return annotation is collections.abc.Callable or get_origin(annotation) in (
        collections.abc.Callable,
        typing.Callable,
    )


def _scalar(annotation: Any, name: str) -> Callable[[str], Any] | None:
    """A converter from text for a scalar annotation, or None when there is none."""
    annotation, allows_none = _strip_none(annotation)
    if get_origin(annotation) is Literal:
        choices = get_args(annotation)

        def choice(text: str) -> Any:
            if allows_none and text.lower() == "none":
                return None
            for option in choices:
                if str(option) == text:
                    return option
            allowed = ", ".join(str(c) for c in (*choices, *(["none"] if allows_none else [])))
            raise argparse.ArgumentTypeError(f"{text!r} is not one of: {allowed}")

        return choice
    if annotation in (str, int, float):
        kind = annotation

        def convert(text: str) -> Any:
            if allows_none and text.lower() == "none":
                return None
            try:
                return kind(text)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"{name} must be a {kind.__name__}; got {text!r}"
                ) from None

        return convert
    if annotation is bool:
        return _boolean
    if _is_callable(annotation):
        return _comparator
    return None


def _boolean(text: str) -> bool:
    if text.lower() in ("true", "yes", "1"):
        return True
    if text.lower() in ("false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false; got {text!r}")


def _comparator(text: str) -> Any:
    """``numeric(abs_tol=0.01)``: a call to a built-in comparator with literal arguments."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
        if isinstance(node, ast.Name):
            node = ast.Call(func=node, args=[], keywords=[])
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError
        args = [ast.literal_eval(arg) for arg in node.args]
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
    except (SyntaxError, ValueError):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comparator call such as numeric(abs_tol=0.01)"
        ) from None
    try:
        module = __import__(_COMPARATORS_MODULE, fromlist=["_"])
    except ImportError:
        raise argparse.ArgumentTypeError("this version has no built-in comparators") from None
    factory = getattr(module, node.func.id, None)
    if node.func.id.startswith("_") or not callable(factory):
        names = ", ".join(n for n in getattr(module, "__all__", ()) if n[:1].islower())
        raise argparse.ArgumentTypeError(f"unknown comparator {node.func.id!r}; known: {names}")
    try:
        return factory(*args, **kwargs)
    except (TypeError, ValueError) as error:
        raise argparse.ArgumentTypeError(f"{text}: {error}") from None


class _ExtendSplit(argparse.Action):
    """Collects ``--name a b --name c,d`` into ``["a", "b", "c", "d"]``."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        for value in values:
            items.extend(part for part in str(value).split(",") if part)
        setattr(namespace, self.dest, items)


class _KeyValue(argparse.Action):
    """Collects ``--name k=v --name k2=v2`` into ``{"k": v, "k2": v2}``."""

    def __init__(self, *args: Any, convert: Callable[[str], Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.convert = convert

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        mapping = dict(getattr(namespace, self.dest, None) or {})
        for value in values:
            key, sep, text = str(value).partition("=")
            if not sep or not key:
                parser.error(f"{option}: expected KEY=VALUE; got {value!r}")
            try:
                mapping[key] = self.convert(text)
            except argparse.ArgumentTypeError as error:
                parser.error(f"{option} {key}: {error}")
        setattr(namespace, self.dest, mapping)


def _help(name: str, default: Any) -> str:
    return f"{name} (default: {default!r})" if default is not inspect.Parameter.empty else name


def add_factory_flags(
    parser: argparse.ArgumentParser | Any,
    factory: Callable[..., Any],
    *,
    skip: tuple[str, ...] = (),
) -> list[str]:
    """Add a flag for each keyword argument of ``factory`` a command line can express.

    Returns the option names added, in signature order.

    >>> from matchevals.json_match import create_json_match_evaluator
    >>> names = add_factory_flags(argparse.ArgumentParser(), create_json_match_evaluator)
    >>> names[:3]
    ['aggregator', 'list_aggregator', 'rubric']
    """
    hints = get_type_hints(factory)
    added: list[str] = []
    for name, parameter in inspect.signature(factory).parameters.items():
        if name in skip or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        annotation = hints.get(name, Any)
        flag = "--" + name.replace("_", "-")
        common: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS}
        description = _help(name, parameter.default)
        base, _ = _strip_none(annotation)
        origin = get_origin(base)
        if base is bool:
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, help=description, **common
            )
        elif origin in _MAPPING_ORIGINS:
            key_type, value_type = (*get_args(base), Any, Any)[:2]
            convert = _scalar(value_type, name)
            if key_type is not str or convert is None:
                continue
            metavar = "PATH=COMPARATOR" if _is_callable(_strip_none(value_type)[0]) else "KEY=VALUE"
            parser.add_argument(
                flag, nargs="+", action=_KeyValue, convert=convert, metavar=metavar,
                help=description, **common,
            )  # fmt: skip
        elif origin in _SEQUENCE_ORIGINS and all(arg in (str, Ellipsis) for arg in get_args(base)):
            parser.add_argument(
                flag, nargs="+", action=_ExtendSplit, metavar="NAME", help=description, **common
            )
        else:
            convert = _scalar(annotation, name)
            if convert is None or _is_callable(base):
                continue
            choices = [str(c) for c in get_args(base)] if get_origin(base) is Literal else None
            if choices and _strip_none(annotation)[1]:
                choices.append("none")
            shown = "{" + ",".join(choices) + "}" if choices else None
            parser.add_argument(flag, type=convert, metavar=shown, help=description, **common)
        added.append(name)
    return added


def given_options(namespace: argparse.Namespace, names: list[str]) -> dict[str, Any]:
    """The factory keyword arguments the user actually gave.

    >>> given_options(argparse.Namespace(aggregator="all"), ["aggregator", "alignment"])
    {'aggregator': 'all'}
    """
    values: Mapping[str, Any] = vars(namespace)
    return {name: values[name] for name in names if name in values}
