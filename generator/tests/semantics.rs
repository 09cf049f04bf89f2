//! Semantic checks where only shapes were checked (issue 53, items 2 and 3):
//! each bad spec refused at its file, line and key, and for each check that
//! is a proof (not a shape rule) a control: the check off, the bad spec
//! accepted, which is why the check is there.

use aether_generator::{fuzzing, predicate_corpus};

const SPEC: &str = include_str!("../../spec/aether.toml");

/// The spec with `from` replaced by `to`, once (it must be there once).
fn with(from: &str, to: &str) -> String {
    assert_eq!(SPEC.matches(from).count(), 1, "`{from}` is not in the spec exactly once");
    SPEC.replacen(from, to, 1)
}

fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).unwrap_or_else(|| panic!("no `{needle}`"))].matches('\n').count() + 1
}

/// The generator's error on `text` up to its predicates' proof (parse,
/// model, target facts, predicates), or None when it accepts.
fn refusal(text: &str) -> Option<String> {
    match fuzzing::build(text) {
        Err(e) => Some(e.to_string()),
        Ok(model) => {
            if let Err(e) = aether_generator::targets::check_facts(&model) {
                return Some(e.to_string());
            }
            predicate_corpus::build(&model).err().map(|e| e.to_string())
        }
    }
}

#[test]
fn every_band_table_a_target_reads_is_required() {
    for target in ["wgsl", "opencl_relaxed"] {
        let header = format!("[bands.{target}]");
        let start = SPEC.find(&header).unwrap();
        let end = start + SPEC[start..].find("\n[").unwrap() + 1;
        let bad = format!("{}{}", &SPEC[..start], &SPEC[end..]);
        let e = refusal(&bad).unwrap_or_else(|| panic!("{header} deleted was accepted"));
        let want = if target == "wgsl" {
            // glsl's table starts from wgsl's: the first error is there.
            "`bands.glsl.like`: `wgsl`: no band table `[bands.wgsl]` above this one to start from".to_string()
        } else {
            format!(
                "`bands.{target}`: target `opencl` judges a class of device by `{target}`: the spec must state its band table `{header}`"
            )
        };
        assert!(e.contains(&want), "{header} deleted:\n  got  {e}\n  want {want}");
    }
}

#[test]
fn a_probe_word_that_fits_no_type_is_refused() {
    let probe = "\"NaN stays NaN: nan, 1\",";
    let line = line_of(SPEC, probe);
    for (word, message) in [
        ("1e400", "`1e400` overflows every element type"),
        ("-2e308", "`-2e308` overflows every element type"),
        ("1e-400", "`1e-400` underflows to zero in every element type"),
        ("0.0000e-999", ""),
        ("1e-310", ""),
        ("3.5e38", ""),
    ] {
        let bad = with(probe, &format!("\"NaN stays NaN: nan, {word}\","));
        match (spec_error(&bad), message) {
            (None, "") => {}
            (Some(e), m) if !m.is_empty() => {
                let want = format!("spec/aether.toml:{line}: `families.two_sum.cases`: {m}");
                assert!(e.starts_with(&want), "{word}:\n  got  {e}\n  want {want}");
            }
            (got, _) => panic!("{word}: {got:?}, want {}", if message.is_empty() { "accepted" } else { message }),
        }
    }
    // A body's number too.
    let body = "body = \"out[i] = s * a[i]\"";
    let bad = with(body, "body = \"out[i] = 1e999 * a[i]\"");
    let e = spec_error(&bad).expect("1e999 in a body was accepted");
    assert!(e.contains("`families.scale.body`: column 10: `1e999` overflows binary64"), "{e}");
}

fn spec_error(text: &str) -> Option<String> {
    aether_generator::spec::parse("spec/aether.toml", text).err().map(|e| e.to_string())
}

