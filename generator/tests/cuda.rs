//! The CUDA target: the same functions as the C core, and a spec it cannot
//! run on a warp is refused with the spec's line.

use aether_generator::targets::{cuda::Cuda, Target};
use aether_generator::{default_root, spec, Model};

const SPEC: &str = include_str!("../../spec/aether.toml");

/// `type name(params)` of every function the C header declares.
fn c_declarations() -> Vec<String> {
    let h = std::fs::read_to_string(default_root().join("c_core/aether_core.h")).unwrap();
    h.lines()
        .filter(|l| l.contains(" aether_") && l.ends_with(");") && !l.starts_with(' ') && !l.starts_with("/*") && !l.starts_with('#'))
        // AETHER_API (and AETHER_API_BY_VALUE, the by-value functions') is the header-only
        // form's storage (`static inline`); the CUDA core has its own.
        .map(|l| l.trim_end_matches(';').trim_start_matches("AETHER_API_BY_VALUE ").trim_start_matches("AETHER_API ").to_string())
        .collect()
}

#[test]
fn every_c_function_is_in_the_cuda_core_with_its_signature() {
    let cuh = std::fs::read_to_string(default_root().join("cuda_core/aether_core.cuh")).unwrap();
    let decls = c_declarations();
    // The self-test and the contract id are the target's own (aether_cuda_selftest).
    let functions: Vec<&String> = decls.iter().filter(|d| !d.contains("aether_selftest(") && !d.contains("aether_contract_id(")).collect();
    // The reader reads a declaration of every function and kernel of the spec.
    let model = aether_generator::load(&default_root()).unwrap();
    for c in model.callables() {
        let name = c.c_name(&model);
        assert!(
            functions.iter().any(|d| d.contains(&format!(" {name}("))),
            "{}/{}/{}: `{name}` is not among the {} declarations read from the C header",
            c.family(),
            c.shape(),
            c.elem(),
            functions.len()
        );
    }
    for d in &functions {
        assert!(cuh.contains(&format!("AETHER_HD inline {d};")), "the CUDA core lacks `{d}`");
    }
    let batch = std::fs::read_to_string(default_root().join("cuda_core/aether_batch.h")).unwrap();
    for wanted in [
        "aether_vec3f_dot_batch(",
        "aether_vec3d_normalize_batch(",
        "aether_mat4f_mul_vec_batch(",
        "aether_mat4d_mul_batch(",
        "aether_quatf_rotate_batch(",
        "aether_mat3f_lu_solve_batch(",
        "aether_mat4d_cholesky_solve_batch(",
        "aether_f32_sum_array_rows_batch(",
        "aether_f64_dot_array_rows_batch(",
    ] {
        assert!(batch.contains(wanted), "aether_batch.h lacks {wanted}");
    }
}

#[test]
fn a_lane_tree_that_is_not_a_warp_is_refused() {
    // 16 lanes, without reduce32's probes (they are 32 lanes' words).
    let probes = SPEC.split("[kernels.reduce32]").nth(1).unwrap();
    let probes = &probes[probes.find("cases = [").unwrap()..];
    let probes = &probes[..probes.find("]\n\n").unwrap() + 2];
    let text = SPEC
        .replacen("lanes = 32", "lanes = 16", 1)
        .replacen("rounds = [16, 8, 4, 2, 1]", "rounds = [8, 4, 2, 1]", 1)
        .replacen(probes, "", 1);
    assert_ne!(text, SPEC);
    let line = SPEC.lines().position(|l| l == "[rules.reduction]").unwrap() + 1;
    let want = format!(
        "spec/aether.toml:{line}: `rules.reduction`: the cuda target runs the lane tree on a warp of 32 strided lanes, but the \
         spec has 16 lanes (Strided assignment, rounds [8, 4, 2, 1])"
    );
    let s = spec::parse("spec/aether.toml", &text).unwrap();
    // The C core prints any lane count; the CUDA target refuses it before
    // anything is evaluated, and again if asked to render.
    let model = Model::build(&s).unwrap();
    assert_eq!(aether_generator::model(&s).unwrap_err().to_string(), want);
    assert_eq!(Cuda.render(&model, "/* banner */", &[]).unwrap_err().to_string(), want);
}
