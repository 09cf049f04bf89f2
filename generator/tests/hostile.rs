//! Hostile texts in the spec: every one is either refused with a message that
//! names the file, line and key (see spec_errors.rs for each exact message),
//! or accepted and printed so that gcc, clang and nvcc (PTX) compile every
//! output. This test takes the accepted ones together, generates every file
//! and compiles the C core, its thunks, the corpus runner (which carries the
//! probe labels), the header from C++, and the CUDA core and thunks.

mod common;

use aether_generator::{output, spec};

const SPEC: &str = include_str!("../../spec/aether.toml");

/// Texts a compiler could trip on in a comment: quotes, backslashes,
/// trigraphs (C99's `??/` is a backslash) inside a line, `//`, HTML and
/// Markdown, format directives, non-ASCII letters and a tab. (A text is one
/// line: a newline, which ended the `//` comments of WGSL, GLSL and Rust, is
/// refused; tests/texts.rs.)
const DOC: &str = "Componentwise a - b. \\\"quoted\\\", back\\\\slash ??/ ??= ??' 100% %s // not a comment <!-- html --> | pipe | \
                   `tick` \u{e9}\u{2713}\\t and a tab";
const LABEL: &str = "NaN \\\"stays\\\" \\\\ NaN ??= ??/ 50% %d // \u{e9}";

fn hostile_spec() -> String {
    let doc = "doc = \"Componentwise a - b.\"";
    let label = "  \"NaN stays NaN: nan, 1\",";
    assert_eq!(SPEC.matches(doc).count(), 1);
    assert_eq!(SPEC.matches(label).count(), 1);
    SPEC.replacen(doc, &format!("doc = \"{DOC}\""), 1).replacen(label, &format!("  \"{LABEL}: nan, 1\","), 1)
}

#[test]
fn refused_hostile_texts_name_their_key() {
    for (find, replace, key) in [
        ("doc = \"Componentwise a - b.\"", "doc = \"a */ b\"", "families.sub.doc"),
        ("doc = \"Componentwise a - b.\"", "doc = \"a /* b\"", "families.sub.doc"),
        ("doc = \"Componentwise a - b.\"", "doc = \"a \\u0007 b\"", "families.sub.doc"),
        ("doc = \"Componentwise a - b.\"", "doc = \"a line ending in a backslash \\\\\\nb\"", "families.sub.doc"),
        ("doc = \"Componentwise a - b.\"", "doc = \"a line ending in a trigraph ??/\\nb\"", "families.sub.doc"),
        ("  \"NaN stays NaN: nan, 1\",", "  \"NaN */ stays NaN: nan, 1\",", "families.two_sum.cases"),
        ("  \"NaN stays NaN: nan, 1\",", "  \"NaN\\nstays NaN: nan, 1\",", "families.two_sum.cases"),
        ("name = \"aether\"", "name = \"aeth\\\"er\"", "contract.name"),
        ("version = \"0.1.0\"", "version = \"0.1.0 */\"", "contract.version"),
        ("[shapes.vec2]", "[shapes.\"vec-2\"]", "shapes.vec-2"),
        ("[types.f32]", "[types.\"f 32\"]", "types.f 32"),
    ] {
        assert_eq!(SPEC.matches(find).count(), 1, "{find}");
        let text = SPEC.replacen(find, replace, 1);
        let errors = spec::parse("spec/aether.toml", &text).map(|_| ()).unwrap_err();
        let [err] = errors.errors() else { panic!("{replace}: one error expected, got\n{errors}") };
        assert_eq!(err.key, key, "{replace}: {err}");
        assert!(err.line > 0, "{err}");
    }
}

