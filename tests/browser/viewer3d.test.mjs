// The 3D view of the replay page of `kairos view`, loaded in a real headless Chromium
// (Debian's /usr/bin/chromium, driven by playwright-core, software WebGL without a GPU): a 3D
// gas drawn shaded in perspective and the camera orbiting, panning, zooming and resetting, a
// body at a known position drawn at the expected pixel and picked there, coloured by speed,
// tumbling boxes and meshes drawn solid and turning, a stepped run's pyramid upright, the
// projection one click away, and 2D pages without WebGL or three.js. The 2D projection:
// viewer.test.mjs; the helpers of both: helpers.mjs.
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

// Three balls in a 3D room [0, 10]^3 (walls: 0 x min, 1 x max, 2 y min, 3 y max, 4 z min,
// 5 z max): body 0 at the room's centre, at rest; body 1 at +x and body 2 at +y of it, moving
// along z; body 3 flies at body 0 and strikes it at t = (3 sqrt 2 - 1) / (1.2 sqrt 2) = 1.911.
const KNOWN = `dim = 3
[simulation]
duration = 3.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [10.0, 10.0, 10.0] }
[[bodies]]
position = [5.0, 5.0, 5.0]
velocity = [0.0, 0.0, 0.0]
radius = 0.6
[[bodies]]
position = [8.0, 5.0, 5.0]
velocity = [0.0, 0.0, 1.0]
radius = 0.5
[[bodies]]
position = [5.0, 8.0, 5.0]
velocity = [0.0, 0.0, -1.0]
radius = 0.5
[[bodies]]
position = [2.0, 2.0, 5.0]
velocity = [1.2, 1.2, 0.0]
radius = 0.4
`;

before(async () => {
  writeFileSync(join(work, "room.toml"), ROOM);
  writeFileSync(join(work, "meshes.toml"), MESHES);
  kairos("run", "meshes.toml", "-q", "-o", "meshes.ktrace");
  kairos("view", "meshes.ktrace", "-o", "meshes3d.html");
  writeFileSync(join(work, "boxes.toml"), BOXES);
  kairos("run", "boxes.toml", "-q", "-o", "boxes.ktrace");
  kairos("view", "boxes.ktrace", "-o", "boxes3d.html");
  kairos("run", "room.toml", "--broad-phase", "kaya-bvh", "-q", "-o", "room.ktrace");
  kairos("view", "room.ktrace", "-o", "room.html");
  writeFileSync(join(work, "known.toml"), KNOWN);
  kairos("run", "known.toml", "-q", "-o", "known.ktrace");
  kairos("view", "known.ktrace", "-o", "known.html");
  kairos("view", "known.ktrace", "-o", "known-xz.html", "--axes", "xz");
  kairos("export", "known.ktrace", "--final", "known.csv");
  kairos(
    "generate", "gas", "--dim", "3", "--n", "400", "--packing", "0.3", "--duration", "1",
    "-o", "gas3.toml"
  );
  kairos("run", "gas3.toml", "-q", "-o", "gas3.ktrace");
  kairos("view", "gas3.ktrace", "-o", "gas3.html");
  // The stepped engine's trace of a 3D pyramid replays the same way.
  kairos("generate", "pyramid", "--base", "4", "--dim", "3", "--duration", "1", "-o", "pyramid.toml");
  kairos("run", "pyramid.toml", "--stepper", "stepped", "--dt", "0.0166666667", "-q", "-o", "pyramid.ktrace");
  kairos("view", "pyramid.ktrace", "-o", "pyramid.html");

  await launch();
});

after(shutdown);

/** The 3D view's pixels, drawn now and kept in the page (reading them out is slow):
 * { width, height, key }; `rgb`, `changed` and `covered` look at them there. */
async function pixels3d(page) {
  await drawn(page);
  return hook(page, () => {
    window.kairosViewer.render();
    // Read back in the task that drew it (the WebGL buffer is not kept after compositing).
    const c = document.getElementById("view3d");
    const t = document.createElement("canvas");
    t.width = c.width;
    t.height = c.height;
    const g = t.getContext("2d", { willReadFrequently: true });
    g.drawImage(c, 0, 0);
    window.testPictures = window.testPictures || [];
    window.testPictures.push(g.getImageData(0, 0, c.width, c.height).data);
    return { width: c.width, height: c.height, key: window.testPictures.length - 1 };
  });
}

