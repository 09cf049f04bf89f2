//! The plain-C99 core, `c_core/`: the header and source (`render_core`), the
//! batches (`batch`), the per-item vector forms (`item`), the corpus runner,
//! CMake and pkg-config files. It prints through the C family's `Dialect::C`
//! (`shared::c_family`); every name, type, literal and expression is printed
//! in Rust, and the templates in `templates/c/` only place the text.

use minijinja::context;

use crate::corpus::FunctionCases;
use crate::error::Error;
use crate::model::{Function, Kind, Model};
use crate::selftest::{self, Witness};
use crate::spec::ShapeKind;
use crate::targets::shared::c_family::predicates::{PredicateDialect, STDINT_PREAMBLE};
use crate::targets::shared::c_family::*;
use crate::targets::{render, Capabilities, Exactness, Output, Target};

pub mod batch;
pub mod check;
pub mod item;

#[derive(Debug)]
pub struct C;

/// How the C core prints the integer predicates: `<stdint.h>` types, no
/// hexadecimal float (the header is included from C++11), every golden form
/// under `AETHER_PREDICATE_NO_FLOAT`'s guard.
pub const PREDICATES: PredicateDialect = PredicateDialect {
    guard: "AETHER_PREDICATE_H",
    qual: "static inline",
    preamble: STDINT_PREAMBLE,
    helpers: None,
    builtin_ints: false,
    hex_floats: false,
    rounded_calls: false,
    convert_rte: false,
    builtin_clz: false,
    golden_if: "#if !defined(AETHER_PREDICATE_NO_FLOAT)",
    program_scope_tables: false,
};

const HEADER_TEMPLATE: &str = include_str!("../../../../templates/c/aether_core.h.j2");
const SOURCE_TEMPLATE: &str = include_str!("../../../../templates/c/aether_core.c.j2");

impl Target for C {
    fn name(&self) -> &'static str {
        "c"
    }

    fn folder(&self) -> &'static str {
        "c_core"
    }

    fn exactness(&self) -> Exactness {
        Exactness::Bits
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities { f64: true, i64: true, pointers: true, compute: false }
    }

    fn render(&self, model: &Model, banner: &str, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
        let witnesses = selftest::witnesses(model, &|name| corpus.iter().find(|f| f.c_name == name).map(|f| f.cases.clone()));
        let lowered = model.lowered();
        let (h, c) = render_core(model, &lowered, banner, &witnesses)?;
        let (batch_h, batch_c) = crate::targets::c::batch::files(model, &lowered, banner);
        let (flat_batch_h, flat_batch_c) = crate::targets::c::batch::flat_files(model, &lowered, banner);
        let mut out = vec![
            Output::new("c_core/aether_core.h", h),
            Output::new("c_core/aether_core.c", c),
            Output::new("c_core/aether_batch.h", batch_h),
            Output::new("c_core/aether_batch.c", batch_c),
            Output::new("c_core/check/aether_flat_batch.h", flat_batch_h),
            Output::new("c_core/check/aether_flat_batch.c", flat_batch_c),
            Output::new("c_core/aether_predicate.h", crate::targets::shared::c_family::predicates::c_family(model, PREDICATES, banner)),
        ];
        let (flat_h, flat_c) = crate::targets::shared::c_family::predicates::c_flat(model, PREDICATES, banner);
        out.push(Output::new("c_core/check/aether_predicate_flat.h", flat_h));
        out.push(Output::new("c_core/check/aether_predicate_flat.c", flat_c));
        out.extend(check::files(model, banner)?);
        Ok(out)
    }
}

