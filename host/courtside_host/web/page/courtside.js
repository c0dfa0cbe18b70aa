// Courtside in a browser. Two ways to use it, one drawing:
//
// - try it: the firmware's core (the unchanged `courtside` package) runs here, in
//   MicroPython WebAssembly, on a simulated board whose main loop is this page's timers;
// - watch it: event lines come from a board, over Web Serial or `courtside web --port`'s
//   WebSocket relay, and nothing runs here but the drawing.
//
// Either way every event line goes through the laptop's one renderer
// (courtside_follow/page.py, beside the follower, run in MicroPython here) and
// the page draws what it
// says. Nothing is loaded from anywhere but the server that served the page.
//
// For tests and benchmarks the page exposes `window.courtside` (see `api` below).

import { loadMicroPython } from "./runtime/micropython.mjs";

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const api = {
  ready: false,        // true once the page can be played or watched
  error: null,         // the message of a failure that stopped the page
  lines: [],           // every event line received, in order
  frame: null,         // the last frame shown (192 levels)
  frameAt: null,       // when it was drawn (ms since navigation start)
  frames: 0,           // frames drawn so far
  firstFrameMs: null,  // page load (navigation start) to the first frame drawn
  loadedMs: null,      // page load to MicroPython and the firmware ready
  tones: 0,            // tones asked for (played when the browser allows sound)
};
window.courtside = api;

let mp, web, page, view, face, buttons;
let source = "page";        // "page" (the core runs here), "relay" or "serial"
let link = null;            // the relay's WebSocket or the serial port's writer
let away = null;            // when watching: a sentence saying the board has gone, or null
let timer = null;
let state = {};
const held = new Set();

// -- start-up -------------------------------------------------------------------------

async function boot() {
  const config = await (await fetch("config.json")).json();
  mp = await loadMicroPython({ url: "runtime/micropython.wasm", heapsize: 4 * 1024 * 1024,
                               stdout: (t) => console.log(t), stderr: (t) => console.warn(t) });
  const bundle = await (await fetch("bundle.json")).json();
  for (const [path, text] of Object.entries(bundle.files)) write(path, text);
  web = mp.pyimport("courtside_sim.web");
  view = mp.pyimport("courtside_follow.page").View();
  face = JSON.parse(mp.pyimport("courtside_follow.page").face());
  page = web.Page("/hardware/pinmap.json");
  api.loadedMs = performance.now();
  drawNames();
  $("connect-serial").hidden = !("serial" in navigator);
  $("connect-relay").hidden = !config.relay;
  if (params.get("watch") === "relay" && config.relay) connectRelay();
  else startHere(params.get("mode") || "dodgeball");
  api.ready = true;
}

function write(path, text) {
  const parts = path.split("/");
  let dir = "";
  for (const part of parts.slice(0, -1)) {
    dir += "/" + part;
    try { mp.FS.mkdir(dir); } catch (e) { /* already there */ }
  }
  mp.FS.writeFile("/" + path, text);
}

// -- the core in the page -------------------------------------------------------------

function startHere(mode) {
  stopLink();
  source = "page";
  document.body.classList.remove("watching");
  $("source-name").textContent = "playing here (simulated board)";
  $("try-here").hidden = true;
  const seed = params.has("seed") ? parseInt(params.get("seed"), 10) : -1;
  const problem = page.start(mode, seed, localStorage.getItem("courtside.settings") || "");
  if (problem) story({ clock: "", sentence: problem });
  buttons = JSON.parse(page.buttons());
  drawBoxes();
  pass();
}

function pass() {
  clearTimeout(timer);
  if (source !== "page") return;
  let wait;
  try {
    wait = page.step();
    take(JSON.parse(page.take()));
  } catch (e) {
    fail(e);
    return;
  }
  timer = setTimeout(pass, Math.max(1, Math.min(wait, 60000)));
}

function take(out) {
  for (const line of out.lines) receive(line);
  if (out.frame) drawMatrix(out.frame);
  drawLeds(out.leds);
  for (const [freq, ms] of out.tones) tone(freq, ms);
  if (out.saved) localStorage.setItem("courtside.settings", JSON.stringify(out.saved));
  if (out.lines.length) refresh();      // what the table shows comes only from events
}

function press(button, closed) {
  if (source !== "page" || button < 0) return;
  if (closed) held.add(button); else held.delete(button);
  page.press(button, closed);
  pass();
}

function tap(button, ms) {
  press(button, true);
  setTimeout(() => press(button, false), ms);
}

