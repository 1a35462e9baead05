// Builds crates/kairos-cli/assets/three.min.js: the part of three.js the 3D replay page of
// `kairos view` uses (entry.js), minified into one script that defines the global `THREE`,
// from the packages pinned in package.json and package-lock.json. The CLI embeds the file, so
// the page fetches nothing when it opens.
//
//   npm ci && node build.mjs           writes the file
//   npm ci && node build.mjs --check   fails if the file is not what the pinned packages give
import { build } from "esbuild";
import { readFileSync, writeFileSync, existsSync } from "node:fs";

const here = (p) => new URL(p, import.meta.url);
const OUT = here("../../crates/kairos-cli/assets/three.min.js");
const three = JSON.parse(readFileSync(here("node_modules/three/package.json"), "utf8")).version;
const banner =
  `/* three.js ${three} (npm three@${three}): the part the 3D replay page of kairos view uses, ` +
  `built by tools/viewer3d/build.mjs. MIT licence, (c) 2010-2026 three.js authors: ` +
  `three.LICENSE beside this file. */`;

const result = await build({
  entryPoints: [here("entry.js").pathname],
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "THREE",
  target: "es2020",
  legalComments: "none",
  banner: { js: banner },
  write: false,
});
const js = result.outputFiles[0].text;
// The page inlines the script in a <script> element, which this would close.
if (/<\/script/i.test(js)) throw new Error("the bundle contains </script");

if (process.argv.includes("--check")) {
  const now = existsSync(OUT) ? readFileSync(OUT, "utf8") : null;
  if (now !== js) {
    console.error(
      `${OUT.pathname} is not what tools/viewer3d builds (${now === null ? "missing" : `${now.length} bytes, built ${js.length}`}): run npm ci && node build.mjs there`,
    );
    process.exit(1);
  }
  console.log(`three.min.js matches its build (${js.length} bytes, three ${three})`);
} else {
  writeFileSync(OUT, js);
  console.log(`wrote ${OUT.pathname}: ${js.length} bytes, three ${three}`);
}
