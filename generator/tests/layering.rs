//! The generator's modules import one another one way: the `crate::MODULE`
//! paths of `generator/src/*.rs` (the `use crate::...` lines and the inline
//! `crate::x::...` paths, test modules included) form no cycle. Building the
//! model (`spec`, `model`) never imports what evaluates it (`interp`,
//! `kernel`, `linalg`, `df64`): the checks that evaluate run after
//! `Model::build`, in `aether_generator::model`.
//!
//! `targets/` is one node whose own imports are not read; the crate root's
//! items (`crate::SPEC_PATH`, `crate::load(..)`, `crate::model(..)`) are not
//! modules and make no edge. Comments and string literals are skipped.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The text with comments, string and char literals blanked out.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (c == b'r' || (c == b'b' && b.get(i + 1) == Some(&b'r'))) && (i == 0 || !ident(b[i - 1])) && {
            let mut j = i + if c == b'b' { 2 } else { 1 };
            while b.get(j) == Some(&b'#') {
                j += 1;
            }
            b.get(j) == Some(&b'"')
        } {
            // A raw string: r"..", r#".."#, br"..".
            let mut j = i + if c == b'b' { 2 } else { 1 };
            let hashes = b[j..].iter().take_while(|&&h| h == b'#').count();
            j += hashes + 1;
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
            out.push_str("\"\"");
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' && (b.get(i + 1) == Some(&b'\\') || b.get(i + 2) == Some(&b'\'')) {
            // A char literal (a lifetime has no closing quote after one character).
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The modules a file's code names through `crate::`.
fn imports(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    fn ident(s: &str) -> &str {
        let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
        &s[..end]
    }
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a, b::{c, d}, e as f}`: the first name of each top-level item.
            let (mut depth, mut start) = (0, true);
            for (k, ch) in group.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        let name = ident(&group[k..]);
                        if modules.contains(name) {
                            found.insert(name.to_string());
                        }
                    }
                    _ => {}
                }
            }
            continue;
        }
        let name = ident(rest);
        let after = rest[name.len()..].trim_start();
        // A module is followed by a path (`::`) or ends a `use` item
        // (`;`, `,`, `}`, ` as`); `crate::model(..)` is the root's function.
        let is_module_path = after.starts_with("::")
            || after.starts_with(';')
            || after.starts_with(',')
            || after.starts_with('}')
            || (after.starts_with("as") && !after[2..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
        if is_module_path && modules.contains(name) {
            found.insert(name.to_string());
        }
    }
    found
}

fn graph() -> Graph {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut modules = BTreeSet::new();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let p = e.path();
        let name = p.file_stem().unwrap().to_str().unwrap().to_string();
        if p.is_dir() {
            modules.insert(name);
        } else if p.extension().is_some_and(|x| x == "rs") && name != "lib" && name != "main" {
            modules.insert(name.clone());
            files.push((name, p));
        }
    }
    let mut g: Graph = modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for (name, p) in files {
        let code = code_only(&std::fs::read_to_string(&p).unwrap());
        let mut to = imports(&code, &modules);
        to.remove(&name);
        g.insert(name, to);
    }
    g
}

fn reaches(g: &Graph, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(m) = todo.pop() {
        for n in &g[&m] {
            if seen.insert(n.clone()) {
                todo.push(n.clone());
            }
        }
    }
    seen
}

/// A shortest cycle through `m` (None when there is none).
fn cycle_through(g: &Graph, m: &str) -> Option<Vec<String>> {
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([m.to_string()]);
    while let Some(x) = queue.pop_front() {
        for n in &g[&x] {
            if n == m {
                let mut path = vec![x.clone()];
                while let Some(p) = parent.get(path.last().unwrap()) {
                    path.push(p.clone());
                }
                path.reverse();
                if path[0] != m {
                    path.insert(0, m.to_string());
                }
                path.push(m.to_string());
                return Some(path);
            }
            if n != m && !parent.contains_key(n) {
                parent.insert(n.clone(), x.clone());
                queue.push_back(n.clone());
            }
        }
    }
    None
}

/// The strongly connected groups of more than one module, each with a
/// shortest cycle through its first module.
fn cycles(g: &Graph) -> Vec<(Vec<String>, Vec<String>)> {
    let reach: BTreeMap<&String, BTreeSet<String>> = g.keys().map(|m| (m, reaches(g, m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in g.keys() {
        if done.contains(m) || !reach[m].contains(m) {
            continue;
        }
        let group: Vec<String> = g.keys().filter(|n| reach[m].contains(*n) && reach[*n].contains(m)).cloned().collect();
        done.extend(group.iter().cloned());
        out.push((group, cycle_through(g, m).unwrap()));
    }
    out
}

#[test]
fn the_modules_import_one_another_one_way() {
    let g = graph();
    for (m, to) in &g {
        eprintln!("{m} -> {}", to.iter().cloned().collect::<Vec<_>>().join(" "));
    }
    let found = cycles(&g);
    let report: Vec<String> = found
        .iter()
        .map(|(group, cycle)| {
            let inside: Vec<String> =
                group.iter().flat_map(|m| g[m].iter().filter(|n| group.contains(n)).map(move |n| format!("{m} -> {n}"))).collect();
            format!("modules {{{}}} import one another, e.g. {}; their edges: {}", group.join(", "), cycle.join(" -> "), inside.join(", "))
        })
        .collect();
    assert!(found.is_empty(), "the crate:: imports of generator/src/*.rs form a cycle:\n{}", report.join("\n"));
    // The model is built without its evaluators.
    for m in ["spec", "model"] {
        let below = reaches(&g, m);
        for e in ["interp", "kernel", "linalg", "df64", "mutants", "bands", "corpus"] {
            assert!(!below.contains(e), "`{m}` reaches `{e}` through its imports");
        }
    }
}

/// The reader sees through comments, strings, groups and the root's items.
#[test]
fn the_reader_finds_module_paths_only() {
    let modules: BTreeSet<String> = ["a", "b", "c", "d", "e", "model"].iter().map(|s| s.to_string()).collect();
    let code = code_only(
        "use crate::a::X;\n// crate::b::Y\n/* crate::c */ let s = \"crate::c::Z\"; let r = r#\"crate::e::W\"#;\n\
         use crate::{d, e::{self, F}};\nlet m = crate::model(&spec); let p = crate::SPEC_PATH; let c = 'x'; fn f<'a>() {}\n",
    );
    let got: Vec<String> = imports(&code, &modules).into_iter().collect();
    assert_eq!(got, ["a", "d", "e"]);
    let got: Vec<String> = imports("let w = crate::b::words(r, n); use crate::c as cc;", &modules).into_iter().collect();
    assert_eq!(got, ["b", "c"]);
}
