"use strict";
// What every matchevals page draws with: DOM and SVG elements, scores as the reports write
// them, JSON paths, a JSON value with its differing paths highlighted, and a graph run's
// superstep swimlane. Loaded before the page's own script (report.js, compare.js).

function el(tag, attrs) {
  var node = document.createElement(tag);
  if (attrs) {
    for (var name in attrs) {
      if (!Object.prototype.hasOwnProperty.call(attrs, name)) continue;
      var value = attrs[name];
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = String(value);
      else if (name === "class") node.className = value;
      else if (name === "style") node.setAttribute("style", value);
      else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (var i = 2; i < arguments.length; i++) {
    var child = arguments[i];
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function fmt(value) {
  if (value === null || value === undefined || (typeof value === "number" && isNaN(value))) return "—";
  if (typeof value === "boolean") return value ? "1" : "0";
  return String(Number(Number(value).toPrecision(4)));
}

function pathKey(tokens) { return JSON.stringify(tokens); }

function pathText(tokens) {
  if (!tokens || !tokens.length) return "(the whole value)";
  var out = "";
  tokens.forEach(function (token) {
    if (typeof token === "number") out += "[" + token + "]";
    else if (token && !/[.\[\]*"\s]/.test(token)) out += (out ? "." : "") + token;
    else out += "[" + JSON.stringify(token) + "]";
  });
  return out;
}

var svgNS = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  var node = document.createElementNS(svgNS, tag);
  for (var name in attrs) if (Object.prototype.hasOwnProperty.call(attrs, name)) node.setAttribute(name, attrs[name]);
  return node;
}

function renderJson(value, highlights, limit) {
  var root = el("div", { class: "json" });
  var budget = { left: limit };
  function scalar(v) {
    if (v === null) return el("span", { class: "z", text: "null" });
    if (typeof v === "string") return el("span", { class: "s", text: JSON.stringify(v) });
    if (typeof v === "number") return el("span", { class: "n", text: String(v) });
    if (typeof v === "boolean") return el("span", { class: "b", text: String(v) });
    return el("span", { text: JSON.stringify(v) });
  }
  function inlineable(v) {
    if (v === null || typeof v !== "object") return false;
    var keys = Object.keys(v);
    if (!keys.length) return false;
    for (var i = 0; i < keys.length; i++) {
      var item = v[keys[i]];
      if (item !== null && typeof item === "object") return false;
    }
    return JSON.stringify(v).length <= 64;
  }
  function walk(v, path, label, depth, last, parent) {
    if (budget.left <= 0) return;
    budget.left -= 1;
    var node = el("div", { class: "node", "data-path": pathKey(path) });
    if (highlights[pathKey(path)]) node.classList.add("diff");
    var prefix = label === null ? null : el("span", { class: "k", text: label + ": " });
    var comma = last ? "" : ",";
    var isArray = Array.isArray(v);
    if (inlineable(v)) {  // a short list or object of plain values: one line, items marked
      var line = el("div", { class: "line", style: "--depth:" + depth }, prefix, isArray ? "[" : "{");
      var keys = Object.keys(v);
      keys.forEach(function (key, position) {
        var itemPath = path.concat([isArray ? Number(key) : key]);
        var item = el("span", { class: "node leaf", "data-path": pathKey(itemPath) },
          isArray ? null : el("span", { class: "k", text: JSON.stringify(key) + ": " }), scalar(v[key]));
        if (highlights[pathKey(itemPath)]) item.classList.add("diff");
        line.appendChild(item);
        if (position < keys.length - 1) line.appendChild(document.createTextNode(", "));
      });
      line.appendChild(document.createTextNode((isArray ? "]" : "}") + comma));
      node.appendChild(line);
      budget.left -= keys.length;
    } else if (v !== null && typeof v === "object" && (isArray ? v.length : Object.keys(v).length)) {
      node.appendChild(el("div", { class: "line", style: "--depth:" + depth }, prefix, isArray ? "[" : "{"));
      var keys = isArray ? v.map(function (_, i) { return i; }) : Object.keys(v);
      keys.forEach(function (key, position) {
        walk(v[key], path.concat([key]), isArray ? null : JSON.stringify(key), depth + 1, position === keys.length - 1, node);
      });
      if (budget.left <= 0 && !node.lastChild.classList.contains("more")) {
        node.appendChild(el("div", { class: "line muted more", style: "--depth:" + (depth + 1), text: "… (more not shown)" }));
      }
      node.appendChild(el("div", { class: "line", style: "--depth:" + depth }, isArray ? "]" : "}", comma));
    } else {
      node.classList.add("leaf");
      var shown = v !== null && typeof v === "object" ? el("span", { text: isArray ? "[]" : "{}" }) : scalar(v);
      node.appendChild(el("div", { class: "line", style: "--depth:" + depth }, prefix, shown, comma));
      node.classList.add("leaf");
    }
    parent.appendChild(node);
  }
  walk(value, [], null, 0, true, root);
  return root;
}

function swimlane(lane) {
  var box = el("div", { class: "lane", "data-run": lane.run, "data-key": lane.key });
  var state = lane.match ? "matched its reference" : lane.divergence !== null && lane.divergence !== undefined ? "first diverged at superstep " + lane.divergence : "did not match";
  box.appendChild(el("h3", { text: "run " + lane.run + " (" + lane.key + "): " + state + (lane.score !== null && lane.score !== undefined ? ", score " + fmt(lane.score) : "") }));
  if (!lane.values) box.appendChild(el("p", { class: "muted", text: "Only the verdicts are known (the run and reference values were not given)." }));
  var grid = el("table");
  var markers = el("tr", null, el("th"));
  var header = el("tr", null, el("th", { text: "superstep" }));
  var reference = el("tr", { class: "reference" }, el("th", { text: "reference" }));
  var run = el("tr", { class: "run" }, el("th", { text: "run" }));
  lane.columns.forEach(function (column) {
    markers.appendChild(el("td", { style: "border:none;padding:0", class: column.first_divergence ? "marker-cell" : null }, column.first_divergence ? el("span", { class: "marker", text: "▼ first divergence" }) : null));
    header.appendChild(el("th", { text: String(column.superstep) }));
    var cls = (column.verdict || "none") + (column.first_divergence ? " divergence" : "");
    var expected = el("td", { class: cls, "data-superstep": column.superstep, "data-verdict": column.verdict || "" });
    if (column.nodes) column.nodes.forEach(function (name) { expected.appendChild(el("span", { class: "node-chip", text: name })); });
    else expected.appendChild(el("span", { class: "mono", text: column.expected === null ? "?" : column.expected }));
    if (column.mode) expected.appendChild(el("span", { class: "mode", text: column.mode }));
    reference.appendChild(expected);
    var actual = el("td", { class: cls, "data-superstep": column.superstep, "data-verdict": column.verdict || "" });
    if (column.actual) column.actual.forEach(function (name) { actual.appendChild(el("span", { class: "node-chip", text: name })); });
    else actual.appendChild(el("span", { class: "muted", text: lane.values ? "—" : "?" }));
    actual.appendChild(el("span", { class: "mode", text: column.verdict || "" }));
    run.appendChild(actual);
  });
  grid.appendChild(markers);
  grid.appendChild(header);
  grid.appendChild(reference);
  grid.appendChild(run);
  box.appendChild(grid);
  return box;
}

// An example's results: key, score, comment.
function resultsTable(results, id) {
  var table = el("table", { class: "plain results", id: id }, el("tr", null, el("th", { text: "key" }), el("th", { text: "score" }), el("th", { text: "comment" })));
  results.forEach(function (result) {
    table.appendChild(el("tr", null, el("td", { class: "mono", text: String(result.key) }), el("td", { class: "num", text: fmt(result.score) }), el("td", { text: result.comment || "" })));
  });
  return table;
}

// An example's differences, each located on both sides; onRow(difference) when one is clicked.
function differencesTable(differences, id, onRow) {
  var table = el("table", { class: "plain differences", id: id }, el("tr", null,
    el("th", { text: "key" }), el("th", { text: "path in reference_outputs" }), el("th", { text: "path in outputs" }), el("th", { text: "expected" }), el("th", { text: "actual" }), el("th", { text: "kind" })));
  differences.forEach(function (d) {
    table.appendChild(el("tr", { class: "difference", onclick: onRow ? function () { onRow(d); } : null },
      el("td", { class: "mono", text: d.key }),
      el("td", { class: "mono", text: d.at_expected ? pathText(d.at_expected) : "—" }),
      el("td", { class: "mono", text: d.at_actual ? pathText(d.at_actual) : "—" }),
      el("td", { class: "mono", text: d.expected }),
      el("td", { class: "mono", text: d.actual }),
      el("td", null, el("span", { class: "kind", text: d.kind }))));
  });
  return table;
}
