"use strict";
(function () {
  var data = JSON.parse(document.getElementById("matchevals-data").textContent);
  var S = data.summary;
  var R = data.rows;
  var N = R.score.length;
  var PAGE = 50;
  var NODE_LIMIT = 5000;
  var byIndex = {};
  for (var p = 0; p < N; p++) byIndex[R.index[p]] = p;

  function why(position) { return R.why_texts[R.why[position]]; }
  function where(position) { return R.where_prefix + R.where[position]; }
  // "line 17" / "item 3" when every example comes from one file, else where it came from
  var oneFile = /[:\[]$/.test(R.where_prefix || "") ? R.where_prefix.slice(0, -1) : null;
  function place(position) {
    var rest = R.where[position];
    if (oneFile !== null && /^\d+$/.test(rest)) return "line " + rest;
    if (oneFile !== null && /^\d+\]$/.test(rest)) return "item " + rest.slice(0, -1);
    return where(position);
  }
  function binOf(score) { return score >= 1 ? 10 : Math.max(0, Math.min(9, Math.floor(score * 10))); }

  var app = document.getElementById("app");
  var main = el("main");
  app.appendChild(main);

  // ---------------------------------------------------------------- header and summary
  var verdictClass = S.passed === true ? "passed" : S.passed === false ? "failed" : "none";
  var verdictText = S.passed === true ? "passed" : S.passed === false ? "FAILED" : "no gate";
  var gates = [];
  if (S.fail_under !== null && S.fail_under !== undefined) gates.push("fail-under " + S.fail_under);
  if (S.threshold !== null && S.threshold !== undefined) gates.push("threshold " + S.threshold);
  main.appendChild(el("h1", null, S.title || "matchevals report",
    el("span", { class: "verdict " + verdictClass, id: "verdict", text: verdictText + (gates.length ? " (" + gates.join(", ") + ")" : "") })));
  if (S.files && S.files.length) main.appendChild(el("div", { class: "muted mono", text: S.files.join("  vs  ") }));
  (S.warnings || []).forEach(function (text) { main.appendChild(el("div", { class: "warning", text: "Warning: " + text })); });
  if (S.failed_because && S.failed_because.length) {
    var reasons = el("ul", { class: "reasons", id: "failed-because" });
    S.failed_because.forEach(function (text) { reasons.appendChild(el("li", { text: text })); });
    main.appendChild(reasons);
  }
  function card(label, value, id) {
    return el("div", { class: "card" }, el("div", { class: "value", id: id, text: value }), el("div", { class: "label", text: label }));
  }
  var cards = el("div", { class: "cards" },
    card("examples scored", String(S.examples_scored), "count-scored"),
    card("invalid", String(S.invalid), "count-invalid"),
    card("mean score", S.mean_score_text || fmt(S.mean_score), "mean-score"));
  if (S.threshold !== null && S.threshold !== undefined) cards.appendChild(card("below threshold " + S.threshold, String(S.below_threshold || 0), "count-below-threshold"));
  cards.appendChild(card("with details", String(Object.keys(data.details).length), "count-details"));
  main.appendChild(cards);

  // ---------------------------------------------------------------- histogram
  var bins = new Array(11).fill(0);
  for (var b = 0; b < N; b++) bins[binOf(R.score[b])] += 1;
  var charts = el("div", { class: "charts" });
  main.appendChild(charts);
  var histogramBox = el("div", null, el("h2", { text: "Scores of the examples" }));
  charts.appendChild(histogramBox);
  var width = 460, height = 190, left = 34, bottom = 34, top = 14;
  var chart = svg("svg", { viewBox: "0 0 " + width + " " + height, width: "100%", role: "img", id: "histogram" });
  var most = Math.max.apply(null, bins.concat([1]));
  var slot = (width - left - 6) / 11;
  var labels = ["0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1"];
  bins.forEach(function (count, index) {
    var h = (height - bottom - top) * count / most;
    var x = left + index * slot + 2;
    var rect = svg("rect", { x: x, y: height - bottom - h, width: slot - 4, height: Math.max(h, count ? 1 : 0), class: "bar" + (index === 10 ? " perfect" : ""), "data-bin": index, "data-count": count });
    var title = svg("title", {});
    title.textContent = (index === 10 ? "score 1" : "score " + (index / 10) + " to " + ((index + 1) / 10)) + ": " + count + " examples";
    rect.appendChild(title);
    rect.addEventListener("click", function () { state.bin = state.bin === index ? null : index; state.page = 0; refresh(); });
    chart.appendChild(rect);
    var label = svg("text", { x: x + (slot - 4) / 2, y: height - bottom + 14, "text-anchor": "middle" });
    label.textContent = labels[index];
    chart.appendChild(label);
    if (count) {
      var countLabel = svg("text", { x: x + (slot - 4) / 2, y: height - bottom - h - 3, "text-anchor": "middle" });
      countLabel.textContent = String(count);
      chart.appendChild(countLabel);
    }
  });
  var axis = svg("text", { x: left + (width - left) / 2, y: height - 4, "text-anchor": "middle" });
  axis.textContent = "example score (the last bar: exactly 1)";
  chart.appendChild(axis);
  histogramBox.appendChild(chart);

  // ---------------------------------------------------------------- per key and per superstep
  function keyTable(rows, id, withUnchecked) {
    var table = el("table", { class: "keys", id: id });
    var head = el("tr", null, el("th", { text: "key" }), el("th", { text: "" }), el("th", { class: "num", text: "mean" }), el("th", { class: "num", text: "count" }));
    if (withUnchecked) head.appendChild(el("th", { class: "num", text: "unchecked" }));
    table.appendChild(head);
    rows.forEach(function (row) {
      var meter = el("div", { class: "meter" + (row.mean !== null && row.mean < 0.5 ? " low" : "") }, el("span", { style: "width:" + (row.mean === null ? 0 : row.mean * 100) + "%" }));
      var tr = el("tr", { "data-key": row.key }, el("td", { class: "key", text: row.key }), el("td", null, meter), el("td", { class: "num", text: row.mean_text || fmt(row.mean) }), el("td", { class: "num", text: String(row.count) }));
      if (withUnchecked) tr.appendChild(el("td", { class: "num", text: String(row.unchecked) }));
      table.appendChild(tr);
    });
    return table;
  }
  var plainKeys = data.keys.filter(function (row) { return !row.superstep; });
  var supersteps = data.keys.filter(function (row) { return row.superstep; });
  var keysBox = el("div", null, el("h2", { text: "Mean score per key" }));
  keysBox.appendChild(plainKeys.length ? keyTable(plainKeys, "keys", false) : el("p", { class: "muted", text: "Nothing was scored." }));
  charts.appendChild(keysBox);
  if (supersteps.length) {
    main.appendChild(el("h2", { text: "Mean per superstep position" }));
    main.appendChild(el("p", { class: "muted", text: "A superstep after a run left its reference pattern is unchecked: counted apart, not averaged as 0." }));
    main.appendChild(keyTable(supersteps, "supersteps", true));
  }

  // ---------------------------------------------------------------- examples table
  var state = { text: "", failing: false, bin: null, sort: "score", dir: 1, page: 0, selected: null };
  main.appendChild(el("h2", { text: "Examples" }));
  if (oneFile !== null) main.appendChild(el("div", { class: "muted mono", id: "examples-file", text: "of " + oneFile }));
  var search = el("input", { type: "search", id: "filter", placeholder: "filter by id, file:line or why…", "aria-label": "filter examples" });
  var failing = el("input", { type: "checkbox", id: "only-failing" });
  var binChip = el("span", { class: "chip", id: "bin-filter", style: "display:none", title: "click to clear" });
  var matchCount = el("span", { id: "match-count", class: "muted" });
  main.appendChild(el("div", { class: "controls" }, search, el("label", null, failing, " only examples below 1"), binChip, matchCount));
  var timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state.text = search.value.trim().toLowerCase(); state.page = 0; refresh(); }, 120);
  });
  failing.addEventListener("change", function () { state.failing = failing.checked; state.page = 0; refresh(); });
  binChip.addEventListener("click", function () { state.bin = null; state.page = 0; refresh(); });

  var showId = S.id_key !== null && S.id_key !== undefined;
  var columns = [["index", "#", "6%"]];
  if (showId) columns.push(["id", S.id_key, "14%"]);
  columns.push(["where", "example", showId ? "22%" : "28%"], ["score", "score", "9%"], ["why", "why", showId ? "49%" : "57%"]);
  var table = el("table", { class: "examples", id: "examples" });
  var headRow = el("tr");
  columns.forEach(function (column) {
    headRow.appendChild(el("th", { "data-sort": column[0], style: "width:" + column[2], text: column[1], onclick: function () {
      if (state.sort === column[0]) state.dir = -state.dir; else { state.sort = column[0]; state.dir = 1; }
      state.page = 0; refresh();
    } }));
  });
  table.appendChild(el("thead", null, headRow));
  var body = el("tbody");
  table.appendChild(body);
  main.appendChild(table);
  var pager = el("div", { class: "pager" });
  main.appendChild(pager);
  var detailBox = el("section", { id: "detail" });
  main.appendChild(detailBox);

  function matches(position) {
    if (state.failing && !(R.score[position] < 1)) return false;
    if (state.bin !== null && binOf(R.score[position]) !== state.bin) return false;
    if (state.text) {
      var haystack = (String(R.id[position]) + "\u0000" + where(position) + "\u0000" + why(position)).toLowerCase();
      if (haystack.indexOf(state.text) < 0) return false;
    }
    return true;
  }
  function compare(a, b) {
    var left, right;
    if (state.sort === "score") { left = R.score[a]; right = R.score[b]; }
    else if (state.sort === "index") { left = R.index[a]; right = R.index[b]; }
    else if (state.sort === "id") { left = R.id[a]; right = R.id[b]; }
    else if (state.sort === "why") { left = why(a); right = why(b); }
    else { left = a; right = b; }
    if (left < right) return -state.dir;
    if (left > right) return state.dir;
    return R.index[a] - R.index[b];
  }
  function refresh() {
    var shown = [];
    for (var i = 0; i < N; i++) if (matches(i)) shown.push(i);
    shown.sort(compare);
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    body.textContent = "";
    shown.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (position) {
      var index = R.index[position];
      var score = R.score[position];
      var tr = el("tr", { class: "example" + (state.selected === index ? " selected" : ""), "data-index": index, "data-score": score, onclick: function () { select(index, true); } });
      tr.appendChild(el("td", { class: "num", text: String(index) }));
      if (showId) tr.appendChild(el("td", { class: "mono", text: String(R.id[position]), title: String(R.id[position]) }));
      tr.appendChild(el("td", { class: "where", text: place(position), title: where(position) }));
      tr.appendChild(el("td", { class: "num score" + (score >= 1 ? " perfect" : score < 0.5 ? " low" : ""), text: fmt(score) }));
      tr.appendChild(el("td", { text: why(position), title: why(position) }));
      body.appendChild(tr);
    });
    matchCount.textContent = shown.length === N ? N + " examples" : shown.length + " of " + N + " examples";
    matchCount.setAttribute("data-count", String(shown.length));
    Array.prototype.forEach.call(headRow.children, function (th) {
      th.className = th.getAttribute("data-sort") === state.sort ? (state.dir > 0 ? "sorted-asc" : "sorted-desc") : "";
    });
    Array.prototype.forEach.call(chart.querySelectorAll("rect.bar"), function (rect) {
      rect.classList.toggle("active", Number(rect.getAttribute("data-bin")) === state.bin);
    });
    binChip.style.display = state.bin === null ? "none" : "";
    binChip.textContent = state.bin === null ? "" : (state.bin === 10 ? "score 1" : "score " + state.bin / 10 + "–" + (state.bin + 1) / 10) + " ✕";
    pager.textContent = "";
    var previous = el("button", { id: "page-previous", text: "‹ previous", onclick: function () { state.page -= 1; refresh(); } });
    previous.disabled = state.page === 0;
    var next = el("button", { id: "page-next", text: "next ›", onclick: function () { state.page += 1; refresh(); } });
    next.disabled = state.page >= pages - 1;
    pager.appendChild(previous);
    pager.appendChild(el("span", { id: "page-info", text: "page " + (state.page + 1) + " of " + pages }));
    pager.appendChild(next);
  }

  // ---------------------------------------------------------------- one example

  function select(index, scroll) {
    state.selected = index;
    Array.prototype.forEach.call(body.querySelectorAll("tr.example"), function (tr) {
      tr.classList.toggle("selected", Number(tr.getAttribute("data-index")) === index);
    });
    detailBox.textContent = "";
    var position = byIndex[index];
    if (position === undefined) return;
    var detail = data.details[String(index)];
    detailBox.setAttribute("data-index", String(index));
    detailBox.appendChild(el("h2", { text: "Example " + index }));
    var head = el("div", { class: "detail-head" },
      el("div", null, el("b", { text: "score " + fmt(R.score[position]) }), "  ·  ", el("span", { class: "mono", text: where(position) }), showId ? "  ·  " + S.id_key + " " + R.id[position] : ""));
    detailBox.appendChild(head);
    if (!detail) {
      head.appendChild(el("p", { class: "muted", id: "no-detail", text: "The page holds the full details of the " + data.details_limit + " lowest-scoring examples only (--html-details); this one is not among them." }));
      if (why(position)) head.appendChild(el("p", { text: why(position) }));
      return;
    }
    detailBox.appendChild(el("h3", { text: "Results" }));
    detailBox.appendChild(resultsTable(detail.results, "results"));
    var expectedMarks = {}, actualMarks = {};
    detail.differences.forEach(function (d) {
      if (d.at_expected) expectedMarks[pathKey(d.at_expected)] = true;
      if (d.at_actual) actualMarks[pathKey(d.at_actual)] = true;
    });
    if (detail.swimlanes.length) {
      detailBox.appendChild(el("h3", { text: "Supersteps (reference above, run below)" }));
      detail.swimlanes.forEach(function (lane) { detailBox.appendChild(swimlane(lane)); });
    }
    var sides = null;
    if (detail.outputs !== undefined && detail.omitted === null) {
      sides = el("div", { class: "sides" },
        el("div", { class: "side", id: "side-expected" }, el("h4", { text: "expected (reference_outputs)" }), renderJson(detail.reference_outputs, expectedMarks, NODE_LIMIT)),
        el("div", { class: "side", id: "side-actual" }, el("h4", { text: "actual (outputs)" }), renderJson(detail.outputs, actualMarks, NODE_LIMIT)));
    }
    if (detail.differences.length) {
      detailBox.appendChild(el("h3", { text: "Differences" }));
      detailBox.appendChild(differencesTable(detail.differences, "differences", flash));
    }
    if (sides) {
      detailBox.appendChild(el("h3", { text: "Side by side (differing paths highlighted)" }));
      detailBox.appendChild(sides);
    } else if (detail.omitted) {
      detailBox.appendChild(el("p", { class: "muted", id: "omitted", text: "Values not shown: " + detail.omitted + "." }));
    }
    if (scroll) detailBox.scrollIntoView({ block: "start" });
  }

  function flash(difference) {
    [["side-expected", difference.at_expected], ["side-actual", difference.at_actual]].forEach(function (pair) {
      if (!pair[1]) return;
      var side = document.getElementById(pair[0]);
      if (!side) return;
      var key = pathKey(pair[1]);
      Array.prototype.forEach.call(side.querySelectorAll(".node"), function (node) {
        var hit = node.getAttribute("data-path") === key;
        node.classList.toggle("flash", hit);
        if (hit) node.scrollIntoView({ block: "center" });
      });
    });
  }

  // ---------------------------------------------------------------- invalid input
  if (data.problems.length) {
    main.appendChild(el("h2", { text: "Invalid input (" + data.problems_total + ")" }));
    var list = el("ul", { class: "problems", id: "problems" });
    data.problems.forEach(function (problem) { list.appendChild(el("li", { text: problem.where + ": " + problem.message })); });
    main.appendChild(list);
    if (data.problems_total > data.problems.length) main.appendChild(el("p", { class: "muted", text: "… and " + (data.problems_total - data.problems.length) + " more." }));
  }
  main.appendChild(el("footer", { text: "matchevals report · " + N + " examples, every score embedded; full details for the " + Object.keys(data.details).length + " lowest-scoring (--html-details " + data.details_limit + ")." }));

  refresh();
  var fromHash = /^#example-(\d+)$/.exec(location.hash);
  if (fromHash && byIndex[Number(fromHash[1])] !== undefined) select(Number(fromHash[1]), true);
  else if (N) {
    var worst = 0;
    for (var w = 1; w < N; w++) if (R.score[w] < R.score[worst]) worst = w;
    select(R.index[worst], false);
  }
  document.documentElement.setAttribute("data-ready", "true");
})();
