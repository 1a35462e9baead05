// Box2D v3 on a 2D Kairos scene of boxes on the floor y = 0 (as scene2txt.py writes it): the
// median wall time of a step (dt = 1/60, 4 sub-steps, one thread, Box2D's other defaults) and
// the largest distance of a box from its start, relative to its size, after the run. The floor
// is a static box whose top is y = 0; every box has density 1. Sleeping is off unless the third
// argument is 1.
//
// Usage: b2bench SCENE.txt STEPS [sleep: 0 or 1]
#include "box2d/box2d.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static int cmp(const void* a, const void* b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: b2bench SCENE.txt STEPS [sleep: 0 or 1]\n"); return 2; }
    FILE* f = fopen(argv[1], "r");
    int steps = atoi(argv[2]);
    double friction, g;
    int n;
    if (f == NULL || steps < 1) { fprintf(stderr, "%s: cannot read, or STEPS < 1\n", argv[1]); return 2; }
    if (fscanf(f, "%lf %lf %d", &friction, &g, &n) != 3 || n < 1) { fprintf(stderr, "%s: bad header\n", argv[1]); return 2; }
    double *hx = malloc(n * sizeof(double)), *hy = malloc(n * sizeof(double)), *x0 = malloc(n * sizeof(double)), *y0 = malloc(n * sizeof(double));
    double xmin = 1e300, xmax = -1e300;
    for (int i = 0; i < n; i++) { if (fscanf(f, "%lf %lf %lf %lf", hx + i, hy + i, x0 + i, y0 + i) != 4) { fprintf(stderr, "%s: box %d: bad line\n", argv[1], i); return 2; } if (x0[i] < xmin) xmin = x0[i]; if (x0[i] > xmax) xmax = x0[i]; }
    b2WorldDef wd = b2DefaultWorldDef();
    wd.gravity = (b2Vec2){0.0f, (float)-g};
    wd.enableSleep = argc > 3 && atoi(argv[3]) == 1;
    b2WorldId w = b2CreateWorld(&wd);
    b2BodyDef gd = b2DefaultBodyDef();
    gd.position = (b2Pos){(float)(0.5 * (xmin + xmax)), -1.0f};
    b2BodyId ground = b2CreateBody(w, &gd);
    b2Polygon gbox = b2MakeBox((float)(0.5 * (xmax - xmin) + 10.0), 1.0f);
    b2ShapeDef sd = b2DefaultShapeDef();
    sd.material.friction = (float)friction;
    b2CreatePolygonShape(ground, &sd, &gbox);
    b2BodyId* ids = malloc(n * sizeof(b2BodyId));
    sd.density = 1.0f;
    for (int i = 0; i < n; i++) {
        b2BodyDef bd = b2DefaultBodyDef();
        bd.type = b2_dynamicBody;
        bd.position = (b2Pos){(float)x0[i], (float)y0[i]};
        ids[i] = b2CreateBody(w, &bd);
        b2Polygon box = b2MakeBox((float)hx[i], (float)hy[i]);
        b2CreatePolygonShape(ids[i], &sd, &box);
    }
    double* ms = malloc(steps * sizeof(double));
    for (int s = 0; s < steps; s++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        b2World_Step(w, 1.0f / 60.0f, 4);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ms[s] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    }
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        b2Pos p = b2Body_GetPosition(ids[i]);
        double size = 2.0 * (hx[i] > hy[i] ? hx[i] : hy[i]);
        double d = hypot(p.x - x0[i], p.y - y0[i]) / size;
        if (d > worst) worst = d;
    }
    b2Counters c = b2World_GetCounters(w);
    qsort(ms, steps, sizeof(double), cmp);
    printf("bodies %d steps %d median_ms %.4f largest_move %.4f%% contacts %d\n", n, steps, ms[steps / 2], 100.0 * worst, c.contactCount);
    return 0;
}
