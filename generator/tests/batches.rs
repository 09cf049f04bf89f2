//! The batched forms (C's `aether_batch.c`, CUDA's `aether_batch.cu`, OpenCL's `_batch`
//! kernels in `aether_core.cl`) compiled by the cargo test suite, as the cores are: a break in
//! a batch alone fails here, in seconds, not only in the consumer kit or the CUDA and OpenCL
//! scripts (and `hostile.rs` compiles a hostile spec's batches the same way). Each compile has
//! its control: the same tree with one batched form broken (an undeclared name in its body)
//! must be refused, by the step that compiles that file.

mod common;

use std::path::{Path, PathBuf};

/// A copy of the committed cores under `target/<name>` (`--check` keeps them the spec's
/// outputs; copying them costs nothing beside generating them again).
fn tree(name: &str) -> PathBuf {
    let root = aether_generator::default_root();
    let dir = root.join("target").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for folder in ["c_core", "cuda_core", "opencl_core", "corpus"] {
        copy_tree(&root.join(folder), &dir.join(folder));
    }
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Replaces the first `from` in `dir/file` with `to` (which must change the file).
fn break_file(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} has no {from}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn the_c_batches_compile_and_a_broken_one_is_refused() {
    let dir = tree("batches-c");
    common::compile_c(&dir, "gcc", "g++").unwrap_or_else(|e| panic!("{e}"));
    break_file(&dir, "c_core/aether_batch.c", "aether_vec3f_dot(", "aether_vec3f_dot_undeclared(");
    let err = common::compile_c(&dir, "gcc", "g++").expect_err("a broken aether_batch.c compiled");
    assert!(err.contains("aether_batch.c") && err.contains("aether_vec3f_dot_undeclared"), "{err}");
}

#[test]
fn the_opencl_batches_compile_and_a_broken_one_is_refused() {
    let Some(clang) = common::clang_for_opencl() else {
        panic!("no clang with an OpenCL C front end (scripts/test.sh installs clang)");
    };
    let dir = tree("batches-opencl");
    common::compile_opencl(&dir, &clang).unwrap_or_else(|e| panic!("{e}"));
    // A batch kernel's call, after the per-item function's own definition.
    let core = std::fs::read_to_string(dir.join("opencl_core/aether_core.cl")).unwrap();
    let kernel = core.find("__kernel void aether_vec3f_dot_batch(").expect("the batch kernel of aether_vec3f_dot");
    let call = kernel + core[kernel..].find("aether_vec3f_dot(").unwrap();
    let broken = format!("{}aether_vec3f_dot_undeclared({}", &core[..call], &core[call + "aether_vec3f_dot(".len()..]);
    std::fs::write(dir.join("opencl_core/aether_core.cl"), broken).unwrap();
    let err = common::compile_opencl(&dir, &clang).expect_err("a broken batch kernel compiled");
    assert!(err.contains("aether_vec3f_dot_undeclared"), "{err}");
}

#[test]
fn the_cuda_batches_compile_and_a_broken_one_is_refused() {
    let Some(nvcc) = common::nvcc() else {
        println!("batches: no nvcc here (scripts/cuda-toolchain.sh installs one); the CUDA batches were not compiled");
        return;
    };
    let dir = tree("batches-cuda");
    common::compile_cuda(&dir, &nvcc).unwrap_or_else(|e| panic!("{e}"));
    break_file(&dir, "cuda_core/aether_batch.cu", "aether_vec3f_dot(", "aether_vec3f_dot_undeclared(");
    let err = common::compile_cuda(&dir, &nvcc).expect_err("a broken aether_batch.cu compiled");
    assert!(err.contains("aether_batch.cu") && err.contains("aether_vec3f_dot_undeclared"), "{err}");
}
