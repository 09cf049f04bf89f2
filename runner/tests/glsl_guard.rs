//! The GLSL ES core's guard on Mesa's GLES (llvmpipe): the opaque zero added
//! to the bits keeps two_sum's residual, and the same zero XORed with them
//! (WGSL's guard, which holds on lavapipe's SPIR-V path) does not: Mesa's
//! GLSL compiler folds the residual to zero behind it. The negative control
//! of `glsl::GUARD_BITS`. `scripts/glsl.sh` runs the whole module and its
//! other controls on both GL stacks.
//!
//! A stack that is not installed is skipped with a message, unless
//! AETHER_REQUIRE_GLSL=1.

use aether_generator::targets::glsl;
use aether_generator::targets::shared::check::{CheckModule, Guard};
use aether_runner::exec::{Error, Executor, Job};

fn open(stack: &str) -> Option<Box<dyn Executor>> {
    match aether_runner::open(stack) {
        Ok(e) => Some(e),
        Err(Error::NotInstalled(m)) if std::env::var("AETHER_REQUIRE_GLSL").as_deref() != Ok("1") => {
            eprintln!("SKIPPED: the {stack} stack is not installed here ({m}); AETHER_REQUIRE_GLSL=1 makes this a failure");
            None
        }
        Err(e) => panic!("{stack}: {e}"),
    }
}

/// two_sum's words (sum, residual) for each pair of `inputs` under a module
/// whose guard expression is `guard`.
fn two_sum(exec: &mut dyn Executor, guard: &str, inputs: &[u64]) -> Vec<u64> {
    let model = aether_generator::load(&aether_generator::default_root()).unwrap();
    let full = glsl::check_module(&model, &model.lowered(), Guard::Bits);
    let entry = full.entries.iter().find(|e| e.entry == "check_f32_two_sum").expect("a two_sum entry").clone();
    assert!(full.source.contains(glsl::GUARD_BITS), "the guard's text changed: update this test");
    let module = CheckModule { source: full.source.replace(glsl::GUARD_BITS, guard), entries: vec![entry] };
    exec.run(&module, &[Job::new(&module, 0, inputs.to_vec())]).unwrap_or_else(|e| panic!("{}: {e}", exec.stack())).remove(0)
}

#[test]
fn the_added_zero_keeps_the_residual_where_the_xored_zero_loses_it() {
    let Some(mut exec) = open("gles") else { return };
    // (a, b) -> (a + b, the exact error): -5.26 + 2^125, and 2^24 + (1 + 2^-23).
    let inputs = [0xc0a8_5688u64, 0x7e00_0000, 0x4b80_0000, 0x3f80_0001];
    let want = [0x7e00_0000u64, 0xc0a8_5688, 0x4b80_0001, 0xbf7f_fffe];
    assert_eq!(two_sum(exec.as_mut(), glsl::GUARD_BITS, &inputs), want, "the core's guard on {}", exec.adapter());
    let xored = two_sum(exec.as_mut(), "floatBitsToUint(x) ^ aether_opaque_zero", &inputs);
    assert_eq!(xored, [0x7e00_0000, 0, 0x4b80_0001, 0], "the XOR guard no longer loses the residual on {}", exec.adapter());
}
