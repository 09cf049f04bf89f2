//! The C consumer kit beside the core: the flat thunk of every callable,
//! the corpus runner and its Makefile (`c_core/check/`), and the packaging
//! (`c_core/CMakeLists.txt`, the pkg-config template).

use minijinja::context;

use crate::error::Error;
use crate::model::Model;
use crate::targets::shared::c_family::check::{hash_banner, runner};
use crate::targets::shared::c_family::flat as c_flat;
use crate::targets::{render as render_template, Output};

const MAKEFILE_TEMPLATE: &str = include_str!("../../../../templates/c/check/Makefile.j2");
const CMAKE_TEMPLATE: &str = include_str!("../../../../templates/c/CMakeLists.txt.j2");
const PKGCONFIG_TEMPLATE: &str = include_str!("../../../../templates/c/aether_core.pc.in.j2");

pub fn files(model: &Model, banner: &str) -> Result<Vec<Output>, Error> {
    let callables = model.callables();
    let mut h = vec![
        banner.to_string(),
        "/* The flat calling convention of every function and kernel of the core (the convention of".into(),
        "   the corpus and of the Rust reference): input words in, result words out, each word an".into(),
        "   IEEE bit pattern (an f32 in the low 32 bits) or, where a kernel says so, a plain unsigned".into(),
        "   count, index or pivot. A thunk returns the number of result words, or AETHER_FLAT_BAD".into(),
        "   when the words do not fit the convention or cap is too small (nothing is called then). */".into(),
        "#ifndef AETHER_FLAT_H".into(),
        "#define AETHER_FLAT_H".into(),
        String::new(),
        "#include <stddef.h>".into(),
        "#include <stdint.h>".into(),
        String::new(),
        "#define AETHER_FLAT_BAD ((size_t)-1)".into(),
        format!("#define AETHER_FLAT_COUNT {}", callables.len()),
        String::new(),
        "/* How a callable's input words are laid out (for building random inputs):".into(),
        "   FIXED: n_in words; LANES: n_in lane words (2 per lane), a lane index, then `arrays` arrays".into(),
        "   of n words;".into(),
        "   ARRAYS: `arrays` arrays of n words; PLANE: a slot count S, then records of an element index".into(),
        "   below S and `arrays` term words; RESOLVE: n values then n companions; LINALG: n_in words, of".into(),
        "   which ipiv_n pivots at ipiv_at (pivot k in k+1..ipiv_n); LINALG_LANES: any number of LINALG".into(),
        "   inputs one after another. */".into(),
        "enum aether_flat_layout {".into(),
        "    AETHER_FLAT_FIXED,".into(),
        "    AETHER_FLAT_LANES,".into(),
        "    AETHER_FLAT_ARRAYS,".into(),
        "    AETHER_FLAT_PLANE,".into(),
        "    AETHER_FLAT_RESOLVE,".into(),
        "    AETHER_FLAT_LINALG,".into(),
        "    AETHER_FLAT_LINALG_LANES".into(),
        "};".into(),
        String::new(),
        "typedef size_t (*aether_flat_call)(const uint64_t *in, size_t n_in, uint64_t *out, size_t cap);".into(),
        String::new(),
        "/* One callable: its C name, the reference's keys (family, shape, elem), the word width, the".into(),
        "   comparison policy (is_float 0: truth values compared as bytes; either_zero: +0 matches -0),".into(),
        "   its layout, and its thunk. */".into(),
        "typedef struct aether_flat_entry {".into(),
        "    const char *name;".into(),
        "    const char *family;".into(),
        "    const char *shape;".into(),
        "    const char *elem;".into(),
        "    unsigned bits;".into(),
        "    int is_float;".into(),
        "    int either_zero;".into(),
        "    int layout;".into(),
        "    unsigned n_in;".into(),
        "    unsigned n_out;".into(),
        "    unsigned arrays;".into(),
        "    unsigned ipiv_at;".into(),
        "    unsigned ipiv_n;".into(),
        "    aether_flat_call call;".into(),
        "} aether_flat_entry;".into(),
        String::new(),
        "extern const aether_flat_entry aether_flat_entries[AETHER_FLAT_COUNT];".into(),
        String::new(),
        "#endif /* AETHER_FLAT_H */".into(),
    ];
    h.push(String::new());

    let mut c = vec![
        banner.to_string(),
        "/* The thunk of every callable of the core; see aether_flat.h. */".into(),
        "#include <stdlib.h>".into(),
        "#include <string.h>".into(),
        String::new(),
        "#include \"aether_core.h\"".into(),
        "#include \"aether_flat.h\"".into(),
        String::new(),
    ];
    // The header-only core (AETHER_HEADER_ONLY) brings these same lines
    // for its self-test; C99 allows neither twice in one file.
    c.push("#if !defined(AETHER_HEADER_ONLY)".into());
    c.extend(c_flat::layout_checks(model));
    c.extend(c_flat::helpers());
    c.push("#endif".into());
    let mut table = Vec::new();
    for callable in &callables {
        let name = callable.c_name(model);
        let thunk = format!("aether_flat_call_{}", name.trim_start_matches("aether_"));
        c.push(String::new());
        c.extend(c_flat::thunk(model, *callable, &thunk, "static "));
        table.push(c_flat::entry_row(model, *callable, &thunk));
    }
    c.push(String::new());
    c.push("const aether_flat_entry aether_flat_entries[AETHER_FLAT_COUNT] = {".into());
    c.extend(table);
    c.push("};".into());
    c.push(String::new());

    let contract_id = crate::selftest::contract_id(model);
    let ctx = context! {
        banner,
        hash_banner => hash_banner(banner),
        version => model.spec.version,
        name => model.spec.name,
        contract_id,
    };
    Ok(vec![
        Output::new("c_core/check/aether_flat.h", h.join("\n")),
        Output::new("c_core/check/aether_flat.c", c.join("\n")),
        Output::new("c_core/check/aether_check.c", runner(model, banner, false)?),
        Output::new("c_core/check/Makefile", render_template("c/check/Makefile.j2", MAKEFILE_TEMPLATE, &ctx)?),
        Output::new("c_core/CMakeLists.txt", render_template("c/CMakeLists.txt.j2", CMAKE_TEMPLATE, &ctx)?),
        Output::new("c_core/aether_core.pc.in", render_template("c/aether_core.pc.in.j2", PKGCONFIG_TEMPLATE, &ctx)?),
    ])
}
