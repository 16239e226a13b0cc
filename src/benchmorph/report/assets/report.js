// benchmorph report: sortable tables, problem search, and the per-problem drill-down.
(function () {
  "use strict";
  var details = JSON.parse(document.getElementById("report-details").textContent);
  var byId = {};
  details.forEach(function (d) { byId[d.key || d.id] = d; });

  function sortTable(table, column, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var ascending = !th.classList.contains("sorted-asc");
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
    th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
    var keyed = rows.map(function (row) {
      var raw = row.cells[column].getAttribute("data-sort");
      var number = parseFloat(raw);
      return { row: row, key: raw === "-inf" ? -Infinity : (isNaN(number) ? raw : number) };
    });
    keyed.sort(function (a, b) {
      var x = a.key, y = b.key, order;
      if (typeof x === "number" && typeof y === "number") { order = x - y; }
      else { order = String(x).localeCompare(String(y), undefined, { numeric: true }); }
      return ascending ? order : -order;
    });
    var fragment = document.createDocumentFragment();
    keyed.forEach(function (k) { fragment.appendChild(k.row); });
    body.appendChild(fragment);
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.addEventListener("click", function () { sortTable(table, column, th); });
    });
  });

  var search = document.getElementById("problem-search");
  var problemTable = document.getElementById("table-problems");
  function filterProblems() {
    if (!problemTable) { return; }
    var query = search.value.trim().toLowerCase();
    var shown = 0;
    Array.prototype.forEach.call(problemTable.tBodies[0].rows, function (row) {
      var match = !query || row.getAttribute("data-id").toLowerCase().indexOf(query) !== -1;
      row.hidden = !match;
      if (match) { shown += 1; }
    });
    document.getElementById("problem-count").textContent = shown + " of " + problemTable.tBodies[0].rows.length + " problems";
  }
  if (search) { search.addEventListener("input", filterProblems); filterProblems(); }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function marked(target, runs, changedClass) {
    target.textContent = "";
    runs.forEach(function (run) {
      target.appendChild(run[1] ? el("mark", changedClass, run[0]) : document.createTextNode(run[0]));
    });
  }

  function attemptBox(side, attempt) {
    var box = el("div", "side");
    var heading = el("h5", null, side + " ");
    heading.appendChild(el("span", "status " + (attempt ? attempt.status : "none"), attempt ? attempt.status : "not run"));
    box.appendChild(heading);
    if (attempt) {
      if (attempt.failure) { box.appendChild(el("div", "failure", attempt.failure)); }
      box.appendChild(el("pre", "code", attempt.code || "(no code)"));
      if (attempt.raw) {
        var raw = el("details", "raw");
        raw.appendChild(el("summary", null, "the model's answer before sanitizing"));
        raw.appendChild(el("pre", "raw-answer", attempt.raw));
        box.appendChild(raw);
      }
    }
    return box;
  }

  function showProblem(id) {
    var detail = byId[id];
    var panel = document.getElementById("drilldown");
    if (!detail) { return; }
    panel.hidden = false;
    panel.setAttribute("data-shown", id);
    document.getElementById("detail-title").textContent = id;
    document.getElementById("detail-parent").textContent = detail.parent_id ? "(" + detail.parent_id + ")" : "";
    document.getElementById("detail-meta").textContent = "family: " + detail.family +
      (detail.parent_id ? " · changed words are highlighted" : " · no variant: original problem only");
    marked(document.getElementById("detail-original"), detail.original_marked, "del");
    marked(document.getElementById("detail-variant"), detail.variant_marked, "ins");
    var attempts = document.getElementById("detail-attempts");
    attempts.textContent = "";
    Object.keys(detail.attempts).forEach(function (model) {
      var box = el("div", "attempt");
      box.setAttribute("data-model", model);
      box.appendChild(el("h4", null, model));
      var sides = el("div", "sides");
      sides.appendChild(attemptBox("original", detail.attempts[model].original));
      if (detail.parent_id) { sides.appendChild(attemptBox("variant", detail.attempts[model].variant)); }
      box.appendChild(sides);
      attempts.appendChild(box);
    });
    panel.scrollIntoView({ block: "start" });
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.open-problem") : null;
    if (link) { event.preventDefault(); history.replaceState(null, "", "#problem=" + encodeURIComponent(link.getAttribute("data-id"))); showProblem(link.getAttribute("data-id")); }
  });
  var fromHash = /^#problem=(.*)$/.exec(location.hash);
  if (fromHash) { showProblem(decodeURIComponent(fromHash[1])); }
  document.body.setAttribute("data-ready", "1");
})();
