// Helpers shared by the tests of the replay page of `kairos view` (viewer.test.mjs, the 2D
// projection; viewer3d.test.mjs, the 3D view): the kairos binary run in a scratch folder, the
// scenes of both files, headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core) and its pages, whose errors and requests are recorded, and the page's test
// hooks. Each test file runs in a process of its own, with its own folder and browser.
//
// KAIROS_BIN and CHROMIUM override the binaries used.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const KAIROS = resolve(process.env.KAIROS_BIN ?? join(here, "../../target/release/kairos"));
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
/** The scratch folder of this process (one per test file): its scenes, traces and pages. */
export const work = mkdtempSync(join(tmpdir(), "kairos-browser-"));
let context;

/** Runs the kairos binary in `work`; returns its standard output. */
export function kairos(...args) {
  return execFileSync(KAIROS, args, { cwd: work, encoding: "utf8" });
}

// Three balls in a 10 x 10 room (wall ids: 0 = x min, 1 = x max, 2 = y min, 3 = y max).
// Events: t = 1.5 body 2 hits wall 3; t = 2.5 bodies 0 and 1 collide head-on and swap velocities;
// t = 6.5 body 0 hits wall 0 and body 1 hits wall 1 (simultaneous).
export const ROOM = `dim = 2
[simulation]
duration = 7.0
[[walls]]
box = { min = [0.0, 0.0], max = [10.0, 10.0] }
[[bodies]]
position = [2.0, 5.0]
velocity = [1.0, 0.0]
radius = 0.5
[[bodies]]
position = [8.0, 5.0]
velocity = [-1.0, 0.0]
radius = 0.5
[[bodies]]
position = [5.0, 8.0]
velocity = [0.0, 1.0]
radius = 0.5
`;

// Rigid 3D bodies: two boxes of unequal half extents (anisotropic inertia: they tumble), a cube
// (isotropic: a constant angular velocity) and a ball.
export const BOXES = `dim = 3
[simulation]
duration = 6.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [8.0, 8.0, 8.0] }
[[bodies]]
shape = "box"
half_extents = [1.4, 0.5, 0.2]
position = [2.5, 2.5, 4.0]
orientation = [0.9, 0.1, 0.3, 0.2]
velocity = [0.8, 0.5, -0.3]
angular_velocity = [0.4, 2.0, 0.3]
[[bodies]]
shape = "box"
half_extents = [0.9, 0.45, 0.25]
position = [5.5, 5.5, 4.0]
velocity = [-0.6, -0.4, 0.5]
angular_velocity = [1.5, 0.3, 1.8]
[[bodies]]
shape = "box"
half_extents = [0.5, 0.5, 0.5]
position = [5.5, 2.0, 2.0]
velocity = [0.3, 0.6, 0.2]
angular_velocity = [0.0, 0.0, 1.2]
[[bodies]]
position = [2.0, 6.0, 6.0]
velocity = [0.5, -0.5, -0.5]
radius = 0.5
`;

// A 3D mesh scene: a tumbling torus (24 x 12: 864 edges), an icosphere (2 subdivisions: 480
// edges) and a box.
export const MESHES = `dim = 3
[simulation]
duration = 2.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }
[[bodies]]
shape = "mesh"
mesh = "torus"
size = [1.0, 0.3]
position = [2.0, 3.0, 3.0]
orientation = [0.9, 0.3, 0.2, 0.1]
velocity = [1.0, 0.0, 0.0]
angular_velocity = [0.5, 2.0, -1.0]
[[bodies]]
shape = "mesh"
mesh = "icosphere"
size = [0.5]
position = [4.5, 3.0, 3.0]
velocity = [-1.0, 0.1, 0.0]
[[bodies]]
shape = "box"
half_extents = [0.3, 0.3, 0.3]
position = [3.0, 1.0, 1.0]
velocity = [0.2, 0.3, 0.1]
`;

/** Starts headless Chromium, in which `open` opens the pages (once they are made). */
export async function launch() {
  context = await chromium.launchPersistentContext(mkdtempSync(join(work, "profile-")), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1200, height: 800 },
    deviceScaleFactor: 1,
  });
}

/** Closes Chromium and removes the scratch folder. */
export async function shutdown() {
  await context?.close();
  rmSync(work, { recursive: true, force: true });
}

/** Opens a page and records its errors and its requests; `done()` asserts there were none. */
export async function open(name) {
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on("console", (m) => {
    // The warnings allowed are Chromium's advice to this test, which reads the canvases back
    // (a 2D canvas's pixels; a WebGL canvas's without a GPU).
    if (m.type() === "warning" && m.text().includes("willReadFrequently")) return;
    if (m.type() === "warning" && m.text().includes("GPU stall due to ReadPixels")) return;
    if (m.type() === "error" || m.type() === "warning") errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  const url = pathToFileURL(join(work, name)).href;
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  page.done = async () => {
    await page.close();
    assert.deepEqual(errors, [], `console errors in ${name}`);
    const outside = requests.filter((u) => u !== url && !u.startsWith("data:"));
    assert.deepEqual(outside, [], `requests from ${name}`);
  };
  return page;
}

export const hook = (page, body, arg) => page.evaluate(body, arg);
export const state = (page) => hook(page, () => window.kairosViewer.state());
export const setTime = (page, t) => hook(page, (t) => window.kairosViewer.setTime(t), t);
export const position = (page, id) => hook(page, (id) => window.kairosViewer.bodyPosition(id), id);
export const bodyPixel = (page, id) => hook(page, (id) => window.kairosViewer.bodyPixel(id), id);

/** Waits until the page has drawn what the controls asked for (its redraws run per frame). */
export const drawn = (page) =>
  hook(page, () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

export const rgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
export const close = (a, b, tol = 24) => a.every((x, k) => Math.abs(x - b[k]) <= tol);

export const text = (page, selector) => page.$eval(selector, (el) => el.textContent);