#[test]
fn accepted_hostile_texts_compile_everywhere() {
    let text = hostile_spec();
    let s = spec::parse("spec/aether.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let model = aether_generator::model(&s).unwrap_or_else(|e| panic!("{e}"));
    let outputs = output::generate(&model).unwrap_or_else(|e| panic!("{e}"));
    let header = outputs.iter().find(|o| o.path == "c_core/aether_core.h").unwrap();
    assert!(header.contents.contains("back\\slash ??/"), "the doc is printed as written");
    let corpus = outputs.iter().find(|o| o.path == "corpus/two_sum_f32.h").unwrap();
    assert!(corpus.contents.contains("NaN \"stays\" \\ NaN ??= ??/ 50% %d // \u{e9}"), "the label is printed as written");

    let dir = aether_generator::default_root().join("target/hostile-spec");
    common::write_tree(&dir, &outputs);
    let mut compiled = Vec::new();
    for (cc, cxx) in [("gcc", "g++"), ("clang", "clang++")] {
        common::compile_c(&dir, cc, cxx).unwrap_or_else(|e| panic!("{e}"));
        compiled.push(cc.to_string());
    }
    match common::nvcc() {
        Some(nvcc) => {
            common::compile_cuda(&dir, &nvcc).unwrap_or_else(|e| panic!("{e}"));
            compiled.push("nvcc (PTX, sm_90)".into());
        }
        None => println!("hostile: no nvcc here (scripts/cuda-toolchain.sh installs one); the CUDA core was not compiled"),
    }
    match common::clang_for_opencl() {
        Some(clang) => {
            common::compile_opencl(&dir, &clang).unwrap_or_else(|e| panic!("{e}"));
            compiled.push("clang (OpenCL C 1.2 and 3.0)".into());
        }
        None => println!("hostile: no clang here; the OpenCL C programs were not compiled"),
    }
    println!("hostile: the spec with hostile doc and label texts: {} files generated, compiled by {}", outputs.len(), compiled.join(", "));
}

#[test]
fn a_model_that_disagrees_with_the_reference_is_located() {
    let find = "body = \"out[i] = a[i] - b[i]\"";
    assert_eq!(SPEC.matches(find).count(), 1);
    let line = SPEC[..SPEC.find(find).unwrap()].matches('\n').count() + 1;
    let text = SPEC.replacen(find, "body = \"out[i] = b[i] - a[i]\"", 1);
    let model = aether_generator::model(&spec::parse("spec/aether.toml", &text).unwrap()).unwrap();
    let err = output::generate(&model).unwrap_err().to_string();
    let want = format!(
        "spec/aether.toml:{line}: `families.sub.body`: the spec's model and the reference disagree on aether_vec2f_sub \
         (family `sub`, shape `vec2`, type `f32`) for inputs ["
    );
    assert!(err.starts_with(&want), "want: {want}...\ngot:  {err}");
    assert!(err.ends_with("the body or the reference is wrong"), "{err}");
}

/// A predicate form that disagrees with the hand-written reference is located at that form's
/// body (its line and key) and names the input by parameter; where both forms disagree, at the
/// predicate's table. Controls: each edit alone changes only its form's answers.
#[test]
fn a_predicate_form_that_disagrees_is_located() {
    let cases = [
        // The golden form's sign test made strict: dp = 0 is then refused by it alone.
        ("ndp >= 0 && ndp * ndp", "ndp > 0 && ndp * ndp", "golden", "the golden form false, the integer form true"),
        // The integer form's: the same change in its last step.
        ("out = dp >= 0 && (om == 0", "out = dp > 0 && (om == 0", "integer", "the golden form true, the integer form false"),
    ];
    for (find, replace, form, answers) in cases {
        assert_eq!(SPEC.matches(find).count(), 1, "{find}");
        let head = format!("{form} = \"\"\"");
        let table = SPEC.find("[predicates.angle_flag]").unwrap();
        // The body's first line: the one after `golden = """` (or `integer = """`).
        let at = table + SPEC[table..].find(&head).unwrap();
        let body_line = SPEC[..at].matches('\n').count() + 2;
        let text = SPEC.replacen(find, replace, 1);
        let model = aether_generator::model(&spec::parse("spec/aether.toml", &text).unwrap()).unwrap();
        let err = output::generate(&model).unwrap_err().to_string();
        let want = format!("spec/aether.toml:{body_line}: `predicates.angle_flag.{form}`: on dp = ");
        assert!(err.starts_with(&want), "want: {want}...\ngot:  {err}");
        assert!(err.contains(&format!("the hand-written reference says true, {answers}")), "{err}");
    }
}

/// The sections the text rule reached last (issue 53): a hostile text in the
/// docs of `[df64]`, `[df64_ops]`, integer functions and predicates, in a
/// body's `#` comment and in the comment above a predicate's table is
/// refused at its line and key, as a family doc's is (tests/texts.rs injects
/// every class into every section; spec_errors.rs has the exact messages).
#[test]
fn refused_hostile_texts_of_every_section_name_their_key() {
    for (find, replace, key) in [
        ("binary64.\"\ntargets = ", "binary64.\\nnext line\"\ntargets = ", "df64.doc"),
        ("(any order of magnitudes).\"", "(any order of magnitudes). */\"", "df64_ops.two_sum.doc"),
        ("ties to even (x >= 0, 1 <= s <= 62).\"", "ties to even (x >= 0, 1 <= s <= 62).\\nnext line\"", "int_functions.shr_rne.doc"),
        (
            "as the frozen binary32/binary64 expression decides it.\"",
            "as the frozen */ binary32/binary64 expression decides it.\"",
            "predicates.angle_flag.doc",
        ),
        ("q = x >> s\n", "q = x >> s # a */ b\n", "int_functions.shr_rne.body"),
        ("p = dp > 0 ? dp : 1\n", "p = dp > 0 ? dp : 1 # a \u{202e}b\n", "predicates.angle_flag.integer"),
        ("[predicates.angle_flag_bands]\n", "# a /* b\n[predicates.angle_flag_bands]\n", "predicates.angle_flag_bands"),
        ("doc = \"Componentwise a - b.\"", "doc = \"Componentwise a - b. \u{2066}\"", "families.sub.doc"),
        ("doc = \"Componentwise a - b.\"", "doc = \"Componentwise a - b. \u{2028}\"", "families.sub.doc"),
    ] {
        assert_eq!(SPEC.matches(find).count(), 1, "{find}");
        let line = SPEC[..SPEC.find(find).unwrap()].matches('\n').count() + 1;
        let text = SPEC.replacen(find, replace, 1);
        let errors = spec::parse("spec/aether.toml", &text).map(|_| ()).unwrap_err();
        let [err] = errors.errors() else { panic!("{replace}: one error expected, got\n{errors}") };
        assert_eq!((err.line, err.key.as_str()), (line, key), "{replace}: {err}");
    }
}
