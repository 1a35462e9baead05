// The replay page of `kairos view` in its 2D projection, loaded in a real headless Chromium
// (Debian's /usr/bin/chromium, driven by playwright-core): bodies at the right pixels, play,
// pause, speed, stepping and scrubbing change what is shown, hover and click name a body, the
// kaya-bvh boxes appear, rigid bodies (2D polygons, 3D tumbling boxes) are drawn as their
// outlines turning as the simulation turns them, bodies under gravity fall and rest as replayed
// (a resumed run's trace too, starting with bodies asleep), and no page logs an error or asks
// the network for anything. The 3D view: viewer3d.test.mjs; the helpers of both: helpers.mjs.
//
// Run from the repository root after `cargo build --release`:
//   (cd tests/browser && npm ci && npm test)
// KAIROS_BIN and CHROMIUM override the binaries used.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BOXES,
  MESHES,
  ROOM,
  bodyPixel,
  close,
  drawn,
  hook,
  kairos,
  launch,
  open,
  position,
  rgb,
  setTime,
  shutdown,
  state,
  text,
  work,
} from "./helpers.mjs";

// One ball that never reaches a wall: a trace with no events.
const QUIET = `dim = 2
[simulation]
duration = 1.0
[[walls]]
box = { min = [0.0, 0.0], max = [10.0, 10.0] }
[[bodies]]
position = [5.0, 5.0]
velocity = [0.1, 0.0]
radius = 0.5
`;

before(async () => {
  writeFileSync(join(work, "room.toml"), ROOM);
  writeFileSync(join(work, "meshes.toml"), MESHES);
  kairos("run", "meshes.toml", "-q", "-o", "meshes.ktrace");
  kairos("view", "meshes.ktrace", "-o", "meshes.html", "--projection");
  writeFileSync(join(work, "boxes.toml"), BOXES);
  kairos("generate", "polygons", "--n", "12", "--seed", "2", "--spin", "3", "--duration", "4", "-o", "poly.toml");
  kairos("run", "poly.toml", "-q", "-o", "poly.ktrace");
  kairos("view", "poly.ktrace", "-o", "poly.html");
  kairos("run", "boxes.toml", "-q", "-o", "boxes.ktrace");
  kairos("view", "boxes.ktrace", "-o", "boxes.html", "--projection");
  kairos("export", "boxes.ktrace", "--final", "boxes.csv");
  kairos("frames", "boxes.ktrace", "--every", "0.5", "-o", "boxes.xyz");
  kairos(
    "generate", "drop", "--balls", "8", "--boxes", "8", "--seed", "1", "--duration", "4",
    "-o", "drop.toml"
  );
  kairos("run", "drop.toml", "-q", "-o", "drop.ktrace", "--checkpoint", "drop.kck", "--every", "2");
  kairos("view", "drop.ktrace", "-o", "drop.html");
  kairos("frames", "drop.ktrace", "--every", "0.25", "-o", "drop.xyz");
  // Resumed from its checkpoint (t >= 2): the trace starts with bodies asleep.
  kairos("run", "--resume", "drop.kck", "-q", "-o", "drop-resumed.ktrace");
  kairos("view", "drop-resumed.ktrace", "-o", "drop-resumed.html");
  kairos("frames", "drop-resumed.ktrace", "--every", "0.25", "-o", "drop-resumed.xyz");
  writeFileSync(join(work, "quiet.toml"), QUIET);
  kairos("run", "room.toml", "--broad-phase", "kaya-bvh", "-q", "-o", "room.ktrace");
  kairos("view", "room.ktrace", "-o", "room.html");
  kairos("run", "quiet.toml", "-q", "-o", "quiet.ktrace");
  kairos("view", "quiet.ktrace", "-o", "quiet.html");
  kairos("demo", "-q", "--broad-phase", "kaya-bvh", "-o", "demo.ktrace");
  kairos("view", "demo.ktrace", "-o", "demo.html");
  kairos("export", "demo.ktrace", "--final", "final.csv");
  kairos("view", "demo.ktrace", "-o", "thin.html", "--max-bodies", "100", "--max-events", "1000");
  kairos("generate", "billiard", "--dim", "3", "--n", "40", "--duration", "1", "-o", "cube.toml");
  kairos("run", "cube.toml", "-q", "--broad-phase", "kaya-bvh", "-o", "cube.ktrace");
  kairos("view", "cube.ktrace", "-o", "cube.html", "--axes", "xz", "--projection");
  kairos(
    "generate", "gas", "--dim", "2", "--n", "64", "--packing", "0.3", "--duration", "1",
    "-o", "gas.toml"
  );
  kairos("run", "gas.toml", "-q", "-o", "gas.ktrace");
  kairos("view", "gas.ktrace", "-o", "gas.html");
  // A resumed run's trace: it starts at its checkpoint (after a move of the time origin).
  kairos(
    "generate", "gas", "--dim", "2", "--n", "64", "--packing", "0.3", "--duration", "90",
    "-o", "long.toml"
  );
  kairos("run", "long.toml", "-q", "--no-trace", "--checkpoint", "long.ck", "--every", "70");
  kairos("run", "--resume", "long.ck", "-q", "-o", "resumed.ktrace");
  kairos("view", "resumed.ktrace", "-o", "resumed.html");
  kairos("export", "resumed.ktrace", "--final", "resumed.csv");

  await launch();
});

