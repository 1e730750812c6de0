extension DashboardAssets {
    /// The page's behaviour (docs/dashboard.md, "How the page works").
    static let script = #"""
"use strict";
// The iaa dashboard: one WebSocket to `iaa web`, which carries the engine's control protocol
// (one JSON document per message). The page follows the `events`, `top` and `meters` streams
// and asks for `status`, `dump` and `ports` when something changed.

const SVG = "http://www.w3.org/2000/svg";
const BOX_WIDTH = 210, COLUMN_GAP = 90, ROW_GAP = 26, PORT_STEP = 16, HEAD = 74;
const page = {
  socket: null, nextId: 1, pending: new Map(), status: null, dump: null, ports: [], top: new Map(),
  selected: null, shape: "", boxes: new Map(), refreshQueued: false, graphReady: false, engineTime: 0,
};

function $(id) { return document.getElementById(id); }
function element(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// MARK: the connection

function connect() {
  const socket = new WebSocket(`ws://${location.host}/ws`);
  page.socket = socket;
  socket.onopen = () => {
    setLink("open", "connected");
    for (const stream of ["events", "top", "meters"]) request(stream).catch(showRefusal);
    refresh();
  };
  socket.onmessage = (message) => receive(JSON.parse(message.data));
  socket.onclose = () => {
    setLink("closed", "engine not reachable; retrying");
    for (const waiting of page.pending.values()) waiting.reject({ code: "disconnected", message: "the engine went away" });
    page.pending.clear();
    setTimeout(connect, 1000);
  };
}

function setLink(state, text) {
  $("link").dataset.state = state;
  $("link").textContent = text;
}

/// Sends one request; resolves with its result, rejects with its error ({code, message, field}).
function request(method, params) {
  const id = page.nextId++;
  return new Promise((resolve, reject) => {
    if (!page.socket || page.socket.readyState !== WebSocket.OPEN) {
      reject({ code: "disconnected", message: "not connected to the engine" });
      return;
    }
    page.pending.set(id, { resolve, reject });
    page.socket.send(JSON.stringify(params ? { id, method, params } : { id, method }));
  });
}

function receive(line) {
  if (typeof line.t === "number") page.engineTime = line.t;
  if (line.id !== undefined && line.id !== null && page.pending.has(line.id)) {
    const waiting = page.pending.get(line.id);
    page.pending.delete(line.id);
    if (line.error) waiting.reject(line.error); else waiting.resolve(line.result);
  } else if (line.error) {
    showRefusal(line.error);
  } else if (line.meters) {
    showMeters(line.meters);
  } else if (Array.isArray(line.apps) && line.period !== undefined) {
    showTop(line);
  } else if (line.event || line.connection || line.xrun || line.transport || line.reload) {
    addToTimeline(line);
    queueRefresh();
  }
}

/// A refusal as `iaa` prints it: error[CODE]: MESSAGE (AVAudioSession's four-character code
/// leads the message of a session refusal).
function showRefusal(error) {
  const banner = $("refusal");
  banner.textContent = `error[${error.code}]: ${error.message}` + (error.field ? ` (field ${error.field})` : "");
  banner.hidden = false;
  banner.dataset.code = error.code;
  clearTimeout(showRefusal.timer);
  showRefusal.timer = setTimeout(() => { banner.hidden = true; }, 8000);
}

// MARK: what the engine is

function queueRefresh() {
  if (page.refreshQueued) return;
  page.refreshQueued = true;
  queueMicrotask(() => { page.refreshQueued = false; refresh(); });
}

async function refresh() {
  try {
    const [status, dump, ports] = await Promise.all([request("status"), request("dump"), request("ports")]);
    page.status = status; page.dump = dump; page.ports = ports;
    $("graph-name").textContent = status.graph;
    const jack = status.jack;
    $("jack").textContent = `${jack.server ?? "default"} · ${jack.sampleRate} Hz · ${jack.bufferSize} frames · `
      + `xruns ${jack.xruns} (ours ${jack.ourXruns}) · ${status.render.threads} thread${status.render.threads > 1 ? "s" : ""}`;
    drawGraph();
    showRules(status.rules);
    showPortNames(ports, dump);
    showSelected();
  } catch (error) {
    if (error.code !== "disconnected") showRefusal(error);
  }
}

/// Each app's state in `iaa top`'s words, from `status` (what keeps it from being heard first).
function appState(app) {
  if (app.link && app.link.state !== "running") return `link ${app.link.state}`;
  if (app.program && !app.program.running) return "not running";
  const isolation = app.isolation?.state;
  if (isolation === "starting" || isolation === "restarting" || isolation === "off") return `isolated ${isolation}`;
  const session = app.session;
  if (!session) return "running";
  if (session.interrupted) return "interrupted";
  if (session.suspended) return "suspended";
  if (session.ducked) return "ducked";
  if (session.audible) return "audible";
  return session.active ? "silent" : "inactive";
}

function decibels(gain) { return gain > 0 ? `${(20 * Math.log10(gain)).toFixed(1)} dB` : "−∞ dB"; }

// MARK: the graph

/// The apps, their ports and connections, and the outside JACK clients they are wired to.
function graphModel() {
  const apps = page.status.apps;
  const ids = new Set(apps.map((app) => app.id));
  const ports = new Map(apps.map((app) => [app.id, { inputs: new Set(), outputs: new Set() }]));
  const outside = new Map(); // client → {inputs: Set, outputs: Set}
  const edges = [];
  for (const connection of page.dump.connections) {
    const [from, fromPort] = split(connection.from), [to, toPort] = split(connection.to);
    if (!ids.has(from) || !ids.has(to)) continue;
    ports.get(from).outputs.add(fromPort); ports.get(to).inputs.add(toPort);
    edges.push({ from, fromPort, to, toPort, jack: false });
  }
  for (const port of page.ports) {
    if (!ids.has(port.app)) continue;
    const own = ports.get(port.app);
    (port.direction === "input" ? own.inputs : own.outputs).add(port.port);
    for (const other of port.connections) {
      const [client, otherPort] = split(other);
      if (!outside.has(client)) outside.set(client, { inputs: new Set(), outputs: new Set() });
      if (port.direction === "output") {
        outside.get(client).inputs.add(otherPort);
        edges.push({ from: port.app, fromPort: port.port, to: `@${client}`, toPort: otherPort, jack: true });
      } else {
        outside.get(client).outputs.add(otherPort);
        edges.push({ from: `@${client}`, fromPort: otherPort, to: port.app, toPort: port.port, jack: true });
      }
    }
  }
  return { apps, ports, outside, edges };
}

function split(name) {
  const colon = name.indexOf(":");
  return [name.slice(0, colon), name.slice(colon + 1)];
}

/// Columns by signal flow: an app's column is one past the furthest app feeding it; clients
/// outside the engine that feed it stand left of everything, those it feeds right.
function layout(model) {
  const column = new Map(model.apps.map((app) => [app.id, 0]));
  const internal = model.edges.filter((edge) => !edge.jack);
  for (let pass = 0; pass < model.apps.length; pass++) {
    let moved = false;
    for (const edge of internal) {
      if (edge.from === edge.to) continue;
      const wanted = column.get(edge.from) + 1;
      if (wanted > column.get(edge.to) && wanted < model.apps.length) { column.set(edge.to, wanted); moved = true; }
    }
    if (!moved) break;
  }
  const feedsIn = new Set(model.edges.filter((e) => e.jack && e.from.startsWith("@")).map((e) => e.from.slice(1)));
  const shift = feedsIn.size > 0 ? 1 : 0;
  const last = Math.max(0, ...column.values()) + shift + 1;
  const nodes = [];
  for (const app of model.apps) {
    const own = model.ports.get(app.id);
    nodes.push({ id: app.id, app, column: column.get(app.id) + shift, inputs: [...own.inputs].sort(), outputs: [...own.outputs].sort() });
  }
  for (const [client, own] of model.outside) {
    const feeds = own.outputs.size > 0 && own.inputs.size === 0;
    nodes.push({ id: `@${client}`, client, column: feeds ? 0 : last, inputs: [...own.inputs].sort(), outputs: [...own.outputs].sort() });
  }
  const rows = new Map();
  for (const node of nodes) {
    node.height = HEAD + Math.max(node.inputs.length, node.outputs.length, 1) * PORT_STEP + 8;
    if (node.client) node.height = 30 + Math.max(node.inputs.length, node.outputs.length, 1) * PORT_STEP;
    const y = rows.get(node.column) ?? 16;
    node.x = 16 + node.column * (BOX_WIDTH + COLUMN_GAP);
    node.y = y;
    rows.set(node.column, y + node.height + ROW_GAP);
  }
  const width = 32 + (Math.max(0, ...nodes.map((n) => n.column)) + 1) * (BOX_WIDTH + COLUMN_GAP);
  const height = Math.max(200, ...rows.values()) + 16;
  return { nodes, width, height };
}

function portPoint(node, port, output) {
  const list = output ? node.outputs : node.inputs;
  const index = Math.max(0, list.indexOf(port));
  const top = node.client ? 30 : HEAD;
  return { x: node.x + (output ? BOX_WIDTH : 0), y: node.y + top + index * PORT_STEP + 6 };
}

function drawGraph() {
  const model = graphModel();
  const shape = JSON.stringify([model.apps.map((a) => a.id), model.edges, [...model.outside.keys()]]);
  if (shape !== page.shape) {
    page.shape = shape;
    const svg = $("graph");
    svg.replaceChildren();
    page.boxes.clear();
    const { nodes, width, height } = layout(model);
    svg.setAttribute("width", width); svg.setAttribute("height", height);
    const byId = new Map(nodes.map((node) => [node.id, node]));
    const edgeLayer = element("g", { class: "edges" }, svg);
    for (const edge of model.edges) {
      const from = byId.get(edge.from), to = byId.get(edge.to);
      if (!from || !to) continue;
      const a = portPoint(from, edge.fromPort, true), b = portPoint(to, edge.toPort, false);
      const bend = Math.max(40, Math.abs(b.x - a.x) / 2);
      element("path", { class: edge.jack ? "edge jack" : "edge", "data-from": `${edge.from}:${edge.fromPort}`,
        "data-to": `${edge.to}:${edge.toPort}`, d: `M${a.x},${a.y} C${a.x + bend},${a.y} ${b.x - bend},${b.y} ${b.x},${b.y}` }, edgeLayer);
    }
    for (const node of nodes) drawNode(svg, node);
  }
  for (const app of model.apps) showApp(app);
  page.graphReady = true;
  document.body.dataset.graphReady = "true";
}

function drawNode(svg, node) {
  const group = element("g", { class: node.client ? "outside" : "app", transform: `translate(${node.x},${node.y})` }, svg);
  element("rect", { class: "box", width: BOX_WIDTH, height: node.height, rx: 6 }, group);
  const ports = element("g", {}, group);
  const top = node.client ? 30 : HEAD;
  node.inputs.forEach((port, index) => {
    element("circle", { class: "port", cx: 0, cy: top + index * PORT_STEP + 6, r: 4 }, ports);
    element("text", { class: "port-label", x: 8, y: top + index * PORT_STEP + 9 }, ports).textContent = port;
  });
  node.outputs.forEach((port, index) => {
    element("circle", { class: "port", cx: BOX_WIDTH, cy: top + index * PORT_STEP + 6, r: 4 }, ports);
    element("text", { class: "port-label", x: BOX_WIDTH - 8, y: top + index * PORT_STEP + 9, "text-anchor": "end" }, ports).textContent = port;
  });
  if (node.client) {
    group.dataset.client = node.client;
    element("text", { class: "title", x: 10, y: 19 }, group).textContent = node.client;
    return;
  }
  group.dataset.app = node.id;
  group.addEventListener("click", () => { page.selected = node.id; showSelected(); highlightSelected(); });
  const box = {
    group,
    title: element("text", { class: "title", x: 10, y: 18 }, group),
    sub: element("text", { class: "sub", x: 10, y: 33 }, group),
    state: element("text", { class: "state", x: 10, y: 48 }, group),
    cpu: element("text", { class: "cpu", x: BOX_WIDTH - 10, y: 18, "text-anchor": "end" }, group),
    fault: element("text", { class: "fault", x: 10, y: node.height - 6 }, group),
  };
  element("rect", { class: "meter-back", x: 10, y: 55, width: BOX_WIDTH - 20, height: 8, rx: 2 }, group);
  box.rms = element("rect", { class: "meter-rms", x: 10, y: 55, width: 0, height: 8, rx: 2 }, group);
  box.peak = element("rect", { class: "meter-peak", x: 10, y: 55, width: 2, height: 8 }, group);
  box.title.textContent = node.id;
  page.boxes.set(node.id, box);
  highlightSelected();
}

function highlightSelected() {
  for (const [id, box] of page.boxes) box.group.classList.toggle("selected", id === page.selected);
}

/// An app's box: its plugin, session, state (with the duck gain), CPU share and fault.
function showApp(app) {
  const box = page.boxes.get(app.id);
  if (!box) return;
  const state = appState(app);
  const session = app.session;
  if (box.group.dataset.state !== state) {
    // Ducking has no notification of its own (as on Apple's systems): the page tells it.
    if (box.group.dataset.state) {
      addToTimeline({ t: page.engineTime, state: { app: app.id, state, gain: session?.gain } });
    }
    box.group.dataset.state = state;
    box.group.dataset.stateChangedAt = String(Date.now());
  }
  const marks = [];
  if (app.link) marks.push(`link ${app.link.direction === "send" ? "to" : "from"} ${app.link.address}`);
  else if (app.program) marks.push(app.program.admitted ? "admitted program" : "program");
  if (app.isolation) marks.push("isolated");
  box.group.classList.toggle("program", !!app.program);
  box.sub.textContent = [app.plugin, ...marks].join(" · ");
  let text = state;
  if (session && session.ducked) text += ` ${decibels(session.gain)}`;
  if (session) text += ` · ${session.category}${session.mode && session.mode !== "default" ? "/" + session.mode : ""}`;
  box.state.textContent = text;
  const fault = app.fault ? `${app.fault.kind}: ${app.fault.action}` : app.isolation?.fault ? `${app.isolation.fault.kind}` : "";
  box.fault.textContent = fault;
  box.group.classList.toggle("faulted", fault !== "" || app.muted);
  const top = page.top.get(app.id);
  box.cpu.textContent = top ? `${(top.busy * 100).toFixed(1)} % CPU` : "";
}

function showTop(line) {
  for (const app of line.apps) page.top.set(app.id, app);
  if (page.status) for (const app of page.status.apps) showApp(app);
}

/// 20 times a second: each app's RMS (bar) and peak (tick), −60 dBFS at the left.
function showMeters(levels) {
  for (const level of levels) {
    const box = page.boxes.get(level.id);
    if (!box) continue;
    const span = BOX_WIDTH - 20;
    const position = (db) => Math.max(0, Math.min(1, (db + 60) / 60)) * span;
    box.rms.setAttribute("width", position(level.rms).toFixed(1));
    box.peak.setAttribute("x", (10 + Math.max(0, position(level.peak) - 2)).toFixed(1));
    box.group.dataset.rms = level.rms.toFixed(1);
    box.group.dataset.peak = level.peak.toFixed(1);
  }
}

function showRules(rules) {
  const list = $("rules");
  list.replaceChildren();
  for (const rule of rules) {
    const item = document.createElement("li");
    item.className = rule.state;
    item.textContent = `${rule.rule}: ${rule.state}` + (rule.waitingFor ? ` (waiting for ${rule.waitingFor})` : "");
    list.appendChild(item);
  }
}

function showPortNames(ports, dump) {
  const names = new Set();
  for (const port of ports) { names.add(`${port.app}:${port.port}`); for (const other of port.connections) names.add(other); }
  for (const connection of dump.connections) { names.add(connection.from); names.add(connection.to); }
  const list = $("port-names");
  list.replaceChildren(...[...names].sort().map((name) => { const option = document.createElement("option"); option.value = name; return option; }));
}

// MARK: the selected app and its controls

async function showSelected() {
  const app = page.status?.apps.find((candidate) => candidate.id === page.selected);
  if (!app) return;
  $("app-title").textContent = app.id;
  const session = app.session;
  $("app-summary").textContent = session
    ? `${session.category} · ${session.mode} · ${session.options.length ? session.options.join(", ") : "no options"}\n`
      + `${session.active ? "active" : "inactive"} · gain ${decibels(session.gain)}${session.interrupted ? " · interrupted" : ""}`
    : "no audio session";
  $("session-controls").hidden = !session;
  const panel = $("parameters");
  if (panel.dataset.app === app.id) return;
  panel.dataset.app = app.id;
  try {
    const reply = await request("get", { app: app.id });
    panel.replaceChildren(...reply.parameters.map((parameter) => parameterRow(app.id, parameter)));
  } catch (error) { showRefusal(error); }
}

/// A parameter's value with the digits a Float has (0.4, not 0.4000000059604645).
function shown(value) { return String(Number(value.toPrecision(6))); }

function parameterRow(app, parameter) {
  const row = document.createElement("div");
  row.className = "parameter";
  row.dataset.param = parameter.name;
  const label = document.createElement("label");
  label.textContent = parameter.name;
  label.title = `${parameter.name} (${parameter.unit}), ${parameter.min} … ${parameter.max}`;
  const slider = document.createElement("input");
  Object.assign(slider, { type: "range", min: parameter.min, max: parameter.max, step: (parameter.max - parameter.min) / 1000, value: parameter.value });
  const number = document.createElement("input");
  Object.assign(number, { type: "number", value: shown(parameter.value), step: "any" });
  const set = document.createElement("button");
  set.type = "button"; set.textContent = "Set";
  const send = async (value) => {
    try {
      const reply = await request("set", { app, param: parameter.name, value: Number(value) });
      slider.value = reply.value; number.value = shown(reply.value);
    } catch (error) { showRefusal(error); }
  };
  slider.addEventListener("change", () => send(slider.value));
  set.addEventListener("click", () => send(number.value));
  number.addEventListener("keydown", (event) => { if (event.key === "Enter") send(number.value); });
  row.append(label, slider, number, set);
  return row;
}

for (const button of document.querySelectorAll("#session-controls button")) {
  button.addEventListener("click", async () => {
    if (!page.selected) return;
    try { await request(button.dataset.method, { app: page.selected }); } catch (error) { showRefusal(error); }
    queueRefresh();
  });
}

async function interrupt(type) {
  try { await request("interrupt", { type }); } catch (error) { showRefusal(error); }
  queueRefresh();
}
$("interrupt-begin").addEventListener("click", () => interrupt("begin"));
$("interrupt-end").addEventListener("click", () => interrupt("end"));

async function wire(method) {
  const from = $("connect-from").value.trim(), to = $("connect-to").value.trim();
  try { await request(method, { from, to }); } catch (error) { showRefusal(error); }
  queueRefresh();
}
$("connect-form").addEventListener("submit", (event) => { event.preventDefault(); wire("connect"); });
$("disconnect").addEventListener("click", () => wire("disconnect"));

// MARK: the timeline

const TIMELINE_LENGTH = 300;

function addToTimeline(line) {
  const item = document.createElement("li");
  const time = document.createElement("span");
  time.className = "t";
  time.textContent = line.t.toFixed(2);
  item.appendChild(time);
  let text = "", kind = "";
  if (line.event) {
    const { app, name, ...rest } = line.event;
    text = `${app ?? ""} ${name}` + describe(rest);
    kind = /duck/i.test(name) ? "duck" : /interruption/i.test(name) ? "interruption"
      : /fault|muted|bypassed|stalled|crash/i.test(name) ? "fault" : "event";
    item.dataset.app = app ?? "";
    item.dataset.name = name;
  } else if (line.connection) {
    const c = line.connection;
    text = `${c.from} → ${c.to} ${c.connected ? "connected" : "disconnected"} by ${c.by}`;
    kind = "connection";
  } else if (line.xrun) {
    text = `xrun ${line.xrun.ours ? "(ours)" : "(the system's)"} count ${line.xrun.count}`;
    kind = "xrun";
  } else if (line.transport) {
    text = `transport recording ${line.transport.recording} by ${line.transport.by}`;
  } else if (line.state) {
    const s = line.state;
    text = `${s.app} is ${s.state}` + (s.state === "ducked" && s.gain !== undefined ? ` (${decibels(s.gain)})` : "");
    kind = s.state === "ducked" ? "duck" : "state";
    item.dataset.app = s.app;
    item.dataset.name = s.state;
  } else if (line.reload) {
    text = `${line.reload.app} reloaded ${line.reload.library}`;
  }
  item.className = kind;
  item.append(text);
  const list = $("timeline");
  list.prepend(item);
  while (list.children.length > TIMELINE_LENGTH) list.lastChild.remove();
}

function describe(fields) {
  const parts = Object.entries(fields).filter(([, value]) => value !== null && value !== undefined && typeof value !== "object")
    .map(([key, value]) => `${key} ${value}`);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

connect();
"""#
}