/// Renders the header and source for the given lowered functions (the
/// model's own, or a mutant's), with the self-test replaying `witnesses`
/// (chosen from the model's own corpus, so a mutant's core fails them).
pub fn render_core(model: &Model, lowered: &[Function], banner: &str, witnesses: &[Witness]) -> Result<(String, String), Error> {
    let types = c_types(model);
    let mut functions: Vec<CFunction> = lowered.iter().map(|f| function(model, f, &Dialect::C)).collect();
    // The mat4 products, the quaternion products and the binary32 adjugates
    // also have their per-item vector forms (AETHER_ITEM_SHUFFLES with AVX,
    // AETHER_ITEM_SHUFFLES_128 in 16-byte vectors: item.rs), where a plan
    // computes their trees.
    for (f, c) in lowered.iter().zip(functions.iter_mut()) {
        let forms = crate::targets::c::item::forms(model, f);
        c.body = crate::targets::c::item::wrap(forms, std::mem::take(&mut c.body));
    }
    functions.extend(model.kernels.iter().map(|k| kernel(model, k, &Dialect::C)));
    let helpers: Vec<Helper> = model
        .spec
        .types
        .iter()
        .map(|t| Helper {
            doc: format!(
                "barrier() of the spec for {}: the value, stored to and reloaded from a volatile object, so it is rounded to {} \
                 and no product is fused through it (portable C99; a compiler may not see through a volatile access).",
                t.name, t.c_type
            ),
            lines: vec![
                format!("static {} {}({} x)", t.c_type, barrier_name(t), t.c_type),
                "{".into(),
                format!("    volatile {} v = x;", t.c_type),
                "    return v;".into(),
                "}".into(),
            ],
        })
        .collect();
    let mut helpers = helpers;
    for t in &model.spec.types {
        helpers.push(minmax_helper(t, "static"));
    }
    helpers.extend(crate::targets::shared::c_family::simd::helpers(model, lowered));
    helpers.extend(linalg_helpers(model, lowered, &Dialect::C));
    if lowered.iter().any(|f| !crate::targets::c::item::forms(model, f).is_empty()) {
        helpers.push(Helper {
            doc:
                "The per-item vector forms of the mat4 products, the quaternion products and the binary32 adjugates (AETHER_ITEM_SHUFFLES \
                  with AVX, AETHER_ITEM_SHUFFLES_128 in 16-byte vectors): their vector types, their product guard (each product pinned in \
                  its vector register) and the packing they read."
                    .into(),
            lines: crate::targets::c::item::prologue(model, lowered),
        });
    }
    // Every function with guarded products opens with AETHER_GUARD_ZERO (the
    // opaque zero of the header-only form for LLVM's loop vectoriser, made
    // once where a caller's loop can hoist it; empty elsewhere).
    for f in &mut functions {
        if f.body.iter().any(|l| has_product_guard(l)) {
            f.body.insert(0, GUARD_ZERO.into());
        }
    }
    // The matrix products open with AETHER_ITEM_VECTORS (one item's rows as
    // vectors, in the form for LLVM's loop vectoriser; empty elsewhere).
    for (f, c) in lowered.iter().zip(functions.iter_mut()) {
        if rows_vectorise(f) {
            c.body.insert(0, ITEM_VECTORS.into());
        }
    }
    for h in &mut helpers {
        open_with_guard_zero(&mut h.lines);
    }
    let version: Vec<u32> = model.spec.version.split('.').map(|p| p.parse().unwrap_or(0)).chain(std::iter::repeat(0)).take(3).collect();
    let selftest = crate::targets::shared::c_family::selftest::tables(model, witnesses);
    let rules: std::collections::BTreeSet<&str> = witnesses.iter().map(|w| w.mutant.name()).collect();
    let max_out = witnesses.iter().map(|w| w.expected.len()).max().unwrap_or(1);
    // Each element type's product guards and the unsigned word of its width.
    let products: Vec<_> = model
        .spec
        .types
        .iter()
        .map(|t| context! { c_type => t.c_type, name => product_name(t), vec_name => product_vec_name(t), word => format!("uint{}_t", t.bits) })
        .collect();
    // The functions that take or return a struct by value: in the header-only
    // form for LLVM's loop vectoriser they are called through ms_abi
    // (aether_core.h), and their names without a call are System V wrappers.
    let by_value: Vec<_> = lowered
        .iter()
        .filter(|f| passes_structs(f))
        .map(|f| {
            let elem = model.spec.types.iter().find(|t| t.name == f.elem).unwrap();
            let params: Vec<String> = f.params.iter().map(|p| format!("{} {}", kind_type(model, &p.kind, elem), p.name)).collect();
            let args: Vec<&str> = f.params.iter().map(|p| p.name.as_str()).collect();
            context! {
                name => model.c_name(f),
                ret => kind_type(model, &f.ret, elem),
                params => if params.is_empty() { "void".to_string() } else { params.join(", ") },
                args => args.join(", "),
            }
        })
        .collect();
    let by_value_names: Vec<String> = lowered.iter().filter(|f| passes_structs(f)).map(|f| model.c_name(f)).collect();
    let ctx = context! {
        banner,
        by_value,
        by_value_names,
        version => model.spec.version,
        version_parts => version,
        contract_id => crate::selftest::contract_id(model),
        types,
        functions,
        helpers,
        selftest,
        witness_count => witnesses.len(),
        witness_rules => rules.len(),
        witness_max_out => max_out,
        policy => crate::targets::shared::c_family::flat::policy_function("aether_selftest_word_ok"),
        probes => crate::targets::shared::c_family::selftest::probe_table(model),
        causes => crate::targets::shared::c_family::selftest::cause_probe_function(
            model,
            ("static ", "static "),
            true,
            &crate::targets::shared::c_family::selftest::Spelling::Infix(&|elem, e| format!("aether_product_{elem}(({e}))")),
        ),
        products,
        ulp => ulp_functions(model),
    };
    let h = render("c/aether_core.h.j2", HEADER_TEMPLATE, &ctx)?;
    let c = render("c/aether_core.c.j2", SOURCE_TEMPLATE, &ctx)?;
    Ok((h, c))
}