function send(line) {
  line = line.trim();
  if (!line) return;
  if (source === "page") { page.send(line); pass(); }
  else if (source === "relay" && link && link.readyState === 1) link.send(line);
  else if (source === "serial" && link) link.write(new TextEncoder().encode(line + "\n"));
}

// -- watching a board -----------------------------------------------------------------

function watching(name) {
  clearTimeout(timer);
  away = null;
  document.body.classList.add("watching");
  tv(true);                                  // a board watched is a board shown across a room
  $("source-name").textContent = name;
  $("try-here").hidden = false;
}

function connectRelay() {
  stopLink();
  source = "relay";
  watching("watching the board relayed by courtside web");
  const url = new URL("relay", location.href);          // the server that served the page
  url.protocol = url.protocol.replace("http", "ws");
  url.search = "";
  const ws = new WebSocket(url);
  link = ws;
  ws.onmessage = (m) => {
    if (m.data.startsWith('{"relay"')) {
      const note = JSON.parse(m.data);
      $("source-name").textContent = note.relay === "open" ? "watching the board on " + note.port
        : note.relay === "closed" ? "no board" : "relay: " + note.relay;
      away = note.relay === "closed" ? "The board is not here: " + note.why + "." : null;
      if (note.relay === "limited") story({ clock: "", sentence: note.why });
      refresh();
      return;
    }
    receive(m.data);
    refresh();
  };
  ws.onclose = () => {
    if (link !== ws) return;
    $("source-name").textContent = "no relay";
    away = "The page lost courtside web: start it again, then reload this page.";
    refresh();
  };
}

async function connectSerial() {
  let port;
  try {
    port = await navigator.serial.requestPort();
    await port.open({ baudRate: 115200 });
  } catch (e) {
    story({ clock: "", sentence: "No board connected: " + e.message });
    return;
  }
  stopLink();
  source = "serial";
  watching("watching the board on USB");
  link = port.writable.getWriter();
  link.write(new TextEncoder().encode("ping\nget\n"));
  const reader = port.readable.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ done: true }));
    if (done || source !== "serial") break;
    rest = lines(rest + value, (line) => receive(line));
    refresh();
  }
  if (source !== "serial") return;
  $("source-name").textContent = "no board";
  away = "The board went away (unplugged?): plug it back in, then Connect a board again.";
  refresh();
}

// Whole lines of `text` to `each`; returns what is left after the last line end.
function lines(text, each) {
  const parts = text.split("\n");
  for (const part of parts.slice(0, -1)) {
    const line = part.replace(/\r$/, "");
    if (line.length <= 65536) each(line);
  }
  return parts[parts.length - 1].slice(-65536);
}

function stopLink() {
  if (link && link.close) link.close();
  link = null;
}

// -- what the renderer says ------------------------------------------------------------

// Each line is handed to the view with the page's clock; the view holds back what the
// matrix has not shown yet (a run step by step, the die's face after its tumble), and the
// pacer below lets it out on the matrix's schedule.
function receive(line) {
  const said = view.feed(line, performance.now());
  if (!said) return;                     // not an event: REPL noise, a damaged line
  api.lines.push(line);
  shown(JSON.parse(said));
}

function shown(said) {
  for (const ev of said) if (ev.sentence) story(ev);
  return said.length > 0;
}

setInterval(() => {
  if (view && shown(JSON.parse(view.due(performance.now())))) refresh();
}, 40);

function story(ev) {
  const li = document.createElement("li");
  const clock = document.createElement("span");
  clock.className = "clock";
  clock.textContent = ev.clock;
  li.append(clock, ev.sentence);
  const log = $("log");
  log.prepend(li);
  while (log.children.length > 300) log.lastChild.remove();
}

function refresh() {
  state = JSON.parse(view.state());
  $("status").textContent = source === "page" ? state.status
    : away || state.status_board;         // a board takes no keys; a board gone away is said so
  if (source !== "page") {                // no frames come from a board: rebuilt from the stream
    const frame = view.matrix();
    if (frame && changed("matrix", frame)) drawMatrix(JSON.parse(frame));
  }
  drawRoll(state.roll);
  for (const b of document.querySelectorAll("#modes button"))
    b.classList.toggle("current", b.dataset.mode === state.mode);
  drawLobby(state.stage === "lobby" ? state.joined : null);
  drawVerdict(state.verdict);
  $("winner").hidden = !state.winner;
  $("winner").textContent = state.winner || "";
  drawBoard(state.board);
  drawBoxLabels();
  fit();
}

