"""``matchevals trajectory --from otel|adk``: trace files scored like trajectory files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import as_json, no_traceback, run, write_jsonl
from tests.traces.spans import call, chat, otlp_document, recording, text, tool


def _traces(path: Path) -> list[str]:
    with recording() as (tracer, spans):
        for city in ("SF", "LA"):
            with tracer.start_as_current_span("invoke_agent"):
                chat(tracer, [text("user", city)], [call(f"c-{city}", "get_weather", city=city)])
                tool(tracer, "get_weather", f"c-{city}")
                chat(tracer, [text("user", city)], [{"type": "text", "content": "done"}])
        with tracer.start_as_current_span("invoke_agent"):  # a call without its arguments
            chat(tracer, [text("user", "x")], [{"type": "tool_call", "id": "c9", "name": "f"}])
    path.write_text(json.dumps(otlp_document(spans)))
    ids = []
    for span in spans:
        trace_id = format(span.context.trace_id, "032x")
        if trace_id not in ids:
            ids.append(trace_id)
    return ids


def _reference(city: str) -> list[dict]:
    return [{"role": "user", "content": ""},
            {"role": "assistant", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": city}}}]},  # noqa: E501
            {"role": "tool", "content": ""}, {"role": "assistant", "content": "done"}]  # fmt: skip


def test_otel_traces_pair_by_trace_id_and_list_problems(tmp_path: Path) -> None:
    sf, la, _bad = _traces(tmp_path / "traces.json")
    references = write_jsonl(tmp_path / "ref.jsonl", [
        {"id": la, "messages": _reference("LA")}, {"id": sf, "messages": _reference("SF")}])  # fmt: skip  # noqa: E501
    completed = run("trajectory", "--from", "otel", tmp_path / "traces.json", references,
                    "--id-key", "id", "--format", "json")  # fmt: skip
    no_traceback(completed)
    summary = as_json(completed)
    assert summary["examples_scored"] == 2 and summary["mean_score"] == 1.0
    assert summary["files"] == [str(tmp_path / "traces.json"), str(references)]
    assert (
        "('chat model'): gen_ai.output.messages[0].parts[0].arguments (f) is missing"
        in completed.stderr
    )
    assert completed.returncode == 2  # a trace could not be read
    skipped = run("trajectory", "--from", "otel", tmp_path / "traces.json", references,
                  "--id-key", "id", "--skip-invalid")  # fmt: skip
    assert skipped.returncode == 0, skipped.stderr


def test_adk_eval_results_score_actual_against_expected(tmp_path: Path) -> None:
    def invocation(*cities: str) -> dict:
        return {"invocation_id": "i1", "user_content": {"parts": [{"text": "w"}]},
                "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": c}} for c in cities]}}  # fmt: skip # noqa: E501

    result = {"eval_set_result_id": "r", "eval_case_results": [
        {"eval_id": "e1", "eval_metric_result_per_invocation": [
            {"actual_invocation": invocation("SF", "LA"), "expected_invocation": invocation("SF")}]}]}  # fmt: skip # noqa: E501
    path = tmp_path / "weather.evalset_result.json"
    path.write_text(json.dumps(result))
    superset = run("trajectory", "--from", "adk", path, path, "--id-key", "id",
                   "--trajectory-match-mode", "superset", "--format", "json")  # fmt: skip
    assert superset.returncode == 0, superset.stderr
    strict = run("trajectory", "--from", "adk", path, path, "--id-key", "id", "--format", "json")
    assert as_json(strict)["mean_score"] == 0.0  # EXACT: the extra call fails
