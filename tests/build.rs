//! Compiles the generated C core with `-ffp-contract=off`, with the flat
//! thunk of every function (`c_core/check/aether_flat.c`, the calling
//! convention of the corpus and of the pure-C runner: input words in, result
//! words out), and binds both headers with bindgen.

use std::path::PathBuf;

/// The flags every build of the core in this crate uses.
const CORE_FLAGS: [&str; 6] = ["-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Wpedantic"];

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    for p in ["c_core", "corpus", "spec", "templates", "tests/c"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    let mut build = cc::Build::new();
    build
        .file(root.join("c_core/aether_core.c"))
        .file(root.join("c_core/check/aether_flat.c"))
        .file(root.join("tests/c/corpus_table.c"))
        .file(root.join("c_core/check/aether_predicate_flat.c"));
    build.include(root.join("c_core")).include(root.join("c_core/check")).include(root.join("corpus"));
    for f in CORE_FLAGS {
        build.flag(f);
    }
    build.warnings_into_errors(true).compile("aether_core");
    let compiler = build.get_compiler();
    println!("cargo:rustc-env=AETHER_CC={}", compiler.path().display());
    println!("cargo:rustc-env=AETHER_CORE_FLAGS={}", CORE_FLAGS.join(" "));
    println!("cargo:rustc-link-lib=m");

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    bindgen::Builder::default()
        .header(root.join("tests/c/bindings.h").display().to_string())
        .clang_arg(format!("-I{}", root.join("c_core").display()))
        .clang_arg(format!("-I{}", root.join("c_core/check").display()))
        .clang_arg(format!("-I{}", root.join("corpus").display()))
        .allowlist_function("aether_.*")
        .allowlist_type("aether_.*")
        .allowlist_var("AETHER_.*|aether_.*")
        .derive_debug(true)
        .derive_default(true)
        .layout_tests(true)
        .generate()
        .expect("bindgen could not bind c_core/aether_core.h (is libclang installed?)")
        .write_to_file(out.join("bindings.rs"))
        .unwrap();
}