// The TV layout: what the table shows (the verdict's rows, the board, the die's face)
// shrinks together, in steps of --fit, until no text runs out of its box and, where the
// table stands beside the matrix (a laptop's screen, a TV's), none of it runs below the
// window's bottom edge. A narrow window (a phone) stacks the table over the matrix and
// scrolls down instead.
function fit() {
  const table = $("table");
  let scale = 1;
  table.style.setProperty("--fit", scale);
  if (!document.body.classList.contains("tv")) return;
  const beside = innerWidth > 70 * 16;
  while (scale > 0.3 && ((beside && table.getBoundingClientRect().bottom > innerHeight) || cut(table))) {
    scale -= 0.05;
    table.style.setProperty("--fit", scale.toFixed(2));
  }
}

// Whether any text inside `root` is wider than its box (cut, or ended with an ellipsis).
function cut(root) {
  return [...root.querySelectorAll("*")].some((e) => e.checkVisibility()
    && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== "inline");
}
addEventListener("resize", fit);

// Redraw only what changed: a pass that changed nothing on the table draws nothing.
const drawn = {};
function changed(what, value) {
  const text = JSON.stringify(value === undefined ? null : value) + (state.mode || "");
  if (drawn[what] === text) return false;
  drawn[what] = text;
  return true;
}

// the TV layout: the matrix, the verdict or the board, the status and the die, large;
// what does nothing from across a room (the log, the command box, the names) tucked away
function tv(on) {
  document.body.classList.toggle("tv", on);
  $("tv").setAttribute("aria-pressed", String(on));
  if (api.frame) drawMatrix(api.frame);     // the canvas changed size
  fit();
}

function drawRoll(roll) {
  const div = $("roll");
  div.hidden = !roll || !roll.face;
  if (div.hidden) return;
  $("roll-face").textContent = "⚀⚁⚂⚃⚄⚅"[roll.face - 1] + " " + roll.face;
  $("roll-who").textContent = roll.sentence;
}

function drawVerdict(v) {
  if (!changed("verdict", v)) return;
  $("verdict").hidden = !v || state.mode !== "dodgeball";
  if (!v) return;
  $("verdict-title").textContent = v.sentence;
  const ol = $("verdict-order");
  ol.replaceChildren();
  for (const o of v.order) {
    const li = document.createElement("li");
    const swatch = el("span", "swatch");
    swatch.style.background = rgb(o.rgb);
    // the name may be cut (an ellipsis) where the room ends; the colour and button never
    const who = el("span", "who");
    who.append(el("span", "name", o.name),
               ...[o.who.slice(o.name.length).trim(), o.b].filter((w) => w).map((w) => el("span", "what", w)));
    li.append(el("span", "rank", (o.tie ? "= " : "") + o.rank_word.toUpperCase()), swatch, who);
    if (o.lag) li.append(el("span", "lag", "+" + o.lag));
    if (o.early) li.append(el("span", "early", "EARLY: " + o.early));
    ol.append(li);
  }
}

function drawLobby(players) {
  if (!changed("lobby", [players, state.labels])) return;
  $("lobby").hidden = !players;
  if (!players) return;
  const ol = $("joined");
  ol.replaceChildren();
  for (const p of players) {
    const swatch = el("span", "swatch");
    swatch.style.background = rgb(face.players[p - 1].rgb);
    const li = el("li");
    li.append(swatch, state.labels[p]);
    ol.append(li);
  }
  if (!players.length) ol.append(el("li", "", "nobody yet"));
}

const HEADING_ARROWS = {n: "↑", ne: "↗", e: "→", se: "↘", s: "↓", sw: "↙", w: "←", nw: "↖"};