/** RGB of pixel (x, y) of a picture kept by `pixels3d`. */
const rgbOf = (page, pic, x, y) =>
  hook(
    page,
    ([key, width, x, y]) => {
      const d = window.testPictures[key];
      const k = 4 * (Math.floor(y) * width + Math.floor(x));
      return [d[k], d[k + 1], d[k + 2]];
    },
    [pic.key, pic.width, x, y]
  );

/** The share of pixels that differ between two pictures kept by `pixels3d`. */
const changed = (page, a, b) =>
  hook(
    page,
    ([a, b]) => {
      const [p, q] = [window.testPictures[a], window.testPictures[b]];
      let n = 0;
      for (let k = 0; k < p.length; k += 4) {
        if (Math.abs(p[k] - q[k]) + Math.abs(p[k + 1] - q[k + 1]) + Math.abs(p[k + 2] - q[k + 2]) > 24) n++;
      }
      return n / (p.length / 4);
    },
    [a.key, b.key]
  );

/** The share of a kept picture's pixels that are not the background (white). */
const covered = (page, pic) =>
  hook(
    page,
    (key) => {
      const p = window.testPictures[key];
      let n = 0;
      for (let k = 0; k < p.length; k += 4) if (p[k] + p[k + 1] + p[k + 2] < 3 * 245) n++;
      return n / (p.length / 4);
    },
    pic.key
  );

/** Whether an RGB pixel is not the background. */
const body = (px) => px[0] + px[1] + px[2] < 3 * 245;

/** A shaded body pixel of colour `hex`: the same hue, darker or lighter by the light. */
function shadeOf(px, hex) {
  const want = rgb(hex);
  const s = (c) => c.reduce((a, b) => a + b, 0) || 1;
  return want.every((x, k) => Math.abs(x / s(want) - px[k] / s(px)) < 0.08) && s(px) < 3 * 245;
}

test("a 3D gas is drawn shaded in perspective, and the camera orbits, pans, zooms and resets", async () => {
  const page = await open("gas3.html");
  assert.equal(await hook(page, () => window.kairosViewer.mode()), "3d");
  assert.equal(await page.$eval("#view", (c) => c.hidden), true, "the projection is hidden");
  await setTime(page, 0.5);
  const first = await pixels3d(page);
  const share = await covered(page, first);
  assert.ok(share > 0.1, `the balls cover ${share} of the view`);
  assert.equal(await hook(page, () => window.kairosViewer.orbit(0.6, 0.3)), true);
  const turned = await pixels3d(page);
  const orbited = await changed(page, first, turned);
  assert.ok(orbited > 0.05, `orbiting changed ${orbited} of the pixels`);
  // A real drag orbits too; keys orbit, pan and zoom.
  const box = await page.$eval("#view3d", (c) => c.getBoundingClientRect().toJSON());
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2 + 40, { steps: 6 });
  await page.mouse.up();
  const dragged = await pixels3d(page);
  const moved = await changed(page, turned, dragged);
  assert.ok(moved > 0.05, `dragging changed ${moved} of the pixels`);
  for (const key of ["d", "w", "l", "q"]) {
    const before = await pixels3d(page);
    await page.keyboard.press(key);
    assert.ok((await changed(page, before, await pixels3d(page))) > 0.01, `key ${key} moved the camera`);
  }
  await page.click("#reset-view");
  const back = await pixels3d(page);
  const differ = await changed(page, first, back);
  assert.ok(differ < 0.002, `reset view: ${differ} of the pixels differ`);
  // The arrow keys still step events.
  const { cursor } = await state(page);
  await page.keyboard.press("ArrowRight");
  assert.equal((await state(page)).cursor, cursor + 1);
  await page.done();
});

