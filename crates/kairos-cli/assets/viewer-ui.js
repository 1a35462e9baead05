  // The page around the renderer: text, controls, the frame loop and the test hook. It closes
  // the function scope viewer-core.js opens; `view` is the renderer shown (viewer-2d.js's
  // `flat`, or for a 3D trace viewer-3d.js's `solid` when the browser has WebGL).

  // ---- text -------------------------------------------------------------------------------

  const num = (x) => (Number.isFinite(x) ? String(Number(x.toPrecision(7))) : String(x));
  const vec = (a) => "(" + Array.from(a, num).join(", ") + ")";

  function bodyText(i) {
    const p = positionAt(i, now, new Float64Array(D));
    const v = vel.subarray(i * D, i * D + D);
    let turn = "";
    if (TURNING) {
      turn = `\nangle ${num(angle[i] + omega[i] * (now - since[i]))}\nangular velocity ${num(omega[i])}`;
    } else if (TURNING3 && OUTLINE_START[i + 1] > OUTLINE_START[i]) {
      const w = omega3.subarray(i * 3, i * 3 + 3);
      turn =
        `\norientation (w, x, y, z) ${vec(rotationAt(i, now))}` +
        `\nangular velocity ${vec(w)}${tumbleIndex[i] >= 0 ? " (tumbling: at its last event)" : ""}`;
    }
    return (
      `body ${i * STRIDE}\nposition ${vec(p)}\nvelocity ${vec(v)}${turn}\n` +
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

  // The renderer shown: the 3D view for a 3D trace when the browser has WebGL (unless the page
  // was made with --projection), else the projection.
  const solidView = typeof solid !== "undefined" ? solid : null;
  let view = solidView && !data.projection ? solidView : flat;

  function render() {
    view.draw();
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
    else if (solidView && e.key === "v") show(view === flat ? solidView : flat);
    else if (view === solidView && solidView.key(e.key)) dirty = true;
    else return;
    e.preventDefault();
    dirty = true;
  });

  function pointer(e) {
    const r = view.canvas.getBoundingClientRect();
    const dpr = view.dpr();
    return [(e.clientX - r.left) * dpr, (e.clientY - r.top) * dpr, e.clientX - r.left, e.clientY - r.top];
  }
  // A press that moves the camera is not a click on a body.
  let pressed = null;
  function onMove(e) {
    const [x, y, cx, cy] = pointer(e);
    hover = e.buttons ? -1 : view.pick(x, y);
    if (hover >= 0) {
      ui.tooltip.hidden = false;
      ui.tooltip.textContent = bodyText(hover);
      ui.tooltip.style.left = `${cx + 14}px`;
      ui.tooltip.style.top = `${cy + 14}px`;
    } else {
      ui.tooltip.hidden = true;
    }
    dirty = true;
  }
  function onLeave() {
    hover = -1;
    ui.tooltip.hidden = true;
    dirty = true;
  }
  function onClick(e) {
    if (pressed && Math.hypot(e.clientX - pressed[0], e.clientY - pressed[1]) > 4) return;
    const [x, y] = pointer(e);
    selected = view.pick(x, y);
    dirty = true;
  }
  for (const r of solidView ? [flat, solidView] : [flat]) {
    r.canvas.addEventListener("mousemove", onMove);
    r.canvas.addEventListener("mouseleave", onLeave);
    r.canvas.addEventListener("pointerdown", (e) => (pressed = [e.clientX, e.clientY]));
    r.canvas.addEventListener("click", onClick);
  }

  /** Shows renderer `r` (the 3D view or the projection). */
  function show(r) {
    view = r;
    flat.canvas.hidden = r !== flat;
    if (solidView) solidView.canvas.hidden = r !== solidView;
    if (ui.flip) ui.flip.textContent = r === flat ? "3D view" : "projection";
    hover = -1;
    ui.tooltip.hidden = true;
    view.fit();
    dirty = true;
  }

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
  window.addEventListener("resize", () => view.fit());
  if (solidView) {
    // The 3D view and the projection, one at a time.
    ui.flip = document.createElement("button");
    ui.flip.type = "button";
    ui.flip.id = "flip";
    ui.flip.title = "the 3D view or the projection on the --axes axes (v)";
    ui.flip.addEventListener("click", () => show(view === flat ? solidView : flat));
    el("controls").appendChild(ui.flip);
    ui.reset = document.createElement("button");
    ui.reset.type = "button";
    ui.reset.id = "reset-view";
    ui.reset.textContent = "reset view";
    ui.reset.title = "the camera back to its start, looking along the axis --axes leaves out (r)";
    ui.reset.addEventListener("click", () => {
      solidView.reset();
      dirty = true;
    });
    el("controls").appendChild(ui.reset);
    const keys = document.createElement("p");
    keys.textContent =
      "3D view: drag to orbit, right-drag or shift-drag to pan, wheel or pinch to zoom; " +
      "a and d, w and s: orbit; j and l, i and k: pan; q and e: zoom; r: reset the view; " +
      "v: the 3D view or the projection";
    document.querySelector(".keys").appendChild(keys);
  }
  show(view);
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
      if (id % STRIDE !== 0 || id / STRIDE >= N) return null;
      const { x, y, r } = view.pixelOf(id / STRIDE);
      const box = view.canvas.getBoundingClientRect();
      const dpr = view.dpr();
      return { x, y, r, clientX: box.left + x / dpr, clientY: box.top + y / dpr };
    },
    /** Canvas pixel of a point of the picture (the projection: the two shown coordinates). */
    worldToPixel: (x, y) => flat.worldToPixel(x, y),
    /** Which renderer is shown: "3d" or "projection". */
    mode: () => (view === flat ? "projection" : "3d"),
    /** Shows the 3D view (when the browser has WebGL) or the projection; the mode shown. */
    setMode(mode) {
      show(mode === "3d" && solidView ? solidView : flat);
      render();
      return this.mode();
    },
    /** The 3D view's camera turned about its target by `yaw` and `pitch` (radians). */
    orbit(yaw, pitch) {
      if (view !== solidView) return false;
      solidView.orbit(yaw, pitch);
      render();
      return true;
    },
    resetView() {
      if (solidView) solidView.reset();
      render();
    },
    /** Colours the 3D view's bodies by "radius", "speed", "energy" or "none"; the choice. */
    colourBy(key) {
      if (!solidView) return null;
      const got = solidView.colourBy(key);
      render();
      return got;
    },
    /** The colour (RGB, 0-255) body `id` gets from the chosen property now, or null. */
    bodyColour(id) {
      if (!solidView || id % STRIDE !== 0 || id / STRIDE >= N) return null;
      return solidView.colourOf(id / STRIDE);
    },
    render,
  };
  document.body.dataset.ready = "true";
})();
