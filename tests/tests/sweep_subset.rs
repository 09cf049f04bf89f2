//! The bounded form of the exhaustive f32 sweeps (`scripts/sweep.sh`, whose
//! full run over all 2^32 patterns is `docs/reports/exhaustive-f32.md`):
//! the sweep binary's `--plan measure`, every sweep (each one-input f32
//! function, the elementary ones included, and the slices of the others) over
//! a 2^24 strided subset, C core against the reference; the binary exits 1 on
//! any mismatch, and panics where a function's typed path disagrees with its
//! flat one.

use std::process::Command;

#[test]
fn every_sweep_over_a_strided_subset_matches_the_reference() {
    let out = Command::new(env!("CARGO_BIN_EXE_sweep")).args(["--plan", "measure"]).output().expect("the sweep binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "sweep --plan measure failed ({}):\n{stdout}\n{stderr}", out.status);
    let swept = stdout.lines().filter(|l| l.contains("projected full") && l.ends_with("mismatches 0")).count();
    assert!(swept >= 30, "only {swept} sweeps reported 0 mismatches:\n{stdout}");
    for name in ["aether_f32_sin", "aether_f32_exp", "aether_f32_log2", "aether_f32_acos", "aether_f32_atan2", "aether_f32_pow"] {
        assert!(stdout.contains(&format!("  {name} (")), "{name} was not swept:\n{stdout}");
    }
}
