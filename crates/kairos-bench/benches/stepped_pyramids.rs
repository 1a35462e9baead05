//! The stepped engine's pyramid table (the module docs of `kairos::stepped`, "Measured"): how far
//! the farthest box of a pyramid moves in 10 s at `dt = 1/60` with 4 sub-steps, for each
//! position correction and count of sweeps, with the time it took.
//!
//! `cargo bench -p kairos-bench --bench stepped_pyramids -- BASE [DIMS] [CORRECTIONS]
//! [SWEEPS]`, for example `-- 10 2,3 split,baumgarte,soft 1,4,8` (the defaults after the base:
//! `2,3`, `split,baumgarte`, `4,8`).

use kairos::generate::{pyramid, StackParams};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::scene::Scene;
use kairos::stepped::{Correction, StepOptions, SteppedSim};

/// Runs `scene` for `seconds`: the largest distance of any box from where it started.
fn largest_move<V: Vector>(scene: &Scene, seconds: f64, options: StepOptions) -> f64 {
    let mut sim = SteppedSim::new(scene.world::<V>().expect("a pyramid's world"), options)
        .expect("the stepped engine takes a pyramid");
    let start: Vec<V> = sim.bodies().iter().map(|b| b.position).collect();
    let mut worst: f64 = 0.0;
    for _ in 0..(seconds / options.dt).round() as usize {
        sim.step();
        for (b, s) in sim.bodies().iter().zip(&start) {
            worst = worst.max((b.position - *s).length());
        }
    }
    worst
}

fn main() {
    // `cargo bench` adds `--bench` to the arguments of a bench without a harness.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let usage = "usage: stepped_pyramids BASE [DIMS, e.g. 2,3] [CORRECTIONS, e.g. \
                 split,baumgarte,soft] [SWEEPS, e.g. 4,8]";
    let Some(base) = args.first().and_then(|b| b.parse::<usize>().ok()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let list = |k: usize, default: &str| -> Vec<String> {
        args.get(k)
            .map_or(default, String::as_str)
            .split(',')
            .map(str::to_owned)
            .collect()
    };
    let parse = |x: &str| -> u32 {
        x.parse().unwrap_or_else(|_| {
            eprintln!("{x:?} is not a count\n{usage}");
            std::process::exit(2)
        })
    };
    let corrections: Vec<Correction> = list(2, "split,baumgarte")
        .iter()
        .map(|c| match c.as_str() {
            "split" => Correction::Split,
            "baumgarte" => Correction::Baumgarte,
            "soft" => Correction::Soft,
            other => {
                eprintln!("{other:?} is not split, baumgarte or soft\n{usage}");
                std::process::exit(2)
            }
        })
        .collect();
    let sweeps: Vec<u32> = list(3, "4,8").iter().map(|x| parse(x)).collect();
    for dim in list(1, "2,3").iter().map(|x| parse(x) as usize) {
        let scene = pyramid(
            &StackParams {
                dim,
                ..Default::default()
            },
            base,
        )
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
        for &correction in &corrections {
            for &iterations in &sweeps {
                let options = StepOptions {
                    correction,
                    iterations,
                    ..Default::default()
                };
                let t = std::time::Instant::now();
                let worst = if dim == 2 {
                    largest_move::<DVec2>(&scene, 10.0, options)
                } else {
                    largest_move::<DVec3>(&scene, 10.0, options)
                };
                println!(
                    "{dim}D pyramid of base {base} ({} boxes), {correction:?}, {iterations} \
                     sweeps: a box moved by {:.3}% of its size in {:.1?}",
                    scene.bodies.len(),
                    100.0 * worst,
                    t.elapsed()
                );
            }
        }
    }
}
