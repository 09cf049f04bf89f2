//! One rule for every text the spec carries into a generated file
//! (`aether_generator::names::check_text`): the docs of families, shared
//! compositions, kernels, `[df64]`, `[df64_ops]`, integer functions and
//! predicates, the probe labels, and the `#` comments of predicate and
//! integer-function bodies and right above their tables. Each lands in
//! comments of every syntax the targets have (`/* */` in C, CUDA and OpenCL
//! C; `/* */` that nests in WGSL and Rust; `//` in WGSL and GLSL ES; Rust's
//! `///`; Markdown), so one rule refuses what breaks any of them.
//!
//! * `every_hostile_text_is_refused_at_its_line_and_key`: each hostile class
//!   (`*/`, `/*`, each line break, a trailing backslash or `??/`, each control
//!   character class, each bidirectional control) injected into each
//!   text-bearing section, and each blank-like character into each field of
//!   the body language, is refused by the fuzzer's fast path
//!   (`fuzzing::render_with_probe_corpus`) with `spec/aether.toml:LINE:
//!   \`KEY\`: ...`, the message the rule gives.
//! * `benign_texts_in_every_section_compile_in_every_core`: every benign
//!   hostile text (quotes, `%n`, `//`, `#`, backslashes inside a line, markup,
//!   letters of other scripts, a tab, invisible spaces) at once in every
//!   section, rendered once, printed as written, and every output compiled:
//!   C (gcc, clang), the headers (g++, clang++), OpenCL C (clang, 1.2 and
//!   3.0), WGSL (naga), GLSL ES 3.00 (glslang), the Rust core (rustc, warnings
//!   denied), CUDA (nvcc, where one is found).
//! * `without_the_rule_each_class_breaks_a_core`: the controls. Each refused
//!   class put straight into a built model (past the rule) and printed: a
//!   compiler refuses the output; and gcc and rustc on a bidirectional control
//!   in a comment.

mod common;

use std::path::Path;
use std::process::Command;

use aether_generator::names::{check_text, BIDI_CONTROLS, LINE_BREAKS};
use aether_generator::targets::shared::check::Guard;
use aether_generator::{fuzzing, output};

const SPEC: &str = include_str!("../../spec/aether.toml");

/// How a section holds the text: in a TOML basic string (escapes apply), as
/// the rest of a TOML comment line (raw), or as a blank between two tokens of
/// the body language.
#[derive(Clone, Copy, PartialEq)]
enum Holder {
    Basic,
    Comment,
    Code,
}

/// A text-bearing section: its key, how it holds a text, the spec text it
/// edits (once, on its first line) and the edit, `{T}` the text (at the end of
/// the section's text, where a trailing backslash counts); whether the text
/// sits in a body (whose lines are its steps: a newline there starts a step);
/// and, for the message, what the spec's error puts before the rule's message.
struct Site {
    key: &'static str,
    holder: Holder,
    find: &'static str,
    replace: &'static str,
    in_body: bool,
    prefix: fn(&str) -> String,
}

fn none(_: &str) -> String {
    String::new()
}
fn label(t: &str) -> String {
    format!("probe label `{}`: ", t.trim().escape_debug())
}
fn comment(t: &str) -> String {
    format!("the comment `{}`: ", t.trim().escape_debug())
}
fn comment_above(t: &str) -> String {
    format!("the comment `{}` above the table: ", t.trim().escape_debug())
}

