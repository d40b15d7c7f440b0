"""The LangChain callback handler that feeds graph runs into a :class:`RunTree` (a LangGraph
edge: live recording's bookkeeping itself is pure, in ``_live``), and the one configure hook
that adds the active handler to every run inside a capture.
"""

from __future__ import annotations

import contextvars
import threading
from typing import TYPE_CHECKING, Any, Protocol

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import register_configure_hook

from matchevals.graph_trajectory._live import Invocation, RunTree
from matchevals.graph_trajectory._signals import interrupt_values, is_resume

if TYPE_CHECKING:
    from uuid import UUID

__all__ = ["CaptureHandler", "Sink", "active_handler", "ensure_hook"]


class Sink(Protocol):
    """Where finished top-level invocations go (a ``GraphRunCapture``)."""

    def _offer(self, invocation: Invocation) -> None: ...


class CaptureHandler(BaseCallbackHandler):
    """Feeds LangChain callback events of graph runs into a :class:`RunTree`."""

    run_inline = True  # cheap and thread-safe: no executor hop in async graphs
    raise_error = False

    def __init__(self, sinks: tuple[Sink, ...]) -> None:
        super().__init__()
        self.sinks = sinks
        self.tree = RunTree(self._offer, is_resume, interrupt_values)

    # Only chain and tool runs matter (a graph can run inside a tool); skip the rest cheaply.
    @property
    def ignore_llm(self) -> bool:
        return True

    @property
    def ignore_chat_model(self) -> bool:
        return True

    @property
    def ignore_retriever(self) -> bool:
        return True

    @property
    def ignore_retry(self) -> bool:
        return True

    @property
    def ignore_custom_event(self) -> bool:
        return True

    def _offer(self, invocation: Invocation) -> None:
        for sink in self.sinks:
            sink._offer(invocation)

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.tree.start(run_id, parent_run_id, tags, metadata, inputs)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.tree.end(run_id, outputs)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.tree.error(run_id, error)

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.tree.start(run_id, parent_run_id, tags, metadata, None, chain=False)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.tree.forget(run_id)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.tree.forget(run_id)


# One hook, registered once (LangChain offers no way to unregister one); it is inert whenever
# the variable is unset, i.e. outside every capture.
active_handler: contextvars.ContextVar[CaptureHandler | None] = contextvars.ContextVar(
    "matchevals_graph_capture", default=None
)
_hook_lock = threading.Lock()
_hook_registered = False


def ensure_hook() -> None:
    """Register the configure hook that adds the active handler to every run (once)."""
    global _hook_registered
    if _hook_registered:
        return
    with _hook_lock:
        if not _hook_registered:
            register_configure_hook(active_handler, inheritable=True)
            _hook_registered = True
