//! The spec is the one list: every function has a C binding, a reference
//! implementation and corpus cases of every kind; nothing exists beyond it.

use std::collections::BTreeSet;

use aether_generator::{corpus as gen_corpus, kernel, mutants, policy};
use aether_tests::{corpus, functions, model};

#[test]
fn every_spec_function_has_binding_reference_and_cases() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let fns = functions();
    let mut missing = Vec::new();
    for f in model.callables() {
        let name = f.c_name(&model);
        if !fns.iter().any(|c| c.name == name) {
            missing.push(format!("{name}: no C binding"));
        }
        if aether_reference::flat::lookup(f.family(), f.shape(), f.elem()).is_none() {
            missing.push(format!("{name}: no reference implementation"));
        }
        let kinds: &[&str] = if f.fixed_words().is_some() { &["special", "random"] } else { &["random"] };
        match corpus.get(&name) {
            None => missing.push(format!("{name}: no corpus cases")),
            Some(p) if f.fixed_words().is_some_and(|(n, _)| n == 0) => {
                if p.cases.is_empty() {
                    missing.push(format!("{name}: no case"));
                }
            }
            Some(p) => {
                for kind in kinds {
                    if !p.cases.iter().any(|c| c.label.starts_with(kind)) {
                        missing.push(format!("{name}: no {kind} case"));
                    }
                }
            }
        }
    }
    let mut spec_names: BTreeSet<String> = model.callables().iter().map(|f| f.c_name(&model)).collect();
    for p in &model.spec.predicates.predicates {
        let name = format!("aether_predicate_{}", p.name);
        if !corpus.contains_key(&name) {
            missing.push(format!("{name}: no corpus cases"));
        }
        if aether_generator::predicate_corpus::reference(&p.name).is_none() {
            missing.push(format!("predicate {}: no reference implementation", p.name));
        }
        spec_names.insert(name);
    }
    for extra in corpus.keys().filter(|k| !spec_names.contains(*k)) {
        missing.push(format!("{extra}: corpus cases for a function the spec does not list"));
    }
    let spec_keys: BTreeSet<(String, String, String)> =
        model.callables().iter().map(|f| (f.family().to_string(), f.shape().to_string(), f.elem().to_string())).collect();
    for (fam, shape, elem) in aether_reference::flat::entries() {
        if !spec_keys.contains(&(fam.to_string(), shape.to_string(), elem.to_string())) {
            missing.push(format!("reference entry {fam}/{shape}/{elem} is not in the spec"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Every mutant that changes a function's tree has a corpus case on which it
/// gives other bits, unless it is listed in the part as changing no bit; and
/// every case labelled as discriminating does discriminate.
#[test]
fn discriminating_cases_discriminate() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let lowered = model.lowered();
    let mut problems = Vec::new();
    let mut count = 0;
    for m in mutants::ALL {
        let (mm, mutated) = m.build(&model).unwrap();
        for (i, f) in model.callables().into_iter().enumerate() {
            let name = f.c_name(&model);
            let w = model.spec.types.iter().find(|t| t.name == f.elem()).map(|t| t.bits).unwrap();
            let cases = &corpus[&name].cases;
            let label = format!("discriminates {}:", m.name());
            let changed = gen_corpus::changes(&model, &lowered, &mm, &mutated, i);
            let tagged: Vec<_> = cases.iter().filter(|c| c.label.contains(&label)).collect();
            if !changed && !tagged.is_empty() {
                problems.push(format!("{name}: a case is tagged {} but the mutant does not change the function", m.name()));
            }
            for c in tagged {
                count += 1;
                let got = kernel::evaluate_callable(&mm, &mutated, i, &c.inputs).unwrap();
                if policy::matches(&c.expected, &got, w, f.is_float(), f.either_zero()) {
                    problems.push(format!("{name}: the case tagged {} gives the same bits under the mutant", m.name()));
                }
            }
        }
    }
    println!("{count} discriminating cases checked against their mutants");
    assert!(count > 100, "too few discriminating cases: {count}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The functions the contract singles out have the discriminating cases it
/// names: fold order, fused multiply-add, true division, hypot, zero seed.
#[test]
fn key_rules_have_witnesses() {
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let want = [
        ("aether_vec3f_dot", "fold-left"),
        ("aether_vec3f_dot", "fma"),
        ("aether_vec3f_dot", "fold-seeded"),
        ("aether_vec4d_sum", "fold-left"),
        ("aether_vec3f_sum", "fold-seeded"),
        ("aether_vec3f_div", "true-division"),
        ("aether_vec3d_normalize", "true-division"),
        ("aether_vec3f_norm", "hypot"),
        ("aether_vec3f_norm", "fma"),
        ("aether_vec2f_neg", "neg-sub"),
        ("aether_vec3f_max_norm", "max-select-swapped"),
        ("aether_vec3f_cross", "fma"),
        ("aether_quatf_mul", "fma"),
        ("aether_quatd_mul", "quat-xyzw"),
        ("aether_mat3f_mul_vec", "column-major"),
        ("aether_mat4d_mul", "fold-left"),
        ("aether_mat3f_dot", "fold-seeded"),
        ("aether_mat4f_determinant", "fma"),
        // Compensated sums: the plain computation, the non-finite rule, the
        // butterfly's round order and the lane assignment.
        ("aether_f32_two_sum_err", "uncompensated"),
        ("aether_f64_two_sum", "uncompensated"),
        ("aether_pairf_neumaier_add", "uncompensated"),
        ("aether_pairf_combine", "uncompensated"),
        ("aether_pairf_value", "uncompensated"),
        ("aether_pairf_value", "non-finite-kept"),
        ("aether_pairf_reduce32", "rounds-reversed"),
        ("aether_paird_reduce32", "uncompensated"),
        ("aether_f32_lanes_sum", "single-lane"),
        ("aether_f64_lanes_dot", "uncompensated"),
        ("aether_f32_sum_array", "non-finite-kept"),
        ("aether_f32_sum_array", "uncompensated"),
        ("aether_f64_sum_array", "rounds-reversed"),
        ("aether_f32_sum_array", "single-lane"),
        ("aether_f32_dot_array", "rounds-reversed"),
        ("aether_f64_dot_array", "single-lane"),
        ("aether_f64_dot_array", "non-finite-kept"),
        ("aether_vec3f_plane_add", "uncompensated"),
        ("aether_f64_plane_resolve", "non-finite-kept"),
        // Per-lane linear algebra: pivot ties, the update order, the
        // multipliers, the symmetrised read, contraction, the fold of LU's dots.
        ("aether_mat3f_lu", "pivot-last"),
        ("aether_mat4d_lu", "pivot-last"),
        ("aether_mat3f_lu", "right-looking"),
        ("aether_mat4d_lu", "right-looking"),
        ("aether_mat2f_lu", "true-division"),
        ("aether_mat4d_lu", "true-division"),
        ("aether_mat4f_lu", "fold-left"),
        ("aether_mat3d_lu", "fold-seeded"),
        ("aether_mat3f_lu", "fma"),
        ("aether_mat3f_det_lu", "pivot-last"),
        ("aether_mat4d_inverse", "right-looking"),
        ("aether_mat3f_lu_solve", "fma"),
        ("aether_mat4d_solve_lower", "fma"),
        ("aether_mat2f_solve_upper_unit", "fma"),
        ("aether_mat3f_cholesky", "no-symmetrize"),
        ("aether_mat4d_cholesky", "fma"),
        ("aether_mat3d_cholesky_solve", "fma"),
        ("aether_mat3f_eigh", "no-symmetrize"),
        ("aether_mat4d_eigh", "fma"),
        ("aether_mat3f_lu_lanes", "pivot-last"),
        ("aether_mat4d_eigh_lanes", "no-symmetrize"),
        ("aether_f32_jacobi_rotation", "neg-sub"),
        // The closed-form inverse: one reciprocal, x * -1 for the odd cofactors, and a
        // difference's sign kept where -fno-signed-zeros would swap its operands.
        ("aether_mat3f_inverse_adjugate", "true-division"),
        ("aether_mat4d_inverse_adjugate", "true-division"),
        ("aether_mat2f_inverse_adjugate", "neg-sub"),
        ("aether_mat3f_inverse_adjugate", "neg-swap"),
        ("aether_mat3d_inverse_adjugate", "neg-swap"),
    ];
    for (name, m) in want {
        assert!(
            corpus[name].cases.iter().any(|c| c.label.contains(&format!("discriminates {m}:"))),
            "{name} has no case that discriminates {m}"
        );
    }
}
