//! The WGSL ULP distance (`templates/wgsl/ulp.wgsl`, which the WGSL core
//! includes) on both stacks, against the reference's (`aether_reference::ulp`)
//! on every pair of the 2^9 bit patterns nearest zero on each side (+-0 and
//! the subnormals among them) and of the 2^8 largest finite patterns of each
//! sign with both infinities, and on NaNs of both signs and kinds against
//! those. Words go in and out as u32 (`aether_f32_ulp_distance_bits`), so no
//! stack's treatment of a NaN or a subnormal as a value is involved.

use aether_generator::targets::shared::check::{CheckEntry, CheckModule};
use aether_runner::exec::{Error, Executor, Job};

const ULP_WGSL: &str = include_str!("../../templates/wgsl/ulp.wgsl");

fn open(stack: &str) -> Option<Box<dyn Executor>> {
    match aether_runner::open(stack) {
        Ok(e) => Some(e),
        Err(Error::NotInstalled(m)) if std::env::var("AETHER_REQUIRE_WGSL").as_deref() != Ok("1") => {
            eprintln!("SKIPPED: the {stack} stack is not installed here ({m}); AETHER_REQUIRE_WGSL=1 makes this a failure");
            None
        }
        Err(e) => panic!("{stack}: {e}"),
    }
}

fn module() -> CheckModule {
    let source = format!(
        "{ULP_WGSL}
@group(0) @binding(0) var<storage, read> aether_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> aether_out: array<u32>;
@group(0) @binding(2) var<uniform> aether_params: vec4<u32>;

@compute @workgroup_size(64)
fn check_ulp(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = aether_params.w + gid.x;
    if (i >= aether_params.x) {{ return; }}
    aether_out[i] = aether_f32_ulp_distance_bits(aether_in[2u * i], aether_in[2u * i + 1u]);
}}
"
    );
    let entry = CheckEntry {
        entry: "check_ulp".into(),
        c_name: "aether_f32_ulp_distance_bits".into(),
        family: "ulp_distance".into(),
        shape: "scalar".into(),
        elem: "f32".into(),
        n_in: 2,
        n_out: 1,
        workgroup_size: 64,
        cases_per_workgroup: 64,
        random: true,
        max_random: None,
    };
    CheckModule { source, entries: vec![entry] }
}

fn words() -> Vec<u32> {
    let mut v = Vec::new();
    for m in 0..512u32 {
        v.push(m);
        v.push(0x8000_0000 | m);
    }
    for m in 0..256u32 {
        v.push(0x7f7f_ffff - m);
        v.push(0xff7f_ffff - m);
    }
    v.extend([0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0xffa0_1234, 0x7fff_ffff]);
    v
}

fn agrees(stack: &str) {
    let Some(mut exec) = open(stack) else { return };
    let w = words();
    let mut inputs = Vec::with_capacity(2 * w.len() * w.len());
    for &a in &w {
        for &b in &w {
            inputs.push(a);
            inputs.push(b);
        }
    }
    let m = module();
    // The Executor's words are 64-bit: an f32's bits in the low 32.
    let wide: Vec<u64> = inputs.iter().map(|&x| u64::from(x)).collect();
    let out = exec.run(&m, &[Job::new(&m, 0, wide)]).unwrap_or_else(|e| panic!("{stack}: {e}"));
    let mut bad = Vec::new();
    for (k, got) in out[0].iter().enumerate() {
        let (a, b) = (inputs[2 * k], inputs[2 * k + 1]);
        let want = aether_reference::ulp::f32_ulp_distance_bits(a, b);
        if *got != u64::from(want) && bad.len() < 10 {
            bad.push(format!("{a:#010x} {b:#010x}: {got} (reference {want})"));
        }
    }
    println!("ulp on {stack} ({}): {} pairs compared with the reference, {} differ", exec.adapter(), out[0].len(), bad.len());
    assert!(bad.is_empty(), "{stack}:\n{}", bad.join("\n"));
    // The pairs that tell the rules apart are among them: +-0, across signs, the infinities, NaN.
    assert!(w.contains(&0x8000_0000) && w.contains(&0x0000_0001) && w.contains(&0xff80_0000) && w.contains(&0x7fc0_0000));
}

#[test]
fn wgsl_ulp_distance_agrees_with_the_reference_on_wgpu() {
    agrees("wgpu");
}

#[test]
fn wgsl_ulp_distance_agrees_with_the_reference_on_dawn() {
    agrees("dawn");
}