after(shutdown);

const toPixel = (page, x, y) =>
  hook(page, ([x, y]) => window.kairosViewer.worldToPixel(x, y), [x, y]);

/** RGB of the canvas pixel that contains (x, y) (canvas pixels), once drawn. */
async function pixel(page, x, y) {
  await drawn(page);
  return hook(
    page,
    ([x, y]) => {
      const c = document.getElementById("view");
      return Array.from(c.getContext("2d").getImageData(Math.floor(x), Math.floor(y), 1, 1).data.slice(0, 3));
    },
    [x, y]
  );
}

/** True when some pixel within `reach` of (x, y) matches `test`. */
async function near(page, x, y, test, reach = 2) {
  await drawn(page);
  const block = await hook(
    page,
    ([x, y, reach]) => {
      const c = document.getElementById("view");
      const d = c.getContext("2d").getImageData(Math.floor(x) - reach, Math.floor(y) - reach, 2 * reach + 1, 2 * reach + 1).data;
      const out = [];
      for (let k = 0; k < d.length; k += 4) out.push([d[k], d[k + 1], d[k + 2]]);
      return out;
    },
    [x, y, reach]
  );
  return block.some(test);
}

async function setInput(page, selector, value) {
  await page.$eval(
    selector,
    (el, value) => {
      el.value = value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    String(value)
  );
}

test("bodies are drawn at the right pixels at a given time", async () => {
  const page = await open("room.html");
  const colors = await hook(page, () => window.kairosViewer.colors);
  assert.equal(await setTime(page, 1.0), 1.0);
  const expected = { 0: [3, 5], 1: [7, 5], 2: [5, 9] };
  for (const [id, p] of Object.entries(expected)) {
    const got = await position(page, Number(id));
    assert.ok(close(got, p, 1e-6), `body ${id} at ${got}, expected ${p}`);
  }
  // Find the room's side walls on the row through y = 5 from the pixels alone.
  const row = await toPixel(page, 0, 5);
  await drawn(page);
  const line = await hook(
    page,
    (y) => {
      const c = document.getElementById("view");
      const d = c.getContext("2d").getImageData(0, Math.floor(y), c.width, 1).data;
      const dark = [];
      for (let x = 0; x < c.width; x++) if (d[4 * x] < 80 && d[4 * x + 1] < 80 && d[4 * x + 2] < 80) dark.push(x);
      return dark;
    },
    row.y
  );
  assert.ok(line.length >= 2, "the side walls are drawn");
  const left = (line[0] + line.filter((x) => x < line[0] + 6).at(-1)) / 2;
  const last = line.at(-1);
  const right = (last + line.filter((x) => x > last - 6)[0]) / 2;
  assert.ok(Math.abs(left - row.x) < 2, `left wall at ${left}, hook says ${row.x}`);
  // Bodies sit at their fraction of the room's width, on the wall's row, drawn in body colour.
  for (const [id, [x, y]] of Object.entries(expected)) {
    const want = left + (x / 10) * (right - left);
    const got = await bodyPixel(page, Number(id));
    assert.ok(Math.abs(got.x - want) < 2, `body ${id}: x pixel ${got.x}, expected ${want}`);
    assert.ok(Math.abs(got.r - (0.5 / 10) * (right - left)) < 1.5, `body ${id}: radius ${got.r}`);
    if (y === 5) assert.ok(Math.abs(got.y - row.y) < 1, `body ${id} on the row`);
    assert.ok(close(await pixel(page, got.x, got.y), rgb(colors.body)), `body ${id} colour`);
  }
  const b2 = await bodyPixel(page, 2);
  assert.ok(b2.y < row.y - 3 * (await bodyPixel(page, 0)).r, "y grows upwards");
  // Where body 0 started (x = 2) is empty now.
  const start = await toPixel(page, 2, 5);
  assert.ok(close(await pixel(page, start.x, start.y), rgb(colors.background), 2));
  await page.done();
});

test("stepping moves between events and highlights their bodies and walls", async () => {
  const page = await open("room.html");
  const colors = await hook(page, () => window.kairosViewer.colors);
  await setTime(page, 0);
  assert.equal((await state(page)).current, null);
  await page.click("#next");
  await drawn(page);
  let s = await state(page);
  assert.equal(s.time, 1.5);
  assert.deepEqual([s.current.kind, s.current.a, s.current.b], ["body-wall", 2, 3]);
  assert.deepEqual(s.highlighted, [2]);
  assert.equal(s.highlightedWall, 3);
  assert.match(await text(page, "#event"), /event 1 of 4 at t = 1\.5\s+body-wall: body 2 and wall 3/);
  let p = await bodyPixel(page, 2);
  assert.ok(close(await pixel(page, p.x, p.y), rgb(colors.hit)), "hit body in highlight colour");
  const wall = await toPixel(page, 2, 10);
  assert.ok(await near(page, wall.x, wall.y, (c) => close(c, rgb(colors.wallHit))), "hit wall");
  p = await bodyPixel(page, 0);
  assert.ok(close(await pixel(page, p.x, p.y), rgb(colors.body)), "others in body colour");

  await page.click("#next");
  await drawn(page);
  s = await state(page);
  assert.equal(s.time, 2.5);
  assert.deepEqual([s.current.kind, s.current.a, s.current.b], ["body-body", 0, 1]);
  assert.deepEqual(s.highlighted, [0, 1]);
  assert.ok(close(await position(page, 0), [4.5, 5], 1e-6));
  for (const id of [0, 1]) {
    p = await bodyPixel(page, id);
    assert.ok(close(await pixel(page, p.x, p.y), rgb(colors.hit)), `body ${id} highlighted`);
  }
  p = await bodyPixel(page, 2);
  assert.ok(close(await pixel(page, p.x, p.y), rgb(colors.body)), "body 2 no longer highlighted");

  // Two events at t = 6.5: one step each, the time staying put.
  await page.keyboard.press("ArrowRight");
  s = await state(page);
  assert.deepEqual([s.time, s.current.a, s.current.b, s.cursor], [6.5, 0, 0, 3]);
  await page.click("#next");
  await drawn(page);
  s = await state(page);
  assert.deepEqual([s.time, s.current.a, s.current.b, s.cursor], [6.5, 1, 1, 4]);
  await page.click("#next"); // no more events
  await drawn(page);
  assert.equal((await state(page)).cursor, 4);

  await page.click("#prev");
  await drawn(page);
  s = await state(page);
  assert.deepEqual([s.time, s.cursor], [6.5, 3]);
  await page.click("#prev");
  await drawn(page);
  await page.click("#prev");
  await drawn(page);
  s = await state(page);
  assert.deepEqual([s.time, s.cursor, s.current.a], [1.5, 1, 2]);
  assert.ok(close(await position(page, 0), [3.5, 5], 1e-6), "undone: body 0 before the collision");
  assert.ok(close(await position(page, 2), [5, 9.5], 1e-6));

  // Between events, "previous" first goes back to the current event's time.
  await setTime(page, 2.0);
  await page.click("#prev");
  await drawn(page);
  s = await state(page);
  assert.deepEqual([s.time, s.cursor], [1.5, 1]);
  await page.done();
});

test("play, pause, speed of time and the timeline change what is shown", async () => {
  const page = await open("room.html");
  const colors = await hook(page, () => window.kairosViewer.colors);
  await setTime(page, 0);
  const p0 = await bodyPixel(page, 0);
  assert.ok(close(await pixel(page, p0.x, p0.y), rgb(colors.body)));

  await setInput(page, "#speed", -1);
  assert.equal(await text(page, "#speed-value"), "0.1x");
  assert.equal((await state(page)).speed, 0.1);
  await page.click("#play");
  await drawn(page);
  assert.equal(await text(page, "#play"), "Pause");
  await page.waitForTimeout(600);
  await page.click("#play");
  await drawn(page);
  assert.equal(await text(page, "#play"), "Play");
  const slow = (await state(page)).time;
  assert.ok(slow > 0.01 && slow < 0.5, `0.1x for 0.6 s gave t = ${slow}`);
  await page.waitForTimeout(300);
  assert.equal((await state(page)).time, slow, "paused: time stands still");

  await setInput(page, "#speed", 0);
  await page.click("#play");
  await drawn(page);
  await page.waitForTimeout(600);
  await page.click("#play");
  await drawn(page);
  const fast = (await state(page)).time - slow;
  assert.ok(fast > 3 * slow, `1x advanced ${fast}, 0.1x advanced ${slow}`);
  const shown = Number((await text(page, "#time")).match(/^t = (\S+) of 7$/)[1]);
  assert.ok(Math.abs(shown - (slow + fast)) < 1e-6, `the time shown is ${shown}`);

  // 100x runs to the end and stops there; body 0 has left its starting pixel.
  await setInput(page, "#speed", 2);
  assert.equal(await text(page, "#speed-value"), "100x");
  await page.click("#play");
  await drawn(page);
  await page.waitForFunction(() => !window.kairosViewer.state().playing, null, { timeout: 5000 });
  let s = await state(page);
  assert.equal(s.time, 7);
  assert.equal(s.cursor, 4);
  assert.ok(close(await pixel(page, p0.x, p0.y), rgb(colors.background), 2), "moved away");

  // Scrubbing the timeline.
  await setInput(page, "#timeline", 2);
  s = await state(page);
  assert.equal(s.time, 2);
  assert.equal(s.current.time, 1.5);
  const p = await bodyPixel(page, 0);
  const want = await toPixel(page, 4, 5);
  assert.ok(Math.abs(p.x - want.x) < 0.01 && close(await pixel(page, p.x, p.y), rgb(colors.body)));
  await page.done();
});

test("hovering names a body and clicking keeps it", async () => {
  const page = await open("room.html");
  await setTime(page, 1.0);
  const p = await bodyPixel(page, 1);
  await page.mouse.move(p.clientX, p.clientY);
  await page.waitForFunction(() => !document.getElementById("tooltip").hidden);
  const tip = await text(page, "#tooltip");
  assert.match(tip, /body 1\nposition \(7, 5\)\nvelocity \(-1, 0\)/);
  await page.mouse.click(p.clientX, p.clientY);
  await drawn(page);
  assert.equal((await state(page)).selected, 1);
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => document.getElementById("tooltip").hidden);
  assert.match(await text(page, "#body-info"), /body 1/);
  await page.done();
});

