//! The WGSL target's check module: an entry point for every f32 function and
//! kernel (both forms of the 32-slot tree), each with the flat word counts of
//! the reference. (The runner compiles and runs it on real stacks.)

use aether_generator::targets::wgsl::{check_module, Guard};

#[test]
fn check_module_has_an_entry_per_f32_callable_with_reference_word_counts() {
    let model = aether_generator::load(&aether_generator::default_root()).unwrap();
    let lowered = model.lowered();
    let m = check_module(&model, &lowered, Guard::Bits);
    if let Ok(path) = std::env::var("AETHER_DUMP_WGSL_CHECK") {
        std::fs::write(path, &m.source).unwrap();
    }
    let f32_fns = lowered.iter().filter(|f| f.elem == "f32").count();
    let f32_kernels = model.kernels.iter().filter(|k| k.elem == "f32").count();
    assert_eq!(
        m.entries.len(),
        f32_fns + f32_kernels + 1,
        "every f32 function and kernel (the linear algebra single and many-lane, the kernels over arrays), reduce32 also per workgroup"
    );
    for c in model.callables().iter().filter(|c| c.elem() == "f32") {
        let name = c.c_name(&model);
        assert!(m.entries.iter().any(|e| e.c_name == name), "{name}: no entry in the check module");
    }
    for e in &m.entries {
        assert!(m.source.contains(&format!("fn {}(", e.entry)), "{}: no entry point", e.entry);
        if let Some(n) = aether_reference::flat::input_words(&e.family, &e.shape, &e.elem) {
            assert_eq!(n, e.n_in, "{}: {} input words, the reference takes {n}", e.entry, e.n_in);
        }
        assert!(aether_reference::flat::lookup(&e.family, &e.shape, &e.elem).is_some(), "{}: no reference", e.entry);
    }
    // The controls differ from the core only in the barrier's body.
    for g in [Guard::OpaqueOne, Guard::None] {
        let c = check_module(&model, &lowered, g);
        assert_ne!(c.source, m.source);
        assert_eq!(c.entries, m.entries);
    }
}
