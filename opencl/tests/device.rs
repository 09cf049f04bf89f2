//! On the first OpenCL device, when there is one (PoCL in CI, through
//! `scripts/opencl.sh`): the check program builds with the options the
//! device allows, its self-test passes, and a few kernels are bit-identical
//! with the reference. Without a runtime the test says so and passes;
//! `AETHER_REQUIRE_OPENCL=1` makes that a failure.

use aether_opencl::cl::Device;

#[test]
fn check_program_builds_and_passes_its_self_test_on_the_device() {
    let dev = match Device::first() {
        Ok(d) => d,
        Err(e) => {
            assert!(std::env::var_os("AETHER_REQUIRE_OPENCL").is_none(), "no OpenCL device: {e}");
            eprintln!("skipped: no OpenCL device ({e})");
            return;
        }
    };
    let s = aether_opencl::setup(&aether_generator::default_root()).unwrap();
    let opts = if dev.correctly_rounded_divide_sqrt() { aether_opencl::CORRECT_DIV_SQRT } else { "" };
    let prog = dev.build(&s.program.source, opts).unwrap();
    let st = aether_opencl::selftest(&prog).unwrap();
    assert_eq!(st.status, 0, "self-test: {}", st.describe(&s.program));
    assert!(st.run > 0);
    for e in s.program.entries.iter().filter(|e| e.check.c_name.contains("dot") || e.check.entry.ends_with("_group")) {
        let t = aether_opencl::check_entry(&s, &prog, e, 1000, 7).unwrap();
        assert_eq!(t.mismatches, 0, "{}: {:?}", t.entry, t.first);
    }
    // The kernels over arrays, sized for the corpus's longest case.
    let prog = dev.build(&s.program.source, &s.options(opts)).unwrap();
    for e in s.program.arrays.iter().filter(|e| e.check.c_name.contains("sum") || e.check.c_name.contains("mat4d_eigh")) {
        let t = aether_opencl::check_entry(&s, &prog, e, 200, 7).unwrap();
        assert!(t.corpus > 0 && t.random == 200, "{}: no cases", t.entry);
        assert_eq!(t.mismatches, 0, "{}: {:?}", t.entry, t.first);
    }
}
