//! The HIP target's text, without hipcc: every rounded operation of the core
//! is a wrapper with contraction off in its own body and every product behind
//! the guard, none of HIP's `_rn` intrinsics (plain operators in ROCm, which
//! clang contracts) is called, and the flat file has one kernel and one host
//! entry per callable, which `scripts/hip-static.sh` (hipcc, the ISA check,
//! the host runner) relies on.

use aether_generator::targets::hip::{self, Hip};
use aether_generator::targets::Target;

fn files() -> (aether_generator::Model, Vec<aether_generator::targets::Output>) {
    let model = aether_generator::load(&aether_generator::default_root()).unwrap();
    let banner = aether_generator::output::banner(&model);
    let files = Hip.render(&model, &banner, &[]).unwrap();
    (model, files)
}

fn text<'a>(files: &'a [aether_generator::targets::Output], path: &str) -> &'a str {
    &files.iter().find(|o| o.path == path).unwrap_or_else(|| panic!("no {path}")).contents
}

/// The body of `static AETHER_HD inline <ty> <name>(`, up to its closing brace.
fn body<'a>(core: &'a str, name: &str) -> &'a str {
    let at = core.find(&format!(" {name}(")).unwrap_or_else(|| panic!("no {name}"));
    let open = at + core[at..].find("\n{\n").unwrap();
    let close = open + core[open..].find("\n}\n").unwrap();
    &core[open..close]
}

#[test]
fn every_rounded_operation_is_a_wrapper_with_contraction_off() {
    let (model, files) = files();
    let core = text(&files, &format!("hip_core/{}", hip::CORE));
    let off = "#if !defined(AETHER_UNSAFE_ALLOW_CONTRACTION)\n#pragma clang fp contract(off)\n#endif\n";
    for t in &model.spec.types {
        for op in ["add", "sub", "mul", "div", "sqrt"] {
            let name = format!("aether_{op}_{}", t.name);
            let b = body(core, &name);
            assert!(b.contains(off), "{name}: no contraction-off block:\n{b}");
        }
        let mul = body(core, &format!("aether_mul_{}", t.name));
        assert!(mul.contains(&format!("aether_product_{}((a * b))", t.name)), "the product is not guarded:\n{mul}");
        let guard = body(core, &format!("aether_product_{}", t.name));
        assert!(guard.contains("#elif defined(__HIP_DEVICE_COMPILE__)\n    __asm__(\"\" : \"+v\"(x));"), "no VGPR guard:\n{guard}");
    }
    // Exactly the wrappers' pragmas: nothing at file scope, which would leak into the includer.
    assert_eq!(core.matches("#pragma clang fp contract(off)").count(), 5 * model.spec.types.len());
    for intrinsic in
        ["__fadd_rn", "__fsub_rn", "__fmul_rn", "__fdiv_rn", "__fsqrt_rn", "__dadd_rn", "__dmul_rn", "__fmaf", "fmaf(", "__fma_rn"]
    {
        let code: String = core.lines().filter(|l| !l.trim_start().starts_with("/*") && !l.starts_with("   ")).collect();
        assert!(!code.contains(intrinsic), "the core calls {intrinsic}");
    }
}

#[test]
fn one_kernel_and_one_host_entry_per_callable() {
    let (model, files) = files();
    let flat = text(&files, "hip_core/check/aether_hip_flat.hip");
    let callables = model.callables();
    for c in &callables {
        let short = c.c_name(&model).trim_start_matches("aether_").to_string();
        let kernel = format!("extern \"C\" __global__ void {}{short}(", hip::ISA_KERNEL);
        assert_eq!(flat.matches(&kernel).count(), 1, "{short}: its kernel");
    }
    assert_eq!(flat.matches("__global__").count(), callables.len());
    assert_eq!(flat.matches("#if !defined(AETHER_HIP_FLAT_NO_KERNELS)").count(), callables.len());
    let table = &flat[flat.find("aether_flat_entries[AETHER_FLAT_COUNT] = {").unwrap()..];
    assert_eq!(table.lines().filter(|l| l.trim_start().starts_with('{')).count(), callables.len());
    let pred = text(&files, "hip_core/check/aether_predicate_check.hip");
    assert!(pred.contains(&format!("#include \"{}\"", hip::PREDICATE)));
}
