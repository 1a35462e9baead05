// The Kairos replay page (`kairos view`): replays an embedded trace on a canvas.
//
// Every body moves in a straight line from its last event, as in the simulator: the page keeps
// each body's state after its last applied event (position, velocity, time) and a cursor over
// the events. Moving forward applies events; moving back undoes them through each update's link
// to the same body's previous update, so seeking costs one step per event crossed.
//
// The kaya-bvh overlay shows the search that found the next event: it was built at the last
// event's time `now` with the look-ahead `dt` recorded in the next event, each leaf covering a
// body from now to now + dt; the whole hierarchy is rebuilt here by the same median split as
// crates/kairos/src/broad_phase/kaya_bvh.rs (the axis cycles with the level; the left child
// holds the lower half).
//
// Rigid bodies turn: a 2D one by `angle + ω (t - t_event)`; a 3D one is the convex hull of its
// body-frame points turned by its rotation at t and projected, the rotation turning at a
// constant angular velocity from the last event (isotropic inertia, as the simulation) or, for
// a tumbling body (anisotropic inertia), interpolated by slerp between the rotations the page
// knows: the simulation's at the times of a sample grid and at the body's own events.
//
// `window.kairosViewer` is a small hook for tests and for the console.
//
// The script is two files in one function scope: this one (the data, the state at the cursor,
// rotations, the kaya-bvh search), which every view shares, and a renderer (viewer-2d.js: the
// canvas projection, text, controls), which closes the scope; `kairos view` puts them one after
// the other.
"use strict";
(function () {
  const COLORS = {
    background: "#ffffff",
    wall: "#222222",
    wallHit: "#e4572e",
    period: "#8a8a8a",
    body: "#3b7dd8",
    bodyStroke: "#1f4e8c",
    hit: "#e4572e",
    hitStroke: "#9c2f12",
    selected: "#111111",
    leaf: "#1a9850",
  };

  const data = JSON.parse(document.getElementById("kairos-data").textContent);

  // ---- data -------------------------------------------------------------------------------

  const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

  /** Base64 of little-endian numbers as a typed array of `Type` (null stays null). */
  function numbers(b64, Type) {
    if (b64 === null || b64 === undefined) return null;
    const s = atob(b64);
    const u8 = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) u8[i] = s.charCodeAt(i);
    const w = Type.BYTES_PER_ELEMENT;
    if (!LITTLE_ENDIAN && w > 1) {
      for (let i = 0; i < u8.length; i += w) u8.subarray(i, i + w).reverse();
    }
    return new Type(u8.buffer, 0, u8.length / w);
  }

  const D = data.dim;
  const H = data.axes[0];
  const V = data.axes[1];
  const DEPTH = D === 3 ? 3 - H - V : -1;
  const N = data.bodies.count;
  const STRIDE = data.bodies.stride;
  const RADIUS = numbers(data.bodies.radius, Float32Array);
  const STATE0 = numbers(data.bodies.state, Float32Array);
  const M = data.events.count;
  const TIME = numbers(data.events.time, Float64Array);
  const DT = numbers(data.events.dt, Float32Array);
  const CODE = numbers(data.events.code, Uint8Array);
  const EV_A = numbers(data.events.a, Uint32Array);
  const EV_B = numbers(data.events.b, Uint32Array);
  const EV_STATE = numbers(data.events.state, Float32Array);
  const START = data.startTime || 0; // a resumed run's trace starts at its checkpoint
  const END = data.endTime;
  const PERIOD = data.periodFull; // every axis, or null
  const W = 2 * D; // numbers per stored state: position, then velocity
  // 2D rigid bodies: outlines in the body frame (centre of mass at the origin, unturned), and
  // angle and angular velocity at the start and at each update; null for balls and 3D.
  // 3D rigid bodies: points in the body frame (3 numbers each), and rotation (quaternion w, x,
  // y, z) and angular velocity (7 numbers, f32) at the start and at each update.
  const OUTLINE_START = numbers(data.bodies.outlineStart, Uint32Array);
  const OUTLINE = numbers(data.bodies.outline, Float32Array);
  const SPIN_TYPE = D === 3 ? Float32Array : Float64Array;
  const SPIN0 = numbers(data.bodies.spin, SPIN_TYPE);
  const EV_SPIN = numbers(data.events.spin, SPIN_TYPE);
  const RIGID = OUTLINE_START !== null && OUTLINE !== null && SPIN0 !== null && EV_SPIN !== null;
  const TURNING = RIGID && D === 2;
  const TURNING3 = RIGID && D === 3;
  // Tumbling 3D bodies (anisotropic inertia): their rotations at the sample times, by the
  // simulation's own torque-free motion.
  const TUMBLING = numbers(data.bodies.tumbling, Uint8Array);
  // 3D mesh bodies: per body the start of its edges, then pairs of indices into its points;
  // null without meshes.
  const EDGE_START = numbers(data.bodies.edgeStart, Uint32Array);
  const EDGES = numbers(data.bodies.edges, Uint32Array);
  // Under gravity, the bodies asleep at the start (a resumed run's trace); null: none.
  const ASLEEP0 = numbers(data.bodies.asleep, Uint8Array);
  const SAMPLES = data.samples || null;
  const SAMPLE_TIME = SAMPLES ? numbers(SAMPLES.time, Float64Array) : null;
  const SAMPLE_ROT = SAMPLES ? numbers(SAMPLES.rotation, Float32Array) : null;
  const TUMBLERS = SAMPLES ? SAMPLES.count : 0;
  const tumbleIndex = new Int32Array(N).fill(-1);
  if (TURNING3 && TUMBLING && SAMPLES) {
    let a = 0;
    for (let i = 0; i < N; i++) if (TUMBLING[i]) tumbleIndex[i] = a++;
  }
  const BALL_BALL = 0;
  const SHOWS_A = 4;
  const SHOWS_B = 8;
  const SLEEPS_A = 16; // under gravity: body a (b) sleeps after the event
  const SLEEPS_B = 32;
  const GRAVITY = data.gravity || null; // D numbers, or null

  // Updates ("slots"): one per shown body of each event, in order.
  const slotStart = new Uint32Array(M + 1);
  let slots = 0;
  for (let k = 0; k < M; k++) {
    slotStart[k] = slots;
    slots += (CODE[k] & SHOWS_A ? 1 : 0) + (CODE[k] & SHOWS_B ? 1 : 0);
  }
  slotStart[M] = slots;
  const slotBody = new Uint32Array(slots);
  const slotEvent = new Uint32Array(slots);
  const prevSlot = new Int32Array(slots);
  const nextSlot = new Int32Array(slots).fill(-1);
  const firstSlot = new Int32Array(N).fill(-1);
  {
    const last = new Int32Array(N).fill(-1);
    let s = 0;
    for (let k = 0; k < M; k++) {
      const ids = [];
      if (CODE[k] & SHOWS_A) ids.push(EV_A[k]);
      if (CODE[k] & SHOWS_B) ids.push(EV_B[k]);
      for (const id of ids) {
        const i = id / STRIDE;
        slotBody[s] = i;
        slotEvent[s] = k;
        prevSlot[s] = last[i];
        if (last[i] >= 0) nextSlot[last[i]] = s;
        else firstSlot[i] = s;
        last[i] = s;
        s++;
      }
    }
  }

  // ---- the state at the cursor ------------------------------------------------------------

  const pos = new Float64Array(N * D);
  const vel = new Float64Array(N * D);
  const since = new Float64Array(N); // time of each body's stored state
  const angle = new Float64Array(N); // rigid bodies (2D): angle and angular velocity at `since`
  const omega = new Float64Array(N);
  const rot = new Float64Array(TURNING3 ? N * 4 : 0); // 3D: rotation and angular velocity at `since`
  const omega3 = new Float64Array(TURNING3 ? N * 3 : 0);
  const current = new Int32Array(N).fill(-1); // each body's stored update (-1: the start)
  const asleep = new Uint8Array(N); // under gravity: the body rests, out of gravity's reach
  let cursor = 0; // events applied
  let now = START;

  function load(i, slot) {
    const src = slot < 0 ? STATE0 : EV_STATE;
    const o = (slot < 0 ? i : slot) * W;
    for (let c = 0; c < D; c++) {
      pos[i * D + c] = src[o + c];
      vel[i * D + c] = src[o + D + c];
    }
    since[i] = slot < 0 ? START : TIME[slotEvent[slot]];
    current[i] = slot;
    if (GRAVITY) {
      if (slot < 0) {
        asleep[i] = ASLEEP0 ? ASLEEP0[i] : 0;
      } else {
        const k = slotEvent[slot];
        const isA = slot === slotStart[k] && (CODE[k] & SHOWS_A) !== 0;
        asleep[i] = (CODE[k] & (isA ? SLEEPS_A : SLEEPS_B)) !== 0 ? 1 : 0;
      }
    }
    if (TURNING) {
      const spin = slot < 0 ? SPIN0 : EV_SPIN;
      const k = 2 * (slot < 0 ? i : slot);
      angle[i] = spin[k];
      omega[i] = spin[k + 1];
    }
    if (TURNING3) {
      const spin = slot < 0 ? SPIN0 : EV_SPIN;
      const k = 7 * (slot < 0 ? i : slot);
      for (let c = 0; c < 4; c++) rot[i * 4 + c] = spin[k + c];
      for (let c = 0; c < 3; c++) omega3[i * 3 + c] = spin[k + 4 + c];
    }
  }
  for (let i = 0; i < N; i++) load(i, -1);

  function apply(k) {
    for (let s = slotStart[k]; s < slotStart[k + 1]; s++) load(slotBody[s], s);
  }
  function undo(k) {
    for (let s = slotStart[k + 1]; s-- > slotStart[k]; ) load(slotBody[s], prevSlot[s]);
  }

  /** Moves to time `t`: every event at or before it applied, none after. */
  function seek(t) {
    t = Math.min(Math.max(Number(t) || START, START), END);
    while (cursor < M && TIME[cursor] <= t) apply(cursor++);
    while (cursor > 0 && TIME[cursor - 1] > t) undo(--cursor);
    now = t;
  }
  function stepNext() {
    if (cursor < M) {
      apply(cursor);
      now = TIME[cursor];
      cursor++;
    }
  }
  function stepPrev() {
    if (cursor === 0) {
      now = START;
    } else if (now > TIME[cursor - 1]) {
      now = TIME[cursor - 1];
    } else {
      undo(--cursor);
      now = cursor > 0 ? TIME[cursor - 1] : START;
    }
  }

  function wrap(x, l) {
    const w = x - l * Math.floor(x / l);
    return w >= l ? 0 : w;
  }

  /** Position of shown body `i` at time `t` (wrapped into a periodic box), into `out`. */
  function positionAt(i, t, out) {
    const dt = t - since[i];
    const fall = GRAVITY && !asleep[i] ? 0.5 * dt * dt : 0;
    for (let c = 0; c < D; c++) {
      const x = pos[i * D + c] + vel[i * D + c] * dt + (fall ? GRAVITY[c] * fall : 0);
      out[c] = PERIOD ? wrap(x, PERIOD[c]) : x;
    }
    return out;
  }

  // ---- 3D rotations -----------------------------------------------------------------------

  /** The product of quaternions `p q` ([w, x, y, z]). */
  function qmul(p, q) {
    return [
      p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
      p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
      p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1],
      p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0],
    ];
  }
  function qnormalize(q) {
    const n = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
    return q.map((x) => x / n);
  }
  /** The rotation from `a` (f = 0) to `b` (f = 1) at a constant angular velocity. */
  function slerp(a, b, f) {
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0) {
      b = b.map((x) => -x);
      dot = -dot;
    }
    if (dot > 0.9999995) return qnormalize(a.map((x, c) => x + f * (b[c] - x)));
    const theta = Math.acos(Math.min(dot, 1));
    const s = Math.sin(theta);
    const wa = Math.sin((1 - f) * theta) / s;
    const wb = Math.sin(f * theta) / s;
    return qnormalize(a.map((x, c) => wa * x + wb * b[c]));
  }
  /** `v` turned by the unit quaternion `q`. */
  function turn(q, v) {
    const [w, x, y, z] = q;
    const tx = 2 * (y * v[2] - z * v[1]);
    const ty = 2 * (z * v[0] - x * v[2]);
    const tz = 2 * (x * v[1] - y * v[0]);
    return [
      v[0] + w * tx + (y * tz - z * ty),
      v[1] + w * ty + (z * tx - x * tz),
      v[2] + w * tz + (x * ty - y * tx),
    ];
  }
  const storedRotation = (i) => Array.from(rot.subarray(i * 4, i * 4 + 4));
  const sampleRotation = (k, a) =>
    Array.from(SAMPLE_ROT.subarray((k * TUMBLERS + a) * 4, (k * TUMBLERS + a) * 4 + 4));

  /** Rotation ([w, x, y, z]) of 3D rigid body `i` at time `t` (no earlier than its update). */
  function rotationAt(i, t) {
    const a = tumbleIndex[i];
    if (a < 0) {
      // Constant angular velocity from the last update: exp(ω dt / 2) q, as the simulation.
      const dt = t - since[i];
      const wx = omega3[i * 3] * dt;
      const wy = omega3[i * 3 + 1] * dt;
      const wz = omega3[i * 3 + 2] * dt;
      const phi = 0.5 * Math.hypot(wx, wy, wz);
      if (phi === 0) return storedRotation(i);
      const k = Math.sin(phi) / (2 * phi);
      return qnormalize(qmul([Math.cos(phi), k * wx, k * wy, k * wz], storedRotation(i)));
    }
    // A tumbling body: between the nearest known rotations around t, the later of its last
    // update and the sample before t, and the earlier of its next update and the sample after.
    const next = current[i] < 0 ? firstSlot[i] : nextSlot[current[i]];
    const nextTime = next >= 0 ? TIME[slotEvent[next]] : Infinity;
    let lo = 0;
    let hi = SAMPLE_TIME.length - 1;
    if (t < SAMPLE_TIME[0]) hi = -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (SAMPLE_TIME[mid] <= t) lo = mid;
      else hi = mid - 1;
    }
    const k = hi; // the last sample at or before t, or -1
    let tl = since[i];
    let ql = storedRotation(i);
    if (k >= 0 && SAMPLE_TIME[k] > tl) {
      tl = SAMPLE_TIME[k];
      ql = sampleRotation(k, a);
    }
    let tr = tl;
    let qr = ql;
    if (k + 1 < SAMPLE_TIME.length && SAMPLE_TIME[k + 1] < nextTime) {
      tr = SAMPLE_TIME[k + 1];
      qr = sampleRotation(k + 1, a);
    } else if (next >= 0) {
      tr = nextTime;
      qr = Array.from(EV_SPIN.subarray(7 * next, 7 * next + 4));
    }
    return tr > tl ? slerp(ql, qr, Math.min(Math.max((t - tl) / (tr - tl), 0), 1)) : ql;
  }

  /** The convex hull of points ([x, y]), counter-clockwise (Andrew's monotone chain). */
  function hull(points) {
    const p = points.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    if (p.length < 3) return p;
    const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    const lower = [];
    for (const q of p) {
      while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop();
      lower.push(q);
    }
    const upper = [];
    for (let k = p.length - 1; k >= 0; k--) {
      const q = p[k];
      while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop();
      upper.push(q);
    }
    lower.pop();
    upper.pop();
    return lower.concat(upper);
  }

  /**
   * The outline of rigid body `i` at its position `p` now, as picture coordinates ([h, v]):
   * a 2D body's outline turned by its angle, a 3D body's projected hull; null for a ball.
   */
  function outlineOf(i, p) {
    if (!RIGID || OUTLINE_START[i + 1] <= OUTLINE_START[i]) return null;
    const out = [];
    if (TURNING) {
      // Constant angular velocity in 2D.
      const a = angle[i] + omega[i] * (now - since[i]);
      const c = Math.cos(a);
      const s = Math.sin(a);
      for (let k = OUTLINE_START[i]; k < OUTLINE_START[i + 1]; k++) {
        const x = OUTLINE[2 * k];
        const y = OUTLINE[2 * k + 1];
        out.push([p[H] + c * x - s * y, p[V] + s * x + c * y]);
      }
      return out;
    }
    const q = rotationAt(i, now);
    for (let k = OUTLINE_START[i]; k < OUTLINE_START[i + 1]; k++) {
      const w = turn(q, [OUTLINE[3 * k], OUTLINE[3 * k + 1], OUTLINE[3 * k + 2]]);
      out.push([p[H] + w[H], p[V] + w[V]]);
    }
    return hull(out);
  }

  function currentEvent() {
    if (cursor === 0) return null;
    const k = cursor - 1;
    const ballBall = (CODE[k] & 3) === BALL_BALL;
    return {
      index: k,
      time: TIME[k],
      kind: ballBall ? "body-body" : "body-wall",
      a: EV_A[k],
      b: EV_B[k],
      dt: DT ? DT[k] : 0,
    };
  }

  /** Shown bodies of the current event (local indices), and the wall it hit, if any. */
  function highlighted() {
    const bodies = [];
    let wall = -1;
    if (cursor > 0) {
      const k = cursor - 1;
      if (CODE[k] & SHOWS_A) bodies.push(EV_A[k] / STRIDE);
      if (CODE[k] & SHOWS_B) bodies.push(EV_B[k] / STRIDE);
      if ((CODE[k] & 3) !== BALL_BALL) wall = EV_B[k];
    }
    return { bodies, wall };
  }

  // ---- the page's elements and what the renderers share ----------------------------------

  const el = (id) => document.getElementById(id);
  const ui = {
    play: el("play"),
    prev: el("prev"),
    next: el("next"),
    timeline: el("timeline"),
    speed: el("speed"),
    speedValue: el("speed-value"),
    time: el("time"),
    event: el("event"),
    bodyInfo: el("body-info"),
    leaves: el("bvh-leaves"),
    tree: el("bvh-tree"),
    depth: el("bvh-depth"),
    bvhInfo: el("bvh-info"),
    tooltip: el("tooltip"),
  };
  let playing = false;
  let speed = 1;
  let selected = -1; // the body clicked, and the one under the pointer (-1: none)
  let hover = -1;
  let dirty = true; // the picture must be drawn again

  // ---- kaya-bvh ---------------------------------------------------------------------------

  /** The search that found the next event, or null (no look-ahead recorded, or none left). */
  function search() {
    if (!DT || cursor >= M) return null;
    return { at: cursor > 0 ? TIME[cursor - 1] : 0, dt: DT[cursor], finds: cursor };
  }

  /** Leaf boxes at the search: [min..., max...] of each body swept from `at` to `at + dt`. */
  function leafBoxes(s) {
    const boxes = new Float64Array(N * 2 * D);
    const p = new Float64Array(D);
    for (let i = 0; i < N; i++) {
      positionAt(i, s.at, p);
      for (let c = 0; c < D; c++) {
        const q = p[c] + vel[i * D + c] * s.dt;
        boxes[i * 2 * D + c] = Math.min(p[c], q) - RADIUS[i];
        boxes[i * 2 * D + D + c] = Math.max(p[c], q) + RADIUS[i];
      }
    }
    return boxes;
  }

  let treeCache = { key: -1, nodes: [] };

  /** Internal nodes of the median-split hierarchy at the search: {min, max, level}. */
  function hierarchy(s) {
    if (treeCache.key === s.finds) return treeCache.nodes;
    const leaves = leafBoxes(s);
    const keys = new Float64Array(N * D);
    const p = new Float64Array(D);
    for (let i = 0; i < N; i++) {
      positionAt(i, s.at, p);
      keys.set(p, i * D);
    }
    const nodes = [];
    function build(items, level) {
      if (items.length === 1) {
        const o = items[0] * 2 * D;
        return [leaves.slice(o, o + D), leaves.slice(o + D, o + 2 * D)];
      }
      const axis = level % D;
      items.sort((x, y) => keys[x * D + axis] - keys[y * D + axis] || x - y);
      const mid = items.length >> 1;
      const l = build(items.slice(0, mid), level + 1);
      const r = build(items.slice(mid), level + 1);
      const min = l[0].map((x, c) => Math.min(x, r[0][c]));
      const max = l[1].map((x, c) => Math.max(x, r[1][c]));
      nodes.push({ min, max, level });
      return [min, max];
    }
    if (N > 0) build(Array.from({ length: N }, (_, i) => i), 0);
    nodes.sort((x, y) => x.level - y.level);
    treeCache = { key: s.finds, nodes };
    return nodes;
  }

