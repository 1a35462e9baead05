// Frames per second of replay pages in headless Chromium (software WebGL without a GPU, as in
// the tests): each page is played at 1x for a few seconds and its frames counted.
//
//   cd tests/browser && npm ci && node fps.mjs page.html [page.html ...]   # SECONDS=5 by default
//
// Prints one line per page: its name, the mode drawn (3d or projection), the bodies shown and
// the frames per second.
import { chromium } from "playwright-core";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const seconds = Number(process.env.SECONDS ?? 5);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
for (const file of process.argv.slice(2)) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 }, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(resolve(file)).href);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  const result = await page.evaluate(async (seconds) => {
    const v = window.kairosViewer;
    v.setTime(v.state().startTime);
    v.setSpeed(1);
    v.play();
    // Every animation frame while playing redraws the scene.
    let frames = 0;
    const t0 = performance.now();
    await new Promise((done) => {
      const count = () => {
        frames++;
        if (performance.now() - t0 < seconds * 1000 && v.state().playing) requestAnimationFrame(count);
        else done();
      };
      requestAnimationFrame(count);
    });
    v.pause();
    return { mode: v.mode(), frames, seconds: (performance.now() - t0) / 1000 };
  }, seconds);
  const shown = await page.evaluate(() => document.getElementById("trace-info").textContent.split(";")[0]);
  console.log(`${file}: ${result.mode}, ${shown}: ${(result.frames / result.seconds).toFixed(1)} fps`);
  await page.close();
}
await browser.close();