test("the kaya-bvh leaves and hierarchy are drawn from the recorded dt", async () => {
  const page = await open("room.html");
  const colors = await hook(page, () => window.kairosViewer.colors);
  await setTime(page, 0);
  const { bvh } = await state(page);
  assert.equal(bvh.at, 0);
  assert.ok(bvh.dt >= 1.5, `the look-ahead that found t = 1.5 is ${bvh.dt}`);
  // Body 1 sweeps left from x = 8: its leaf spans x in [7.5 - dt, 8.5], y in [4.5, 5.5].
  const corner = await toPixel(page, 8.5, 5.5);
  const isLeaf = (c) => close(c, rgb(colors.leaf), 40);
  assert.ok(!(await near(page, corner.x, corner.y, isLeaf)));
  await page.click("#bvh-leaves");
  await drawn(page);
  assert.ok(await near(page, corner.x, corner.y, isLeaf), "leaf corner drawn");
  const swept = await toPixel(page, 7.5 - bvh.dt + 0.2, 5.5);
  assert.ok(await near(page, swept.x, swept.y, isLeaf), "leaf swept over dt");

  await page.click("#bvh-tree");
  await drawn(page);
  const nodes = await hook(page, () => window.kairosViewer.hierarchy());
  assert.equal(nodes.length, 2, "three leaves, two internal nodes");
  const root = nodes[0];
  assert.equal(root.level, 0);
  assert.ok(close(root.min, [1.5, 4.5], 1e-6), `root ${root.min}`);
  assert.ok(close(root.max, [8.5, 8.5 + bvh.dt], 1e-6), `root ${root.max}`);
  // The first split is on x at the median: body 0 alone on the left.
  assert.ok(close(nodes[1].min, [4.5, 4.5], 1e-6) && nodes[1].level === 1);
  // The root's left side (x = 1.5) between bodies 0 and 2, in the colour of level 0.
  const side = await toPixel(page, 1.5, 7);
  assert.ok(await near(page, side.x, side.y, ([r, g, b]) => r > g + 60 && r > b + 60), "root drawn");
  await page.done();
});

