"""``--judge MODULE:ATTRIBUTE``: the LangChain chat model that scores rubric keys, by name.

The attribute is a chat model object, or a class or zero-argument factory returning one. It is
imported like ``python -m`` would (``PYTHONPATH`` and the current directory), checked to be a
``langchain_core`` chat model, and asked once for a structured-output runnable (no model call):
rubric scoring needs ``with_structured_output``, and a model without it (langchain-core's stock
fake chat models raise ``NotImplementedError``) is refused before anything is scored.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pickle
import re
import sys
from typing import Any

from matchevals._values import with_article

__all__ = ["JudgeFlagError", "check_picklable", "judge_spec", "load_judge"]

_SPEC = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")
_PROBE_SCHEMA = {
    "type": "object",
    "title": "probe",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}


class JudgeFlagError(Exception):
    """``--judge`` names something that cannot judge (said in the CLI's words)."""


def judge_spec(text: str) -> str:
    """The flag's value, checked for the ``module:attribute`` shape.

    >>> judge_spec("my_judges:fast_model")
    'my_judges:fast_model'
    """
    if not _SPEC.match(text):
        raise argparse.ArgumentTypeError(
            f"expected MODULE:ATTRIBUTE, such as my_judges:fast_model; got {text!r}"
        )
    return text


def _import(spec: str, module_name: str) -> Any:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            raise JudgeFlagError(
                f"--judge {spec}: no module named {missing!r} (looked on PYTHONPATH and in "
                "the current directory)"
            ) from None
        raise JudgeFlagError(f"--judge {spec}: importing {module_name} failed: {error}") from None
    except Exception as error:
        raise JudgeFlagError(
            f"--judge {spec}: importing {module_name} failed: {type(error).__name__}: {error}"
        ) from None


def load_judge(spec: str) -> Any:
    """The chat model ``spec`` names, ready for ``create_json_match_evaluator(judge=...)``."""
    from langchain_core.language_models import BaseChatModel

    module_name, _, attribute = spec.partition(":")
    found: Any = _import(spec, module_name)
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise JudgeFlagError(f"--judge {spec}: {module_name} has no attribute {attribute!r}")
        found = getattr(found, part)
    judge = found
    if not isinstance(found, BaseChatModel) and callable(found):
        try:
            judge = found()
        except Exception as error:
            raise JudgeFlagError(
                f"--judge {spec}: calling {attribute}() failed: {type(error).__name__}: {error}"
            ) from None
    if not isinstance(judge, BaseChatModel):
        raise JudgeFlagError(
            f"--judge {spec} is {with_article(type(judge).__name__)}, not a LangChain chat model "
            "(langchain_core.language_models.BaseChatModel)"
        )
    try:
        judge.with_structured_output(_PROBE_SCHEMA)
    except NotImplementedError:
        raise JudgeFlagError(
            f"--judge {spec}: {type(judge).__name__} does not support with_structured_output "
            "(it raises NotImplementedError); rubric keys are scored through structured "
            "output, so the judge must implement it"
        ) from None
    except Exception as error:
        raise JudgeFlagError(
            f"--judge {spec}: {type(judge).__name__}.with_structured_output failed: "
            f"{type(error).__name__}: {error}"
        ) from None
    return judge


def check_picklable(spec: str, judge: Any) -> None:
    """With ``--workers N`` the judge goes to each worker process: it must pickle."""
    try:
        pickle.dumps(judge)
    except Exception as error:
        raise JudgeFlagError(
            f"--judge {spec} cannot be sent to --workers processes ({type(error).__name__}: "
            f"{error}); use --workers 1"
        ) from None