test("in 3D a body at a known position is drawn at the expected pixel, and picking returns it", async () => {
  const page = await open("known.html");
  const colors = await hook(page, () => window.kairosViewer.colors);
  await setTime(page, 0.5);
  const pic = await pixels3d(page);
  // The camera starts at the room's centre's height, looking along z (the axis --axes leaves
  // out): body 0, at the centre, is drawn at the view's centre; body 1 (+x) to its right and
  // body 2 (+y) above it, on the same row and column.
  const p0 = await bodyPixel(page, 0);
  assert.ok(Math.abs(p0.x - pic.width / 2) < 1.5 && Math.abs(p0.y - pic.height / 2) < 1.5, `body 0 at ${p0.x}, ${p0.y}`);
  const at0 = await rgbOf(page, pic, p0.x, p0.y);
  assert.ok(shadeOf(at0, colors.body), `body 0's pixel ${at0}`);
  assert.ok(shadeOf(await rgbOf(page, pic, p0.x + 0.8 * p0.r, p0.y), colors.body), "inside its outline");
  assert.ok(!shadeOf(await rgbOf(page, pic, p0.x + 1.25 * p0.r, p0.y), colors.body), "outside its outline");
  const p1 = await bodyPixel(page, 1);
  const p2 = await bodyPixel(page, 2);
  assert.ok(p1.x > p0.x + 3 * p0.r && Math.abs(p1.y - p0.y) < 1.5, `body 1 at ${p1.x}, ${p1.y}`);
  assert.ok(p2.y < p0.y - 3 * p0.r && Math.abs(p2.x - p0.x) < 1.5, `body 2 at ${p2.x}, ${p2.y}`);
  // Body 1 moves towards the eye (+z) by 2, body 2 away from it: in perspective one is drawn
  // larger, the other smaller.
  await setTime(page, 2.5);
  const [near1, far2] = [await bodyPixel(page, 1), await bodyPixel(page, 2)];
  assert.ok(near1.r > 1.03 * p1.r, `body 1 grows from ${p1.r} to ${near1.r} px`);
  assert.ok(far2.r < p2.r / 1.03, `body 2 shrinks from ${p2.r} to ${far2.r} px`);
  await setTime(page, 0.5);
  // Coloured by speed: body 0, at rest, takes the low end of the scale, drawn so, and the
  // legend shows the scale from 0; back to one colour.
  assert.equal(await hook(page, () => window.kairosViewer.colourBy("speed")), "speed");
  assert.deepEqual(await hook(page, () => window.kairosViewer.bodyColour(0)), [68, 1, 84]);
  const slow = await pixels3d(page);
  const at0slow = await rgbOf(page, slow, p0.x, p0.y);
  assert.ok(shadeOf(at0slow, "#440154"), `body 0 coloured by speed: ${at0slow}`);
  assert.equal(await page.$eval("#legend", (e) => e.hidden), false);
  assert.equal(await text(page, "#legend-low"), "0");
  const fast = await hook(page, () => window.kairosViewer.bodyColour(3));
  assert.ok(fast[1] > 150, `the fastest body is at the scale's top: ${fast}`);
  await page.selectOption("#colour-by", "none");
  assert.equal(await page.$eval("#legend", (e) => e.hidden), true);
  assert.ok(shadeOf(await rgbOf(page, await pixels3d(page), p0.x, p0.y), colors.body), "one colour again");
  // Clicking on body 0's pixel picks it and names it.
  await page.mouse.click(p0.clientX, p0.clientY);
  assert.equal((await state(page)).selected, 0);
  assert.match(await text(page, "#body-info"), /^body 0\n/);
  // The event at t = 1.911: bodies 0 and 3 drawn in the event's colour.
  await setTime(page, 1.95);
  assert.deepEqual((await state(page)).highlighted.sort(), [0, 3]);
  const hit = await pixels3d(page);
  const p3 = await bodyPixel(page, 3);
  const at3 = await rgbOf(page, hit, p3.x, p3.y);
  assert.ok(shadeOf(at3, colors.hit), `body 3's pixel ${at3}`);
  // At the end, the positions kairos export --final gives, drawn where the bodies are.
  const { endTime } = await state(page);
  await setTime(page, endTime);
  const end = await pixels3d(page);
  const rows = readFileSync(join(work, "known.csv"), "utf8").trim().split("\n").slice(1);
  for (const [id, row] of rows.entries()) {
    const c = row.split(",").map(Number);
    assert.ok(close(await position(page, id), c.slice(1, 4), 1e-4), `body ${id} at the end`);
    const px = await bodyPixel(page, id);
    assert.ok(body(await rgbOf(page, end, px.x, px.y)), `body ${id} drawn at its pixel`);
  }
  // --axes xz: the camera looks along y, x to the right and z up.
  const xz = await open("known-xz.html");
  await setTime(xz, 0);
  const q0 = await bodyPixel(xz, 0);
  const q1 = await bodyPixel(xz, 1);
  const q2 = await bodyPixel(xz, 2);
  assert.ok(q1.x > q0.x + 3 * q0.r, "x to the right");
  assert.ok(Math.abs(q2.x - q0.x) < 1.5 && Math.abs(q2.y - q0.y) < 1.5, "y along the view");
  await xz.done();
  await page.done();
});