test("the demo replays to the same final state as kairos export", async () => {
  const started = Date.now();
  const page = await open("demo.html");
  const { endTime, events } = await state(page);
  assert.ok(events > 1000, `${events} events`);
  const rows = readFileSync(join(work, "final.csv"), "utf8").trim().split("\n").slice(1);
  await setTime(page, endTime);
  const got = await hook(page, (n) => Array.from({ length: n }, (_, i) => window.kairosViewer.bodyPosition(i)), rows.length);
  rows.forEach((row, i) => {
    const [, x, y] = row.split(",").map(Number);
    assert.ok(Math.abs(got[i][0] - x) < 1e-3 && Math.abs(got[i][1] - y) < 1e-3, `body ${i}: ${got[i]} vs ${x},${y}`);
  });
  // Back and forth over every event gives the same state again.
  const mid = await hook(page, () => (window.kairosViewer.setTime(2.5), window.kairosViewer.bodyPosition(7)));
  await setTime(page, 0);
  await setTime(page, endTime);
  assert.deepEqual(await hook(page, () => (window.kairosViewer.setTime(2.5), window.kairosViewer.bodyPosition(7))), mid);
  console.log(`# demo page: ${events} events replayed in ${Date.now() - started} ms`);
  await page.done();
});

test("an empty trace says there is nothing to show", async () => {
  const page = await open("quiet.html");
  assert.match(await text(page, "#notices"), /nothing to show/);
  assert.equal((await state(page)).empty, true);
  assert.equal(await page.$eval("#play", (b) => b.disabled), true);
  await page.done();
});

