//! The executors on a hand-written module that follows the check module's
//! binding convention: a round trip on both stacks, the negative control
//! (the unguarded two-sum residual is folded away on lavapipe), chunking
//! beyond 65535 workgroups, and a shader that does not compile.
//!
//! A stack that is not installed is skipped with a message, unless
//! AETHER_REQUIRE_WGSL=1, which makes its absence a failure.

use aether_generator::rng::SplitMix64;
use aether_generator::targets::shared::check::{CheckEntry, CheckModule};
use aether_runner::exec::{Error, Executor, Job, MAX_WORKGROUPS};
use aether_runner::inputs;

const MODULE: &str = r#"
@group(0) @binding(0) var<storage, read> aether_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;
@group(0) @binding(2) var<uniform> aether_params: vec4<u32>;

// The core's guard: the bits XORed with a zero the compiler cannot see.
fn guard(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ aether_params.y);
}

@compute @workgroup_size(64)
fn two_sum_err_guarded(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = aether_params.w + gid.x;
    if (i >= aether_params.x) { return; }
    let a = bitcast<f32>(aether_in[2u * i]);
    let b = bitcast<f32>(aether_in[2u * i + 1u]);
    let s = guard(a + b);
    let bb = guard(s - a);
    aether_out[i] = bitcast<u32>(b - bb);
}

@compute @workgroup_size(64)
fn two_sum_err_plain(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = aether_params.w + gid.x;
    if (i >= aether_params.x) { return; }
    let a = bitcast<f32>(aether_in[2u * i]);
    let b = bitcast<f32>(aether_in[2u * i + 1u]);
    aether_out[i] = bitcast<u32>(b - ((a + b) - a));
}

@compute @workgroup_size(64)
fn mul(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = aether_params.w + gid.x;
    if (i >= aether_params.x) { return; }
    aether_out[i] = bitcast<u32>(bitcast<f32>(aether_in[2u * i]) * bitcast<f32>(aether_in[2u * i + 1u]));
}

// One case per workgroup; invocation 0 writes, the others only read.
var<workgroup> partial: array<f32, 32>;
@compute @workgroup_size(32)
fn mul_per_workgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = aether_params.w + wid.x;
    if (i >= aether_params.x) { return; }
    partial[lid] = bitcast<f32>(aether_in[2u * i + (lid & 1u)]);
    workgroupBarrier();
    if (lid == 0u) {
        aether_out[2u * i] = bitcast<u32>(partial[0] * partial[1]);
        aether_out[2u * i + 1u] = i;
    }
}

// One case per invocation, one invocation per workgroup: its index.
@compute @workgroup_size(1)
fn index_of(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = aether_params.w + gid.x;
    if (i >= aether_params.x) { return; }
    aether_out[i] = aether_in[i] ^ i;
}
"#;

fn entry(name: &str, n_in: usize, n_out: usize, workgroup_size: u32, cases_per_workgroup: u32) -> CheckEntry {
    CheckEntry {
        entry: name.into(),
        c_name: format!("test_{name}"),
        family: name.into(),
        shape: "scalar".into(),
        elem: "f32".into(),
        n_in,
        n_out,
        workgroup_size,
        cases_per_workgroup,
        random: true,
        max_random: None,
    }
}

fn module() -> CheckModule {
    CheckModule {
        source: MODULE.into(),
        entries: vec![
            entry("two_sum_err_guarded", 2, 1, 64, 64),
            entry("two_sum_err_plain", 2, 1, 64, 64),
            entry("mul", 2, 1, 64, 64),
            entry("mul_per_workgroup", 2, 2, 32, 1),
            entry("index_of", 1, 1, 1, 1),
        ],
    }
}

/// The stack, or None (skipped, with a message) when it is not installed.
fn open(stack: &str) -> Option<Box<dyn Executor>> {
    match aether_runner::open(stack) {
        Ok(e) => {
            eprintln!("{stack}: {}", e.adapter());
            Some(e)
        }
        Err(Error::NotInstalled(m)) if std::env::var("AETHER_REQUIRE_WGSL").as_deref() != Ok("1") => {
            eprintln!("SKIPPED: the {stack} stack is not installed here ({m}); AETHER_REQUIRE_WGSL=1 makes this a failure");
            None
        }
        Err(e) => panic!("{stack}: {e}"),
    }
}

/// Pairs of moderate f32 words: a + b rounds, so the residual is mostly nonzero.
fn pairs(n: usize, seed: u64) -> Vec<u32> {
    let mut r = SplitMix64::new(seed);
    (0..2 * n).map(|_| inputs::moderate(&mut r)).collect()
}

/// A job's 64-bit words from 32-bit ones (the Executor's words are u64, an
/// f32's bits in the low 32).
fn wide(xs: &[u32]) -> Vec<u64> {
    xs.iter().map(|&x| u64::from(x)).collect()
}

/// The WGSL stacks' results as 32-bit words.
fn narrow(out: Vec<Vec<u64>>) -> Vec<Vec<u32>> {
    out.into_iter().map(|v| v.into_iter().map(|w| w as u32).collect()).collect()
}