#[test]
fn a_domain_past_the_reference_or_not_a_box_is_refused() {
    let domain = "domain = \"dp >= 0 - 0x7FFFFFFFFFFFFFFF && om >= 0 && tm >= 0\"";
    let line = line_of(SPEC, domain);
    for (to, message) in [
        (
            "dp >= 0 - 0x7FFFFFFFFFFFFFFF && om >= 0 - 1 && tm >= 0",
            "the domain reaches om = -1, where the hand-written reference (aether_reference::angle) is not defined: it needs om >= 0",
        ),
        ("dp >= 0 - 0x7FFFFFFFFFFFFFFF - 1 && om >= 0 && tm >= 0", "the domain reaches dp = -9223372036854775808"),
        ("dp >= 0 - 0x7FFFFFFFFFFFFFFF && (om >= 0 || tm >= 0)", "the domain is bounds on single parameters joined by `&&`"),
        ("dp >= 0 - 0x7FFFFFFFFFFFFFFF && om >= tm && tm >= 0", "the domain is bounds on single parameters joined by `&&`"),
        ("dp >= 0 - 0x7FFFFFFFFFFFFFFF && om != 3 && tm >= 0", "`!=` in the domain: a bound is"),
    ] {
        let bad = with(domain, &format!("domain = \"{to}\""));
        let e = refusal(&bad).unwrap_or_else(|| panic!("`{to}` was accepted"));
        let want = format!("spec/aether.toml:{line}: `predicates.angle_flag.domain`: {message}");
        assert!(e.contains(&want), "`{to}`:\n  got  {e}\n  want {want}");
    }
    // Narrowed, the domain is fine (the forms agree inside).
    assert_eq!(refusal(&with(domain, "domain = \"dp >= 0 && om >= 1 && tm >= 1 && om <= 0x7FFFFFFF\"")), None);
}

#[test]
fn a_form_wrong_only_at_the_domain_s_edge_is_caught_there() {
    // The integer form answers true at tm = 2^63 - 2 whatever the angle: no
    // random class reaches that value, nor does the hand-written corpus.
    let form = "out = dp >= 0 && (om == 0 || tm == 0 || (dp > 0 && wide))";
    let bad = with(form, "out = dp >= 0 && (om == 0 || tm == 0 || tm == 0x7FFFFFFFFFFFFFFE || (dp > 0 && wide))");
    let model = fuzzing::build(&bad).expect("the mutant parses");
    let e = predicate_corpus::build(&model).expect_err("the edge was not checked").to_string();
    let want = format!("spec/aether.toml:{}: `predicates.angle_flag.integer`: on dp = ", line_of(SPEC, "p = dp > 0 ? dp : 1"));
    assert!(e.starts_with(&want), "\n  got  {e}\n  want {want}...");
    assert!(
        e.contains("tm = 9223372036854775806 the hand-written reference says false, the golden form false, the integer form true (an input at the edges of the domain, line"),
        "{e}"
    );
    // The control: without the edges, the random classes and the corpus accept it.
    assert!(predicate_corpus::build_with(&model, false).is_ok(), "something else caught the mutant: the edges prove nothing here");
}

#[test]
fn an_evaluation_that_fails_in_a_helper_is_located_at_the_helper_s_step() {
    let bad = with("tie = 1 << (s - 1)\n", "tie = 1 << (s + 62)\n");
    let model = fuzzing::build(&bad).expect("the mutant parses");
    let e = predicate_corpus::build(&model).expect_err("an overflow went unseen").to_string();
    let want = format!("spec/aether.toml:{}: `int_functions.shr_rne.body`: on dp = ", line_of(SPEC, "tie = 1 << (s - 1)"));
    assert!(e.starts_with(&want), "\n  got  {e}\n  want {want}...");
    for part in [
        ": step `tie`: 1 << ",
        "(in `shr_rne` on x = ",
        "(called by `int_functions.sig24.body`'s step `out`)",
        "(called by `predicates.angle_flag.integer`'s step `m",
    ] {
        assert!(e.contains(part), "{e}\n  lacks {part}");
    }
}