test("a thinned trace says so", async () => {
  const page = await open("thin.html");
  const notices = await text(page, "#notices");
  assert.match(notices, /every 3rd body is shown \(100 of 300 bodies\)/);
  assert.match(notices, /the replay stops at t = /);
  assert.equal(await position(page, 1), null);
  assert.equal((await position(page, 3)).length, 2);
  await page.click("#next");
  await drawn(page);
  assert.ok((await state(page)).time > 0);
  await page.done();
});

test("a 3D trace is shown as a projection on the chosen axes", async () => {
  const page = await open("cube.html");
  assert.match(await text(page, "#trace-info"), /3D trace seen along y: the x and z axes/);
  await setTime(page, 0.5);
  const canvas = await page.$eval("#view", (c) => [c.width, c.height]);
  for (const id of [0, 1, 2]) {
    const p = await bodyPixel(page, id);
    const q = await position(page, id);
    const want = await toPixel(page, q[0], q[2]);
    assert.ok(Math.abs(p.x - want.x) < 1e-9 && Math.abs(p.y - want.y) < 1e-9);
    assert.ok(p.x > 0 && p.x < canvas[0] && p.y > 0 && p.y < canvas[1]);
  }
  await page.done();
});

test("a periodic trace is drawn wrapped into its box", async () => {
  const page = await open("gas.html");
  const colors = await hook(page, () => window.kairosViewer.colors);
  const { endTime } = await state(page);
  await setTime(page, endTime);
  const box = readFileSync(join(work, "gas.toml"), "utf8").match(/periodic = \[([^\]]+)\]/)[1].split(",").map(Number);
  for (let id = 0; id < 64; id++) {
    const p = await position(page, id);
    assert.ok(p.every((x, k) => x >= 0 && x < box[k]), `body ${id} at ${p}`);
    const px = await bodyPixel(page, id);
    const c = await pixel(page, px.x, px.y);
    assert.ok(close(c, rgb(colors.body)) || close(c, rgb(colors.hit)), `body ${id} drawn: ${c}`);
  }
  await page.done();
});

