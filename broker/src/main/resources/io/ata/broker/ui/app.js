// The broker's live page: polls the JSON queries and redraws. No framework, no build step.
// The JSON API (/jobs, /jobs/{job}/stats, /jobs/{job}/history) is the source of truth; this page
// only shows it. Charts are plain SVG drawn below.
"use strict";

const POLL_MS = 1500;
const SVG = "http://www.w3.org/2000/svg";
const COLORS = { round: "#1f6fd1", busy: "#e07b00", wasted: "#c0392b" };

let selectedJob = decodeURIComponent(location.hash.replace(/^#job=/, "")) || null;

async function getJson(path) {
  const response = await fetch(path, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) {
    throw new Error(path + ": " + response.status + " " + (body.error || ""));
  }
  return body;
}

// ---- formatting -------------------------------------------------------------------------------

/** A number as the tables show it: two decimals, or a dash when absent. */
function ms(value) {
  return value === undefined || value === null ? "–" : value.toFixed(2);
}

function cell(row, text, field, value) {
  const td = row.insertCell();
  td.textContent = text;
  if (field) {
    td.dataset.field = field;
  }
  if (value !== undefined) {
    td.dataset.value = String(value);
  }
  return td;
}

// ---- jobs list --------------------------------------------------------------------------------

function showJobs(jobs) {
  const body = document.querySelector("#jobs tbody");
  body.replaceChildren();
  document.getElementById("no-jobs").hidden = jobs.length > 0;
  if (!selectedJob && jobs.length > 0) {
    selectedJob = jobs[0].job;
  }
  for (const j of jobs) {
    const row = body.insertRow();
    row.dataset.job = j.job;
    row.classList.toggle("selected", j.job === selectedJob);
    cell(row, j.job, "job");
    cell(row, j.policy, "policy");
    cell(row, j.batch, "batch");
    cell(row, j.workers, "workers");
    cell(row, j.last_opened_round, "last_opened_round");
    cell(row, j.last_closed_round, "last_closed_round");
    row.addEventListener("click", () => {
      selectedJob = j.job;
      location.hash = "job=" + encodeURIComponent(j.job);
      refresh();
    });
  }
}

// ---- one job ----------------------------------------------------------------------------------

function showStats(stats) {
  document.getElementById("job").hidden = false;
  document.getElementById("job-name").textContent = stats.job;
  document.getElementById("job-policy").textContent = "(" + stats.policy + ")";
  const round = document.getElementById("job-round");
  round.textContent = stats.last_closed_round;
  round.dataset.value = String(stats.last_closed_round);

  const body = document.querySelector("#workers tbody");
  body.replaceChildren();
  for (const w of stats.workers) {
    const row = body.insertRow();
    row.dataset.worker = w.worker;
    cell(row, w.worker, "worker");
    cell(row, w.status ? (w.active ? w.status : w.status + " (inactive)") : "unknown", "status")
      .classList.toggle("inactive", !w.active);
    const device = w.device ? w.device + (w.device_name ? " · " + w.device_name : "") : "–";
    cell(row, device, "device");
    cell(row, String(w.tasks), "tasks", w.tasks);
    cell(row, ms(w.mean_ms), "mean_ms", w.mean_ms);
    cell(row, ms(w.lower_bound_ms), "lower_bound_ms", w.lower_bound_ms);
    cell(row, String(w.tasks_this_round), "tasks_this_round", w.tasks_this_round);
  }
}

function showHistory(history) {
  document.getElementById("history-capacity").textContent = history.capacity;
  drawAllocation(document.getElementById("allocation"), history);
  const closed = history.rounds.filter(r => r.closed);
  drawLines(document.getElementById("times"), [
    { name: "round time", color: COLORS.round, points: closed.map(r => [r.round, r.round_time_ms]) },
    { name: "busy time", color: COLORS.busy, points: closed.map(r => [r.round, r.busy_ms]) },
  ]);
  drawLines(document.getElementById("wasted"), [
    { name: "wasted", color: COLORS.wasted, points: closed.map(r => [r.round, r.wasted_ms]) },
  ]);
  const total = closed.reduce((sum, r) => sum + r.wasted_ms, 0);
  document.getElementById("wasted-total").textContent = total.toFixed(1);
}

// ---- charts -----------------------------------------------------------------------------------

function el(parent, name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) {
    node.setAttribute(key, value);
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  parent.appendChild(node);
  return node;
}

/** The colour of a cell with one task, and with the most tasks any cell holds (as in allocation.png). */
const ONE_TASK = [120, 175, 220];
const MOST_TASKS = [8, 48, 107];

/**
 * The colour of a cell given {@code tasks} that round, on a scale up to {@code max} tasks: white for
 * none, then from a mid blue for one task, which stands out from an idle worker's white, to dark
 * blue for {@code max}, in steps of the count's logarithm (1 to 3 tasks differ more than 8 and 9).
 * The legend uses the same function.
 */
function allocationShade(tasks, max) {
  if (tasks <= 0) {
    return "rgb(255, 255, 255)";
  }
  const t = max <= 1 ? 0.5 : Math.log(tasks) / Math.log(max);
  const [r, g, b] = ONE_TASK.map((from, i) => Math.round(from + t * (MOST_TASKS[i] - from)));
  return `rgb(${r}, ${g}, ${b})`;
}

/**
 * Workers (rows) × rounds (columns), each cell shaded by the tasks that worker got that round, and
 * under it the colour legend: one swatch for each task count from 0 to the most any cell holds.
 */
function drawAllocation(svg, history) {
  svg.replaceChildren();
  const left = 90, top = 8, bottom = 52;
  const width = svg.width.baseVal.value - left - 8;
  const height = svg.height.baseVal.value - top - bottom;
  const rounds = history.rounds;
  if (rounds.length === 0 || history.workers.length === 0) {
    el(svg, "text", { x: left, y: top + 20 }, "no round yet");
    return;
  }
  const max = Math.max(1, ...rounds.flatMap(r => r.tasks));
  const cw = width / rounds.length;
  const ch = height / history.workers.length;
  history.workers.forEach((worker, i) => {
    el(svg, "text", { x: left - 6, y: top + (i + 0.5) * ch + 4, "text-anchor": "end" }, worker);
  });
  rounds.forEach((r, c) => {
    r.tasks.forEach((tasks, i) => {
      const rect = el(svg, "rect", {
        x: left + c * cw, y: top + i * ch, width: Math.max(1, cw - 1), height: Math.max(1, ch - 1),
        fill: allocationShade(tasks, max),
        class: "cell", "data-round": r.round, "data-worker": history.workers[i], "data-tasks": tasks,
      });
      el(rect, "title", {}, `round ${r.round}, ${history.workers[i]}: ${tasks} tasks`);
    });
  });
  // round numbers under the first, middle and last column, kept inside the picture
  const marks = [...new Set([0, Math.floor((rounds.length - 1) / 2), rounds.length - 1])];
  for (const c of marks) {
    const anchor = c === 0 ? "start" : c === rounds.length - 1 ? "end" : "middle";
    const x = anchor === "start" ? left + c * cw : anchor === "end" ? left + (c + 1) * cw : left + (c + 0.5) * cw;
    el(svg, "text", { x: x, y: top + height + 16, "text-anchor": anchor }, "round " + rounds[c].round);
  }
  drawAllocationLegend(svg, left, top + height + 26, width, max);
}

/**
 * The allocation picture's colour legend at (x, y), at most {@code width} wide: a labelled swatch
 * per task count 0..max.
 */
function drawAllocationLegend(svg, x, y, width, max) {
  const legend = el(svg, "g", { id: "allocation-legend", "data-max": max });
  el(legend, "text", { x: x - 6, y: y + 11, "text-anchor": "end" }, "tasks:");
  const gap = Math.min(26, width / (max + 1)); // a swatch and its number per step
  const size = Math.min(14, gap * 0.55);
  for (let n = 0; n <= max; n++) {
    const sx = x + n * gap;
    el(legend, "rect", {
      x: sx, y: y, width: size, height: size, fill: allocationShade(n, max),
      stroke: "#999", "stroke-width": 0.5, class: "swatch", "data-tasks": n,
    });
    el(legend, "text", { x: sx + size + 2, y: y + 11 }, String(n));
  }
}

/** "Nice" tick values covering [0, max]: steps of 1, 2 or 5 times a power of ten. */
function ticks(max, count) {
  const raw = max / count;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(f => f * power).find(s => s >= raw);
  const out = [0];
  while (out[out.length - 1] < max) { // the last tick at or above max: every point inside the chart
    out.push(out.length * step);
  }
  return out;
}

/** Lines over rounds, with a y axis from 0, ticks, and a legend. */
function drawLines(svg, series) {
  svg.replaceChildren();
  const left = 56, right = 110, top = 10, bottom = 26;
  const width = svg.width.baseVal.value - left - right;
  const height = svg.height.baseVal.value - top - bottom;
  const all = series.flatMap(s => s.points);
  if (all.length === 0) {
    el(svg, "text", { x: left, y: top + 20 }, "no closed round yet");
    return;
  }
  const xMin = Math.min(...all.map(p => p[0]));
  const xMax = Math.max(xMin + 1, ...all.map(p => p[0]));
  const yTicks = ticks(Math.max(1, ...all.map(p => p[1])), 4); // at least 0..1 ms: all zeros stay readable
  const yMax = yTicks[yTicks.length - 1];
  const x = v => left + (v - xMin) / (xMax - xMin) * width;
  const y = v => top + height - v / yMax * height;
  for (const t of yTicks) {
    el(svg, "line", { x1: left, x2: left + width, y1: y(t), y2: y(t), class: "grid" });
    el(svg, "text", { x: left - 6, y: y(t) + 4, "text-anchor": "end" }, formatTick(t));
  }
  el(svg, "line", { x1: left, x2: left, y1: top, y2: top + height, class: "axis" });
  el(svg, "line", { x1: left, x2: left + width, y1: top + height, y2: top + height, class: "axis" });
  el(svg, "text", { x: left, y: top + height + 18 }, "round " + xMin);
  el(svg, "text", { x: left + width, y: top + height + 18, "text-anchor": "end" }, "round " + xMax);
  series.forEach((s, k) => {
    const d = s.points.map((p, i) => (i === 0 ? "M" : "L") + x(p[0]).toFixed(1) + "," + y(p[1]).toFixed(1)).join(" ");
    el(svg, "path", { d: d, fill: "none", stroke: s.color, "stroke-width": 1.8 });
    for (const p of s.points) {
      el(svg, "circle", { cx: x(p[0]), cy: y(p[1]), r: 2.2, fill: s.color });
    }
    const ly = top + 12 + k * 16;
    el(svg, "line", { x1: left + width + 10, x2: left + width + 26, y1: ly - 4, y2: ly - 4, stroke: s.color, "stroke-width": 2 });
    el(svg, "text", { x: left + width + 30, y: ly }, s.name);
  });
}

function formatTick(v) {
  return v >= 1000 ? (v / 1000) + "k" : String(Math.round(v * 100) / 100);
}

// ---- polling ----------------------------------------------------------------------------------

async function refresh() {
  const status = document.getElementById("status");
  try {
    const jobs = await getJson("/jobs");
    showJobs(jobs);
    if (selectedJob && jobs.some(j => j.job === selectedJob)) {
      const job = encodeURIComponent(selectedJob);
      const [stats, history] = await Promise.all([
        getJson("/jobs/" + job + "/stats"),
        getJson("/jobs/" + job + "/history"),
      ]);
      showStats(stats);
      showHistory(history);
    }
    status.textContent = "updated " + new Date().toLocaleTimeString();
    status.classList.remove("error");
  } catch (e) {
    status.textContent = "cannot reach the broker's queries: " + e.message;
    status.classList.add("error");
  }
  document.body.dataset.refreshed = String(Date.now());
}

refresh();
setInterval(refresh, POLL_MS);