fn residual(a: u32, b: u32) -> u32 {
    let (a, b) = (f32::from_bits(a), f32::from_bits(b));
    let s = a + b;
    (b - (s - a)).to_bits()
}

fn mul(a: u32, b: u32) -> u32 {
    (f32::from_bits(a) * f32::from_bits(b)).to_bits()
}

fn round_trip(stack: &str) {
    let Some(mut exec) = open(stack) else { return };
    let m = module();
    let n = 5000;
    let xs = pairs(n, 11);
    let jobs = vec![Job::new(&m, 0, wide(&xs)), Job::new(&m, 2, wide(&xs)), Job::new(&m, 3, wide(&xs))];
    let out = narrow(exec.run(&m, &jobs).unwrap_or_else(|e| panic!("{stack}: {e}")));
    assert_eq!(out.len(), 3);
    let mut nonzero = 0;
    for k in 0..n {
        let (a, b) = (xs[2 * k], xs[2 * k + 1]);
        assert_eq!(out[0][k], residual(a, b), "{stack}: guarded two_sum_err({a:08x}, {b:08x})");
        nonzero += usize::from(residual(a, b) << 1 != 0);
        assert_eq!(out[1][k], mul(a, b), "{stack}: mul({a:08x}, {b:08x})");
        assert_eq!(out[2][2 * k], mul(a, b), "{stack}: mul_per_workgroup({a:08x}, {b:08x})");
        assert_eq!(out[2][2 * k + 1], k as u32, "{stack}: mul_per_workgroup's case index");
    }
    assert!(nonzero > n / 4, "the inputs exercise the residual ({nonzero} of {n} nonzero)");
}

#[test]
fn round_trip_on_wgpu() {
    round_trip("wgpu");
}

#[test]
fn round_trip_on_dawn() {
    round_trip("dawn");
}

/// The negative control: without the guard lavapipe folds
/// `b - ((a + b) - a)` and the residual is lost. If this fails, lavapipe
/// keeps the residual unguarded, and the guard's control shows nothing.
#[test]
fn unguarded_two_sum_loses_the_residual_on_lavapipe() {
    let Some(mut exec) = open("wgpu") else { return };
    let m = module();
    let n = 2000;
    let xs = pairs(n, 12);
    let out = narrow(exec.run(&m, &[Job::new(&m, 1, wide(&xs)), Job::new(&m, 0, wide(&xs))]).unwrap());
    let (mut should, mut lost, mut guarded_kept) = (0, 0, 0);
    for k in 0..n {
        let e = residual(xs[2 * k], xs[2 * k + 1]);
        if e << 1 != 0 {
            should += 1;
            lost += usize::from(out[0][k] != e);
            guarded_kept += usize::from(out[1][k] == e);
        }
    }
    eprintln!("{}: unguarded residual lost in {lost} of {should} cases; guarded kept in {guarded_kept}", exec.adapter());
    assert!(should > n / 4);
    assert_eq!(guarded_kept, should, "the guarded residual is kept");
    assert!(lost > 0, "lavapipe keeps the unguarded residual: the negative control shows nothing");
}

/// More than 65535 workgroups: both kinds of entries are dispatched in
/// chunks, each with its first case in params.w.
fn chunking(stack: &str) {
    let Some(mut exec) = open(stack) else { return };
    let m = module();
    let n = MAX_WORKGROUPS as usize + 4465;
    let xs = pairs(n, 13);
    let idx: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let out = narrow(exec.run(&m, &[Job::new(&m, 3, wide(&xs)), Job::new(&m, 4, wide(&idx))]).unwrap_or_else(|e| panic!("{stack}: {e}")));
    for k in 0..n {
        assert_eq!(out[0][2 * k + 1], k as u32, "{stack}: one case per workgroup, case {k}");
        assert_eq!(out[0][2 * k], mul(xs[2 * k], xs[2 * k + 1]), "{stack}: case {k}");
        assert_eq!(out[1][k], idx[k] ^ k as u32, "{stack}: one case per invocation of a workgroup of 1, case {k}");
    }
}

#[test]
fn chunking_beyond_65535_workgroups_on_wgpu() {
    chunking("wgpu");
}

#[test]
fn chunking_beyond_65535_workgroups_on_dawn() {
    chunking("dawn");
}

/// A shader that does not compile: the error names the stack and carries
/// the compiler's message.
fn compile_error(stack: &str) {
    let Some(mut exec) = open(stack) else { return };
    let m = CheckModule { source: format!("{MODULE}\nfn broken() -> f32 {{ return undefined_name; }}\n"), entries: module().entries };
    let job = Job::new(&m, 2, vec![0; 2]);
    match exec.run(&m, &[job]) {
        Err(Error::Failed(msg)) => {
            eprintln!("{stack}: {msg}");
            assert!(msg.contains("undefined_name"), "{stack}: the message names the bad identifier: {msg}");
        }
        other => panic!("{stack}: a broken shader gives {other:?}"),
    }
}

#[test]
fn a_shader_compile_error_is_reported_on_wgpu() {
    compile_error("wgpu");
}

#[test]
fn a_shader_compile_error_is_reported_on_dawn() {
    compile_error("dawn");
}