function drawBoard(board) {
  if (!changed("board", board)) return;
  const div = $("board");
  div.hidden = !board || state.mode === "dodgeball";
  if (!board) return;
  const inside = new Set(board.inside);
  const cells = [];
  for (let row = 8; row >= 1; row--) {
    cells.push(el("div", "label", String(row)));
    for (const [i, col] of [..."abcdefgh"].entries()) {
      const name = col + row;
      // outside the border: the band the red border (the first death) or the green one took
      const band = Math.min(i, row - 1, 7 - i, 8 - row);
      const where = inside.has(name) ? " in" : band === 0 ? " border1" : " border2";
      const sq = el("div", "sq" + where + ((i + row) % 2 ? "" : " dark")
                       + (name === board.pending || name === board.cursor ? " pending" : ""));
      sq.dataset.square = name;           // pending: where a half-entered move's first arrow reaches
      const what = board.squares[name];
      if (what && what.p) {
        const fig = el("div", "fig" + (what.p === board.turn ? " turn" : ""), String(what.p));
        fig.style.background = rgb(what.rgb);
        sq.append(fig);
      } else if (what && what.heading) {        // a ball, with an arrow where it heads
        const ball = el("div", what.what, HEADING_ARROWS[what.heading]);
        ball.style.background = rgb(what.rgb);
        ball.title = "heading " + what.heading;
        sq.append(ball);
      } else if (what) {
        sq.append(el("div", what.what));
      }
      cells.push(sq);
    }
  }
  cells.push(el("div", "label"));
  for (const col of "abcdefgh") cells.push(el("div", "label", col));
  div.replaceChildren(...cells);
}

// -- the unit: matrix, boxes, sound ----------------------------------------------------

function drawMatrix(frame) {
  api.frame = frame;
  paint(JSON.parse(view.cells(frame)));
}

// the matrix drawn from cells (view.cells): a board's when watching, rebuilt from its stream
function paint(cells) {
  const canvas = $("matrix");
  const size = Math.round(canvas.clientWidth * (window.devicePixelRatio || 1));
  if (size && canvas.width !== size) canvas.width = canvas.height = size;   // sharp at any size
  const g = canvas.getContext("2d");
  const cell = canvas.width / 8;
  g.fillStyle = "#000";
  g.fillRect(0, 0, canvas.width, canvas.height);
  cells.forEach((c, i) => {
    const x = (i % 8 + 0.5) * cell, y = (Math.floor(i / 8) + 0.5) * cell;
    g.fillStyle = rgb(face.off);              // the LED itself, lit or not
    g.beginPath();
    g.arc(x, y, cell * 0.42, 0, 2 * Math.PI);
    g.fill();
    if (!c) return;
    const [colour, dim] = c;
    g.beginPath();
    if (dim) {                                // a dim pixel: a hollow circle, so it differs in shape too
      g.strokeStyle = rgb(colour);
      g.lineWidth = cell * 0.16;
      g.arc(x, y, cell * 0.34, 0, 2 * Math.PI);
      g.stroke();
    } else {
      g.fillStyle = rgb(colour);
      g.arc(x, y, cell * 0.42, 0, 2 * Math.PI);
      g.fill();
    }
  });
  api.frameAt = performance.now();
  api.frames += 1;
  if (api.firstFrameMs === null) api.firstFrameMs = api.frameAt;
}

// The matrix grows with the window: draw the last frame again at the new size.
new ResizeObserver(() => { if (api.frame) drawMatrix(api.frame); }).observe($("matrix"));

function drawBoxes() {
  const div = $("boxes");
  div.replaceChildren();
  for (let box = 0; box < buttons.boxes; box++) {
    const b = el("div", "box");
    b.dataset.box = box;
    b.append(el("span", "who"));
    for (let k = 0; k < 4; k++) {
      const button = el("button", "b" + k);
      button.dataset.button = 4 * box + k;
      hold(button, 4 * box + k);
      b.append(button);
    }
    b.append(el("span", "led"));
    div.append(b);
  }
  drawBoxLabels();
}

function drawBoxLabels() {
  if (!buttons) return;
  const names = state.mode === "dodgeball" || !state.mode ? buttons.dodgeball : buttons.deathball;
  for (const b of document.querySelectorAll(".box")) {
    const box = +b.dataset.box;
    b.querySelector(".who").textContent = (state.labels || {})[box + 1] || "box " + (box + 1);
    b.style.borderColor = rgb(face.players[box].rgb);
    b.querySelectorAll("button").forEach((button, k) => {
      button.textContent = names[k] + " " + face.keys[box][k];
    });
  }
}

function drawLeds(leds) {
  document.querySelectorAll(".box .led").forEach((led, box) => {
    led.style.background = leds[box] ? rgb(face.players[box].rgb) : "#333";
  });
}

function hold(element, button) {
  element.addEventListener("pointerdown", (e) => { e.preventDefault(); sound(); press(button, true); });
  for (const end of ["pointerup", "pointerleave", "pointercancel"])
    element.addEventListener(end, () => { if (held.has(button)) press(button, false); });
}

let audio = null;
function sound() {
  if (!audio && window.AudioContext) audio = new AudioContext();
  if (audio && audio.state === "suspended") audio.resume();
}

