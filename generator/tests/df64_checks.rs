//! The semantic checks of `[df64]` and `[df64_ops]` (issue 53, items 2 and
//! 3 for df64): mutants of the real spec, made by text replacement (the file
//! is read, never written), each refused with a located error by the path
//! generation takes (`fuzzing::build`: parse, validation and the model; then
//! `df64::check_against_reference(_, 20_000)`, which `output::generate` runs
//! before any core prints the operations; the fast paths of `fuzzing` do
//! not run it). Each check has its negative control: the same mutants with
//! the check turned off (`df64::Proof`) are accepted.
//!
//! * Bodies: a comparison, fmin, fmax, abs, is_finite, renorm or sqrt with
//!   a wrong comparison (an `&&` for an `||`, a test of the wrong word, an
//!   operand or a choice swapped): refused at `df64_ops.<op>.body`; without
//!   the fixed edge inputs, the random inputs alone accept the ones the
//!   issue names.
//! * The map: every key of `[df64].ops` and `renorm` given another
//!   operation of its signature (every one there is, and every swap of two
//!   keys): refused at `df64.ops.<key>` or `df64.renorm` (at parse when two
//!   keys name one operation); with the map's proof turned off, accepted.

use aether_generator::df64::{self, DTy, Df64Spec, Proof};
use aether_generator::fuzzing;

const SPEC: &str = include_str!("../../spec/aether.toml");
const FILE: &str = "spec/aether.toml";

/// What generation proves (`output::generate`): the same as
/// `check_against_reference(_, 20_000)`.
const FULL: Proof = Proof { random: 20_000, edges: true, map: true };

