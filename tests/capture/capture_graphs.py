"""Real LangGraph graphs with plain Python nodes, and the trajectories a faithful capture gives.

Every builder takes ``checkpointer`` and ``is_async`` (async nodes for ``ainvoke``). A
:class:`Scenario` lists the calls made on one thread and the trajectories expected for them.
"""

from __future__ import annotations

import asyncio
import itertools
import operator
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, RetryPolicy, Send, interrupt

Node = Callable[[Any], Any]


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    count: int


class Item(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    item: int


class Out(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def node(fn: Node, is_async: bool) -> Node:
    """``fn`` itself, or an ``async def`` around it."""
    if not is_async:
        return fn

    async def run(state: Any) -> Any:
        return fn(state)

    run.__name__ = getattr(fn, "__name__", "node")
    return run


def logger(name: str) -> Node:
    def log(state: Any) -> dict[str, Any]:
        return {"log": [name]}

    return log


def add_nodes(builder: StateGraph, names: str | Sequence[str], is_async: bool) -> None:
    for name in names.split() if isinstance(names, str) else names:
        builder.add_node(name, node(logger(name), is_async))


# --- the note's table -------------------------------------------------------------------------


def diamond(checkpointer: Any = None, is_async: bool = False) -> Any:
    """START→a; a→b, a→c; b,c→d."""
    g = StateGraph(State)
    add_nodes(g, "a b c d", is_async)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge(["b", "c"], "d")
    g.add_edge("d", END)
    return g.compile(checkpointer=checkpointer)


def agent_loop(checkpointer: Any = None, is_async: bool = False) -> Any:
    """agent↔tools until a counter reaches 3."""

    def agent(state: State) -> dict[str, Any]:
        return {"log": ["agent"]}

    def tools(state: State) -> dict[str, Any]:
        return {"log": ["tools"], "count": state.get("count", 0) + 1}

    g = StateGraph(State)
    g.add_node("agent", node(agent, is_async))
    g.add_node("tools", node(tools, is_async))
    g.add_edge(START, "agent")
    g.add_conditional_edges(
        "agent", lambda s: "tools" if s.get("count", 0) < 3 else END, ["tools", END]
    )
    g.add_edge("tools", "agent")
    return g.compile(checkpointer=checkpointer)


def _sub_xyz(is_async: bool, checkpointer: Any = None) -> Any:
    sub = StateGraph(State)
    add_nodes(sub, "x y z", is_async)
    sub.add_edge(START, "x")
    sub.add_edge("x", "y")
    sub.add_edge("x", "z")
    return sub.compile(checkpointer=checkpointer)


def subgraph_beside(checkpointer: Any = None, is_async: bool = False) -> Any:
    """pre → {other, sub} → post, sub = x → {y, z}."""
    g = StateGraph(State)
    add_nodes(g, "pre other post", is_async)
    g.add_node("sub", _sub_xyz(is_async))
    g.add_edge(START, "pre")
    g.add_edge("pre", "other")
    g.add_edge("pre", "sub")
    g.add_edge(["other", "sub"], "post")
    return g.compile(checkpointer=checkpointer)


def _inner(is_async: bool, ask: bool) -> Any:
    inner = StateGraph(State)
    add_nodes(inner, "x y z", is_async)
    inner.add_edge(START, "x")
    if ask:
        inner.add_node("ask", node(asker("inner?"), is_async))
        inner.add_edge("x", "ask")
        inner.add_edge("ask", "y")
        inner.add_edge("ask", "z")
    else:
        inner.add_edge("x", "y")
        inner.add_edge("x", "z")
    return inner.compile()


def nested(checkpointer: Any = None, is_async: bool = False, ask: bool = False) -> Any:
    """post after mid; mid = m1 → inner → m2; inner = x → {y, z} (x → ask → {y, z} with ask)."""
    mid = StateGraph(State)
    add_nodes(mid, "m1 m2", is_async)
    mid.add_node("inner", _inner(is_async, ask))
    mid.add_edge(START, "m1")
    mid.add_edge("m1", "inner")
    mid.add_edge("inner", "m2")
    g = StateGraph(State)
    g.add_node("mid", mid.compile())
    add_nodes(g, "post", is_async)
    g.add_edge(START, "mid")
    g.add_edge("mid", "post")
    return g.compile(checkpointer=checkpointer)


def asker(question: str) -> Node:
    def ask(state: Any) -> dict[str, Any]:
        answer = interrupt(question)
        return {"log": [f"{question}{answer}"]}

    return ask


def ask_resume(checkpointer: Any = None, is_async: bool = False) -> Any:
    """prep → ask (interrupt) → after."""
    g = StateGraph(State)
    add_nodes(g, "prep after", is_async)
    g.add_node("ask", node(asker("ok?"), is_async))
    g.add_edge(START, "prep")
    g.add_edge("prep", "ask")
    g.add_edge("ask", "after")
    return g.compile(checkpointer=checkpointer)


def send_fanout(checkpointer: Any = None, is_async: bool = False) -> Any:
    """plan → Send("worker") ×3 → reduce."""
    g = StateGraph(Item)
    add_nodes(g, "plan reduce", is_async)
    g.add_node("worker", node(lambda s: {"log": [f"w{s['item']}"]}, is_async))
    g.add_edge(START, "plan")
    g.add_conditional_edges(
        "plan", lambda s: [Send("worker", {"item": i}) for i in range(3)], ["worker"]
    )
    g.add_edge("worker", "reduce")
    return g.compile(checkpointer=checkpointer)


def command_goto(checkpointer: Any = None, is_async: bool = False) -> Any:
    """router returns Command(goto=[Send("w", …), "b"])."""

    def router(state: Item) -> Command[Any]:
        return Command(update={"log": ["router"]}, goto=[Send("w", {"item": 1}), "b"])

    g = StateGraph(Item)
    g.add_node("router", node(router, is_async), destinations=("w", "b"))
    add_nodes(g, "w b", is_async)
    g.add_edge(START, "router")
    return g.compile(checkpointer=checkpointer)


class Flaky(Exception):
    pass


def retrying(checkpointer: Any = None, is_async: bool = False) -> Any:
    """start → {flaky (fails twice, then succeeds; RetryPolicy), other} → end."""
    failures = {"left": 2}
    lock = threading.Lock()

    def flaky(state: State) -> dict[str, Any]:
        with lock:
            if failures["left"]:
                failures["left"] -= 1
                raise Flaky("not yet")
        return {"log": ["flaky"]}

    g = StateGraph(State)
    add_nodes(g, "start other end", is_async)
    g.add_node(
        "flaky",
        node(flaky, is_async),
        retry_policy=RetryPolicy(initial_interval=0.001, jitter=False, retry_on=Flaky),
    )
    g.add_edge(START, "start")
    g.add_edge("start", "flaky")
    g.add_edge("start", "other")
    g.add_edge(["flaky", "other"], "end")
    return g.compile(checkpointer=checkpointer)


def retried_subgraph(checkpointer: Any = None, is_async: bool = False) -> Any:
    """sub (RetryPolicy) = x → f, where f fails once; then post."""
    failures = {"left": 1}

    def f(state: State) -> dict[str, Any]:
        if failures["left"]:
            failures["left"] -= 1
            raise Flaky("not yet")
        return {"log": ["f"]}

    sub = StateGraph(State)
    add_nodes(sub, "x", is_async)
    sub.add_node("f", node(f, is_async))
    sub.add_edge(START, "x")
    sub.add_edge("x", "f")
    g = StateGraph(State)
    g.add_node(
        "sub",
        sub.compile(),
        retry_policy=RetryPolicy(initial_interval=0.001, jitter=False, retry_on=Flaky),
    )
    add_nodes(g, "post", is_async)
    g.add_edge(START, "sub")
    g.add_edge("sub", "post")
    return g.compile(checkpointer=checkpointer)


class Boom(Exception):
    pass


def boom_and_slow(is_async: bool, failures: int | None = None) -> tuple[Node, Node]:
    """``boom`` raises once ``slow`` has started (so both surely ran), ``failures`` times if given.

    ``slow`` is still running when ``boom`` raises.
    """
    started = threading.Event()
    left = {"failures": failures}

    def fail_now() -> bool:
        if left["failures"] is None:
            return True
        if left["failures"]:
            left["failures"] -= 1
            return True
        return False

    def boom(state: State) -> dict[str, Any]:
        started.wait(5)
        if fail_now():
            raise Boom("boom")
        return {"log": ["boom"]}

    async def aboom(state: State) -> dict[str, Any]:
        for _ in range(5000):
            if started.is_set():
                break
            await asyncio.sleep(0.001)
        if fail_now():
            raise Boom("boom")
        return {"log": ["boom"]}

    def slow(state: State) -> dict[str, Any]:
        started.set()
        time.sleep(0.02)
        return {"log": ["slow"]}

    async def aslow(state: State) -> dict[str, Any]:
        started.set()
        await asyncio.sleep(0.02)
        return {"log": ["slow"]}

    return (aboom, aslow) if is_async else (boom, slow)


def boom_beside_slow(
    checkpointer: Any = None, is_async: bool = False, failures: int | None = None
) -> Any:
    """boom raises while slow runs beside it (then ``after``, if boom ever succeeds)."""
    boom, slow = boom_and_slow(is_async, failures)
    g = StateGraph(State)
    g.add_node("boom", boom)
    g.add_node("slow", slow)
    add_nodes(g, "after", is_async)
    g.add_edge(START, "boom")
    g.add_edge(START, "slow")
    g.add_edge(["boom", "slow"], "after")
    return g.compile(checkpointer=checkpointer)


# --- more shapes --------------------------------------------------------------------------------


def parallel_interrupts(checkpointer: Any = None, is_async: bool = False) -> Any:
    """p → {i1 (interrupt), i2 (interrupt), ok} → end."""
    g = StateGraph(State)
    add_nodes(g, "p ok end", is_async)
    g.add_node("i1", node(asker("i1"), is_async))
    g.add_node("i2", node(asker("i2"), is_async))
    g.add_edge(START, "p")
    for name in ("i1", "i2", "ok"):
        g.add_edge("p", name)
    g.add_edge(["i1", "i2", "ok"], "end")
    return g.compile(checkpointer=checkpointer)


def send_to_subgraph(checkpointer: Any = None, is_async: bool = False) -> Any:
    """plan → Send("sub") ×2, sub = x → y; then reduce."""
    sub = StateGraph(Item, output_schema=Out)
    add_nodes(sub, "x y", is_async)
    sub.add_edge(START, "x")
    sub.add_edge("x", "y")
    g = StateGraph(Out)
    add_nodes(g, "plan reduce", is_async)
    g.add_node("sub", sub.compile())
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", lambda s: [Send("sub", {"item": i}) for i in range(2)], ["sub"])
    g.add_edge("sub", "reduce")
    return g.compile(checkpointer=checkpointer)


def subgraph_in_node(checkpointer: Any = None, is_async: bool = False, hidden: bool = False) -> Any:
    """pre → call (a node function that invokes the x → {y, z} subgraph) → post.

    LangGraph finds the subgraph in the function's closure; with ``hidden`` it is built inside
    the function, where ``get_subgraphs()`` cannot see it.
    """
    sub = _sub_xyz(is_async)

    def call(state: State) -> dict[str, Any]:
        return {"log": ["call", *sub.invoke({"log": []})["log"]]}

    async def acall(state: State) -> dict[str, Any]:
        return {"log": ["call", *(await sub.ainvoke({"log": []}))["log"]]}

    def call_hidden(state: State) -> dict[str, Any]:
        return {"log": ["call", *_sub_xyz(False).invoke({"log": []})["log"]]}

    async def acall_hidden(state: State) -> dict[str, Any]:
        return {"log": ["call", *(await _sub_xyz(True).ainvoke({"log": []}))["log"]]}

    g = StateGraph(State)
    add_nodes(g, "pre post", is_async)
    if hidden:
        g.add_node("call", acall_hidden if is_async else call_hidden)
    else:
        g.add_node("call", acall if is_async else call)
    g.add_edge(START, "pre")
    g.add_edge("pre", "call")
    g.add_edge("call", "post")
    return g.compile(checkpointer=checkpointer)


# --- interrupts around subgraphs ---------------------------------------------------------------


def chain(
    names: str, is_async: bool, checkpointer: Any = None, ask: str = "", **compile_kwargs: Any
) -> Any:
    """START → n1 → n2 → …; the node named ``ask`` calls ``interrupt()``."""
    g = StateGraph(State)
    order = names.split()
    for name in order:
        g.add_node(name, node(asker(name) if name == ask else logger(name), is_async))
    g.add_edge(START, order[0])
    for a, b in itertools.pairwise(order):
        g.add_edge(a, b)
    return g.compile(checkpointer=checkpointer, **compile_kwargs)


def beside(
    inner: Any,
    checkpointer: Any = None,
    is_async: bool = False,
    ask: str = "",
    **compile_kwargs: Any,
) -> Any:
    """START → {inner (a subgraph), o1} → o2; the node named ``ask`` calls ``interrupt()``."""
    g = StateGraph(State)
    g.add_node("inner", inner)
    for name in ("o1", "o2"):
        g.add_node(name, node(asker(name) if name == ask else logger(name), is_async))
    g.add_edge(START, "inner")
    g.add_edge(START, "o1")
    g.add_edge(["inner", "o1"], "o2")
    return g.compile(checkpointer=checkpointer, **compile_kwargs)


def nested_breakpoint(checkpointer: Any = None, is_async: bool = False, sub: Any = None) -> Any:
    """mid → post, mid = m1 → inner → m2, inner = x → y with a static breakpoint before y."""
    mid = StateGraph(State)
    add_nodes(mid, "m1 m2", is_async)
    mid.add_node("inner", chain("x y", is_async, sub, interrupt_before=["y"]))
    mid.add_edge(START, "m1")
    mid.add_edge("m1", "inner")
    mid.add_edge("inner", "m2")
    g = StateGraph(State)
    g.add_node("mid", mid.compile(checkpointer=sub))
    add_nodes(g, "post", is_async)
    g.add_edge(START, "mid")
    g.add_edge("mid", "post")
    return g.compile(checkpointer=checkpointer)


def side_by_side(checkpointer: Any = None, is_async: bool = False, sub: Any = None) -> Any:
    """{s1, s2} → o2; s1 = x → y with a breakpoint before y, s2 = p → q where p interrupts."""
    g = StateGraph(State)
    g.add_node("s1", chain("x y", is_async, sub, interrupt_before=["y"]))
    g.add_node("s2", chain("p q", is_async, sub, ask="p"))
    add_nodes(g, "o2", is_async)
    g.add_edge(START, "s1")
    g.add_edge(START, "s2")
    g.add_edge(["s1", "s2"], "o2")
    return g.compile(checkpointer=checkpointer)


def send_to_breakpoint(checkpointer: Any = None, is_async: bool = False, sub: Any = None) -> Any:
    """plan → Send("sub") ×2, sub = x → y with a breakpoint before y; then reduce."""
    inner = StateGraph(Item, output_schema=Out)
    add_nodes(inner, "x y", is_async)
    inner.add_edge(START, "x")
    inner.add_edge("x", "y")
    g = StateGraph(Out)
    add_nodes(g, "plan reduce", is_async)
    g.add_node("sub", inner.compile(checkpointer=sub, interrupt_before=["y"]))
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", lambda s: [Send("sub", {"item": i}) for i in range(2)], ["sub"])
    g.add_edge("sub", "reduce")
    return g.compile(checkpointer=checkpointer)


def own_history_branches(checkpointer: Any = None, is_async: bool = False) -> Any:
    """inner → o1, inner = i1 → a on the first call, i1 → b later (checkpointer=True: one history).

    The subgraph keeps its state across calls on a thread, so its log grows and picks the path.
    """
    inner = StateGraph(State)
    add_nodes(inner, "i1 a b", is_async)
    inner.add_edge(START, "i1")
    inner.add_conditional_edges("i1", lambda s: "a" if len(s["log"]) < 3 else "b", ["a", "b"])
    g = StateGraph(State)
    g.add_node("inner", inner.compile(checkpointer=True))
    add_nodes(g, "o1", is_async)
    g.add_edge(START, "inner")
    g.add_edge("inner", "o1")
    return g.compile(checkpointer=checkpointer)


def handoff(checkpointer: Any = None, is_async: bool = False) -> Any:
    """{inner, o1}, inner = i1 → h, where h hands off to the parent's o2 (Command.PARENT)."""

    def h(state: State) -> Command[Any]:
        return Command(graph=Command.PARENT, goto="o2", update={"log": ["h"]})

    inner = StateGraph(State)
    add_nodes(inner, "i1", is_async)
    inner.add_node("h", node(h, is_async))
    inner.add_edge(START, "i1")
    inner.add_edge("i1", "h")
    g = StateGraph(State)
    g.add_node("inner", inner.compile(), destinations=("o2",))
    add_nodes(g, "o1 o2", is_async)
    g.add_edge(START, "inner")
    g.add_edge(START, "o1")
    return g.compile(checkpointer=checkpointer)


def parallel_subgraph_asks(checkpointer: Any = None, is_async: bool = False) -> Any:
    """{s1, s2} → end, s1 = x and s2 = z, where x and z both interrupt."""
    g = StateGraph(State)
    g.add_node("s1", chain("x", is_async, ask="x"))
    g.add_node("s2", chain("z", is_async, ask="z"))
    add_nodes(g, "end", is_async)
    g.add_edge(START, "s1")
    g.add_edge(START, "s2")
    g.add_edge(["s1", "s2"], "end")
    return g.compile(checkpointer=checkpointer)


# --- scenarios ------------------------------------------------------------------------------------

Steps = list[list[str]]


@dataclass
class Call:
    """One call on the thread: ``input`` may be a function of the previous call's result."""

    input: Any
    kwargs: dict[str, Any] = field(default_factory=dict)

    def resolve(self, previous: Any) -> Any:
        return self.input(previous) if callable(self.input) else self.input


@dataclass
class Scenario:
    name: str
    build: Callable[..., Any]
    calls: list[Call]
    steps: list[Steps]  # live: one entry per call
    history: list[Steps] | None = None  # what history can know, when it differs from live
    history_note: str = ""
    untagged_history: list[Steps] | None = None  # the guess without tag_invocation, if wrong


def resume_first(result: Any) -> Command[Any]:
    first = next(i for i in result["__interrupt__"] if i.value == "i1")
    return Command(resume={first.id: "1"})


EMPTY: dict[str, Any] = {"log": []}

SCENARIOS = [
    Scenario(
        "diamond_twice",
        diamond,
        [Call(EMPTY), Call(EMPTY)],
        [[["a"], ["b", "c"], ["d"]], [["a"], ["b", "c"], ["d"]]],
    ),
    Scenario(
        "agent_tools_loop",
        agent_loop,
        [Call({"log": [], "count": 0})],
        [[["agent"], ["tools"], ["agent"], ["tools"], ["agent"], ["tools"], ["agent"]]],
    ),
    Scenario(
        "subgraph_beside_parallel_node",
        subgraph_beside,
        [Call(EMPTY)],
        [[["pre"], ["other", "sub"], ["sub:x"], ["sub:y", "sub:z"], ["post"]]],
    ),
    Scenario(
        "nested_subgraphs",
        nested,
        [Call(EMPTY)],
        [
            [
                ["mid"],
                ["mid:m1"],
                ["mid:inner"],
                ["mid:inner:x"],
                ["mid:inner:y", "mid:inner:z"],
                ["mid:m2"],
                ["post"],
            ]
        ],
    ),
    Scenario(
        "interrupt_then_resume",
        ask_resume,
        [Call(EMPTY), Call(Command(resume="yes"))],
        [[["prep"], ["ask"]], [["ask"], ["after"]]],
    ),
    Scenario(
        "send_fanout",
        send_fanout,
        [Call(EMPTY)],
        [[["plan"], ["worker", "worker", "worker"], ["reduce"]]],
    ),
    Scenario(
        "command_goto_send",
        command_goto,
        [Call(EMPTY)],
        [[["router"], ["b", "w"]]],
    ),
    Scenario(
        "retry_policy",
        retrying,
        [Call(EMPTY)],
        [[["start"], ["flaky", "other"], ["end"]]],
    ),
    Scenario(
        "retried_subgraph_node",
        retried_subgraph,
        [Call(EMPTY)],
        [[["sub"], ["sub:x"], ["sub:f"], ["post"]]],
    ),
    Scenario(
        "failure_beside_running_node",
        boom_beside_slow,
        [Call(EMPTY)],
        [[["boom", "slow"]]],
    ),
    Scenario(
        "nested_subgraph_interrupt",
        lambda checkpointer=None, is_async=False: nested(checkpointer, is_async, ask=True),
        [Call(EMPTY), Call(Command(resume="!"))],
        [
            [["mid"], ["mid:m1"], ["mid:inner"], ["mid:inner:x"], ["mid:inner:ask"]],
            [
                ["mid"],
                ["mid:inner"],
                ["mid:inner:ask"],
                ["mid:inner:y", "mid:inner:z"],
                ["mid:m2"],
                ["post"],
            ],
        ],
    ),
    Scenario(
        "parallel_interrupts_resumed_one_at_a_time",
        parallel_interrupts,
        [Call(EMPTY), Call(resume_first), Call(Command(resume="2"))],
        # the second call re-runs both waiting tasks: i1 finishes, i2 interrupts again
        [[["p"], ["i1", "i2", "ok"]], [["i1", "i2"]], [["i2"], ["end"]]],
        history=[[["p"], ["i1", "i2", "ok"]], [["i1", "i2"], ["end"]]],
        history_note="the second call wrote no checkpoint: history cannot see it",
    ),
    Scenario(
        "send_to_subgraph",
        send_to_subgraph,
        [Call(EMPTY)],
        [[["plan"], ["sub", "sub"], ["sub:x"], ["sub:y"], ["sub:x"], ["sub:y"], ["reduce"]]],
    ),
    Scenario(
        "interrupt_before",
        diamond,
        [Call(EMPTY, {"interrupt_before": ["d"]}), Call(None)],
        [[["a"], ["b", "c"]], [["d"]]],
        untagged_history=[[["a"], ["b", "c"], ["d"]]],
        history_note="untagged, a resume after a static breakpoint looks like one run",
    ),
    Scenario(
        "subgraph_invoked_in_node_function",
        subgraph_in_node,
        [Call(EMPTY)],
        [[["pre"], ["call"], ["call:x"], ["call:y", "call:z"], ["post"]]],
    ),
    Scenario(
        "subgraph_built_in_node_function",
        lambda checkpointer=None, is_async=False: subgraph_in_node(
            checkpointer, is_async, hidden=True
        ),
        [Call(EMPTY)],
        [[["pre"], ["call"], ["call:x"], ["call:y", "call:z"], ["post"]]],
        history=[[["pre"], ["call"], ["post"]]],
        history_note="get_subgraphs() cannot find a subgraph built inside a node function",
    ),
]