test("tumbling boxes and meshes are drawn solid in 3D, turning; the projection is one click away", async () => {
  // Body 0 of the boxes (a tumbling box), body 1 of the meshes (the icosphere: the torus is
  // empty at its centre).
  for (const [name, id] of [["boxes3d.html", 0], ["meshes3d.html", 1]]) {
    const page = await open(name);
    assert.equal(await hook(page, () => window.kairosViewer.mode()), "3d");
    await setTime(page, 0.3);
    const a = await pixels3d(page);
    const share = await covered(page, a);
    assert.ok(share > 0.02, `${name}: the bodies cover ${share}`);
    const p = await bodyPixel(page, id);
    assert.ok(body(await rgbOf(page, a, p.x, p.y)), `${name}: body ${id} drawn at its centre's pixel`);
    assert.equal((await hook(page, () => window.kairosViewer.state())).selected, null);
    await page.mouse.click(p.clientX, p.clientY);
    assert.equal((await state(page)).selected, id, `${name}: picking the turned body ${id}`);
    assert.match(await text(page, "#body-info"), /orientation \(w, x, y, z\) \(.*\)\nangular velocity \(/);
    await setTime(page, 1.3);
    assert.ok((await changed(page, a, await pixels3d(page))) > 0.002, `${name}: the bodies moved and turned`);
    // The projection, and back.
    await page.click("#flip");
    assert.equal(await hook(page, () => window.kairosViewer.mode()), "projection");
    assert.equal(await page.$eval("#view3d", (c) => c.hidden), true);
    assert.equal(await page.$eval("#view", (c) => c.hidden), false);
    await page.keyboard.press("v");
    assert.equal(await hook(page, () => window.kairosViewer.mode()), "3d");
    await page.done();
  }
});

test("a stepped run's 3D pyramid replays in the 3D view, upright", async () => {
  const page = await open("pyramid.html");
  assert.equal(await hook(page, () => window.kairosViewer.mode()), "3d");
  const { endTime, events } = await state(page);
  assert.ok(events > 0, "its contacts are events");
  await setTime(page, endTime);
  const pic = await pixels3d(page);
  assert.ok((await covered(page, pic)) > 0.02);
  // Upright under gravity (-z): the top box is drawn above the bottom layer's first box.
  const top = await bodyPixel(page, 29);
  const bottom = await bodyPixel(page, 0);
  assert.ok(top.y < bottom.y - top.r, `top at ${top.y}, bottom at ${bottom.y}`);
  assert.ok(body(await rgbOf(page, pic, top.x, top.y)), "the top box drawn at its pixel");
  await page.done();
});

test("2D pages carry no WebGL and no three.js", async () => {
  const html = readFileSync(join(work, "room.html"), "utf8");
  assert.ok(!html.includes("THREE="), "no three.js in a 2D page");
  assert.ok(readFileSync(join(work, "gas3.html"), "utf8").includes("THREE="), "three.js in a 3D page");
  const page = await open("room.html");
  assert.equal(await hook(page, () => window.kairosViewer.mode()), "projection");
  assert.equal(await page.$("#view3d"), null);
  assert.equal(await page.$("#flip"), null);
  await page.done();
});