#[rustfmt::skip]
const SITES: &[Site] = &[
    Site { key: "families.sub.doc", holder: Holder::Basic, find: "doc = \"Componentwise a - b.\"", replace: "doc = \"Componentwise a - b. {T}\"", in_body: false, prefix: none },
    Site { key: "shared.scale_pow2.doc", holder: Holder::Basic, find: "doc = \"\"\"e * 2^k with one rounding, for a whole number k from exp's and exp2's reductions (step 4 of exp in the spec).\"\"\"", replace: "doc = \"\"\"e * 2^k with one rounding, for a whole number k from exp's and exp2's reductions (step 4 of exp in the spec). {T}\"\"\"", in_body: false, prefix: none },
    Site { key: "kernels.det_lu.doc", holder: Holder::Basic, find: "doc = \"Determinant through LU: the product of U's diagonal left to right, times -1 after an odd number of interchanges.\"", replace: "doc = \"Determinant through LU: the product of U's diagonal left to right, times -1 after an odd number of interchanges. {T}\"", in_body: false, prefix: none },
    Site { key: "df64.doc", holder: Holder::Basic, find: "doc = \"double-float: the f64 functions of the spec on a target without binary64.\"", replace: "doc = \"double-float: the f64 functions of the spec on a target without binary64. {T}\"", in_body: false, prefix: none },
    Site { key: "df64_ops.two_sum.doc", holder: Holder::Basic, find: "lo the exact residual (any order of magnitudes).\"", replace: "lo the exact residual (any order of magnitudes). {T}\"", in_body: false, prefix: none },
    Site { key: "int_functions.shr_rne.doc", holder: Holder::Basic, find: "ties to even (x >= 0, 1 <= s <= 62).\"", replace: "ties to even (x >= 0, 1 <= s <= 62). {T}\"", in_body: false, prefix: none },
    Site { key: "predicates.angle_flag.doc", holder: Holder::Basic, find: "as the frozen binary32/binary64 expression decides it.\"", replace: "as the frozen binary32/binary64 expression decides it. {T}\"", in_body: false, prefix: none },
    Site { key: "families.two_sum.cases", holder: Holder::Basic, find: "  \"NaN stays NaN: nan, 1\",", replace: "  \"NaN stays NaN {T}: nan, 1\",", in_body: false, prefix: |t| label(&format!("NaN stays NaN {t}")) },
    Site { key: "kernels.sum_array.cases", holder: Holder::Basic, find: "\"lone +inf: 1, inf, 2\"", replace: "\"lone +inf {T}: 1, inf, 2\"", in_body: false, prefix: |t| label(&format!("lone +inf {t}")) },
    Site { key: "kernels.det_lu.shape_cases.mat2", holder: Holder::Basic, find: "shape_cases.mat2 = [\"unseeded dot: u11 = +0, so +0 (a zero-seeded acc gives -0):", replace: "shape_cases.mat2 = [\"unseeded dot: u11 = +0, so +0 (a zero-seeded acc gives -0) {T}:", in_body: false, prefix: |t| label(&format!("unseeded dot: u11 = +0, so +0 (a zero-seeded acc gives -0) {t}")) },
    Site { key: "int_functions.shr_rne.body", holder: Holder::Basic, find: "q = x >> s\n", replace: "q = x >> s # {T}\n", in_body: true, prefix: comment },
    Site { key: "predicates.angle_flag.golden", holder: Holder::Basic, find: "ndp = f64(f32(dp)) / 4096\n", replace: "ndp = f64(f32(dp)) / 4096 # {T}\n", in_body: true, prefix: comment },
    Site { key: "predicates.angle_flag.integer", holder: Holder::Basic, find: "p = dp > 0 ? dp : 1\n", replace: "# {T}\np = dp > 0 ? dp : 1\n", in_body: true, prefix: comment },
    Site { key: "predicates.angle_flag_bands.body", holder: Holder::Basic, find: "dp = i64(oh) * i64(th) + i64(ov) * i64(tv)\n", replace: "dp = i64(oh) * i64(th) + i64(ov) * i64(tv) # {T}\n", in_body: true, prefix: comment },
    Site { key: "predicates.angle_flag_bands", holder: Holder::Comment, find: "[predicates.angle_flag_bands]\n", replace: "# {T}\n[predicates.angle_flag_bands]\n", in_body: false, prefix: comment_above },
    Site { key: "int_functions.exp24", holder: Holder::Comment, find: "[int_functions.exp24]\n", replace: "# {T}\n[int_functions.exp24]\n", in_body: false, prefix: comment_above },
    // The body language: a blank-like character between two tokens.
    Site { key: "families.sub.body", holder: Holder::Code, find: "body = \"out[i] = a[i] - b[i]\"", replace: "body = \"out[i] = a[i]{T}- b[i]\"", in_body: true, prefix: none },
    Site { key: "kernels.lanes_dot.term", holder: Holder::Code, find: "term = \"a * b\"", replace: "term = \"a{T}* b\"", in_body: false, prefix: none },
    Site { key: "combiners.add.expr", holder: Holder::Code, find: "expr = \"new + acc\"", replace: "expr = \"new{T}+ acc\"", in_body: false, prefix: none },
    Site { key: "predicates.angle_flag.domain", holder: Holder::Code, find: "domain = \"dp >= 0 - 0x7FFFFFFFFFFFFFFF", replace: "domain = \"dp{T}>= 0 - 0x7FFFFFFFFFFFFFFF", in_body: false, prefix: none },
    Site { key: "int_functions.sig24.body", holder: Holder::Code, find: "e = exp24(x)\n", replace: "e = exp24({T}x)\n", in_body: true, prefix: none },
    Site { key: "df64_ops.fast_two_sum.body", holder: Holder::Code, find: "s = a + b\nout = df(s, b - (s - a))", replace: "s = a{T}+ b\nout = df(s, b - (s - a))", in_body: true, prefix: none },
];