function tone(freq, ms) {
  api.tones += 1;
  if (!audio || !freq) return;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = "square";
  osc.frequency.value = freq;
  gain.gain.value = 0.04;
  osc.connect(gain).connect(audio.destination);
  osc.start();
  osc.stop(audio.currentTime + ms / 1000);
}

// -- keyboard, buttons, names, saving ---------------------------------------------------

const ARROWS = { ArrowUp: 0, ArrowDown: 1, ArrowLeft: 2, ArrowRight: 3 };

function keyButton(e) {
  if (!buttons) return -1;
  const key = e.key.toLowerCase();
  if (key === " ") return buttons.main;
  if (e.key in ARROWS) return state.turn ? 4 * (state.turn - 1) + ARROWS[e.key] : -1;
  for (let box = 0; box < buttons.boxes; box++) {
    const k = face.keys[box].indexOf(key);
    if (k >= 0 && key.length === 1) return 4 * box + k;
  }
  return -1;
}

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" || e.repeat || !api.ready) return;
  sound();
  if (e.key === "t") { tv(!document.body.classList.contains("tv")); return; }
  if (e.key === "m") { tap(buttons.main, buttons.long_ms + 200); return; }
  const button = keyButton(e);
  if (button >= 0) { e.preventDefault(); keysDown.set(e.key, button); press(button, true); }
});

// A key lets go of the button it pressed, even when the arrows have passed to another
// box meanwhile (the move ends the turn while the key is still down).
const keysDown = new Map();
document.addEventListener("keyup", (e) => {
  const button = keysDown.get(e.key);
  keysDown.delete(e.key);
  if (button !== undefined && held.has(button)) press(button, false);
});

// A key held while the page loses the focus would never come up: let go of everything.
window.addEventListener("blur", () => {
  keysDown.clear();
  for (const button of [...held]) press(button, false);
});

function drawNames() {
  const span = $("names");
  for (let p = 1; p <= 4; p++) {
    const input = document.createElement("input");
    input.placeholder = "Player " + p;
    input.value = localStorage.getItem("courtside.name." + p) || "";
    input.dataset.player = p;
    input.addEventListener("change", () => {
      localStorage.setItem("courtside.name." + p, input.value.trim());
      view.name(p, input.value.trim());
      refresh();
      input.blur();               // back to the game
    });
    if (input.value) view.name(p, input.value);
    span.append(input);
  }
}

function logText() {
  const head = { ev: "log", format: 1, port: source === "page" ? "browser" : "browser " + source,
                 started: new Date().toISOString().replace(/\.\d+Z$/, "Z") };
  return [JSON.stringify(head), ...api.lines].join("\n") + "\n";
}

function saveLog() {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([logText()], { type: "application/jsonl" }));
  a.download = "courtside-" + new Date().toISOString().replace(/[-:]/g, "").slice(0, 15) + ".jsonl";
  a.click();
  URL.revokeObjectURL(a.href);
}

$("main").addEventListener("pointerdown", () => { sound(); press(buttons.main, true); });
$("main").addEventListener("pointerup", () => { if (held.has(buttons.main)) press(buttons.main, false); });
$("long").addEventListener("click", () => tap(buttons.main, buttons.long_ms + 200));
$("save").addEventListener("click", saveLog);
$("connect-serial").addEventListener("click", connectSerial);
$("connect-relay").addEventListener("click", connectRelay);
$("tv").addEventListener("click", () => tv(!document.body.classList.contains("tv")));
$("try-here").addEventListener("click", () => startHere(state.mode || "dodgeball"));
for (const b of document.querySelectorAll("#modes button"))
  b.addEventListener("click", () => send("mode " + b.dataset.mode));
$("command").addEventListener("submit", (e) => {
  e.preventDefault();
  send($("command-line").value);
  $("command-line").value = "";
  $("command-line").blur();       // the keys press the buttons again, not type into the box
});

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function rgb(c) { return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")"; }

function fail(e) {
  api.error = (e && (e.message || String(e))) || "unknown error";
  $("status").textContent = "Courtside stopped: " + api.error;
  console.error(e);
}

// For tests and benchmarks: the same functions the keys and buttons use.
Object.assign(api, {
  press, tap, send, logText, connectRelay,
  state: () => state,
  script: (text, seed) => web.script(text, seed),
  timing: (text, runs) => JSON.parse(mp.pyimport("json").dumps(
    mp.pyimport("courtside_sim.timing").measure(text, runs, 5000, "/timing.jsonl", "/hardware/pinmap.json"),
  )),
});

boot().catch(fail);
