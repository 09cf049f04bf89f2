//! The GLSL ES 3.00 target without a GL stack: the check module has an entry
//! for every callable of the core with the reference's word counts, and the
//! core and the whole check module (every entry called from one vertex
//! shader) compile as GLSL ES 3.00 under glslang (`glslangValidator`, from
//! Debian's glslang-tools) where it is installed. `scripts/glsl.sh` runs the
//! module on Chromium's WebGL2 and on Mesa's GLES.

use aether_generator::targets::glsl;
use aether_generator::targets::shared::check::Guard;

fn model() -> aether_generator::Model {
    aether_generator::load(&aether_generator::default_root()).unwrap()
}

#[test]
fn check_module_has_an_entry_per_callable_with_reference_word_counts() {
    let model = model();
    let module = glsl::check_module(&model, &model.lowered(), Guard::Bits);
    let mut names: Vec<String> = module.entries.iter().map(|e| e.c_name.clone()).collect();
    let mut callables: Vec<String> = glsl::callables(&model).iter().map(|c| c.c_name(&model)).collect();
    names.sort();
    callables.sort();
    assert_eq!(names, callables);
    for e in &module.entries {
        assert!(module.source.contains(&format!("void {}() {{", e.entry)), "{}: no entry function", e.entry);
        if let Some(n_in) = aether_reference::flat::input_words(&e.family, &e.shape, &e.elem) {
            assert_eq!(n_in, e.n_in, "{}: input words", e.entry);
        }
    }
}

/// The source as one vertex shader: `#version`, the precisions, `text`, and
/// a `main` that calls `calls`.
fn shader(text: &str, calls: &[String]) -> String {
    let body: Vec<String> = calls.iter().map(|c| format!("    {c}();")).collect();
    format!(
        "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp usampler2D;\n{text}\nvoid main() {{\n{}\n    gl_Position = vec4(0.0);\n}}\n",
        body.join("\n")
    )
}

fn glslang(name: &str, source: &str) -> Option<Result<(), String>> {
    let ok = std::process::Command::new("glslangValidator").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if !ok {
        eprintln!("SKIPPED: no glslangValidator (apt-get install glslang-tools)");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("aether-glsl-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.vert"));
    std::fs::write(&path, source).unwrap();
    let out = std::process::Command::new("glslangValidator").arg(&path).output().unwrap();
    if std::env::var("AETHER_KEEP").is_err() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Some(if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stdout).into_owned()) })
}

#[test]
fn the_core_and_the_check_module_compile_as_glsl_es_300() {
    let model = model();
    let root = aether_generator::default_root();
    let core = std::fs::read_to_string(root.join("glsl_core/aether_core.glsl")).unwrap();
    if let Some(r) = glslang("core", &shader(&core, &[])) {
        r.unwrap_or_else(|e| panic!("glsl_core/aether_core.glsl:\n{e}"));
    }
    let corpus = aether_generator::corpus::read_committed(&root).unwrap();
    let witnesses = glsl::selftest_witnesses(&model, &|n| corpus.get(n).map(|p| p.cases.clone()));
    let module = glsl::check_module_with(&model, &model.lowered(), Guard::Bits, &witnesses);
    let mut calls: Vec<String> = module.entries.iter().map(|e| e.entry.clone()).collect();
    calls.push("aether_emit".into());
    if let Some(r) = glslang("module", &shader(&module.source, &calls)) {
        r.unwrap_or_else(|e| panic!("the check module:\n{e}"));
    }
}

#[test]
fn the_predicate_library_and_its_check_module_compile_as_glsl_es_300() {
    let model = model();
    let root = aether_generator::default_root();
    let lib = std::fs::read_to_string(root.join("glsl_core/aether_predicate.glsl")).unwrap();
    assert_eq!(lib, glsl::predicates::glsl(&model, &aether_generator::output::banner(&model)), "glsl_core/aether_predicate.glsl is stale");
    if let Some(r) = glslang("predicate", &shader(&lib, &[])) {
        r.unwrap_or_else(|e| panic!("glsl_core/aether_predicate.glsl:\n{e}"));
    }
    let module = glsl::predicates::glsl_check_module(&model);
    let preds = &model.spec.predicates;
    for p in &preds.predicates {
        let e = module.entries.iter().find(|e| e.family == p.name).unwrap_or_else(|| panic!("{}: no entry", p.name));
        let n_in: usize = p.params.iter().map(|q| glsl::predicates::glsl_words(q.ty)).sum();
        assert_eq!((e.n_in, e.n_out), (n_in, 1), "{}", e.entry);
    }
    let mut calls: Vec<String> = module.entries.iter().map(|e| e.entry.clone()).collect();
    for c in &calls {
        assert!(module.source.contains(&format!("void {c}() {{")), "{c}: no entry function");
    }
    calls.push("aether_emit".into());
    if let Some(r) = glslang("predicate-module", &shader(&module.source, &calls)) {
        r.unwrap_or_else(|e| panic!("the predicates' check module:\n{e}"));
    }
}

/// The df64 core and its check module compile as GLSL ES 3.00, the check
/// module has an entry per df64 function with twice the reference's input
/// words, and the renorm sites are WGSL's (one printer places both; each
/// audit reads its own language).
#[test]
fn the_df64_core_and_its_check_module_compile_and_wrap_wgsl_s_sites() {
    use aether_generator::targets::wgsl;
    let model = model();
    let root = aether_generator::default_root();
    let spec = aether_generator::df64::of(&model).unwrap();
    let core = std::fs::read_to_string(root.join("glsl_core/aether_df64.glsl")).unwrap();
    let a = glsl::df64::audit(&core, spec);
    let w = wgsl::df64::audit(&std::fs::read_to_string(root.join("wgsl_core/aether_df64.wgsl")).unwrap(), spec);
    assert_eq!(a, w, "the GLSL and WGSL df64 cores wrap different sites");
    assert!(a.unwrapped_loads.is_empty() && a.needless.is_empty() && a.wrapped > 50, "{a:?}");
    if let Some(r) = glslang("df64", &shader(&core, &[])) {
        r.unwrap_or_else(|e| panic!("glsl_core/aether_df64.glsl:\n{e}"));
    }
    let module = glsl::df64::check_module(&model, &model.lowered(), Guard::Bits);
    assert_eq!(module.entries.len(), spec.functions(&model.lowered()).len());
    for e in &module.entries {
        assert!(module.source.contains(&format!("void {}() {{", e.entry)), "{}: no entry function", e.entry);
        if let Some(n_in) = aether_reference::flat::input_words(&e.family, &e.shape, "f64") {
            assert_eq!(2 * n_in, e.n_in, "{}: input words", e.entry);
        }
    }
    let mut calls: Vec<String> = module.entries.iter().map(|e| e.entry.clone()).collect();
    calls.push("aether_emit".into());
    if let Some(r) = glslang("df64-module", &shader(&module.source, &calls)) {
        r.unwrap_or_else(|e| panic!("the df64 check module:\n{e}"));
    }
}