test("a resumed run's trace replays from its checkpoint to the same final state", async () => {
  const page = await open("resumed.html");
  const { startTime, endTime, events } = await state(page);
  assert.ok(startTime >= 70 && startTime < endTime && endTime === 90, `${startTime} to ${endTime}`);
  assert.ok(events > 10, `${events} events`);
  // Times before the start are the start.
  await setTime(page, 0);
  assert.equal((await state(page)).time, startTime);
  await setTime(page, endTime);
  const box = readFileSync(join(work, "long.toml"), "utf8").match(/periodic = \[([^\]]+)\]/)[1].split(",").map(Number);
  const rows = readFileSync(join(work, "resumed.csv"), "utf8").trim().split("\n").slice(1);
  assert.equal(rows.length, 64);
  for (const [i, row] of rows.entries()) {
    const [, x, y] = row.split(",").map(Number);
    const want = [x, y].map((v, k) => v - box[k] * Math.floor(v / box[k]));
    const got = await position(page, i);
    assert.ok(got.every((g, k) => Math.abs(g - want[k]) < 1e-6 || Math.abs(Math.abs(g - want[k]) - box[k]) < 1e-6), `body ${i}: ${got} vs ${want}`);
  }
  await page.done();
});

/** The outline of body `id` as drawn now, less its centroid: its shape and turn, not where. */
async function shapeOf(page, id) {
  const outline = await hook(page, (id) => window.kairosViewer.bodyOutline(id), id);
  assert.ok(outline && outline.length >= 3, `body ${id} has an outline`);
  const c = [0, 1].map((k) => outline.reduce((s, p) => s + p[k], 0) / outline.length);
  return outline.map((p) => [p[0] - c[0], p[1] - c[1]]);
}

