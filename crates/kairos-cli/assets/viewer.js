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

  // ---- drawing ----------------------------------------------------------------------------

  const canvas = document.getElementById("view");
  const ctx = canvas.getContext("2d");
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

  let dpr = 1;
  let scale = 1;
  let ox = 0;
  let oy = 0;
  let playing = false;
  let speed = 1;
  let selected = -1;
  let hover = -1;
  let dirty = true;

  function fit() {
    const r = canvas.getBoundingClientRect();
    dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(r.width * dpr));
    canvas.height = Math.max(1, Math.round(r.height * dpr));
    const [x0, y0, x1, y1] = data.bounds;
    const margin = 12 * dpr;
    scale = Math.min(
      (canvas.width - 2 * margin) / (x1 - x0),
      (canvas.height - 2 * margin) / (y1 - y0)
    );
    ox = (canvas.width - scale * (x1 - x0)) / 2 - scale * x0;
    oy = (canvas.height + scale * (y1 - y0)) / 2 + scale * y0;
    dirty = true;
  }
  const px = (x) => ox + scale * x;
  const py = (y) => oy - scale * y;

  /** Shown bodies in drawing order (3D: far to near along the dropped axis). */
  function drawOrder(at) {
    const order = Array.from({ length: N }, (_, i) => i);
    if (DEPTH >= 0) {
      const depth = new Float64Array(N);
      const p = new Float64Array(D);
      for (let i = 0; i < N; i++) depth[i] = positionAt(i, at, p)[DEPTH];
      order.sort((a, b) => depth[a] - depth[b] || a - b);
    }
    const hit = highlighted().bodies;
    return order.filter((i) => !hit.includes(i)).concat(hit);
  }

  /** Offsets of a disc's periodic images that show inside the box. */
  function images(x, y, r) {
    if (!PERIOD) return [[0, 0]];
    const lh = PERIOD[H];
    const lv = PERIOD[V];
    const sx = [0];
    const sy = [0];
    if (x - r < 0) sx.push(lh);
    if (x + r > lh) sx.push(-lh);
    if (y - r < 0) sy.push(lv);
    if (y + r > lv) sy.push(-lv);
    const out = [];
    for (const dx of sx) for (const dy of sy) out.push([dx, dy]);
    return out;
  }

  function strokeBox(min, max) {
    if (!PERIOD) {
      ctx.strokeRect(px(min[H]), py(max[V]), scale * (max[H] - min[H]), scale * (max[V] - min[V]));
      return;
    }
    for (const [dx, dy] of images(
      0.5 * (min[H] + max[H]),
      0.5 * (min[V] + max[V]),
      Math.max(max[H] - min[H], max[V] - min[V])
    )) {
      ctx.strokeRect(
        px(min[H] + dx),
        py(max[V] + dy),
        scale * (max[H] - min[H]),
        scale * (max[V] - min[V])
      );
    }
  }

  function drawWalls(hitWall) {
    const [x0, y0, x1, y1] = data.bounds;
    const reach = 2 * Math.hypot(x1 - x0, y1 - y0) + Math.hypot(x0, y0) + Math.hypot(x1, y1);
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    for (const w of data.walls) {
      ctx.strokeStyle = w.id === hitWall ? COLORS.wallHit : COLORS.wall;
      ctx.lineWidth = (w.id === hitWall ? 3 : 2) * dpr;
      ctx.beginPath();
      if (w.type === "segment") {
        ctx.moveTo(px(w.a[0]), py(w.a[1]));
        ctx.lineTo(px(w.b[0]), py(w.b[1]));
      } else if (w.type === "line") {
        const [x, y] = w.point;
        const [dx, dy] = w.dir;
        ctx.moveTo(px(x - dx * reach), py(y - dy * reach));
        ctx.lineTo(px(x + dx * reach), py(y + dy * reach));
      } else {
        w.points.forEach(([x, y], k) => (k ? ctx.lineTo(px(x), py(y)) : ctx.moveTo(px(x), py(y))));
        ctx.closePath();
      }
      ctx.stroke();
    }
  }

  /** The edges of mesh body `i` at its position `p` now, in `path` (nothing for others). */
  function addEdges(path, i, p) {
    if (!TURNING3 || !EDGE_START || EDGE_START[i + 1] <= EDGE_START[i]) return false;
    const q = rotationAt(i, now);
    const at = (k) => {
      const j = OUTLINE_START[i] + k;
      const w = turn(q, [OUTLINE[3 * j], OUTLINE[3 * j + 1], OUTLINE[3 * j + 2]]);
      return [px(p[H] + w[H]), py(p[V] + w[V])];
    };
    for (let e = EDGE_START[i]; e < EDGE_START[i + 1]; e++) {
      const [ax, ay] = at(EDGES[2 * e]);
      const [bx, by] = at(EDGES[2 * e + 1]);
      path.moveTo(ax, ay);
      path.lineTo(bx, by);
    }
    return true;
  }

  /** Strokes mesh body `i`'s edges now over its outline. */
  function strokeEdges(i, p) {
    const path = new Path2D();
    if (!addEdges(path, i, p)) return;
    ctx.save();
    ctx.globalAlpha = 0.5;
    ctx.strokeStyle = COLORS.bodyStroke;
    ctx.lineWidth = 0.5 * dpr;
    ctx.stroke(path);
    ctx.restore();
  }

  /** Adds the disc of body `i` now (and its periodic images) to `path`. */
  function addDisc(path, i, p) {
    const outline = outlineOf(i, p);
    if (outline) {
      // A rigid body: its outline turned by its rotation now.
      outline.forEach(([x, y], k) => (k ? path.lineTo(px(x), py(y)) : path.moveTo(px(x), py(y))));
      path.closePath();
      return;
    }
    const r = RADIUS[i];
    const rpx = Math.max(scale * r, dpr);
    for (const [dx, dy] of images(p[H], p[V], r)) {
      const x = px(p[H] + dx);
      const y = py(p[V] + dy);
      path.moveTo(x + rpx, y);
      path.arc(x, y, rpx, 0, 2 * Math.PI);
    }
  }

  function paint(path, fill, stroke) {
    ctx.fillStyle = fill;
    ctx.fill(path);
    if (stroke) {
      ctx.strokeStyle = stroke;
      ctx.lineWidth = dpr;
      ctx.stroke(path);
    }
  }

  function drawBodies(hits) {
    const p = new Float64Array(D);
    const outlined = (i) => scale * RADIUS[i] >= 3 * dpr;
    if (DEPTH < 0) {
      // 2D discs never overlap: one path for all the plain ones (outlined or too small to be).
      const big = new Path2D();
      const small = new Path2D();
      for (let i = 0; i < N; i++) {
        if (!hits.includes(i)) addDisc(outlined(i) ? big : small, i, positionAt(i, now, p));
      }
      paint(big, COLORS.body, COLORS.bodyStroke);
      paint(small, COLORS.body, null);
    } else {
      // Projected spheres overlap: far to near, one at a time.
      for (const i of drawOrder(now)) {
        if (hits.includes(i)) continue;
        const path = new Path2D();
        addDisc(path, i, positionAt(i, now, p));
        paint(path, COLORS.body, outlined(i) ? COLORS.bodyStroke : null);
        strokeEdges(i, p);
      }
    }
    for (const i of hits) {
      const path = new Path2D();
      addDisc(path, i, positionAt(i, now, p));
      paint(path, COLORS.hit, outlined(i) ? COLORS.hitStroke : null);
      strokeEdges(i, p);
    }
    if (selected >= 0) {
      positionAt(selected, now, p);
      const rpx = Math.max(scale * RADIUS[selected], dpr) + 3 * dpr;
      ctx.strokeStyle = COLORS.selected;
      ctx.lineWidth = 2 * dpr;
      for (const [dx, dy] of images(p[H], p[V], RADIUS[selected])) {
        ctx.beginPath();
        ctx.arc(px(p[H] + dx), py(p[V] + dy), rpx, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
  }

  function draw() {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = COLORS.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const hit = highlighted();
    if (PERIOD) {
      ctx.strokeStyle = COLORS.period;
      ctx.lineWidth = dpr;
      ctx.setLineDash([6 * dpr, 4 * dpr]);
      ctx.strokeRect(px(0), py(PERIOD[V]), scale * PERIOD[H], scale * PERIOD[V]);
      ctx.setLineDash([]);
    }
    drawWalls(hit.wall);
    ctx.save();
    if (PERIOD) {
      ctx.beginPath();
      ctx.rect(px(0), py(PERIOD[V]), scale * PERIOD[H], scale * PERIOD[V]);
      ctx.clip();
    }
    drawBodies(hit.bodies);
    const s = search();
    if (s && ui.tree.checked && !ui.tree.disabled) {
      const deepest = Number(ui.depth.value);
      ctx.lineWidth = dpr;
      for (const node of hierarchy(s)) {
        if (node.level > deepest) continue;
        ctx.strokeStyle = `hsla(${(node.level * 47) % 360}, 70%, 40%, 0.8)`;
        strokeBox(node.min, node.max);
      }
    }
    if (s && ui.leaves.checked) {
      const boxes = leafBoxes(s);
      ctx.strokeStyle = COLORS.leaf;
      ctx.lineWidth = dpr;
      for (let i = 0; i < N; i++) {
        const o = i * 2 * D;
        strokeBox(boxes.subarray(o, o + D), boxes.subarray(o + D, o + 2 * D));
      }
    }
    ctx.restore();
  }

  // ---- text -------------------------------------------------------------------------------

  const num = (x) => (Number.isFinite(x) ? String(Number(x.toPrecision(7))) : String(x));
  const vec = (a) => "(" + Array.from(a, num).join(", ") + ")";

  function bodyText(i) {
    const p = positionAt(i, now, new Float64Array(D));
    const v = vel.subarray(i * D, i * D + D);
    return (
      `body ${i * STRIDE}\nposition ${vec(p)}\nvelocity ${vec(v)}\n` +
      `radius ${num(RADIUS[i])}\nvelocity since t = ${num(since[i])}`
    );
  }

  function updateText() {
    ui.time.textContent = `t = ${num(now)} of ${num(END)}`;
    const e = currentEvent();
    if (!e) {
      ui.event.textContent = M ? `no event yet (the first is at t = ${num(TIME[0])})` : "no events";
    } else {
      const what = e.kind === "body-body" ? `bodies ${e.a} and ${e.b}` : `body ${e.a} and wall ${e.b}`;
      ui.event.textContent = `event ${e.index + 1} of ${M} at t = ${num(e.time)}\n${e.kind}: ${what}`;
    }
    const shown = hover >= 0 ? hover : selected;
    ui.bodyInfo.textContent =
      shown >= 0 ? bodyText(shown) : "hover over a body, or click to keep it";
    if (document.activeElement !== ui.timeline) ui.timeline.value = String(now);
    if (!DT) {
      ui.bvhInfo.textContent =
        `This trace was made by ${data.broadPhase}, which records no look-ahead: ` +
        "make one with --broad-phase kaya-bvh to see the boxes.";
    } else {
      const s = search();
      ui.bvhInfo.textContent = s
        ? `The search at t = ${num(s.at)} with dt = ${num(s.dt)} found event ${s.finds + 1} ` +
          `at t = ${num(TIME[s.finds])}.`
        : "No search after the last event is recorded.";
      if (STRIDE > 1) ui.bvhInfo.textContent += " Bodies are thinned: no whole hierarchy.";
    }
  }

  function render() {
    draw();
    updateText();
    dirty = false;
  }

  // ---- controls ---------------------------------------------------------------------------

  function setPlaying(on) {
    if (on && now >= END) seek(0);
    playing = on && END > 0;
    ui.play.textContent = playing ? "Pause" : "Play";
    dirty = true;
  }
  function setSpeed(x) {
    speed = Math.min(Math.max(x, 0.01), 100);
    ui.speed.value = String(Math.log10(speed));
    ui.speedValue.textContent = `${Number(speed.toPrecision(2))}x`;
  }

  ui.play.addEventListener("click", () => setPlaying(!playing));
  ui.next.addEventListener("click", () => {
    stepNext();
    dirty = true;
  });
  ui.prev.addEventListener("click", () => {
    stepPrev();
    dirty = true;
  });
  ui.timeline.min = String(START);
  ui.timeline.max = String(END);
  ui.timeline.addEventListener("input", () => {
    seek(Number(ui.timeline.value));
    dirty = true;
  });
  ui.speed.addEventListener("input", () => setSpeed(10 ** Number(ui.speed.value)));
  for (const box of [ui.leaves, ui.tree, ui.depth]) {
    box.addEventListener("input", () => (dirty = true));
  }
  if (!DT) {
    ui.leaves.disabled = true;
    ui.tree.disabled = true;
  }
  if (STRIDE > 1) ui.tree.disabled = true;

  document.addEventListener("keydown", (e) => {
    if (data.empty) return;
    if (e.target instanceof HTMLInputElement && e.target.type === "number") return;
    if (e.key === " ") setPlaying(!playing);
    else if (e.key === "ArrowRight") stepNext();
    else if (e.key === "ArrowLeft") stepPrev();
    else if (e.key === "+" || e.key === "=") setSpeed(speed * 2);
    else if (e.key === "-") setSpeed(speed / 2);
    else return;
    e.preventDefault();
    dirty = true;
  });

  /** The shown body under a point of the canvas (device pixels), nearest on top; or -1. */
  function pick(x, y) {
    const order = drawOrder(now);
    const p = new Float64Array(D);
    for (let k = order.length - 1; k >= 0; k--) {
      const i = order[k];
      positionAt(i, now, p);
      const reach = Math.max(scale * RADIUS[i], 4 * dpr);
      for (const [dx, dy] of images(p[H], p[V], RADIUS[i])) {
        if (Math.hypot(px(p[H] + dx) - x, py(p[V] + dy) - y) <= reach) return i;
      }
    }
    return -1;
  }
  function pointer(e) {
    const r = canvas.getBoundingClientRect();
    return [(e.clientX - r.left) * dpr, (e.clientY - r.top) * dpr, e.clientX - r.left, e.clientY - r.top];
  }
  canvas.addEventListener("mousemove", (e) => {
    const [x, y, cx, cy] = pointer(e);
    hover = pick(x, y);
    if (hover >= 0) {
      ui.tooltip.hidden = false;
      ui.tooltip.textContent = bodyText(hover);
      ui.tooltip.style.left = `${cx + 14}px`;
      ui.tooltip.style.top = `${cy + 14}px`;
    } else {
      ui.tooltip.hidden = true;
    }
    dirty = true;
  });
  canvas.addEventListener("mouseleave", () => {
    hover = -1;
    ui.tooltip.hidden = true;
    dirty = true;
  });
  canvas.addEventListener("click", (e) => {
    const [x, y] = pointer(e);
    selected = pick(x, y);
    dirty = true;
  });

  // ---- page -------------------------------------------------------------------------------

  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  el("source").textContent =
    `${data.title}: ${data.dim}D, ${count(data.bodies.total, "body", "bodies")}, ` +
    `${count(data.events.total, "event", "events")}, broad phase ${data.broadPhase}`;
  const notices = el("notices");
  for (const text of data.notices) {
    const p = document.createElement("p");
    p.textContent = text;
    if (data.empty) p.className = "empty";
    notices.appendChild(p);
  }
  {
    const lines = [
      `${data.bodies.count} of ${count(data.bodies.total, "body", "bodies")} shown`,
      `${M} of ${count(data.events.total, "event", "events")} shown`,
      `replay from t = ${num(START)} to ${num(END)} (trace ends at ${num(data.traceEndTime)})`,
    ];
    if (D === 3) {
      lines.push(
        `a 3D trace seen along ${"xyz"[DEPTH]}: the ${data.axisNames.join(" and ")} axes ` +
          "(kairos view --axes to choose)"
      );
    }
    if (data.hiddenWalls > 0) {
      lines.push(`${data.hiddenWalls} plane(s) facing the viewer are not drawn`);
    }
    el("trace-info").textContent = lines.join("; ");
  }
  if (data.empty) {
    for (const b of [ui.play, ui.prev, ui.next, ui.timeline, ui.speed]) b.disabled = true;
  }

  let lastFrame = null;
  function frame(ts) {
    if (playing) {
      if (lastFrame !== null) {
        let t = now + (speed * (ts - lastFrame)) / 1000;
        if (t >= END) {
          t = END;
          setPlaying(false);
        }
        seek(t);
        dirty = true;
      }
      lastFrame = ts;
    } else {
      lastFrame = null;
    }
    if (dirty) render();
    requestAnimationFrame(frame);
  }
  window.addEventListener("resize", fit);
  fit();
  setSpeed(1);
  render();
  requestAnimationFrame(frame);

  window.kairosViewer = {
    colors: COLORS,
    state() {
      const hit = highlighted();
      return {
        time: now,
        startTime: START,
        endTime: END,
        playing,
        speed,
        cursor,
        events: M,
        current: currentEvent(),
        highlighted: hit.bodies.map((i) => i * STRIDE),
        highlightedWall: hit.wall,
        selected: selected >= 0 ? selected * STRIDE : null,
        empty: data.empty,
        notices: data.notices.slice(),
        bvh: search(),
      };
    },
    /** Internal nodes of the hierarchy of the current search (see `search`), root first. */
    hierarchy() {
      const s = search();
      return s ? hierarchy(s).map((n) => ({ min: n.min, max: n.max, level: n.level })) : [];
    },
    setTime(t) {
      seek(t);
      render();
      return now;
    },
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
    setSpeed,
    stepNext() {
      stepNext();
      render();
    },
    stepPrev() {
      stepPrev();
      render();
    },
    /** Position of body `id` now (wrapped into a periodic box), or null when not shown. */
    bodyPosition(id) {
      if (id % STRIDE !== 0 || id / STRIDE >= N) return null;
      return Array.from(positionAt(id / STRIDE, now, new Float64Array(D)));
    },
    /** Angle of 2D rigid body `id` now (radians), or null when it does not turn in the page. */
    bodyAngle(id) {
      if (!TURNING || id % STRIDE !== 0 || id / STRIDE >= N) return null;
      const i = id / STRIDE;
      return angle[i] + omega[i] * (now - since[i]);
    },
    /** Rotation of 3D rigid body `id` now as drawn ([w, x, y, z]), or null when not shown. */
    bodyRotation(id) {
      if (!TURNING3 || id % STRIDE !== 0 || id / STRIDE >= N) return null;
      return rotationAt(id / STRIDE, now);
    },
    /** Whether 3D rigid body `id` tumbles (its rotation is interpolated between samples). */
    bodyTumbles(id) {
      return TURNING3 && id % STRIDE === 0 && id / STRIDE < N && tumbleIndex[id / STRIDE] >= 0;
    },
    /** The outline of rigid body `id` as drawn now (picture coordinates), or null for a ball. */
    bodyOutline(id) {
      if (id % STRIDE !== 0 || id / STRIDE >= N) return null;
      const i = id / STRIDE;
      return outlineOf(i, positionAt(i, now, new Float64Array(D)));
    },
    /** How many edges 3D mesh body `id` has drawn over its outline (0 for other bodies). */
    bodyEdges(id) {
      if (!TURNING3 || !EDGE_START || id % STRIDE !== 0 || id / STRIDE >= N) return 0;
      const i = id / STRIDE;
      return EDGE_START[i + 1] - EDGE_START[i];
    },
    /** Where body `id` is drawn: canvas pixels (x, y, r) and page coordinates (clientX, clientY). */
    bodyPixel(id) {
      const p = this.bodyPosition(id);
      if (!p) return null;
      const r = canvas.getBoundingClientRect();
      const x = px(p[H]);
      const y = py(p[V]);
      return {
        x,
        y,
        r: Math.max(scale * RADIUS[id / STRIDE], dpr),
        clientX: r.left + x / dpr,
        clientY: r.top + y / dpr,
      };
    },
    /** Canvas pixel of a point of the picture (the two shown coordinates). */
    worldToPixel: (x, y) => ({ x: px(x), y: py(y) }),
    render,
  };
  document.body.dataset.ready = "true";
})();