/// The line that opens a C function with guarded products (see the core's
/// product guards).
const GUARD_ZERO: &str = "AETHER_GUARD_ZERO";

/// The line that opens a matrix product (see the core's AETHER_ITEM_VECTORS).
const ITEM_VECTORS: &str = "AETHER_ITEM_VECTORS";

/// Whether a function's products are lanes (`products_vectorise`) of a
/// matrix's rows: the matrix products and mat4 * vec4, not the quaternion
/// product, whose lanes clang vectorises well across items.
pub fn rows_vectorise(f: &Function) -> bool {
    products_vectorise(f) && f.params.iter().any(|p| matches!(&p.kind, Kind::Shape(s) if matches!(s.kind, ShapeKind::Matrix { .. })))
}

/// Whether a line of C calls the scalar product guard (not the vectorising
/// one, nor the lanes kernels' vector guard).
fn has_product_guard(line: &str) -> bool {
    line.contains("aether_product_f32((") || line.contains("aether_product_f64((")
}

/// Puts AETHER_GUARD_ZERO first in every function of a helper's lines (a
/// body opens with `{` and closes with `}` at the line's start) that calls
/// the scalar product guard.
fn open_with_guard_zero(lines: &mut Vec<String>) {
    let mut i = 0;
    while i < lines.len() {
        if lines[i] == "{" {
            let end = (i + 1..lines.len()).find(|&j| lines[j] == "}").unwrap_or(lines.len());
            if lines[i + 1..end].iter().any(|l| has_product_guard(l)) {
                lines.insert(i + 1, format!("    {GUARD_ZERO}"));
            }
            i = end + 1;
        } else {
            i += 1;
        }
    }
}