/** Whether the point (x, y) lies inside the polygon (even-odd rule). */
function inside(poly, x, y) {
  let c = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

/**
 * Checks that body `id` is drawn as its outline, not its bounding circle: a point inside the
 * outline is in a body colour, and a point inside the circle but well outside the outline (and
 * away from the other bodies) is background.
 */
async function drawnAsOutline(page, id, others) {
  const colors = await hook(page, () => window.kairosViewer.colors);
  const body = [rgb(colors.body), rgb(colors.hit)];
  const outline = await hook(page, (id) => window.kairosViewer.bodyOutline(id), id);
  const pix = [];
  for (const [x, y] of outline) pix.push(await toPixel(page, x, y));
  const poly = pix.map((p) => [p.x, p.y]);
  const centre = await bodyPixel(page, id);
  const cx = poly.reduce((s, p) => s + p[0], 0) / poly.length;
  const cy = poly.reduce((s, p) => s + p[1], 0) / poly.length;
  const c = await pixel(page, cx, cy);
  assert.ok(body.some((b) => close(c, b)), `body ${id}: its inside is drawn (${c})`);
  // Candidate points on a ring inside the bounding circle, far from the outline's edges.
  const distance = (x, y) =>
    Math.min(
      ...poly.map((a, k) => {
        const b = poly[(k + 1) % poly.length];
        const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
        const f = Math.max(0, Math.min(1, ((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy)));
        return Math.hypot(x - a[0] - f * dx, y - a[1] - f * dy);
      })
    );
  const pixels = [];
  for (const other of others) pixels.push(await bodyPixel(page, other));
  let tested = 0;
  for (let k = 0; k < 72 && tested < 3; k++) {
    const a = (2 * Math.PI * k) / 72;
    const x = centre.x + 0.9 * centre.r * Math.cos(a);
    const y = centre.y + 0.9 * centre.r * Math.sin(a);
    if (inside(poly, x, y) || distance(x, y) < 4) continue;
    if (pixels.some((o) => o && Math.hypot(o.x - x, o.y - y) < o.r + 4)) continue;
    const got = await pixel(page, x, y);
    assert.ok(close(got, rgb(colors.background), 8), `body ${id}: (${x}, ${y}) outside its outline is drawn ${got}`);
    tested++;
  }
  assert.ok(tested > 0, `body ${id}: no point of its circle outside its outline to test`);
}

const moved = (a, b) => Math.max(...a.map((p, k) => Math.hypot(p[0] - b[k][0], p[1] - b[k][1])));

test("2D rigid polygons turn as their outlines while the trace plays", async () => {
  const page = await open("poly.html");
  const { endTime, events } = await state(page);
  assert.ok(events > 3, `${events} events`);
  await setTime(page, 0.2);
  const before = await shapeOf(page, 0);
  const angle0 = await hook(page, () => window.kairosViewer.bodyAngle(0));
  await drawnAsOutline(page, 0, Array.from({ length: 11 }, (_, k) => k + 1));
  await hook(page, () => window.kairosViewer.setSpeed(4));
  await hook(page, () => window.kairosViewer.play());
  await page.waitForFunction(() => window.kairosViewer.state().time > 1.2);
  await hook(page, () => window.kairosViewer.pause());
  const t = (await state(page)).time;
  assert.ok(t > 1.2 && t <= endTime);
  const after = await shapeOf(page, 0);
  const angle1 = await hook(page, () => window.kairosViewer.bodyAngle(0));
  assert.notEqual(angle1, angle0);
  assert.equal(after.length, before.length);
  assert.ok(moved(before, after) > 0.05, "the outline turned, not only moved");
  await drawnAsOutline(page, 0, Array.from({ length: 11 }, (_, k) => k + 1));
  await page.done();
});

/** Frames of `kairos frames`: per frame its time and every body's quaternion [w, x, y, z]. */
function frames(name) {
  const lines = readFileSync(join(work, name), "utf8").trim().split("\n");
  const out = [];
  for (let k = 0; k < lines.length; ) {
    const n = Number(lines[k]);
    const time = Number(lines[k + 1].match(/Time=([^ ]+)/)[1]);
    const q = lines.slice(k + 2, k + 2 + n).map((l) => {
      const c = l.trim().split(/\s+/).slice(1).map(Number);
      return [c[10], c[7], c[8], c[9]]; // OVITO's x y z w, as w x y z
    });
    out.push({ time, q });
    k += 2 + n;
  }
  return out;
}

/** The angle between two rotations (radians), from the chord of their quaternions (well
 *  conditioned near 0, unlike the arc cosine of their dot product). */
function between(a, b) {
  const sign = a.reduce((s, x, k) => s + x * b[k], 0) < 0 ? -1 : 1;
  const chord = Math.hypot(...a.map((x, k) => x - sign * b[k]));
  return 4 * Math.asin(Math.min(1, chord / 2));
}

test("3D rigid boxes are drawn as their projected hulls, turning as the simulation turns them", async () => {
  const page = await open("boxes.html");
  const { endTime, events } = await state(page);
  assert.equal(endTime, 6);
  assert.ok(events > 3, `${events} events`);
  assert.deepEqual(
    await hook(page, () => [0, 1, 2, 3].map((i) => window.kairosViewer.bodyTumbles(i))),
    [true, true, false, false]
  );
  assert.equal(await hook(page, () => window.kairosViewer.bodyOutline(3)), null, "the ball stays a circle");
  // At every frame of `kairos frames`, the rotation drawn is the simulation's: exactly (f32) for
  // the cube at its constant angular velocity, within the interpolation's error for the boxes.
  let worst = 0;
  for (const f of frames("boxes.xyz")) {
    await setTime(page, f.time);
    for (const id of [0, 1, 2]) {
      const q = await hook(page, (id) => window.kairosViewer.bodyRotation(id), id);
      const err = between(q, f.q[id]);
      if (id < 2) worst = Math.max(worst, err);
      else assert.ok(err < 1e-5, `cube at t = ${f.time}: ${q} vs ${f.q[id]}`);
    }
  }
  assert.ok(worst < 5e-4, `the tumbling boxes are drawn within ${worst} rad of their rotation`);
  // At the end, the rotations of kairos export --final.
  await setTime(page, endTime);
  const rows = readFileSync(join(work, "boxes.csv"), "utf8").trim().split("\n").slice(1);
  for (const [id, row] of rows.entries()) {
    const c = row.split(",").map(Number);
    const q = await hook(page, (id) => window.kairosViewer.bodyRotation(id), id);
    assert.ok(between(q, c.slice(7, 11)) < 1e-5, `body ${id} at the end: ${q} vs ${c.slice(7, 11)}`);
  }
  console.log(`# tumbling boxes drawn within ${worst.toExponential(2)} rad of their rotation`);
  // Playing turns the drawn hulls: their extents change (a box's projection is a 4- or
  // 6-gon, so the vertices themselves are not compared).
  const extents = (shape) => [0, 1].map((k) => Math.max(...shape.map((p) => p[k])) - Math.min(...shape.map((p) => p[k])));
  await setTime(page, 1);
  const before = extents(await shapeOf(page, 0));
  const q0 = await hook(page, () => window.kairosViewer.bodyRotation(0));
  await drawnAsOutline(page, 0, [1, 2, 3]);
  await hook(page, () => window.kairosViewer.setSpeed(4));
  await hook(page, () => window.kairosViewer.play());
  await page.waitForFunction(() => window.kairosViewer.state().time > 2);
  await hook(page, () => window.kairosViewer.pause());
  const after = extents(await shapeOf(page, 0));
  const q1 = await hook(page, () => window.kairosViewer.bodyRotation(0));
  assert.ok(between(q0, q1) > 0.5, `turned by ${between(q0, q1)}`);
  assert.ok(Math.max(...before.map((x, k) => Math.abs(x - after[k]))) > 0.05, `hull extents ${before} then ${after}`);
  await drawnAsOutline(page, 0, [1, 2, 3]);
  await page.done();
});

test("3D meshes are drawn with their edges over their hulls", async () => {
  const page = await open("meshes.html");
  assert.deepEqual(
    await hook(page, () => [0, 1, 2].map((i) => window.kairosViewer.bodyEdges(i))),
    [864, 480, 0]
  );
  // The torus tumbles; its outline is the hull of its turned vertices.
  assert.equal(await hook(page, () => window.kairosViewer.bodyTumbles(0)), true);
  await setTime(page, 1);
  assert.ok((await shapeOf(page, 0)).length > 8);
  await page.done();
});

/** Every frame of `kairos frames` (the library's replay) of `name`.xyz: the page `name`.html
 * draws each body there, in flight (parabolas) and asleep (at rest). Returns the positions
 * checked. */
async function drawnAsReplayed(name) {
  const page = await open(`${name}.html`);
  const lines = readFileSync(join(work, `${name}.xyz`), "utf8").trim().split("\n");
  let checked = 0;
  for (let k = 0; k < lines.length; ) {
    const n = Number(lines[k]);
    const time = Number(/Time=([^ ]+)/.exec(lines[k + 1])[1]);
    await setTime(page, time);
    const got = await hook(page, (n) => Array.from({ length: n }, (_, i) => window.kairosViewer.bodyPosition(i)), n);
    for (let i = 0; i < n; i++) {
      const [, x, y] = lines[k + 2 + i].split(/\s+/).map(Number);
      assert.ok(Math.abs(got[i][0] - x) < 1e-3 && Math.abs(got[i][1] - y) < 1e-3, `t = ${time}, body ${i}: ${got[i]} vs ${x},${y}`);
      checked++;
    }
    k += n + 2;
  }
  await page.done();
  return checked;
}

test("under gravity bodies fall on parabolas and rest where the simulation puts them", async () => {
  const checked = await drawnAsReplayed("drop");
  assert.ok(checked >= 16 * 10, `${checked} positions`);
});

test("a resumed run's trace starts with its sleeping bodies at rest and the others falling", async () => {
  const data = JSON.parse(/<script id="kairos-data" type="application\/json">([\s\S]*?)<\/script>/.exec(readFileSync(join(work, "drop-resumed.html"), "utf8"))[1]);
  assert.ok(data.startTime >= 2 && data.bodies.asleep, "some bodies sleep at the start");
  const checked = await drawnAsReplayed("drop-resumed");
  assert.ok(checked >= 16 * 4, `${checked} positions`);
});
