  // The 2D renderer: the canvas projection on two axes, text and controls. It continues the
  // function scope viewer-core.js opens (`kairos view` puts the two one after the other).

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