/// The hostile classes the rule refuses, one text each (`*/` and the rest),
/// with the character a field of the body language gets (None: not a blank-like
/// character, or a line break that separates a body's steps anyway).
fn refused() -> Vec<(String, String, Option<char>)> {
    let mut out: Vec<(String, String, Option<char>)> = vec![
        ("`*/`".into(), "closes */ the comment".into(), None),
        ("`/*`".into(), "opens /* a comment".into(), None),
        ("a trailing backslash".into(), "ends in a backslash \\".into(), None),
        ("a trailing backslash and a blank".into(), "ends in a backslash \\ ".into(), None),
        ("a trailing trigraph `??/`".into(), "ends in a trigraph ??/".into(), None),
    ];
    for (c, what) in LINE_BREAKS {
        out.push((format!("line break {what}"), format!("one line{c}and code"), Some(*c)));
    }
    for c in ['\0', '\u{7}', '\u{8}', '\u{1b}', '\u{7f}', '\u{9b}'] {
        out.push((format!("control U+{:04X}", u32::from(c)), format!("a control {c} character"), Some(c)));
    }
    for (c, name) in BIDI_CONTROLS {
        out.push((format!("bidi U+{:04X} {name}", u32::from(*c)), format!("a {c}bidi control"), Some(*c)));
    }
    out
}

/// Benign hostile texts: each is printed as written, and all of them at once
/// (a space apart) in every section compile everywhere.
const BENIGN: &[(&str, &str)] = &[
    ("quotes", "\"double\" and 'single' quotes"),
    ("format directives", "100% %n %s %d %%"),
    ("slashes and stars apart", "// not a comment, * / and / * apart, a/b*c"),
    ("backslashes inside a line", "back\\slash, \\n and \\t as written, ??= ??( ??/ inside"),
    ("a hash", "# not a comment"),
    ("markup", "<!-- html --> <b>bold</b> [link](x) | pipe | `tick` {{ jinja }} {% raw %}"),
    (
        "letters of other scripts",
        "\u{e9}t\u{e9} Stra\u{df}e \u{3a9} \u{4e2d}\u{6587} \u{627}\u{644}\u{639}\u{631}\u{628}\u{64a}\u{629} \u{2713} \u{2211}",
    ),
    ("a tab", "a\ttab"),
    ("invisible spaces", "no\u{a0}break, zero\u{200b}width, word\u{2060}joiner"),
];

/// `text` as the content of a TOML basic string.
fn basic(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            c if c.is_control() => s.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => s.push(c),
        }
    }
    s
}

