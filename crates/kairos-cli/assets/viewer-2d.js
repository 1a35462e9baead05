  // The projection: the scene drawn on a 2D canvas, on two axes (every 2D trace, and a 3D
  // trace's `--axes` view). It continues the function scope viewer-core.js opens and leaves
  // `flat`, the renderer viewer-ui.js drives.

  // ---- drawing ----------------------------------------------------------------------------

  const canvas = document.getElementById("view");
  const ctx = canvas.getContext("2d");

  let dpr = 1;
  let scale = 1;
  let ox = 0;
  let oy = 0;

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
  /** The renderer viewer-ui.js drives. */
  const flat = {
    canvas,
    fit,
    draw,
    pick,
    /** Where shown body `i` is drawn now: canvas pixels (x, y) and radius. */
    pixelOf(i) {
      const p = positionAt(i, now, new Float64Array(D));
      return { x: px(p[H]), y: py(p[V]), r: Math.max(scale * RADIUS[i], dpr) };
    },
    /** Canvas pixel of a point of the picture (the two shown coordinates). */
    worldToPixel: (x, y) => ({ x: px(x), y: py(y) }),
    dpr: () => dpr,
  };

