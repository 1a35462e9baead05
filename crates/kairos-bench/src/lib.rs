//! The criterion benchmarks of the Kairos library live in `benches/` (`cargo bench -p
//! kairos-bench --bench NAME`); this library is empty. Their figures, with the commands that
//! made them, are in `docs/benchmarks.md`.
