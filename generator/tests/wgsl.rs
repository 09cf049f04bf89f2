//! The WGSL target's check module: an entry point for every f32 function and
//! kernel (both forms of the 32-slot tree), each with the flat word counts of
//! the reference. (The runner compiles and runs it on real stacks.)

use aether_generator::targets::shared::check::Guard;
use aether_generator::targets::wgsl::check_module;

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

/// The trees that rest on rounding to nearest are found by their shape
/// (`Function::relies_on_rounding`): a barrier, a shifter `(x + C) - C`, a
/// Veltkamp split `t - (t - x)`, a two-sum's error. The WGSL printer guards
/// every sum of such a tree (on lavapipe an unguarded exp folds its shifter
/// and an unguarded asin its split: `runner/tests/check_module.rs`), and the
/// bands give it no ulp or forward bound. The functions without any of these
/// (products, sums, the adjugate's cofactors, atan's reduction) are left as
/// they were: a guard there would only cost speed.
#[test]
fn the_trees_that_rest_on_rounding_are_found_by_their_shape() {
    let model = aether_generator::load(&aether_generator::default_root()).unwrap();
    let lowered = model.lowered();
    let family = |name: &str| {
        let fs: Vec<_> = lowered.iter().filter(|f| f.elem == "f32" && f.family == name).collect();
        assert!(!fs.is_empty(), "no f32 function of the family {name}");
        fs.iter().map(|f| f.relies_on_rounding()).collect::<Vec<_>>()
    };
    // A barrier (two_sum), the shifter (exp, exp2, sin, cos, tan, pow), the
    // split (asin, acos, atan2, pow) and two-sums' errors (log2, atan2).
    for name in ["two_sum", "neumaier_add", "exp", "exp2", "sincos", "sin", "cos", "tan", "pow", "asin", "acos", "atan2", "log2"] {
        assert!(family(name).iter().all(|r| *r), "{name}: its tree rests on rounding, but it is not found");
    }
    for name in ["add", "dot", "cross", "lerp", "quat_mul", "mat_mul", "determinant", "inverse_adjugate", "normalize", "atan"] {
        assert!(!family(name).iter().any(|r| *r), "{name}: found to rest on rounding, but none of its steps does");
    }
}
