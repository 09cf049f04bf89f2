//! `docs/api.md` lists every callable of the model with its C signature as
//! `c_core/aether_core.h` declares it, the cores whose files define its name
//! (and only those), its Rust methods and operators as `rust_core` defines
//! them, and its spec body in its entry. What the page must say is read here
//! from the committed cores themselves, not from the generator's own
//! reading of them. Controls: the same check reports a function whose row is
//! removed, a core dropped from a row, and a body line altered. A spec with
//! one function's body changed gives a page that differs in that line only.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use aether_generator::model::Callable;
use aether_generator::{fuzzing, targets, Model};

fn root() -> std::path::PathBuf {
    aether_generator::default_root()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// What the page must say of one callable.
struct Expected {
    name: String,
    /// As the C header declares it, without the storage macro and `;`.
    signature: String,
    /// The targets whose core files define the name.
    cores: BTreeSet<String>,
    /// What the Rust cell must hold for each method and operator.
    rust: Vec<String>,
    /// The body lines of its entry, trimmed (functions only).
    body: Vec<String>,
}

/// The C header's prototypes by name: `AETHER_API[_BY_VALUE] <signature>;`.
fn header_prototypes(header: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in header.lines() {
        let Some(rest) = line.strip_prefix("AETHER_API_BY_VALUE ").or_else(|| line.strip_prefix("AETHER_API ")) else { continue };
        let Some(sig) = rest.strip_suffix(';') else { continue };
        let Some((head, _)) = sig.split_once('(') else { continue };
        let name = head.rsplit([' ', '*']).next().unwrap_or_default();
        out.insert(name.to_string(), sig.to_string());
    }
    out
}

/// The source files of a target's core folder, outside `check/`.
fn core_sources(folder: &str) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "check") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| ["h", "c", "cuh", "cu", "cl", "wgsl", "glsl", "rs"].iter().any(|s| x == *s)) {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join(folder), &mut files);
    files.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
}

