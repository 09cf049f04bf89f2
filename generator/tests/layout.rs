//! A language target is one folder: `generator/src/targets/<name>/`, and the
//! registry lists exactly those folders. What several targets print through
//! lives in `targets/shared/`. No target's module names another target's
//! module, and nothing in `shared/` names a target's: every `crate::`, `self::`
//! and `super::` path in those files is resolved against the file's own
//! module and checked. The test reads the sources; a negative control feeds
//! the checker a cross-target path and a shared-to-target path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use aether_generator::targets;

fn targets_dir() -> PathBuf {
    aether_generator::default_root().join("generator/src/targets")
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file under `targets/`: `shared/c_family/mod.rs` is
/// `["targets", "shared", "c_family"]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut m = vec!["targets".to_string()];
    let parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    for (i, p) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            let stem = p.trim_end_matches(".rs");
            if stem != "mod" {
                m.push(stem.to_string());
            }
        } else {
            m.push(p.clone());
        }
    }
    m
}

/// Every path the text names that starts with `crate`, `self` or `super`,
/// resolved to an absolute module path (`crate` dropped), as far as its
/// lower-case segments go: `use crate::targets::{a, b::c}` gives
/// `targets::a` and `targets::b::c` through its braces' first level.
fn paths(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let bytes = code.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let rest = &code[i..];
        let head = ["crate::", "self::", "super::"].into_iter().find(|h| rest.starts_with(h));
        let Some(_) = head else {
            i += 1;
            continue;
        };
        // Read `seg::seg::...` and, at a brace, each first-level item.
        let mut segs: Vec<String> = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            segs.push(code[start..j].to_string());
            if code[j..].starts_with("::{") {
                let close = code[j..].find('}').map_or(bytes.len(), |k| j + k);
                for item in code[j + 3..close].split(',') {
                    let item: Vec<String> =
                        item.trim().split("::").map(|s| s.split_whitespace().next().unwrap_or("").to_string()).collect();
                    let mut p = segs.clone();
                    p.extend(item);
                    out.push(p);
                }
                j = close;
                segs.clear();
                break;
            }
            if code[j..].starts_with("::") && j + 2 < bytes.len() && is_ident(bytes[j + 2]) {
                j += 2;
            } else {
                break;
            }
        }
        if !segs.is_empty() {
            out.push(segs);
        }
        i = j.max(i + 1);
    }
    out.into_iter()
        .filter_map(|p| {
            let mut abs: Vec<String> = Vec::new();
            let mut it = p.into_iter().peekable();
            match it.peek().map(String::as_str) {
                Some("crate") => {
                    it.next();
                }
                Some("self") => {
                    it.next();
                    abs = module.to_vec();
                }
                Some("super") => {
                    abs = module.to_vec();
                    while it.peek().map(String::as_str) == Some("super") {
                        it.next();
                        abs.pop()?;
                    }
                }
                _ => return None,
            }
            abs.extend(it.filter(|s| !s.is_empty() && s != "self"));
            Some(abs)
        })
        .collect()
}

/// The target a module path lies in (`targets::<t>::...`), if any.
fn target_of<'a>(path: &'a [String], names: &BTreeSet<String>) -> Option<&'a str> {
    (path.len() >= 2 && path[0] == "targets" && names.contains(&path[1])).then(|| path[1].as_str())
}

/// The paths of `text` (a file of module `module`) that break the layout.
fn violations(text: &str, module: &[String], names: &BTreeSet<String>) -> Vec<String> {
    let own = target_of(module, names).map(str::to_string);
    let in_shared = module.len() >= 2 && module[1] == "shared";
    paths(text, module)
        .into_iter()
        .filter_map(|p| {
            let t = target_of(&p, names)?;
            let bad = if in_shared { true } else { own.as_deref().is_some_and(|o| o != t) };
            bad.then(|| p.join("::"))
        })
        .collect()
}

fn target_names() -> BTreeSet<String> {
    targets::registry().iter().map(|t| t.name().to_string()).collect()
}

#[test]
fn every_target_is_a_folder_and_every_folder_a_target() {
    let mut folders = BTreeSet::new();
    for e in std::fs::read_dir(targets_dir()).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            folders.insert(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(folders.remove("shared"), "targets/shared holds what targets share");
    assert_eq!(folders, target_names(), "the folders under generator/src/targets/ (but shared/) and the registry's names");
    for t in targets::registry() {
        assert!(targets_dir().join(t.name()).join("mod.rs").is_file(), "targets/{}/mod.rs", t.name());
    }
}

#[test]
fn no_target_imports_another_and_shared_imports_none() {
    let names = target_names();
    let mut files = Vec::new();
    rust_files(&targets_dir(), &mut files);
    assert!(files.len() > 20, "{} files", files.len());
    let mut bad = Vec::new();
    let mut seen = 0;
    for f in &files {
        let rel = f.strip_prefix(targets_dir()).unwrap();
        let module = module_of(rel);
        let text = std::fs::read_to_string(f).unwrap();
        seen += paths(&text, &module).len();
        for v in violations(&text, &module, &names) {
            bad.push(format!("generator/src/targets/{}: {v}", rel.display()));
        }
    }
    assert!(seen > 100, "only {seen} paths read: the reader is broken");
    assert!(bad.is_empty(), "paths across targets:\n{}", bad.join("\n"));
}

/// The checker itself: a cross-target path, a shared-to-target path, and
/// `super::` chains that leave the folder are caught; a target's own paths
/// and shared paths are not.
#[test]
fn the_layout_check_catches_cross_paths() {
    let names = target_names();
    let m = |s: &str| module_of(Path::new(s));
    assert_eq!(violations("use crate::targets::wgsl::CheckEntry;", &m("opencl/mod.rs"), &names), ["targets::wgsl::CheckEntry"]);
    assert_eq!(violations("let x = crate::targets::c::render_core(m);", &m("shared/c_family/mod.rs"), &names), ["targets::c::render_core"]);
    assert_eq!(violations("use super::super::cuda::Cuda;", &m("wgsl/df64.rs"), &names), ["targets::cuda::Cuda"]);
    assert_eq!(
        violations("use crate::targets::{shared::print, c::batch};", &m("cuda/mod.rs"), &names),
        ["targets::c::batch"],
        "an item inside braces"
    );
    assert_eq!(violations("use super::super::wgsl::Wgsl;", &m("shared/check.rs"), &names), ["targets::wgsl::Wgsl"]);
    assert!(violations("use super::check; use crate::targets::shared::print;", &m("c/mod.rs"), &names).is_empty());
    assert!(violations("use super::*; // crate::targets::wgsl in a comment", &m("c/item.rs"), &names).is_empty());
}
