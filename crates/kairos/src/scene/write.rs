//! A scene as TOML text that parses back to an identical scene.

use toml::Value;

use super::{Scene, WallSpec};

impl Scene {
    /// The scene as TOML text that parses back to an identical scene (floats round-trip).
    pub fn to_toml(&self) -> String {
        use std::fmt::Write;
        let vec = |v: &[f64]| {
            let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            format!("[{}]", parts.join(", "))
        };
        let mut s = self.to_toml_without_bodies();
        for (i, b) in self.bodies.iter().enumerate() {
            if let Some(Some(table)) = self.shapes.get(i) {
                s.push_str("\n[[bodies]]\n");
                for (key, value) in table.table() {
                    let _ = writeln!(s, "{key} = {value}");
                }
                continue;
            }
            let _ = writeln!(
                s,
                "\n[[bodies]]\nposition = {}\nvelocity = {}\nradius = {:?}\nmass = {:?}",
                vec(&b.position[..self.dim]),
                vec(&b.velocity[..self.dim]),
                b.radius,
                b.mass
            );
        }
        for (name, mesh) in &self.meshes {
            let _ = write!(
                s,
                "\n[meshes.{}]\nvertices = [",
                Value::String(name.clone())
            );
            for (i, v) in mesh.vertices().iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                let _ = write!(s, "{sep}[{:?}, {:?}, {:?}]", v[0], v[1], v[2]);
            }
            s.push_str("]\ntriangles = [");
            for (i, t) in mesh.triangles().iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                let _ = write!(s, "{sep}[{}, {}, {}]", t[0], t[1], t[2]);
            }
            s.push_str("]\n");
        }
        s
    }

    /// The scene as TOML that takes its bodies from the extended-XYZ file `bodies_file`
    /// (written by [`super::xyz::write_bodies`], beside the scene file).
    pub fn to_toml_with_bodies_file(&self, bodies_file: &str) -> String {
        let toml = self.to_toml_without_bodies();
        let (first, rest) = toml.split_once('\n').unwrap_or((&toml, ""));
        format!(
            "{first}\nbodies_file = {}\n{rest}",
            Value::String(bodies_file.to_string())
        )
    }

    /// The scene as TOML without its bodies (traces and checkpoints store the bodies' states
    /// apart, in binary).
    pub fn to_toml_without_bodies(&self) -> String {
        use std::fmt::Write;
        let vec = |v: &[f64]| {
            let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            format!("[{}]", parts.join(", "))
        };
        let mut s = String::new();
        let _ = writeln!(s, "dim = {}\n\n[simulation]", self.dim);
        let _ = writeln!(
            s,
            "duration = {:?}\nrestitution = {:?}",
            self.duration, self.restitution
        );
        if let Some(tc) = self.contact_duration {
            let _ = writeln!(s, "contact_duration = {tc:?}");
        }
        if self.has_gravity() {
            let _ = writeln!(s, "gravity = {}", vec(&self.gravity[..self.dim]));
        }
        if let Some(v) = self.rest_speed {
            let _ = writeln!(s, "rest_speed = {v:?}");
        }
        if self.friction != 0.0 {
            let _ = writeln!(s, "friction = {:?}", self.friction);
        }
        if let Some(l) = &self.periodic {
            let _ = writeln!(s, "\n[boundary]\nperiodic = {}", vec(l));
        }
        for w in &self.walls {
            let _ = match w {
                WallSpec::Shape { table } => {
                    s.push_str("\n[[walls]]\n");
                    table
                        .iter()
                        .try_for_each(|(key, value)| writeln!(s, "{key} = {value}"))
                }
                WallSpec::Segment { a, b } => {
                    writeln!(s, "\n[[walls]]\na = {}\nb = {}", vec(a), vec(b))
                }
                WallSpec::Plane { point, normal } => {
                    writeln!(
                        s,
                        "\n[[walls]]\nplane = {{ point = {}, normal = {} }}",
                        vec(point),
                        vec(normal)
                    )
                }
                WallSpec::Polygon { vertices } => {
                    let vs: Vec<String> = vertices.iter().map(|v| vec(v)).collect();
                    writeln!(s, "\n[[walls]]\npolygon = [{}]", vs.join(", "))
                }
                WallSpec::Box { min, max } => {
                    writeln!(
                        s,
                        "\n[[walls]]\nbox = {{ min = {}, max = {} }}",
                        vec(min),
                        vec(max)
                    )
                }
            };
        }
        s
    }
}