/// The names a core's files define: every `aether_` name followed by `(`
/// after a space or `*` on a line at column 0 that is not a comment or a
/// preprocessor line (each core prints its functions at the top level and
/// their bodies indented).
fn defined(texts: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for text in texts {
        for line in text.lines() {
            if line.starts_with([' ', '\t', '#']) || line.starts_with("//") || line.starts_with("/*") || line.starts_with('*') {
                continue;
            }
            for (i, _) in line.match_indices("aether_") {
                if i == 0 || !matches!(line.as_bytes()[i - 1], b' ' | b'*') {
                    continue;
                }
                let name: String = line[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if line[i + name.len()..].starts_with('(') {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// The Rust core's methods (`/// [`NAME`] with `self` ...` above `pub fn m(`)
/// and operators (`/// [`NAME`].` above `impl core::ops::Trait`), as the
/// text the page must show: `.m(` and ` + ` (or `-a` for Neg).
fn rust_forms(contract: &str) -> HashMap<String, Vec<String>> {
    let lines: Vec<&str> = contract.lines().map(str::trim).collect();
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(rest) = l.strip_prefix("/// [`") else { continue };
        let Some((name, tail)) = rest.split_once("`]") else { continue };
        let next = lines[i + 1..].iter().find(|l| !l.starts_with("#[")).copied().unwrap_or_default();
        let form = if tail.starts_with(" with `self`") {
            next.strip_prefix("pub fn ").and_then(|m| m.split_once('(')).map(|(m, _)| format!(".{m}("))
        } else {
            next.strip_prefix("impl core::ops::").map(|t| {
                match t.split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or_default() {
                    "Add" => " + ",
                    "Sub" => " - ",
                    "Mul" => " * ",
                    "Div" => " / ",
                    "Neg" => "`-",
                    other => panic!("an operator the test does not know: {other}"),
                }
                .to_string()
            })
        };
        if let Some(f) = form {
            out.entry(name.to_string()).or_default().push(f);
        }
    }
    out
}

fn expected(model: &Model) -> Vec<Expected> {
    let prototypes = header_prototypes(&read("c_core/aether_core.h"));
    let cores: Vec<(String, BTreeSet<String>)> =
        targets::registry().iter().map(|t| (t.name().to_string(), defined(&core_sources(t.folder())))).collect();
    let rust = rust_forms(&read("rust_core/src/contract.rs"));
    model
        .callables()
        .into_iter()
        .map(|c| {
            let name = c.c_name(model);
            let signature = prototypes.get(&name).unwrap_or_else(|| panic!("{name} is not declared in c_core/aether_core.h")).clone();
            let body = match c {
                Callable::Function(f) => {
                    let fam = model.spec.family(&f.family).unwrap();
                    let b = fam.body_for(&f.shape, &f.elem).unwrap();
                    b.source.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
                }
                Callable::Kernel(_) => Vec::new(),
            };
            Expected {
                cores: cores.iter().filter(|(_, names)| names.contains(&name)).map(|(t, _)| t.clone()).collect(),
                rust: rust.get(&name).cloned().unwrap_or_default(),
                signature,
                body,
                name,
            }
        })
        .collect()
}

/// Every problem of the page with the expected entries: a callable without
/// exactly one row of its C signature, a row whose cores are not the cores
/// that define it, a Rust method or operator missing from its row, a body
/// line missing from its entry.
fn problems(text: &str, expected: &[Expected]) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut rows: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        if let Some((sig, _)) = l.strip_prefix("| `").and_then(|r| r.split_once("` | ")) {
            rows.entry(sig).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    for e in expected {
        let at = match rows.get(e.signature.as_str()).map(Vec::as_slice) {
            Some([at]) => *at,
            Some(more) => {
                out.push(format!("{}: {} rows", e.name, more.len()));
                continue;
            }
            None => {
                out.push(format!("{}: no row with `{}`", e.name, e.signature));
                continue;
            }
        };
        let cells: Vec<&str> = lines[at].split(" | ").collect();
        let cores: BTreeSet<String> = cells
            .get(1)
            .unwrap_or(&"")
            .split(", ")
            .filter(|c| !c.is_empty())
            .map(|c| c.split(" (").next().unwrap_or(c).to_string())
            .collect();
        if cores != e.cores {
            out.push(format!("{}: cores {cores:?}, but {:?} define it", e.name, e.cores));
        }
        let rust = cells.get(2).unwrap_or(&"");
        for form in &e.rust {
            if !rust.contains(form.as_str()) {
                out.push(format!("{}: the Rust cell `{rust}` lacks `{form}`", e.name));
            }
        }
        // The entry: from its heading to the next.
        let start = (0..at).rev().find(|&i| lines[i].starts_with("### ")).unwrap_or(0);
        let end = (at..lines.len()).find(|&i| lines[i].starts_with("### ") || lines[i].starts_with("## ")).unwrap_or(lines.len());
        let entry: BTreeSet<&str> = lines[start..end].iter().map(|l| l.trim()).collect();
        for b in &e.body {
            if !entry.contains(b.as_str()) {
                out.push(format!("{}: its entry lacks the body line `{b}`", e.name));
            }
        }
    }
    out
}

fn load() -> Model {
    aether_generator::load(&root()).expect("the spec loads")
}

#[test]
fn every_callable_has_its_row_its_cores_and_its_body() {
    let model = load();
    let expected = expected(&model);
    assert_eq!(expected.len(), model.callables().len());
    let text = read("docs/api.md");
    let found = problems(&text, &expected);
    assert!(found.is_empty(), "docs/api.md:\n{}", found.join("\n"));
    // The page is what the cores are: a shader core has its f32 functions and
    // the df64 set, a Rust method and an operator are there.
    let dot = expected.iter().find(|e| e.name == "aether_vec3f_dot").unwrap();
    assert_eq!(dot.cores.len(), targets::registry().len(), "{:?}", dot.cores);
    assert!(dot.rust.contains(&".dot(".to_string()));
    let add = expected.iter().find(|e| e.name == "aether_vec3d_add").unwrap();
    assert!(add.rust.contains(&" + ".to_string()), "{:?}", add.rust);
    let sum = expected.iter().find(|e| e.name == "aether_f32_sum_array").unwrap();
    assert!(!sum.cores.contains("wgsl") && sum.cores.contains("cuda"), "{:?}", sum.cores);
    // Every target in registry order, a df64 printer's marked (a new target needs no edit here).
    let all: Vec<String> =
        targets::registry().iter().map(|t| if t.prints_df64() { format!("{} (df64)", t.name()) } else { t.name().to_string() }).collect();
    let row = format!("| {} |", all.join(", "));
    assert!(all.iter().any(|n| n.ends_with("(df64)")), "some target prints df64: {all:?}");
    assert!(text.contains(&row), "the df64 set is marked: {row}");
    assert!(text.starts_with("<!-- GENERATED by `cargo run -p generator`"), "the do-not-edit banner");
}

#[test]
fn the_check_reports_a_removed_row_a_dropped_core_and_an_altered_body() {
    let model = load();
    let expected = expected(&model);
    let text = read("docs/api.md");
    let row = text.lines().find(|l| l.starts_with("| `float aether_vec3f_dot(")).expect("the row of aether_vec3f_dot").to_string();

    let removed = text.replace(&format!("{row}\n"), "");
    assert_ne!(removed, text);
    let found = problems(&removed, &expected);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("aether_vec3f_dot: no row"), "{found:?}");

    let dropped = text.replace(&row, &row.replacen("wgsl, ", "", 1));
    assert_ne!(dropped, text);
    let found = problems(&dropped, &expected);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("aether_vec3f_dot: cores"), "{found:?}");

    let altered = text.replacen("out = fold(add, i < N, a[i] * b[i])", "out = fold(add, i < N, b[i] * a[i])", 1);
    assert_ne!(altered, text);
    let found = problems(&altered, &expected);
    assert!(!found.is_empty() && found.iter().all(|p| p.contains("_dot: its entry lacks the body line")), "{found:?}");
}

/// The page of a spec text, rendered with every target on the fast path.
fn page(text: &str) -> String {
    let out = fuzzing::render_without_corpus(text).expect("the spec renders");
    out.into_iter().find(|o| o.path == "docs/api.md").expect("docs/api.md is rendered").contents
}

#[test]
fn a_changed_body_changes_the_page_in_that_line() {
    let text = read(aether_generator::SPEC_PATH);
    let (old, new) = ("out[i] = a[i] + b[i]", "out[i] = b[i] + a[i]");
    assert_eq!(text.matches(old).count(), 1, "the add family's body");
    let before = page(&text);
    let after = page(&text.replace(old, new));
    let changed: Vec<(&str, &str)> = before.lines().zip(after.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(before.lines().count(), after.lines().count());
    assert_eq!(changed, [(old, new)], "only the body line of add changes");
}

/// A heading's anchor as GitHub derives it, a repeat numbered.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for l in text.lines() {
        if l.starts_with("```") {
            fenced = !fenced;
        }
        let Some(h) = l.strip_prefix('#').filter(|_| !fenced) else { continue };
        let h = h.trim_start_matches('#').trim();
        let base: String = h
            .to_lowercase()
            .chars()
            .filter_map(|c| if c == ' ' { Some('-') } else { (c.is_alphanumeric() || c == '-' || c == '_').then_some(c) })
            .collect();
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

#[test]
fn every_link_reaches_a_heading() {
    let text = read("docs/api.md");
    let own = anchors(&text);
    let contract = anchors(&read("docs/numerics-contract.md"));
    let mut links = 0;
    for (i, _) in text.match_indices("](") {
        let target = text[i + 2..].split(')').next().unwrap_or_default();
        let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
        let set = match file {
            "" => &own,
            "numerics-contract.md" => &contract,
            other => panic!("a link to `{other}`"),
        };
        assert!(set.contains(anchor), "`{target}` reaches no heading");
        links += 1;
    }
    assert!(links > 100, "{links} links");
}