/// The 1-based line of a byte offset of `text`.
fn line_at(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The model of a text, or the located error the generator prints.
fn build(text: &str) -> Result<aether_generator::Model, String> {
    fuzzing::build(text).map_err(|e| e.to_string())
}

fn df64_of(m: &aether_generator::Model) -> &Df64Spec {
    df64::of(m).expect("the spec has [df64]")
}

/// The proof of a text: the model's error, or the proof's, or None.
fn proved(text: &str, proof: Proof) -> Option<String> {
    match build(text) {
        Err(e) => Some(e),
        Ok(m) => df64::prove(df64_of(&m), proof).err().map(|e| e.to_string()),
    }
}

/// The byte range of the body value of `[df64_ops.<op>]` (its content, the
/// quotes excluded) and the line of its `body = `.
fn body_of(text: &str, op: &str) -> (usize, usize, usize) {
    let head = format!("\n[df64_ops.{op}]\n");
    let start = text.find(&head).unwrap_or_else(|| panic!("no {head}"));
    let at = start + text[start..].find("\nbody = ").unwrap() + "\nbody = ".len();
    let (open, close) = if text[at..].starts_with("\"\"\"") { ("\"\"\"", "\"\"\"") } else { ("\"", "\"") };
    let from = at + open.len();
    let to = from + text[from..].find(close).unwrap();
    (from, to, line_at(text, at))
}

/// A body mutant: the op, a name, and the edited spec text.
struct BodyMutant {
    op: &'static str,
    name: String,
    text: String,
    line: usize,
}

/// The `k`th occurrence of `find` in `[df64_ops.<op>]`'s body replaced.
fn body_edit(op: &'static str, find: &str, k: usize, replace: &str) -> BodyMutant {
    let (from, to, line) = body_of(SPEC, op);
    let body = &SPEC[from..to];
    let (at, _) = body.match_indices(find).nth(k).unwrap_or_else(|| panic!("occurrence {k} of `{find}` in {op}'s body `{body}`"));
    let edited = format!("{}{replace}{}", &body[..at], &body[at + find.len()..]);
    BodyMutant { op, name: format!("{op}: `{body}` -> `{edited}`"), text: format!("{}{edited}{}", &SPEC[..from], &SPEC[to..]), line }
}

/// Every occurrence of each of `swaps` (a pair of tokens: each occurrence of
/// one replaced by the other, one at a time) in `op`'s body.
fn body_swaps(op: &'static str, swaps: &[(&str, &str)]) -> Vec<BodyMutant> {
    let (from, to, _) = body_of(SPEC, op);
    let body = &SPEC[from..to];
    let mut out = Vec::new();
    for (x, y) in swaps {
        for (find, replace) in [(x, y), (y, x)] {
            for k in 0..body.matches(*find).count() {
                out.push(body_edit(op, find, k, replace));
            }
        }
    }
    out
}

/// The comparison class of body mutants: in each comparison (lt, gt, le, ge,
/// eq, ne) `&&` and `||` swapped and every word test turned to the other
/// word where there is one, an operand swapped, one comparison for another;
/// in fmin and fmax a comparison swapped or its arms; abs, is_finite,
/// renorm and sqrt testing or taking the wrong word, renorm left out.
fn body_mutants() -> Vec<BodyMutant> {
    let logic_and_words = [("&&", "||"), (".hi", ".lo")];
    let mut out = Vec::new();
    out.extend(body_swaps("eq", &logic_and_words));
    out.extend(body_swaps("lt", &logic_and_words));
    out.extend(body_swaps("le", &[("&&", "||")]));
    let hand: [(&'static str, &str, &str); 21] = [
        ("gt", "lt(b, a)", "lt(a, b)"),
        ("le", "lt(a, b) || eq(a, b)", "lt(a, b)"),
        ("ge", "le(b, a)", "le(a, b)"),
        ("ge", "le(b, a)", "lt(b, a)"),
        ("ne", "!eq(a, b)", "lt(a, b) || gt(a, b)"),
        ("ne", "!eq(a, b)", "eq(a, b)"),
        ("fmin", "lt(a, b) ? a : b", "le(a, b) ? a : b"),
        ("fmin", "lt(a, b) ? a : b", "lt(b, a) ? b : a"),
        ("fmin", "lt(a, b) ? a : b", "gt(a, b) ? b : a"),
        ("fmin", "lt(a, b) ? a : b", "lt(a, b) ? b : a"),
        ("fmax", "gt(a, b) ? a : b", "ge(a, b) ? a : b"),
        ("fmax", "gt(a, b) ? a : b", "gt(b, a) ? b : a"),
        ("fmax", "gt(a, b) ? a : b", "lt(a, b) ? b : a"),
        ("abs", "a.hi < 0 ?", "a.hi <= 0 ?"),
        ("abs", "a.hi < 0 ?", "a.lo < 0 ?"),
        ("abs", "fabs(a.hi)", "a.hi"),
        ("is_finite", "isfinite(a.hi)", "isfinite(a.lo)"),
        ("is_finite", "isfinite(a.hi)", "a.hi == a.hi"),
        ("renorm", "fast_two_sum(a.hi, a.lo)", "a"),
        ("renorm", "fast_two_sum(a.hi, a.lo)", "two_sum(a.hi, a.lo)"),
        ("sqrt", "a.hi == 0 ?", "a.lo == 0 ?"),
    ];
    for (op, find, replace) in hand {
        out.push(body_edit(op, find, 0, replace));
    }
    out
}

/// Every body mutant is refused at its own body, with the input; without
/// the edge inputs (the negative control) the 20,000 random inputs alone
/// accept the ones that differ only where the edges reach: equal high words
/// with different low words (eq's `||`, the word tests of eq and lt), a NaN
/// (ne as lt or gt), an infinite high word (is_finite), a pair not
/// normalised whose low word is the larger (renorm by the two-sum), a
/// non-square pair whose low word is zero (sqrt testing lo). Random inputs
/// do reach the signed zeros ((-0, +0) against (+0, +0), where the
/// near-cancelling draw negates a zero), which is why fmin's and fmax's
/// swapped comparisons are refused without the edges too.
#[test]
fn body_mutants_are_refused_at_their_body_and_random_inputs_alone_accept_the_edge_ones() {
    let mutants = body_mutants();
    let mut failures = Vec::new();
    let mut without_edges = Vec::new();
    for m in &mutants {
        let model = match build(&m.text) {
            Ok(model) => model,
            Err(e) => {
                failures.push(format!("{}: does not build: {e}", m.name));
                continue;
            }
        };
        let d = df64_of(&model);
        let want = format!("{FILE}:{}: `df64_ops.{}.body`: on a = ", m.line, m.op);
        match df64::prove(d, FULL) {
            Err(e) if e.to_string().starts_with(&want) && e.message.contains(" the steps give ") => {}
            other => failures.push(format!("{}\n  want: {want}...\n  got:  {other:?}", m.name)),
        }
        if df64::prove(d, Proof { edges: false, ..FULL }).is_ok() {
            without_edges.push(m.name.clone());
        }
    }
    eprintln!("{} body mutants, all refused with the edge inputs; {} accepted without them:", mutants.len(), without_edges.len());
    for n in &without_edges {
        eprintln!("  {n}");
    }
    assert!(failures.is_empty(), "{} of {} body mutants not refused as expected:\n{}", failures.len(), mutants.len(), failures.join("\n"));
    // The issue's classes, each accepted by the 20,000 random inputs alone.
    let accepted =
        |op: &str, edited: &str| without_edges.iter().any(|n| n.starts_with(&format!("{op}: ")) && n.ends_with(&format!("`{edited}`")));
    for (op, edited) in [
        ("eq", "out = a.hi == b.hi || a.lo == b.lo"),
        ("lt", "out = a.hi < b.hi || (a.lo == b.hi && a.lo < b.lo)"),
        ("lt", "out = a.hi < b.hi || (a.hi == b.hi && a.hi < b.lo)"),
        ("ne", "out = lt(a, b) || gt(a, b)"),
        ("is_finite", "out = isfinite(a.lo)"),
        ("is_finite", "out = a.hi == a.hi"),
        ("renorm", "out = two_sum(a.hi, a.lo)"),
    ] {
        assert!(accepted(op, edited), "{op}: `{edited}` is refused by random inputs alone: not a control");
    }
    assert_eq!((mutants.len(), without_edges.len()), (EXPECTED_BODY_MUTANTS, EXPECTED_BODY_WITHOUT_EDGES));
}

const EXPECTED_BODY_MUTANTS: usize = 35;
const EXPECTED_BODY_WITHOUT_EDGES: usize = 14;

/// The `ops = { ... }` line of the spec: its offset, its entries in order.
fn ops_line() -> (usize, usize, Vec<(String, String)>) {
    let from = SPEC.find("\nops = { ").unwrap() + 1;
    let to = from + SPEC[from..].find('\n').unwrap();
    let inner = SPEC[from..to].trim_start_matches("ops = { ").trim_end_matches(" }");
    let entries = inner
        .split(", ")
        .map(|e| {
            let (k, v) = e.split_once(" = ").unwrap();
            (k.to_string(), v.trim_matches('"').to_string())
        })
        .collect();
    (from, to, entries)
}

/// The spec with `[df64].ops` and `renorm` as given.
fn with_map(entries: &[(String, String)], renorm: &str) -> String {
    let (from, to, _) = ops_line();
    let line = format!("ops = {{ {} }}", entries.iter().map(|(k, v)| format!("{k} = \"{v}\"")).collect::<Vec<_>>().join(", "));
    let text = format!("{}{line}{}", &SPEC[..from], &SPEC[to..]);
    assert_eq!(text.matches("\nrenorm = \"renorm\"\n").count(), 1);
    text.replacen("\nrenorm = \"renorm\"\n", &format!("\nrenorm = \"{renorm}\"\n"), 1)
}

/// A map mutant: its name, text, and the keys one of which must be refused.
struct MapMutant {
    name: String,
    text: String,
    keys: Vec<String>,
    /// Whether two keys of `ops` name one operation (refused at parse).
    shared: bool,
}

/// Every map mutant there is: each key of `ops` and `renorm` given each other
/// operation of its signature, and each two keys of one signature swapped.
fn map_mutants(d: &Df64Spec) -> Vec<MapMutant> {
    let (_, _, entries) = ops_line();
    let sig = |name: &str| {
        let o = d.ops.iter().find(|o| o.name == name).unwrap();
        (o.params.iter().map(|p| p.1).collect::<Vec<DTy>>(), o.ret)
    };
    let renorm = d.ops[d.renorm].name.clone();
    // (key, its operation) for every key of ops, then renorm.
    let mut keys: Vec<(String, String)> = entries.clone();
    keys.push(("renorm".into(), renorm.clone()));
    let key_name = |k: &str| if k == "renorm" { "df64.renorm".to_string() } else { format!("df64.ops.{k}") };
    let apply = |changes: &[(&str, &str)]| {
        let mut e = entries.clone();
        let mut r = renorm.clone();
        for (k, v) in changes {
            if *k == "renorm" {
                r = v.to_string();
            } else {
                e.iter_mut().find(|(q, _)| q == k).unwrap().1 = v.to_string();
            }
        }
        (with_map(&e, &r), e)
    };
    let mut out = Vec::new();
    for (k, right) in &keys {
        for o in &d.ops {
            if o.name == *right || sig(&o.name) != sig(right) {
                continue;
            }
            let (text, e) = apply(&[(k, &o.name)]);
            let holder = e.iter().find(|(q, v)| q != k && *v == o.name).map(|(q, _)| q.clone());
            let shared = k != "renorm" && holder.is_some();
            let mut ks = vec![key_name(k)];
            if shared {
                ks.push(key_name(&holder.unwrap()));
            }
            out.push(MapMutant { name: format!("{k} -> {}", o.name), text, keys: ks, shared });
        }
    }
    for (i, (k1, o1)) in keys.iter().enumerate() {
        for (k2, o2) in &keys[i + 1..] {
            if sig(o1) == sig(o2) {
                let (text, _) = apply(&[(k1, o2), (k2, o1)]);
                out.push(MapMutant { name: format!("{k1} <-> {k2}"), text, keys: vec![key_name(k1), key_name(k2)], shared: false });
            }
        }
    }
    out
}

/// Every map mutant is refused, at the `ops` (or `renorm`) line under the
/// key it breaks: two keys naming one operation at parse, every other by
/// the map's proof, which names the input and both results; with the map's
/// proof turned off (the negative control) every one of those is accepted.
/// The map's random inputs alone (1,000 per key, their zeros included)
/// refuse every one as well: the edges are there for maps that differ only
/// on them, which the spec's operations do not offer.
#[test]
fn map_mutants_are_refused_at_their_key_and_accepted_without_the_map_proof() {
    let model = build(SPEC).unwrap();
    let d = df64_of(&model);
    let mutants = map_mutants(d);
    let ops_line = line_at(SPEC, SPEC.find("\nops = { ").unwrap() + 1);
    let renorm_line = line_at(SPEC, SPEC.find("\nrenorm = \"renorm\"\n").unwrap() + 1);
    let mut failures = Vec::new();
    let (mut shared, mut proved, mut without_edges) = (0, 0, Vec::new());
    for m in &mutants {
        let line = |k: &str| if k == "df64.renorm" { renorm_line } else { ops_line };
        let located = |e: &str, what: &str| m.keys.iter().any(|k| e.starts_with(&format!("{FILE}:{}: `{k}`: {what}", line(k))));
        match build(&m.text) {
            Err(e) if m.shared && located(&e, "names `") && e.contains(" does: each f64 operation has its own df64 operation") => {
                shared += 1
            }
            Err(e) => failures.push(format!("{}: refused at parse: {e}", m.name)),
            Ok(_) if m.shared => failures.push(format!("{}: two keys name one operation, accepted at parse", m.name)),
            Ok(model) => {
                let d = df64_of(&model);
                match df64::prove(d, FULL) {
                    Err(e) if located(&e.to_string(), "") && e.message.contains(" which on a = ") => proved += 1,
                    other => failures.push(format!("{}: {other:?}", m.name)),
                }
                // The bodies are the spec's own, and FULL's error came from the
                // map, after the operations' whole proof passed: the controls
                // run that part on 1,000 random inputs (the map's own number).
                if let Err(e) = df64::prove(d, Proof { random: 1_000, map: false, ..FULL }) {
                    failures.push(format!("{}: refused with the map's proof off: {e}", m.name));
                }
                if df64::prove(d, Proof { random: 1_000, edges: false, ..FULL }).is_ok() {
                    without_edges.push(m.name.clone());
                }
            }
        }
    }
    eprintln!(
        "{} map mutants: {shared} refused at parse (two keys, one operation), {proved} by the map's proof, all {proved} accepted with it off; {} of them accepted without the edge inputs: {without_edges:?}",
        mutants.len(),
        without_edges.len()
    );
    assert!(failures.is_empty(), "{} of {} map mutants:\n{}", failures.len(), mutants.len(), failures.join("\n"));
    assert!(without_edges.is_empty());
    assert_eq!((mutants.len(), shared, proved), (EXPECTED_MAP_MUTANTS, EXPECTED_MAP_SHARED, EXPECTED_MAP_PROVED));
}

const EXPECTED_MAP_MUTANTS: usize = 102;
const EXPECTED_MAP_SHARED: usize = 62;
const EXPECTED_MAP_PROVED: usize = 40;

/// The issue's examples, with their exact messages: add to sub, lt to gt and
/// fmin to fmax (as swaps: one key alone renamed is two keys naming one
/// operation, refused at parse), renorm to neg.
#[test]
fn the_issues_map_examples_get_exact_messages() {
    let (_, _, entries) = ops_line();
    let swap = |k1: &str, k2: &str| {
        let mut e = entries.clone();
        let v1 = e.iter().find(|(k, _)| k == k1).unwrap().1.clone();
        let v2 = e.iter().find(|(k, _)| k == k2).unwrap().1.clone();
        e.iter_mut().find(|(k, _)| k == k1).unwrap().1 = v2;
        e.iter_mut().find(|(k, _)| k == k2).unwrap().1 = v1;
        with_map(&e, "renorm")
    };
    let ops = line_at(SPEC, SPEC.find("\nops = { ").unwrap() + 1);
    let renorm = ops + 1;
    let one = "df(1 [0x3f800000], 0 [0x00000000])";
    for (text, want) in [
        (
            swap("add", "sub"),
            format!("{FILE}:{ops}: `df64.ops.add`: maps f64 `add` to `sub`, which on a = {one}, b = {one} gives df(0 [0x00000000], 0 [0x00000000]) where aether_reference::df64::add gives df(2 [0x40000000], 0 [0x00000000])"),
        ),
        (
            swap("lt", "gt"),
            format!("{FILE}:{ops}: `df64.ops.lt`: maps f64 `lt` to `gt`, which on a = {one}, b = df(0 [0x00000000], 0 [0x00000000]) gives true where aether_reference::df64::lt gives false"),
        ),
        (
            swap("fmin", "fmax"),
            format!("{FILE}:{ops}: `df64.ops.fmin`: maps f64 `fmin` to `fmax`, which on a = {one}, b = df(0 [0x00000000], 0 [0x00000000]) gives {one} where aether_reference::df64::fmin gives df(0 [0x00000000], 0 [0x00000000])"),
        ),
        (
            with_map(&entries, "neg"),
            format!("{FILE}:{renorm}: `df64.renorm`: names `neg`, which on a = {one} gives df(-1 [0xbf800000], -0 [0x80000000]) where aether_reference::df64::renorm gives {one}"),
        ),
    ] {
        assert_eq!(proved(&text, FULL), Some(want));
    }
    let mut e = entries.clone();
    e.iter_mut().find(|(k, _)| k == "add").unwrap().1 = "sub".into();
    assert_eq!(
        build(&with_map(&e, "renorm")).err(),
        Some(format!("{FILE}:{ops}: `df64.ops.sub`: names `sub`, as `add` does: each f64 operation has its own df64 operation"))
    );
}

/// The real spec passes, and the edge inputs stay few: every combination of
/// the edge values of each operation's parameters and of each key's.
#[test]
fn the_spec_is_proved_and_its_edge_inputs_are_counted() {
    let model = build(SPEC).unwrap();
    let d = df64_of(&model);
    df64::check_against_reference(d, 20_000).unwrap();
    let count = |name: &str| {
        let o = d.ops.iter().find(|o| o.name == name).unwrap();
        df64::edge_args(d, &o.params.iter().map(|p| p.1).collect::<Vec<_>>()).len()
    };
    let ops: usize = d.ops.iter().map(|o| count(&o.name)).sum();
    let map: usize = d.map.values().chain([&d.renorm]).map(|at| count(&d.ops[*at].name)).sum();
    let (words, pairs) = (df64::edge_words(d).len(), df64::edge_pairs(d).len());
    eprintln!("{words} binary32 edge values, {pairs} pairs: {ops} evaluations for the operations, {map} for the map");
    assert_eq!((words, pairs, ops, map), (17, 25, 8_934, 7_600));
}

/// An error shows the input readably: each parameter by name, a pair's
/// words by value and bits.
#[test]
fn a_body_error_names_the_input_by_value_and_bits() {
    let m = body_edit("eq", "&&", 0, "||");
    assert_eq!(
        proved(&m.text, FULL).unwrap(),
        format!("{FILE}:{}: `df64_ops.eq.body`: on a = df(1 [0x3f800000], 0 [0x00000000]), b = df(0 [0x00000000], 0 [0x00000000]) the steps give true, aether_reference::df64::eq gives false", m.line)
    );
}