/// Whether a function takes or returns a vector or matrix (a struct in C) by
/// value.
fn passes_structs(f: &Function) -> bool {
    let is_struct = |k: &Kind| matches!(k, Kind::Shape(s) if !matches!(s.kind, ShapeKind::Scalar));
    is_struct(&f.ret) || f.params.iter().any(|p| is_struct(&p.kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectorising guard goes to exactly the functions whose products
    /// are lanes (the matrix and quaternion products, mat4 * vec4), and the
    /// core prints it in them only.
    #[test]
    fn the_vectorising_guard_goes_to_the_lane_shaped_functions_only() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        let chosen: std::collections::BTreeSet<String> = lowered.iter().filter(|f| products_vectorise(f)).map(|f| m.c_name(f)).collect();
        let want: std::collections::BTreeSet<String> = [
            "aether_mat2f_mul",
            "aether_mat3f_mul",
            "aether_mat4f_mul",
            "aether_mat2d_mul",
            "aether_mat3d_mul",
            "aether_mat4d_mul",
            "aether_quatf_mul",
            "aether_quatd_mul",
            "aether_mat4f_mul_vec",
            "aether_mat4d_mul_vec",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(chosen, want);
        let dot = lowered.iter().find(|f| m.c_name(f) == "aether_vec4f_dot").unwrap();
        assert!(!products_vectorise(dot), "one result: the pinning guard");
        // The matrix rows among them open with AETHER_ITEM_VECTORS; the quaternion product does not.
        let rows: std::collections::BTreeSet<String> = lowered.iter().filter(|f| rows_vectorise(f)).map(|f| m.c_name(f)).collect();
        let want_rows: std::collections::BTreeSet<String> = want.iter().filter(|n| !n.starts_with("aether_quat")).cloned().collect();
        assert_eq!(rows, want_rows);
        let (_, c) = render_core(&m, &lowered, "", &[]).expect("the core renders");
        for f in &lowered {
            let first = format!("{}\n{{\n    {ITEM_VECTORS}\n", function(&m, f, &Dialect::C).signature);
            assert_eq!(c.contains(&first), want_rows.contains(&m.c_name(f)), "{}", m.c_name(f));
        }
        for f in lowered.iter().filter(|f| f.elem == "f32") {
            let body = function(&m, f, &Dialect::C).body.join("\n");
            assert_eq!(body.contains("aether_product_vec_f32(("), want.contains(&m.c_name(f)), "{}", m.c_name(f));
        }
    }

    /// In the header-only form for LLVM's loop vectoriser, exactly the
    /// functions with a struct parameter or result are renamed to their
    /// ms_abi form, each with a System V wrapper under its own name; the
    /// scalar ones and the kernels (pointers) keep theirs.
    #[test]
    fn the_by_value_functions_and_only_they_take_the_by_reference_form() {
        let m = crate::load(&crate::default_root()).expect("the spec loads");
        let lowered = m.lowered();
        let (h, c) = render_core(&m, &lowered, "", &[]).expect("the core renders");
        let mut renamed = 0;
        for f in &lowered {
            let name = m.c_name(f);
            let by_value = passes_structs(f);
            let has = |text: &str, needle: &str| text.contains(needle);
            assert_eq!(has(&h, &format!("#  define {name}(...) {name}_byref_(__VA_ARGS__)\n")), by_value, "{name}: the macro");
            assert_eq!(has(&h, &format!(" ({name})(")), by_value, "{name}: the System V wrapper");
            assert_eq!(
                has(&h, &format!("AETHER_API_BY_VALUE {}", function(&m, f, &Dialect::C).signature)),
                by_value,
                "{name}: the prototype"
            );
            assert_eq!(has(&c, &format!("\nAETHER_API_BY_VALUE {}\n{{", function(&m, f, &Dialect::C).signature)), by_value, "{name}");
            renamed += usize::from(by_value);
        }
        let count = |n: &str| lowered.iter().any(|f| m.c_name(f) == n && passes_structs(f));
        assert!(count("aether_vec3f_dot") && count("aether_mat4d_mul") && count("aether_quatf_from_axis_angle"));
        assert!(!count("aether_f32_sin") && !count("aether_f64_exp"), "scalars pass in registers either way");
        assert!(renamed > 100 && renamed < lowered.len(), "{renamed} of {}", lowered.len());
        for k in &m.kernels {
            let name = kernel(&m, k, &Dialect::C).name;
            assert!(!h.contains(&format!("{name}_byref_")), "{name}: a kernel takes pointers");
        }
    }
}
