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
``Any``, callables, anything else      no flag, unless the caller adds one (``--judge``)
=====================================  ==========================================================

Each flag's help comes from a table of texts keyed by parameter name (:mod:`._help`), with the
default in command-line words (``on``/``off``, ``none``); annotations are resolved one parameter
at a time, so a name the factory imports only for type checkers costs that one flag, not all.
"""

from __future__ import annotations

import argparse
import ast
import collections.abc
import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Union, get_args, get_origin

from matchevals.cli._help import OptionHelp

__all__ = ["add_factory_flags", "given_options", "in_cli_words", "option_conflict"]

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
                wanted = {int: "a whole number", float: "a number"}.get(kind, "a value")
                raise argparse.ArgumentTypeError(f"expected {wanted}; got {text!r}") from None

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
    from matchevals.json_match import comparators

    factory = getattr(comparators, node.func.id, None)
    if node.func.id.startswith("_") or not callable(factory):
        names = ", ".join(n for n in comparators.__all__ if n[:1].islower())
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


def _default_words(default: Any, none_is_a_choice: bool) -> str | None:
    """A factory default in command-line words: ``on``/``off``, the choice itself (``none``
    where None is one), nothing for a plain None."""
    if default is inspect.Parameter.empty or (default is None and not none_is_a_choice):
        return None
    if isinstance(default, bool):
        return "on" if default else "off"
    return "none" if default is None else str(default)


def _annotation(factory: Callable[..., Any], parameter: inspect.Parameter) -> Any:
    """One parameter's annotation, evaluated in the factory's module (``Any`` when it names
    something that module imports only for type checkers)."""
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        return Any
    if not isinstance(annotation, str):
        return annotation
    namespace = {**vars(typing), **getattr(inspect.unwrap(factory), "__globals__", {})}
    try:
        return eval(annotation, namespace)
    except Exception:
        return Any


def add_factory_flags(
    parser: argparse.ArgumentParser | Any,
    factory: Callable[..., Any],
    *,
    texts: Mapping[str, OptionHelp] | None = None,
    custom: Mapping[str, Callable[[Any, OptionHelp | None], None]] | None = None,
    skip: tuple[str, ...] = (),
) -> list[str]:
    """Add a flag for each keyword argument of ``factory`` a command line can express.

    ``texts`` holds each flag's help; ``custom`` adds the flag of a parameter itself (given the
    parser and its text). Returns the option names added, in signature order.

    >>> from matchevals.json_match import create_json_match_evaluator
    >>> names = add_factory_flags(argparse.ArgumentParser(), create_json_match_evaluator)
    >>> names[:3]
    ['aggregator', 'list_aggregator', 'rubric']
    """
    texts = texts or {}
    added: list[str] = []
    for name, parameter in inspect.signature(factory).parameters.items():
        if name in skip or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        text = texts.get(name)
        if custom and name in custom:
            custom[name](parser, text)
            added.append(name)
            continue
        if _add_flag(parser, factory, name, parameter, text):
            added.append(name)
    return added


def _add_flag(
    parser: Any,
    factory: Callable[..., Any],
    name: str,
    parameter: inspect.Parameter,
    text: OptionHelp | None,
) -> bool:
    """Add the flag of one keyword argument; False when a command line cannot express it."""
    annotation = _annotation(factory, parameter)
    flag = _flag(name)
    common: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS}
    base, allows_none = _strip_none(annotation)
    origin = get_origin(base)
    default = _default_words(parameter.default, allows_none and origin is Literal)
    fallback = OptionHelp(f"{name} of {factory.__name__}")
    description = (text or fallback).render(default)
    metavar = text.metavar if text is not None else None
    if base is bool:
        parser.add_argument(flag, action=argparse.BooleanOptionalAction, help=description, **common)
    elif origin in _MAPPING_ORIGINS:
        key_type, value_type = (*get_args(base), Any, Any)[:2]
        convert = _scalar(value_type, name)
        if key_type is not str or convert is None:
            return False
        if metavar is None:
            callable_values = _is_callable(_strip_none(value_type)[0])
            metavar = "PATH=COMPARATOR" if callable_values else "KEY=VALUE"
        parser.add_argument(
            flag, nargs="+", action=_KeyValue, convert=convert, metavar=metavar,
            help=description, **common,
        )  # fmt: skip
    elif origin in _SEQUENCE_ORIGINS and all(arg in (str, Ellipsis) for arg in get_args(base)):
        parser.add_argument(
            flag, nargs="+", action=_ExtendSplit, metavar=metavar or "NAME",
            help=description, **common,
        )  # fmt: skip
    else:
        convert = _scalar(annotation, name)
        if convert is None or _is_callable(base):
            return False
        choices = [str(c) for c in get_args(base)] if origin is Literal else None
        if choices and allows_none:
            choices.append("none")
        shown = "{" + ",".join(choices) + "}" if choices else metavar
        parser.add_argument(flag, type=convert, metavar=shown, help=description, **common)
    return True


def given_options(namespace: argparse.Namespace, names: list[str]) -> dict[str, Any]:
    """The factory keyword arguments the user actually gave.

    >>> given_options(argparse.Namespace(aggregator="all"), ["aggregator", "alignment"])
    {'aggregator': 'all'}
    """
    values: Mapping[str, Any] = vars(namespace)
    return {name: values[name] for name in names if name in values}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def option_conflict(options: Mapping[str, Any]) -> str | None:
    """A flag given without the flag it needs, said in flags (None when all is well).

    >>> option_conflict({"rubric": {"summary": "same meaning"}})
    '--rubric needs a judge: pass --judge MODULE:ATTRIBUTE or --model PROVIDER:NAME'
    >>> option_conflict({"threshold": 0.8})
    '--threshold needs --partial-credit (it is the score each example must reach)'
    """
    judged = options.get("judge") is not None or options.get("model")
    if options.get("rubric") and not judged:
        return "--rubric needs a judge: pass --judge MODULE:ATTRIBUTE or --model PROVIDER:NAME"
    if judged and not options.get("rubric"):
        given = " and ".join(_flag(n) for n in ("judge", "model") if options.get(n) is not None)
        return f"{given} only score --rubric keys: pass --rubric KEY=CRITERIA as well"
    if options.get("threshold") is not None and not options.get("partial_credit"):
        return "--threshold needs --partial-credit (it is the score each example must reach)"
    return None


def in_cli_words(message: str, names: Iterable[str]) -> str:
    """A factory's error with its keyword arguments written as the flags that set them.

    >>> in_cli_words("threshold is 1.5; pass partial_credit=True or nested=False", ["threshold",
    ...     "partial_credit", "nested"])
    '--threshold is 1.5; pass --partial-credit or --no-nested'
    """
    for name in sorted(names, key=len, reverse=True):
        flag = _flag(name)
        message = re.sub(rf"(?<![\w-]){name}=True\b", flag, message)
        message = re.sub(rf"(?<![\w-]){name}=False\b", "--no-" + flag[2:], message)
        message = re.sub(rf"(?<![\w-]){name}=(?=[\s,;.)]|$)", flag, message)
        message = re.sub(rf"^{name}(?=[\s,;:])", flag, message)
    return message
