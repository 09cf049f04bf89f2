//! The predicates' check program of a GPU core of the C family (CUDA's
//! `cuda_core/check/aether_predicate_check.cu`, HIP's
//! `hip_core/check/aether_predicate_check.hip`): one `__global__` kernel per
//! form (`aether_pcheck_<name>_<form>`, for the static check of the device
//! code: each form is one kernel in the PTX or the ISA), and a host `main`
//! that runs both forms through the header's host path on every case of the
//! predicates' corpus parts, printing one line and returning 1 on a mismatch.

use std::fmt::Write;

use crate::model::Model;
use crate::predicate::{Form, Predicate};
use crate::targets::shared::c_family::predicates::{CSpell, PredicateDialect};
use crate::targets::shared::predicates::{predicate_name, Spell};

/// The check program over `header` (the core's predicates header), whose
/// dialect is `d`; `core` names the core in its printed line (`CUDA`).
pub fn program(model: &Model, d: PredicateDialect, header: &str, core: &str, banner: &str) -> String {
    let preds = &model.spec.predicates;
    let mut s = format!("{banner}\n#include <stdio.h>\n#include \"{header}\"\n");
    for p in &preds.predicates {
        let _ = writeln!(s, "#include \"predicate_{}.h\"", p.name);
    }
    s.push('\n');
    let sp = CSpell { d, preds, f32: &model.spec.types[0], f64: &model.spec.types[0] };
    let args = |p: &Predicate, src: &str| -> String {
        p.params.iter().enumerate().map(|(k, q)| format!("({})(int64_t){src}[{k}]", sp.ty(q.ty))).collect::<Vec<_>>().join(", ")
    };
    for p in &preds.predicates {
        for form in Form::BOTH {
            let _ = writeln!(
                s,
                "__global__ void aether_pcheck_{name}_{f}(const unsigned long long *in, int *out, unsigned n) {{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long *a = in + (size_t)i * {n_in}u;
    out[i] = {callee}({args});
}}
",
                name = p.name,
                f = form.name(),
                n_in = p.params.len(),
                callee = predicate_name(&p.name, form),
                args = args(p, "a")
            );
        }
    }
    s.push_str("int main(void) {\n    unsigned cases = 0, bad = 0, k;\n");
    for p in &preds.predicates {
        let table = format!("aether_corpus_predicate_{}", p.name);
        let n = p.params.len();
        let _ = writeln!(
            s,
            "    for (k = 0; k < sizeof {table} / sizeof {table}[0]; k++) {{
        const uint64_t *a = {table}[k];
        const int want = (int)a[{n}];
        cases++;
        if ({g}({args}) != want || {i}({args}) != want) {{
            bad++;
            printf(\"aether_predicate_check: {name} case %u: the host path disagrees with the corpus\\n\", k);
        }}
    }}",
            g = predicate_name(&p.name, Form::Golden),
            i = predicate_name(&p.name, Form::Integer),
            args = args(p, "a"),
            name = p.name
        );
    }
    let _ = write!(
        s,
        "    printf(\"aether_predicate_check: %u corpus cases, both forms of every predicate on the {core} header's host path: %u mismatches\\n\", cases, bad);
    k = (unsigned)aether_predicate_selftest();
    printf(\"aether_predicate_check: aether_predicate_selftest() on the host path: %u wrong answers\\n\", k);
    return bad != 0 || k != 0;
}}
"
    );
    s
}
