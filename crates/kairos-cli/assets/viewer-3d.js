  // The 3D view of a 3D trace, in WebGL with three.js (the page's `THREE`, from
  // assets/three.min.js): balls as sphere impostors (one quad a ball, facing the eye, on which
  // the fragment shader casts the view ray at the sphere, shades the hit and writes its depth:
  // an exact outline at any zoom for four vertices, which software WebGL draws fastest), rigid
  // bodies as the convex hulls of their body-frame points turned by `rotationAt`, mesh bodies as
  // their edges, the periodic cell as a wire box, the kaya-bvh boxes as wire boxes. The camera
  // orbits, pans and zooms about the scene's centre (three's OrbitControls, and keys); it starts
  // looking along the axis `--axes` leaves out, the projection's axes to the right and up.
  // It continues the scope of viewer-core.js and leaves `solid`: null when the trace is not 3D
  // or the browser has no WebGL (then the projection is shown).

  const solid = (() => {
    if (D !== 3 || typeof THREE === "undefined") return null;
    const canvas = document.createElement("canvas");
    canvas.id = "view3d";
    canvas.tabIndex = 0;
    canvas.hidden = true;
    canvas.setAttribute("aria-label", "the scene at the current time, in 3D");
    flat.canvas.after(canvas);
    let renderer;
    try {
      renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
    } catch (e) {
      canvas.remove();
      return null;
    }
    // Colours as given (no sRGB conversion), so a body's pixels are predictable.
    THREE.ColorManagement.enabled = false;
    renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(COLORS.background);
    const color = (css) => new THREE.Color(css);
    const HIT = color(COLORS.hit);
    const BODY = color(COLORS.body);
    const PICKED = color("#f0b429");

    // ---- the scene's extent: every state the page holds, or the periodic cell -------------

    const WALLS3 = data.walls3 || [];
    const lo = [Infinity, Infinity, Infinity];
    const hi = [-Infinity, -Infinity, -Infinity];
    if (PERIOD) {
      for (let c = 0; c < 3; c++) {
        lo[c] = 0;
        hi[c] = PERIOD[c];
      }
    } else {
      let reach = 0;
      for (let i = 0; i < N; i++) reach = Math.max(reach, RADIUS[i]);
      for (const states of [STATE0, EV_STATE]) {
        for (let o = 0; o + W <= states.length; o += W) {
          for (let c = 0; c < 3; c++) {
            lo[c] = Math.min(lo[c], states[o + c] - reach);
            hi[c] = Math.max(hi[c], states[o + c] + reach);
          }
        }
      }
      for (let c = 0; c < 3; c++) {
        if (!(lo[c] <= hi[c])) {
          lo[c] = -1;
          hi[c] = 1;
        }
      }
      // The walls near the bodies: a polygon's or a static shape's points, and a plane across
      // an axis (a room's sides) when it lies within the bodies' extent along that axis.
      const size = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
      for (const w of WALLS3) {
        if (w.type === "plane") {
          const c = w.normal.findIndex((x) => Math.abs(x) > 0.999999 * Math.hypot(...w.normal));
          if (c >= 0 && w.point[c] > lo[c] - size && w.point[c] < hi[c] + size) {
            lo[c] = Math.min(lo[c], w.point[c]);
            hi[c] = Math.max(hi[c], w.point[c]);
          }
        } else {
          for (const p of w.points) {
            for (let c = 0; c < 3; c++) {
              lo[c] = Math.min(lo[c], p[c]);
              hi[c] = Math.max(hi[c], p[c]);
            }
          }
        }
      }
    }
    const centre = new THREE.Vector3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
    const extent = Math.max(0.5 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]), 1e-9);

    // ---- camera -----------------------------------------------------------------------------

    const FOV = 30;
    const camera = new THREE.PerspectiveCamera(FOV, 1, extent / 1000, extent * 1000);
    const axis = (c) => new THREE.Vector3().setComponent(c, 1);
    let right = axis(H);
    camera.up.copy(axis(V));
    // Under gravity the view stands upright: up against gravity, looking level along an
    // axis across it (the first of --axes that is), raised by a little.
    const fall = GRAVITY ? new THREE.Vector3(...GRAVITY) : null;
    const upright = fall && fall.lengthSq() > 0;
    if (upright) {
      camera.up.copy(fall).normalize().negate();
      if (Math.abs(right.dot(camera.up)) > 0.9) right = axis(V);
      right.addScaledVector(camera.up, -right.dot(camera.up)).normalize();
    }
    const back = new THREE.Vector3().crossVectors(right, camera.up).normalize();
    const controls = new THREE.OrbitControls(camera, canvas);
    controls.enableDamping = false;
    controls.zoomToCursor = true;
    controls.addEventListener("change", () => (dirty = true));
    const light = new THREE.DirectionalLight(0xffffff, 1.6);
    light.position.set(0.3, 0.6, 1);
    camera.add(light); // a headlight: every side looked at is lit
    scene.add(camera);
    scene.add(new THREE.HemisphereLight(0xffffff, 0x8899aa, 0.9));

    /** The camera at its start: along the left-out axis, the whole scene in view. */
    function reset() {
      const half = (Math.PI / 360) * FOV;
      const wide = Math.atan(Math.tan(half) * Math.min(camera.aspect, 1));
      controls.target.copy(centre);
      camera.position.copy(centre).addScaledVector(back, (1.05 * extent) / Math.sin(wide));
      controls.update();
      if (upright) orbit(0, 0.35);
      dirty = true;
    }
    /** The camera turned about its target by `yaw` (about the up axis) and `pitch`. */
    function orbit(yaw, pitch) {
      const offset = camera.position.clone().sub(controls.target);
      offset.applyAxisAngle(camera.up, yaw);
      const side = new THREE.Vector3().crossVectors(camera.up, offset).normalize();
      const tilted = offset.clone().applyAxisAngle(side, -pitch);
      const polar = tilted.angleTo(camera.up);
      if (polar > 0.01 && polar < Math.PI - 0.01) offset.copy(tilted);
      camera.position.copy(controls.target).add(offset);
      controls.update();
    }
    /** The camera and its target moved by `dx`, `dy` of the view's height. */
    function pan(dx, dy) {
      const dist = camera.position.distanceTo(controls.target);
      const h = 2 * dist * Math.tan((Math.PI / 360) * FOV);
      const x = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 0).multiplyScalar(dx * h);
      const y = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 1).multiplyScalar(dy * h);
      camera.position.add(x).add(y);
      controls.target.add(x).add(y);
      controls.update();
    }
    function zoom(f) {
      camera.position.sub(controls.target).multiplyScalar(f).add(controls.target);
      controls.update();
    }
    const STEP = Math.PI / 24;
    const KEYS = {
      a: () => orbit(-STEP, 0),
      d: () => orbit(STEP, 0),
      w: () => orbit(0, STEP),
      s: () => orbit(0, -STEP),
      j: () => pan(-0.05, 0),
      l: () => pan(0.05, 0),
      i: () => pan(0, 0.05),
      k: () => pan(0, -0.05),
      q: () => zoom(1 / 1.15),
      e: () => zoom(1.15),
      r: reset,
    };

    // ---- balls: sphere impostors --------------------------------------------------------

    const outlined = (i) => RIGID && OUTLINE_START[i + 1] > OUTLINE_START[i];
    const TRI_START = numbers(data.bodies.triangleStart, Uint32Array);
    const TRIANGLES = numbers(data.bodies.triangles, Uint32Array);
    const balls = [];
    for (let i = 0; i < N; i++) if (!outlined(i)) balls.push(i);
    const slotOf = new Int32Array(N).fill(-1);
    balls.forEach((i, k) => (slotOf[i] = k));
    let sphereAttr = null;
    let tintAttr = null;
    if (balls.length > 0) {
      const n = balls.length;
      const geo = new THREE.BufferGeometry();
      const corner = new Float32Array(n * 12);
      const index = new Uint32Array(n * 6);
      const CORNERS = [-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0];
      for (let k = 0; k < n; k++) {
        corner.set(CORNERS, 12 * k);
        index.set([0, 1, 2, 0, 2, 3].map((v) => 4 * k + v), 6 * k);
      }
      geo.setAttribute("position", new THREE.BufferAttribute(corner, 3));
      geo.setIndex(new THREE.BufferAttribute(index, 1));
      sphereAttr = new THREE.BufferAttribute(new Float32Array(n * 16), 4);
      sphereAttr.setUsage(THREE.DynamicDrawUsage);
      tintAttr = new THREE.BufferAttribute(new Float32Array(n * 12), 3);
      tintAttr.setUsage(THREE.DynamicDrawUsage);
      geo.setAttribute("sphere", sphereAttr);
      geo.setAttribute("tint", tintAttr);
      const material = new THREE.ShaderMaterial({
        vertexShader: `
          attribute vec4 sphere;
          attribute vec3 tint;
          varying vec3 vColor;
          varying vec3 vView;
          varying vec4 vCentre;
          void main() {
            vec4 c = modelViewMatrix * vec4(sphere.xyz, 1.0);
            // A square through the centre facing the eye, as wide as the circle where the
            // cone from the eye touches the sphere: it holds the sphere's outline.
            float r = sphere.w;
            float d2 = dot(c.xyz, c.xyz);
            float half_ = r * sqrt(d2 / max(d2 - r * r, 1e-12 * d2));
            vec3 f = normalize(c.xyz);
            vec3 side = normalize(cross(f, abs(f.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0)));
            vec3 up = cross(side, f);
            vec3 p = c.xyz + half_ * (position.x * side + position.y * up);
            vView = p;
            vCentre = vec4(c.xyz, r);
            vColor = tint;
            gl_Position = projectionMatrix * vec4(p, 1.0);
          }`,
        fragmentShader: `
          uniform mat4 projectionMatrix;
          varying vec3 vColor;
          varying vec3 vView;
          varying vec4 vCentre;
          void main() {
            vec3 d = normalize(vView);
            vec3 c = vCentre.xyz;
            float b = dot(d, c);
            float h = b * b - dot(c, c) + vCentre.w * vCentre.w;
            if (h < 0.0) discard;
            vec3 hit = d * (b - sqrt(h));
            vec3 n = (hit - c) / vCentre.w;
            float diffuse = max(dot(n, normalize(vec3(0.3, 0.6, 1.0))), 0.0);
            gl_FragColor = vec4(vColor * (0.45 + 0.65 * diffuse), 1.0);
            vec4 clip = projectionMatrix * vec4(hit, 1.0);
            gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
          }`,
      });
      const mesh = new THREE.Mesh(geo, material);
      mesh.frustumCulled = false;
      scene.add(mesh);
    }
    function tintBall(k, c) {
      const a = tintAttr.array;
      for (let v = 0; v < 4; v++) {
        a[12 * k + 3 * v] = c.r;
        a[12 * k + 3 * v + 1] = c.g;
        a[12 * k + 3 * v + 2] = c.b;
      }
    }
    for (let k = 0; k < balls.length; k++) tintBall(k, BODY);

    // ---- rigid bodies: convex hulls, mesh bodies' edges ----------------------------------

    let painted = []; // bodies whose colour must be set again at the next drawing
    const shapes = new Array(N).fill(null);
    const materials = new Array(N).fill(null);
    for (let i = 0; i < N; i++) {
      if (!outlined(i)) continue;
      const points = [];
      for (let k = OUTLINE_START[i]; k < OUTLINE_START[i + 1]; k++) {
        points.push(new THREE.Vector3(OUTLINE[3 * k], OUTLINE[3 * k + 1], OUTLINE[3 * k + 2]));
      }
      let object;
      if (TRI_START && TRI_START[i + 1] > TRI_START[i]) {
        // A mesh body: its triangles, flat-shaded, with its edges over them.
        const corners = [];
        for (let t = TRI_START[i]; t < TRI_START[i + 1]; t++) {
          for (let c = 0; c < 3; c++) corners.push(points[TRIANGLES[3 * t + c]]);
        }
        const geometry = new THREE.BufferGeometry().setFromPoints(corners);
        geometry.computeVertexNormals();
        materials[i] = new THREE.MeshLambertMaterial({ color: BODY, side: THREE.DoubleSide });
        object = new THREE.Mesh(geometry, materials[i]);
        const line = [];
        for (let e = EDGE_START[i]; e < EDGE_START[i + 1]; e++) {
          line.push(points[EDGES[2 * e]], points[EDGES[2 * e + 1]]);
        }
        const edges = new THREE.LineSegments(
          new THREE.BufferGeometry().setFromPoints(line),
          new THREE.LineBasicMaterial({ color: color(COLORS.bodyStroke), transparent: true, opacity: 0.35 })
        );
        edges.raycast = () => {};
        object.add(edges);
      } else {
        materials[i] = new THREE.MeshLambertMaterial({ color: BODY, side: THREE.DoubleSide });
        const hullOf = (points) => {
          try {
            const g = new THREE.ConvexGeometry(points);
            return g.attributes.position.count > 0 ? g : null;
          } catch (e) {
            return null;
          }
        };
        const geometry = hullOf(points);
        if (geometry) {
          object = new THREE.Mesh(geometry, materials[i]);
        } else {
          // A flat body (a triangle, a segment): its points joined in turn.
          const loop = points.flatMap((p, k) => [p, points[(k + 1) % points.length]]);
          object = new THREE.LineSegments(
            new THREE.BufferGeometry().setFromPoints(loop),
            new THREE.LineBasicMaterial({ color: BODY })
          );
          materials[i] = object.material;
        }
      }
      shapes[i] = object;
      scene.add(object);
      painted.push(i);
    }

    // ---- walls: translucent, a plane cut to the scene's box --------------------------------

    /** The polygon where the plane through `p` with normal `n` cuts the box [lo, hi]. */
    function cut(p, n) {
      const at = [];
      const corner = (m) => [m & 1 ? hi[0] : lo[0], m & 2 ? hi[1] : lo[1], m & 4 ? hi[2] : lo[2]];
      const side = (q) => (q[0] - p[0]) * n[0] + (q[1] - p[1]) * n[1] + (q[2] - p[2]) * n[2];
      for (let m = 0; m < 8; m++) {
        for (const bit of [1, 2, 4]) {
          if (m & bit) continue;
          const a = corner(m);
          const b = corner(m | bit);
          const sa = side(a);
          const sb = side(b);
          if ((sa <= 0 && sb >= 0) || (sa >= 0 && sb <= 0)) {
            const f = sa === sb ? 0 : sa / (sa - sb);
            at.push(new THREE.Vector3(...a.map((x, c) => x + f * (b[c] - x))));
          }
        }
      }
      if (at.length < 3) return [];
      // In turn about their centre, in the plane.
      const mid = at.reduce((s, q) => s.add(q), new THREE.Vector3()).multiplyScalar(1 / at.length);
      const normal = new THREE.Vector3(...n).normalize();
      const u = new THREE.Vector3().subVectors(at[0], mid).normalize();
      const v = new THREE.Vector3().crossVectors(normal, u);
      const angle = (q) => {
        const d = new THREE.Vector3().subVectors(q, mid);
        return Math.atan2(d.dot(v), d.dot(u));
      };
      at.sort((a, b) => angle(a) - angle(b));
      return at.filter((q, k) => k === 0 || q.distanceTo(at[k - 1]) > 1e-9 * extent);
    }
    const WALL = color(COLORS.wall);
    const WALL_HIT = color(COLORS.wallHit);
    const walls = new Map(); // wall id -> its face and outline materials
    for (const w of WALLS3) {
      let points = w.type === "plane" ? cut(w.point, w.normal) : w.points.map((p) => new THREE.Vector3(...p));
      if (points.length === 0) continue;
      const face = new THREE.MeshBasicMaterial({
        color: WALL,
        transparent: true,
        opacity: 0.07,
        side: THREE.DoubleSide,
        depthWrite: false,
      });
      const line = new THREE.LineBasicMaterial({ color: WALL, transparent: true, opacity: 0.45 });
      let geometry = null;
      if (w.type === "hull") {
        try {
          geometry = new THREE.ConvexGeometry(points);
        } catch (e) {
          geometry = null;
        }
      } else if (points.length >= 3) {
        const fan = [];
        for (let k = 1; k + 1 < points.length; k++) fan.push(points[0], points[k], points[k + 1]);
        geometry = new THREE.BufferGeometry().setFromPoints(fan);
      }
      if (geometry) {
        const mesh = new THREE.Mesh(geometry, face);
        mesh.raycast = () => {};
        scene.add(mesh);
      }
      if (w.type !== "hull") {
        const loop = points.flatMap((q, k) => [q, points[(k + 1) % points.length]]);
        scene.add(new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(loop), line));
      } else if (geometry) {
        face.opacity = 0.25;
      }
      walls.set(w.id, { face, line });
    }
    let litWall = -1;
    function lightWall(id) {
      if (id === litWall) return;
      for (const [k, m] of [[litWall, false], [id, true]]) {
        const w = walls.get(k);
        if (!w) continue;
        w.face.color.copy(m ? WALL_HIT : WALL);
        w.line.color.copy(m ? WALL_HIT : WALL);
        w.line.opacity = m ? 0.9 : 0.45;
      }
      litWall = id;
    }

    // ---- the periodic cell and the kaya-bvh boxes -----------------------------------------

    /** Line segments along the edges of boxes ([min, max] pairs), each box its colour. */
    function boxLines(boxes, colours) {
      const p = [];
      const c = [];
      boxes.forEach(([a, b], k) => {
        const corner = (m) => [m & 1 ? b[0] : a[0], m & 2 ? b[1] : a[1], m & 4 ? b[2] : a[2]];
        for (let m = 0; m < 8; m++) {
          for (const bit of [1, 2, 4]) {
            if (m & bit) continue;
            p.push(...corner(m), ...corner(m | bit));
            c.push(...colours[k], ...colours[k]);
          }
        }
      });
      const geo = new THREE.BufferGeometry();
      geo.setAttribute("position", new THREE.BufferAttribute(new Float32Array(p), 3));
      geo.setAttribute("color", new THREE.BufferAttribute(new Float32Array(c), 3));
      return new THREE.LineSegments(geo, new THREE.LineBasicMaterial({ vertexColors: true }));
    }
    if (PERIOD) {
      const grey = color(COLORS.period);
      scene.add(boxLines([[[0, 0, 0], PERIOD]], [[grey.r, grey.g, grey.b]]));
    }
    let bvhLines = null;
    let bvhKey = "";
    function drawBoxes() {
      const s = search();
      const tree = s && ui.tree.checked && !ui.tree.disabled;
      const leaves = s && ui.leaves.checked;
      const key = s ? `${s.finds} ${tree ? ui.depth.value : "-"} ${leaves}` : "";
      if (key === bvhKey) return;
      bvhKey = key;
      if (bvhLines) {
        scene.remove(bvhLines);
        bvhLines.geometry.dispose();
        bvhLines = null;
      }
      const boxes = [];
      const colours = [];
      if (tree) {
        const deepest = Number(ui.depth.value);
        for (const node of hierarchy(s)) {
          if (node.level > deepest) continue;
          boxes.push([node.min, node.max]);
          const c = new THREE.Color().setHSL(((node.level * 47) % 360) / 360, 0.7, 0.4);
          colours.push([c.r, c.g, c.b]);
        }
      }
      if (leaves) {
        const all = leafBoxes(s);
        const green = color(COLORS.leaf);
        for (let i = 0; i < N; i++) {
          const o = i * 6;
          boxes.push([Array.from(all.subarray(o, o + 3)), Array.from(all.subarray(o + 3, o + 6))]);
          colours.push([green.r, green.g, green.b]);
        }
      }
      if (boxes.length > 0) {
        bvhLines = boxLines(boxes, colours);
        scene.add(bvhLines);
      }
    }

    // ---- colour by a property, with a legend ----------------------------------------------

    const MASS = numbers(data.bodies.mass, Float32Array);
    // A perceptually ordered ramp (viridis' stops), low to high.
    const RAMP = [
      [0.267, 0.005, 0.329],
      [0.23, 0.322, 0.546],
      [0.128, 0.567, 0.551],
      [0.369, 0.789, 0.383],
      [0.993, 0.906, 0.144],
    ];
    function ramp(f, out) {
      f = Math.min(Math.max(Number.isFinite(f) ? f : 0, 0), 1) * (RAMP.length - 1);
      const k = Math.min(Math.floor(f), RAMP.length - 2);
      const u = f - k;
      return out.setRGB(...[0, 1, 2].map((c) => RAMP[k][c] + u * (RAMP[k + 1][c] - RAMP[k][c])));
    }
    /** Body `i`'s speed now (under gravity, its velocity changes between events). */
    function speedOf(i) {
      const dt = now - since[i];
      let s = 0;
      for (let c = 0; c < 3; c++) {
        const v = vel[i * 3 + c] + (GRAVITY && !asleep[i] ? GRAVITY[c] * dt : 0);
        s += v * v;
      }
      return Math.sqrt(s);
    }
    const PROPERTIES = {
      none: { label: "one colour" },
      radius: { label: "radius", of: (i) => RADIUS[i] },
      speed: { label: "speed", of: speedOf },
      energy: { label: "kinetic energy (translation)", of: (i) => 0.5 * MASS[i] * speedOf(i) ** 2 },
    };
    // Each scale is fixed over the replay, so a colour means the same value at every time:
    // the radii's range, and from 0 to the largest speed (energy) of any recorded state.
    {
      let [rlo, rhi, v2, e] = [Infinity, -Infinity, 0, 0];
      for (let i = 0; i < N; i++) {
        rlo = Math.min(rlo, RADIUS[i]);
        rhi = Math.max(rhi, RADIUS[i]);
      }
      const visit = (states, body) => {
        for (let o = 0, k = 0; o + W <= states.length; o += W, k++) {
          const s = states[o + 3] ** 2 + states[o + 4] ** 2 + states[o + 5] ** 2;
          v2 = Math.max(v2, s);
          e = Math.max(e, 0.5 * MASS[body(k)] * s);
        }
      };
      visit(STATE0, (k) => k);
      visit(EV_STATE, (k) => slotBody[k]);
      PROPERTIES.radius.range = rhi > rlo ? [rlo, rhi] : [rlo - 0.5 * rlo, rhi + 0.5 * rhi];
      PROPERTIES.speed.range = [0, Math.sqrt(v2) || 1];
      PROPERTIES.energy.range = [0, e || 1];
    }
    let colourBy = "none";
    const legend = document.createElement("section");
    legend.id = "colour";
    legend.innerHTML =
      '<h2>Colour</h2><label>by <select id="colour-by"></select></label>' +
      '<div id="legend" hidden><canvas width="200" height="12"></canvas>' +
      '<p><span id="legend-low"></span><span id="legend-high" style="float: right"></span></p></div>';
    el("panel").insertBefore(legend, el("panel").children[2]);
    const select = legend.querySelector("select");
    for (const [key, p] of Object.entries(PROPERTIES)) select.add(new Option(p.label, key));
    {
      const g = legend.querySelector("canvas").getContext("2d");
      const c = new THREE.Color();
      for (let x = 0; x < 200; x++) {
        ramp(x / 199, c);
        g.fillStyle = `rgb(${255 * c.r}, ${255 * c.g}, ${255 * c.b})`;
        g.fillRect(x, 0, 1, 12);
      }
    }
    const short = (x) => String(Number(x.toPrecision(3)));
    function colourByProperty(key) {
      colourBy = key in PROPERTIES ? key : "none";
      select.value = colourBy;
      const p = PROPERTIES[colourBy];
      el("legend").hidden = colourBy === "none";
      if (p.range) {
        el("legend-low").textContent = short(p.range[0]);
        el("legend-high").textContent = short(p.range[1]);
      }
      painted = Array.from({ length: N }, (_, i) => i); // every body's colour set again
      dirty = true;
      return colourBy;
    }
    select.addEventListener("change", () => colourByProperty(select.value));

    // ---- drawing --------------------------------------------------------------------------

    function paint(i, c) {
      if (slotOf[i] >= 0) tintBall(slotOf[i], c);
      else if (materials[i]) materials[i].color.copy(c);
    }
    const own = new THREE.Color();
    // Rigid bodies in one colour, each a little lighter or darker (by its id), so that the
    // faces of neighbours pressed together (a stack) part.
    const tone = (i) => {
      const h = Math.imul(i + 1, 0x9e3779b1) >>> 0;
      return own.copy(BODY).multiplyScalar(0.85 + 0.3 * (h / 2 ** 32));
    };
    /** Body `i`'s own colour now: one colour, or its property's on the ramp. */
    function ownColour(i) {
      const p = PROPERTIES[colourBy];
      if (!p.of) return slotOf[i] >= 0 ? BODY : tone(i);
      return ramp((p.of(i) - p.range[0]) / (p.range[1] - p.range[0]), own);
    }
    function draw() {
      const p = new Float64Array(3);
      if (sphereAttr) {
        const a = sphereAttr.array;
        for (let k = 0; k < balls.length; k++) {
          const i = balls[k];
          positionAt(i, now, p);
          for (let o = 16 * k; o < 16 * k + 16; o += 4) {
            a[o] = p[0];
            a[o + 1] = p[1];
            a[o + 2] = p[2];
            a[o + 3] = RADIUS[i];
          }
        }
        sphereAttr.needsUpdate = true;
      }
      for (let i = 0; i < N; i++) {
        const object = shapes[i];
        if (!object) continue;
        positionAt(i, now, p);
        object.position.set(p[0], p[1], p[2]);
        const [w, x, y, z] = rotationAt(i, now);
        object.quaternion.set(x, y, z, w);
      }
      if (colourBy === "none") for (const i of painted) paint(i, ownColour(i));
      else for (let i = 0; i < N; i++) paint(i, ownColour(i));
      const lit = highlighted();
      lightWall(lit.wall);
      const hits = lit.bodies;
      painted = hits.slice();
      for (const i of hits) paint(i, HIT);
      if (selected >= 0) {
        paint(selected, PICKED);
        painted.push(selected);
      }
      if (tintAttr) tintAttr.needsUpdate = true;
      drawBoxes();
      renderer.render(scene, camera);
    }

    function fit() {
      const r = canvas.getBoundingClientRect();
      const w = Math.max(1, r.width);
      const h = Math.max(1, r.height);
      renderer.setPixelRatio(window.devicePixelRatio || 1);
      renderer.setSize(w, h, false);
      camera.aspect = w / h;
      camera.updateProjectionMatrix();
      if (!fit.done) {
        fit.done = true;
        reset();
      }
      dirty = true;
    }

    // ---- picking: the nearest body the ray through a pixel meets ------------------------

    const raycaster = new THREE.Raycaster();
    function pick(x, y) {
      const ndc = new THREE.Vector2((2 * x) / canvas.width - 1, 1 - (2 * y) / canvas.height);
      raycaster.setFromCamera(ndc, camera);
      const o = raycaster.ray.origin;
      const d = raycaster.ray.direction;
      const p = new Float64Array(3);
      let best = -1;
      let nearest = Infinity;
      for (let i = 0; i < N; i++) {
        positionAt(i, now, p);
        // The ray against the body's bounding sphere, then a rigid body's own shape.
        const cx = p[0] - o.x;
        const cy = p[1] - o.y;
        const cz = p[2] - o.z;
        const b = cx * d.x + cy * d.y + cz * d.z;
        const h = b * b - (cx * cx + cy * cy + cz * cz) + RADIUS[i] * RADIUS[i];
        if (h < 0 || b + Math.sqrt(h) < 0) continue;
        let t = b - Math.sqrt(h);
        if (shapes[i]) {
          shapes[i].updateMatrixWorld();
          const hit = raycaster.intersectObject(shapes[i], true)[0];
          if (!hit) continue;
          t = hit.distance;
        }
        if (t < nearest) {
          nearest = t;
          best = i;
        }
      }
      return best;
    }

    return {
      canvas,
      fit,
      draw,
      pick,
      reset,
      orbit,
      /** Whether key `k` moved the camera. */
      key(k) {
        const f = KEYS[k.toLowerCase()];
        if (!f) return false;
        f();
        return true;
      },
      /** Where shown body `i`'s centre is drawn now: canvas pixels, and its radius there. */
      pixelOf(i) {
        const p = positionAt(i, now, new Float64Array(3));
        const v = new THREE.Vector3(p[0], p[1], p[2]);
        const dist = v.distanceTo(camera.position);
        v.project(camera);
        const r = (RADIUS[i] * canvas.height) / (2 * dist * Math.tan((Math.PI / 360) * FOV));
        return { x: ((v.x + 1) / 2) * canvas.width, y: ((1 - v.y) / 2) * canvas.height, r };
      },
      dpr: () => renderer.getPixelRatio(),
      colourBy: colourByProperty,
      /** The colour body `i` gets from the chosen property now, as [r, g, b] in 0..255. */
      colourOf: (i) => ownColour(i).toArray().map((x) => Math.round(255 * x)),
    };
  })();

