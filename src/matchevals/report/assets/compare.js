"use strict";
// The comparison of two runs: the statistics, the per-key deltas, the changed examples
// (regressions first) and, for a chosen one, both runs' details side by side. Every number is
// written by the command line (data.summary.texts, row texts); this script only lays them out.
(function () {
  var data = JSON.parse(document.getElementById("matchevals-data").textContent);
  var S = data.summary;
  var T = S.texts;
  var NODE_LIMIT = 3000;
  var CATEGORY = { json: "JSON", tool_calls: "tool calls", supersteps: "supersteps", results: "results" };

  var app = document.getElementById("app");
  var main = el("main", { class: "compare" });
  app.appendChild(main);

  // ---------------------------------------------------------------- header and statistics
  var verdictClass = S.passed === true ? "passed" : S.passed === false ? "failed" : "none";
  var verdictText = S.passed === true ? "passed" : S.passed === false ? "FAILED" : "no gate";
  main.appendChild(el("h1", null, S.title, el("span", { class: "verdict " + verdictClass, id: "verdict", text: verdictText })));
  main.appendChild(el("div", { id: "headline", class: "headline " + (S.worse ? "worse" : S.better ? "better" : ""), text: T.headline }));
  main.appendChild(el("div", { class: "muted mono", id: "runs", text: data.base + "  →  " + data.new }));
  (data.warnings || []).forEach(function (text) { main.appendChild(el("div", { class: "warning", text: "Warning: " + text })); });
  if (S.failed_because.length) {
    var reasons = el("ul", { class: "reasons", id: "failed-because" });
    S.failed_because.forEach(function (text) { reasons.appendChild(el("li", { text: text })); });
    main.appendChild(reasons);
  }
  function card(label, value, id, cls) {
    return el("div", { class: "card" + (cls ? " " + cls : "") }, el("div", { class: "value", id: id, text: value }), el("div", { class: "label", text: label }));
  }
  var counts = data.counts;
  main.appendChild(el("div", { class: "cards" },
    card("paired by " + data.paired_by, String(data.paired), "count-paired"),
    card("regressed", String(counts.regressed), "count-regressed", counts.regressed ? "bad" : null),
    card("improved", String(counts.improved), "count-improved", counts.improved ? "good" : null),
    card("unchanged", String(counts.unchanged), "count-unchanged"),
    card("added", String(counts.added), "count-added"),
    card("removed", String(counts.removed), "count-removed")));
  var statistics = el("table", { class: "plain statistics", id: "statistics" },
    el("tr", null, el("th"), el("th", { class: "num", text: "base" }), el("th", { class: "num", text: "new" }), el("th", { text: "" })),
    el("tr", { id: "mean-row" }, el("th", { text: "mean score" }), el("td", { class: "num", text: T.base_mean }), el("td", { class: "num", text: T.new_mean }),
      el("td", null, "difference ", el("b", { id: "difference", text: T.difference }), ", " + T.interval)),
    el("tr", { id: "pass-row" }, el("th", { text: "pass rate (score ≥ " + T.threshold + ")" }), el("td", { class: "num", text: T.base_pass_rate }), el("td", { class: "num", text: T.new_pass_rate }),
      el("td", null, data.pass_fail.pass_to_fail + " pass→fail, " + data.pass_fail.fail_to_pass + " fail→pass, exact McNemar p = ", el("b", { id: "mcnemar", text: T.mcnemar }))));
  main.appendChild(statistics);

  // ---------------------------------------------------------------- per key, trials
  function deltaClass(delta) { return delta === null ? "" : delta < 0 ? "neg" : delta > 0 ? "pos" : ""; }
  if (data.per_key.length) {
    main.appendChild(el("h2", { text: "Mean score per key" }));
    var keys = el("table", { class: "plain keys-delta", id: "key-deltas" },
      el("tr", null, el("th", { text: "key" }), el("th", { class: "num", text: "base" }), el("th", { class: "num", text: "new" }), el("th", { class: "num", text: "delta" })));
    data.per_key.forEach(function (row) {
      keys.appendChild(el("tr", { "data-key": row.key }, el("td", { class: "mono", text: row.key }),
        el("td", { class: "num", text: row.texts[0] }), el("td", { class: "num", text: row.texts[1] }),
        el("td", { class: "num delta " + deltaClass(row.delta), text: row.texts[2] })));
    });
    main.appendChild(keys);
  }
  var repeated = ["base", "new"].filter(function (side) { return data.repeated[side]; });
  if (repeated.length) {
    main.appendChild(el("h2", { text: "Repeated trials: pass@k (any of k passes), pass^k (all k pass)" }));
    var ks = {};
    repeated.forEach(function (side) { Object.keys(data.repeated[side].pass_at_k).forEach(function (k) { ks[k] = true; }); });
    var trials = el("table", { class: "plain", id: "trials" }, el("tr", null, el("th", { class: "num", text: "k" }),
      el("th", { class: "num", text: "base pass@k" }), el("th", { class: "num", text: "base pass^k" }),
      el("th", { class: "num", text: "new pass@k" }), el("th", { class: "num", text: "new pass^k" })));
    Object.keys(ks).sort(function (a, b) { return a - b; }).forEach(function (k) {
      var row = el("tr", { "data-k": k }, el("td", { class: "num", text: k }));
      ["base", "new"].forEach(function (side) {
        var found = data.repeated[side];
        row.appendChild(el("td", { class: "num", text: found && found.pass_at_k[k] !== undefined ? found.pass_at_k[k] : "—" }));
        row.appendChild(el("td", { class: "num", text: found && found.pass_hat_k[k] !== undefined ? found.pass_hat_k[k] : "—" }));
      });
      trials.appendChild(row);
    });
    main.appendChild(trials);
  }

  // ---------------------------------------------------------------- changed examples
  function failingText(failing) {
    return Object.keys(failing || {}).map(function (category) { return (CATEGORY[category] || category) + ": " + failing[category].join(", "); }).join("; ");
  }
  main.appendChild(el("h2", { text: "Changed examples (regressions first, the biggest first)" }));
  var search = el("input", { type: "search", id: "filter", placeholder: "filter by id or what fails…", "aria-label": "filter changed examples" });
  var matchCount = el("span", { id: "match-count", class: "muted" });
  main.appendChild(el("div", { class: "controls" }, search, matchCount));
  var table = el("table", { class: "examples changes", id: "changes" });
  table.appendChild(el("thead", null, el("tr", null, el("th", { style: "width:11%", text: "verdict" }), el("th", { style: "width:20%", text: "id" }),
    el("th", { style: "width:8%", text: "base" }), el("th", { style: "width:8%", text: "new" }), el("th", { style: "width:8%", text: "delta" }), el("th", { style: "width:45%", text: "what changed" }))));
  var body = el("tbody");
  table.appendChild(body);
  main.appendChild(table);
  var detailBox = el("section", { id: "detail" });
  main.appendChild(detailBox);
  var selected = null;

  function rows(text) {
    body.textContent = "";
    var shown = 0;
    data.changes.forEach(function (change, position) {
      var changed = change.verdict === "improved" ? change.now_passing : change.newly_failing;
      var said = failingText(changed);
      if (text && (change.id_text + "\u0000" + said).toLowerCase().indexOf(text) < 0) return;
      shown += 1;
      body.appendChild(el("tr", { class: "example change " + change.verdict + (selected === position ? " selected" : ""), "data-position": position, "data-id": change.id_text, "data-verdict": change.verdict, onclick: function () { select(position, true); } },
        el("td", null, el("span", { class: "badge " + change.verdict, text: change.verdict })),
        el("td", { class: "mono", text: change.id_text, title: change.id_text }),
        el("td", { class: "num", text: change.texts.base }), el("td", { class: "num", text: change.texts.new }),
        el("td", { class: "num delta " + deltaClass(change.delta), text: change.texts.delta }),
        el("td", { text: (change.verdict === "improved" ? "now passing: " : "newly failing: ") + (said || "—"), title: said })));
    });
    matchCount.textContent = shown + " of " + data.changes.length + " changed examples shown (" + counts.regressed + " regressed, " + counts.improved + " improved in all)";
    matchCount.setAttribute("data-count", String(shown));
  }
  var timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { rows(search.value.trim().toLowerCase()); }, 120);
  });

  function sideBox(name, detail, change) {
    var box = el("div", { class: "side run-side", id: "side-" + name });
    var score = name === "base" ? change.texts.base : change.texts.new;
    box.appendChild(el("h4", { text: name + " run: score " + score + (detail && detail.where ? "  ·  " + detail.where : "") }));
    var inner = el("div", { class: "side-body" });
    box.appendChild(inner);
    if (!detail) { inner.appendChild(el("p", { class: "muted", text: "This run does not hold the example." })); return box; }
    if (detail.trial_scores.length > 1) inner.appendChild(el("p", { class: "muted", text: detail.trial_scores.length + " trials scored " + detail.trial_scores.join(", ") + "; the details are the lowest-scoring trial's." }));
    inner.appendChild(el("h3", { text: "Results" }));
    inner.appendChild(resultsTable(detail.results, "results-" + name));
    if (detail.swimlanes.length) {
      inner.appendChild(el("h3", { text: "Supersteps (reference above, run below)" }));
      detail.swimlanes.forEach(function (lane) { inner.appendChild(swimlane(lane)); });
    }
    inner.appendChild(el("h3", { text: "Differences" }));
    if (detail.differences.length) inner.appendChild(differencesTable(detail.differences, "differences-" + name, null));
    else inner.appendChild(el("p", { class: "muted", text: "None: every result scored 1." }));
    if (detail.outputs !== undefined && detail.omitted === null) {
      var marks = {};
      detail.differences.forEach(function (d) { if (d.at_actual) marks[pathKey(d.at_actual)] = true; });
      inner.appendChild(el("h3", { text: "Outputs (differing paths highlighted)" }));
      inner.appendChild(renderJson(detail.outputs, marks, NODE_LIMIT));
    } else if (detail.omitted) {
      inner.appendChild(el("p", { class: "muted", text: "Values not shown: " + detail.omitted + "." }));
    }
    return box;
  }

  function failingList(title, failing, id) {
    var categories = Object.keys(failing || {});
    if (!categories.length) return null;
    var list = el("ul", { class: "failing", id: id });
    categories.forEach(function (category) {
      failing[category].forEach(function (label) {
        list.appendChild(el("li", { "data-category": category }, el("span", { class: "kind", text: CATEGORY[category] || category }), " ", el("span", { class: "mono", text: label })));
      });
    });
    return el("div", null, el("h3", { text: title }), list);
  }

  function select(position, scroll) {
    selected = position;
    Array.prototype.forEach.call(body.querySelectorAll("tr.change"), function (tr) {
      tr.classList.toggle("selected", Number(tr.getAttribute("data-position")) === position);
    });
    var change = data.changes[position];
    detailBox.textContent = "";
    detailBox.setAttribute("data-id", change.id_text);
    detailBox.appendChild(el("h2", null, "Example " + change.id_text + " ", el("span", { class: "badge " + change.verdict, text: change.verdict })));
    detailBox.appendChild(el("div", { class: "detail-head" }, "score " + change.texts.base + " → " + change.texts.new + " (" + change.texts.delta + ")"));
    var newly = failingList("Newly failing (fails in the new run, not in the base)", change.newly_failing, "newly-failing");
    var fixed = failingList("Now passing (fails in the base run, not in the new)", change.now_passing, "now-passing");
    if (newly) detailBox.appendChild(newly);
    if (fixed) detailBox.appendChild(fixed);
    detailBox.appendChild(el("div", { class: "sides runs" }, sideBox("base", change.base, change), sideBox("new", change.new, change)));
    if (scroll) detailBox.scrollIntoView({ block: "start" });
  }

  // ---------------------------------------------------------------- one run only, problems
  [["added", "Added: only the new run holds them", "new_where"], ["removed", "Removed: only the base run holds them", "base_where"]].forEach(function (part) {
    var name = part[0];
    if (!counts[name]) return;
    main.appendChild(el("h2", { text: part[1] + " (" + counts[name] + ")" }));
    var list = el("ul", { class: "problems", id: name });
    data[name].forEach(function (change) { list.appendChild(el("li", { class: "mono", text: String(change.id) + "  " + change[part[2]] })); });
    main.appendChild(list);
    if (counts[name] > data[name].length) main.appendChild(el("p", { class: "muted", text: "… and " + (counts[name] - data[name].length) + " more." }));
  });
  if (data.problems.length) {
    main.appendChild(el("h2", { text: "Could not be compared (" + data.problems.length + ")" }));
    var problems = el("ul", { class: "problems", id: "problems" });
    data.problems.forEach(function (problem) { problems.appendChild(el("li", { text: problem.where + ": " + problem.message })); });
    main.appendChild(problems);
  }
  main.appendChild(el("footer", { text: "matchevals compare · " + data.paired + " examples paired by " + data.paired_by + "; details for the " + data.changes.length + " biggest changes." }));

  rows("");
  if (data.changes.length) select(0, false);
  document.documentElement.setAttribute("data-ready", "true");
})();