/// The spec with `text` in `site`, and the line the error must name.
fn inject(site: &Site, text: &str) -> (String, usize) {
    assert_eq!(SPEC.matches(site.find).count(), 1, "{}: `{}` must occur once in the spec", site.key, site.find);
    let at = SPEC.find(site.find).unwrap();
    let line = SPEC[..at].matches('\n').count() + 1;
    let held = if site.holder == Holder::Comment { text.to_string() } else { basic(text) };
    (SPEC.replacen(site.find, &site.replace.replace("{T}", &held), 1), line)
}

#[test]
fn every_hostile_text_is_refused_at_its_line_and_key() {
    let classes = refused();
    let mut failures = Vec::new();
    let mut tried = 0;
    for site in SITES {
        for (class, text, blank) in &classes {
            let text = match (site.holder, blank) {
                (Holder::Code, Some(c)) => c.to_string(),
                (Holder::Code, None) => continue,
                _ => text.clone(),
            };
            // A newline ends a TOML comment, and in a body it starts the next step: there no
            // text holds one.
            if (site.holder == Holder::Comment || site.in_body) && text.contains('\n') {
                continue;
            }
            tried += 1;
            let (spec, line) = inject(site, &text);
            let want = format!("spec/aether.toml:{line}: `{}`: ", site.key);
            let got = match fuzzing::render_with_probe_corpus(&spec) {
                Ok(_) => {
                    failures.push(format!("{}, {class}: accepted", site.key));
                    continue;
                }
                Err(e) => e.to_string(),
            };
            let message = match site.holder {
                Holder::Code => {
                    let ascii = text.is_ascii();
                    let tail = if ascii {
                        "blanks are spaces and tabs, and a step or an expression is one line"
                    } else {
                        "the body language is ASCII"
                    };
                    if got.starts_with(&want) && got.contains("unexpected character") && got.ends_with(tail) {
                        continue;
                    }
                    format!("column N: unexpected character ...: {tail}")
                }
                // TOML itself refuses a control character but a tab (C0 and DEL) in a comment, at
                // its line, in the table the comment is in (the one before; toml 0.8 gives the
                // error no message).
                Holder::Comment if text.chars().any(|c| (c < ' ' && c != '\t') || c == '\u{7f}') => {
                    if got.starts_with(&format!("spec/aether.toml:{line}: `")) {
                        continue;
                    }
                    "(TOML's error at this line)".into()
                }
                _ => format!("{}{}", (site.prefix)(&text), check_text(&text).unwrap_err()),
            };
            if got != format!("{want}{message}") {
                failures.push(format!("{}, {class}:\n  want: {want}{message}\n  got:  {got}", site.key));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {tried} refusals wrong:\n{}", failures.len(), failures.join("\n"));
    println!("texts: {tried} hostile texts ({} classes, {} sections) refused at their line and key", classes.len(), SITES.len());
}

/// The spec with every benign text in every section (a tab in the body
/// language's), and the text the prose sections hold.
fn benign_spec() -> (String, String) {
    let text: String = BENIGN.iter().map(|(_, t)| *t).collect::<Vec<_>>().join(" ");
    assert!(check_text(&text).is_ok());
    let mut spec = SPEC.to_string();
    for site in SITES {
        assert_eq!(spec.matches(site.find).count(), 1, "{}", site.key);
        let held = match site.holder {
            Holder::Basic => basic(&text),
            Holder::Comment => text.clone(),
            Holder::Code => "\t".into(),
        };
        spec = spec.replacen(site.find, &site.replace.replace("{T}", &held), 1);
    }
    (spec, text)
}

const C99: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", "-Ic_core", "-Ic_core/check", "-Icorpus"];
const GLSL_HEAD: &str = "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp usampler2D;\n";

/// Every compile of the tree under `dir` this machine can run, and the compilers' names.
fn compiles(dir: &Path, model: &aether_generator::Model) -> (Vec<common::Job>, Vec<String>) {
    let mut jobs = Vec::new();
    let mut late = Vec::new();
    let mut used = Vec::new();
    let obj = dir.join("obj");
    std::fs::create_dir_all(&obj).unwrap();
    for (cc, cxx) in [("gcc", "g++"), ("clang", "clang++")] {
        if !common::have(cc) {
            continue;
        }
        used.push(format!("{cc}, {cxx}"));
        for file in [
            "c_core/aether_core.c",
            "c_core/aether_batch.c",
            "c_core/check/aether_flat.c",
            "c_core/check/aether_flat_batch.c",
            "c_core/check/aether_predicate_flat.c",
            "c_core/check/aether_check.c",
        ] {
            let mut args = C99.to_vec();
            // The runner includes the corpus (the labels): the fuzzer's probe corpus has no row
            // for a kernel over arrays without probes (lanes_sum), an empty array, which only
            // -Wpedantic refuses.
            if file.ends_with("aether_check.c") {
                args.retain(|a| *a != "-Wpedantic");
            }
            args.push(file);
            jobs.push(common::job(format!("{cc} {file}"), Path::new(cc), &args, dir));
        }
        let cpp = obj.join(format!("headers-{cxx}.cpp"));
        std::fs::write(&cpp, "#include \"aether_core.h\"\n#include \"aether_batch.h\"\n#include \"aether_predicate.h\"\n").unwrap();
        let cpp = cpp.display().to_string();
        let args = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-Ic_core", &cpp];
        jobs.push(common::job(format!("{cxx} the headers"), Path::new(cxx), &args, dir));
    }
    if let Some(clang) = common::clang_for_opencl() {
        used.push("clang -x cl (OpenCL C 1.2, 3.0)".into());
        for std in ["-cl-std=CL1.2", "-cl-std=CL3.0"] {
            for file in [
                "opencl_core/aether_core.cl",
                "opencl_core/aether_predicate.cl",
                "opencl_core/check/aether_check.cl",
                "opencl_core/check/aether_predicate_check.cl",
            ] {
                let args = [
                    "-x",
                    "cl",
                    std,
                    "-Xclang",
                    "-finclude-default-header",
                    "-fsyntax-only",
                    "-Werror",
                    "-DAETHER_CHECK_WORDS=8192",
                    "-DAETHER_CHECK_OUT=256",
                    "-DAETHER_CHECK_SCRATCH=17152",
                    file,
                ];
                jobs.push(common::job(format!("clang {std} {file}"), &clang, &args, dir));
            }
        }
    }
    let lowered = model.lowered();
    if common::have("naga") {
        used.push("naga (WGSL)".into());
        let modules = [
            ("check.wgsl", aether_generator::targets::wgsl::check_module(model, &lowered, Guard::Bits).source),
            ("df64_check.wgsl", aether_generator::targets::wgsl::df64::check_module(model, &lowered, Guard::Bits).source),
            ("predicate_check.wgsl", aether_generator::targets::wgsl::predicates::wgsl_check_module(model).source),
        ];
        for (name, src) in &modules {
            std::fs::write(obj.join(name), src).unwrap();
        }
        for file in ["wgsl_core/aether_core.wgsl", "wgsl_core/aether_df64.wgsl", "wgsl_core/aether_predicate.wgsl"]
            .into_iter()
            .map(String::from)
            .chain(modules.iter().map(|(n, _)| format!("obj/{n}")))
        {
            jobs.push(common::job(format!("naga {file}"), Path::new("naga"), &[&file], dir));
        }
    } else {
        println!("texts: no naga here (cargo install naga-cli); the WGSL was not validated");
    }
    if common::have("glslangValidator") {
        used.push("glslang (GLSL ES 3.00)".into());
        for file in ["aether_core", "aether_df64", "aether_predicate"] {
            let src = std::fs::read_to_string(dir.join(format!("glsl_core/{file}.glsl"))).unwrap();
            let vert = format!("obj/{file}.vert");
            std::fs::write(dir.join(&vert), format!("{GLSL_HEAD}{src}\nvoid main() {{ gl_Position = vec4(0.0); }}\n")).unwrap();
            jobs.push(common::job(format!("glslangValidator glsl_core/{file}.glsl"), Path::new("glslangValidator"), &[&vert], dir));
        }
    } else {
        println!("texts: no glslangValidator here (apt-get install glslang-tools); the GLSL ES was not validated");
    }
    // CUDA: the texts land in the two headers (the core's and the predicates'), so one
    // translation unit of both to PTX (about a third of common::compile_cuda's time, which
    // compiles the flat thunks and the batches too); pushed last, so it starts first.
    match common::nvcc() {
        Some(nvcc) => {
            used.push("nvcc (PTX, sm_90)".into());
            let cu = "#include \"aether_core.cuh\"\n#include \"aether_predicate.cuh\"\n\
                      extern \"C\" __global__ void aether_texts(int *p) { *p = 0; }\n";
            std::fs::write(obj.join("headers.cu"), cu).unwrap();
            let args = ["-Werror", "all-warnings", "-ptx", "-arch=sm_90", "-Icuda_core", "-o", "obj/headers.ptx", "obj/headers.cu"];
            late.push(common::job("nvcc cuda_core/aether_core.cuh, aether_predicate.cuh", &nvcc, &args, dir));
        }
        None => println!("texts: no nvcc here (scripts/cuda-toolchain.sh installs one); the CUDA core was not compiled"),
    }
    used.push("rustc (the Rust core, warnings denied)".into());
    let args = [
        "--edition",
        "2024",
        "--crate-type",
        "lib",
        "--crate-name",
        "aether_core",
        "--emit=metadata",
        "-D",
        "warnings",
        "-o",
        "obj/aether_core.rmeta",
        "rust_core/src/lib.rs",
    ];
    jobs.push(common::job("rustc rust_core/src/lib.rs", Path::new("rustc"), &args, dir));
    jobs.extend(late);
    (jobs, used)
}

#[test]
fn benign_texts_in_every_section_compile_in_every_core() {
    let (spec, text) = benign_spec();
    let outputs = fuzzing::render_with_probe_corpus(&spec).unwrap_or_else(|e| panic!("the benign texts are refused: {e}"));
    // Each prose section's text reaches some output as written.
    let mut printed = 0;
    for o in &outputs {
        printed += o.contents.matches(text.as_str()).count();
    }
    for file in [
        "c_core/aether_core.h",
        "c_core/aether_predicate.h",
        "cuda_core/aether_core.cuh",
        "opencl_core/aether_core.cl",
        "wgsl_core/aether_core.wgsl",
        "glsl_core/aether_core.glsl",
        "wgsl_core/aether_df64.wgsl",
        "glsl_core/aether_df64.glsl",
        "wgsl_core/aether_predicate.wgsl",
        "glsl_core/aether_predicate.glsl",
        "corpus/two_sum_f32.h",
        "docs/numerics-contract.md",
    ] {
        let o = outputs.iter().find(|o| o.path == file).unwrap_or_else(|| panic!("no {file}"));
        assert!(o.contents.contains(text.as_str()), "{file} does not print the text as written");
    }
    let dir = aether_generator::default_root().join("target/texts-spec");
    common::write_tree(&dir, &outputs);
    let model = fuzzing::build(&spec).unwrap();
    let (jobs, used) = compiles(&dir, &model);
    let count = jobs.len();
    let failures = common::run_jobs(jobs);
    assert!(failures.is_empty(), "{} of {count} compiles failed:\n\n{}", failures.len(), failures.join("\n\n"));
    println!(
        "texts: {} benign texts in {} sections (a tab in the body language's), printed {printed} times in {} files; {count} compiles by {}",
        BENIGN.len(),
        SITES.len(),
        outputs.len(),
        used.join("; ")
    );
}

/// Compiles `source` (written to `name` under `dir`) with `program args..`: Err with its output
/// when the compiler refuses it.
fn compile_one(dir: &Path, name: &str, source: &str, program: &Path, args: &[&str]) -> Result<(), String> {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), source).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.push(name);
    let failures = common::run_jobs(vec![common::job(name, program, &all, dir)]);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

#[test]
fn without_the_rule_each_class_breaks_a_core() {
    let dir = aether_generator::default_root().join("target/texts-controls");
    let _ = std::fs::remove_dir_all(&dir);
    let base = fuzzing::build(SPEC).unwrap();
    let banner = output::banner(&base);
    let lowered = base.lowered();
    let c_target = aether_generator::targets::registry().into_iter().find(|t| t.name() == "c").unwrap();
    let c_file = |model: &aether_generator::Model, path: &str| {
        let out = c_target.render(model, &banner, &[]).unwrap();
        out.into_iter().find(|o| o.path == path).unwrap().contents
    };
    let gcc = |name: &str, src: String| {
        let args = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", "-x", "c"];
        compile_one(&dir, name, &src, Path::new("gcc"), &args)
    };
    let naga = |name: &str, src: String| compile_one(&dir, name, &src, Path::new("naga"), &[]);
    let glslang = |name: &str, src: String| {
        let src = format!("{GLSL_HEAD}{src}\nvoid main() {{ gl_Position = vec4(0.0); }}\n");
        compile_one(&dir, name, &src, Path::new("glslangValidator"), &[])
    };
    let mut controls: Vec<(String, Result<(), String>)> = Vec::new();

    // The printers are right on the spec's own texts.
    gcc("ok_predicate.h", c_file(&base, "c_core/aether_predicate.h")).unwrap();
    naga("ok_df64.wgsl", aether_generator::targets::wgsl::df64::core_source(&base, &lowered, &banner, Guard::Bits)).unwrap();
    naga("ok_predicate.wgsl", aether_generator::targets::wgsl::predicates::wgsl(&base, &banner)).unwrap();
    if common::have("glslangValidator") {
        glslang("ok_predicate.vert", aether_generator::targets::glsl::predicates::glsl(&base, &banner)).unwrap();
    }

    // `*/` in a predicate's doc: the C predicate header's comment ends early.
    let mut m = base.clone();
    m.spec.predicates.predicates[0].doc = "closes */ the comment".into();
    controls.push((
        "`*/` in predicates.angle_flag.doc, gcc on c_core/aether_predicate.h".into(),
        gcc("close.h", c_file(&m, "c_core/aether_predicate.h")),
    ));
    // `/*` in a body comment: Rust's block comments nest, so the step's comment never ends.
    let mut m = base.clone();
    m.spec.predicates.functions[0].body.steps[0].comment = vec!["opens /* a comment".into()];
    let rs = aether_generator::targets::rust::predicates::source(&m, "// banner");
    controls.push((
        "`/*` in a comment of int_functions.shr_rne.body, rustc on rust_core/src/predicate.rs".into(),
        compile_one(
            &dir,
            "open.rs",
            &rs,
            Path::new("rustc"),
            &["--edition", "2024", "--crate-type", "lib", "--emit=metadata", "-o", "open.rmeta"],
        ),
    ));
    // Each line break in [df64]'s doc (the case) and in a [df64_ops] doc: the rest
    // of the WGSL `//` comment is read as code.
    for (k, (c, what)) in LINE_BREAKS.iter().enumerate() {
        let mut m = base.clone();
        let d = m.spec.df64.as_mut().unwrap();
        if k % 2 == 0 {
            d.doc = format!("one line{c}and code");
        } else {
            d.ops[0].doc = format!("one line{c}and code");
        }
        let key = if k % 2 == 0 { "df64.doc".to_string() } else { format!("df64_ops.{}.doc", d.ops[0].name) };
        let src = aether_generator::targets::wgsl::df64::core_source(&m, &lowered, &banner, Guard::Bits);
        controls.push((format!("{what} in {key}, naga on wgsl_core/aether_df64.wgsl"), naga(&format!("break{k}.wgsl"), src)));
    }
    // A trailing backslash in an integer function's doc: GLSL ES joins the next line (the
    // function's signature) to the `//` comment.
    if common::have("glslangValidator") {
        let mut m = base.clone();
        m.spec.predicates.functions[0].doc = "ends in a backslash \\".into();
        controls.push((
            "a trailing backslash in int_functions.shr_rne.doc, glslang on glsl_core/aether_predicate.glsl".into(),
            glslang("backslash.vert", aether_generator::targets::glsl::predicates::glsl(&m, &banner)),
        ));
    }
    // `??/` ending a family's doc: in the C header it ends a line of a block comment, and gcc
    // (C99 has trigraphs) refuses the line splice.
    let mut m = base.clone();
    m.spec.families.iter_mut().find(|f| f.name == "sub").unwrap().doc = "ends in a trigraph ??/".into();
    controls
        .push(("`??/` ending families.sub.doc, gcc on c_core/aether_core.h".into(), gcc("trigraph.h", c_file(&m, "c_core/aether_core.h"))));
    // A bidirectional control in a predicate's doc: gcc refuses the C predicate header.
    let mut m = base.clone();
    m.spec.predicates.predicates[0].doc = "a \u{202e}bidi control".into();
    controls.push((
        "U+202E in predicates.angle_flag.doc, gcc on c_core/aether_predicate.h".into(),
        gcc("bidi.h", c_file(&m, "c_core/aether_predicate.h")),
    ));
    // ... and rustc the Rust predicates (its lint covers all nine embeddings, overrides and isolates).
    let mut m = base.clone();
    m.spec.predicates.predicates[0].doc = "a \u{2069}bidi control".into();
    let rs = aether_generator::targets::rust::predicates::source(&m, "// banner");
    controls.push((
        "U+2069 in predicates.angle_flag.doc, rustc on rust_core/src/predicate.rs".into(),
        compile_one(
            &dir,
            "bidi.rs",
            &rs,
            Path::new("rustc"),
            &["--edition", "2024", "--crate-type", "lib", "--emit=metadata", "-o", "bidi.rmeta"],
        ),
    ));

    let mut failures = Vec::new();
    for (what, r) in &controls {
        if r.is_ok() {
            failures.push(format!("{what}: compiled, but should not"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Every bidirectional control in a comment, straight to the compilers: gcc (12 and later,
    // -Wbidi-chars on by default, an error under -Werror) refuses the seven that open an
    // embedding, override or isolate; rustc the nine embeddings, overrides and isolates; the
    // three marks pass both (the rule refuses them for what a reader sees).
    let gcc_major: u32 = Command::new("gcc")
        .arg("-dumpversion")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().split('.').next().and_then(|v| v.parse().ok()))
        .unwrap_or(0);
    let mut table = Vec::new();
    for (k, (c, name)) in BIDI_CONTROLS.iter().enumerate() {
        let by_gcc = gcc(&format!("bidi{k}.c"), format!("/* a {c}b */\nint aether_x;\n")).is_err();
        let rs = format!("/// a {c}b\npub fn f() {{}}\n");
        let args = ["--edition", "2024", "--crate-type", "lib", "--emit=metadata", "-o", "x.rmeta"];
        let by_rustc = compile_one(&dir, &format!("bidi{k}.rs"), &rs, Path::new("rustc"), &args).is_err();
        let opener = matches!(*c, '\u{202a}' | '\u{202b}' | '\u{202d}' | '\u{202e}' | '\u{2066}'..='\u{2068}');
        let mark = matches!(*c, '\u{61c}' | '\u{200e}' | '\u{200f}');
        if gcc_major >= 12 {
            assert_eq!(by_gcc, opener, "gcc {gcc_major} on U+{:04X} {name} in a comment", u32::from(*c));
        }
        assert_eq!(by_rustc, !mark, "rustc on U+{:04X} {name} in a doc comment", u32::from(*c));
        table.push(format!(
            "U+{:04X}: gcc {}, rustc {}",
            u32::from(*c),
            if by_gcc { "refuses" } else { "accepts" },
            if by_rustc { "refuses" } else { "accepts" }
        ));
    }
    println!("texts: {} controls, each refused by its compiler; bidi in a comment: {}", controls.len(), table.join("; "));
}
