//! A band table may start from another (`like = "wgsl"`) and state only its
//! differences. The spec's `[bands.opencl_relaxed]` is written again as
//! `like = "wgsl"` plus the entries and accuracies where the two differ,
//! and the parsed table must equal the one written out in full: the same
//! metric for every name and the same accuracies. The same rewrite with one
//! difference left out must not (a negative control: inheritance is real,
//! not an echo of the full table).

use std::collections::BTreeMap;

use aether_generator::spec::{self, BandMetric, TargetBands};

const SPEC: &str = include_str!("../../spec/aether.toml");

fn table<'a>(s: &'a spec::Spec, target: &str) -> &'a TargetBands {
    s.bands.iter().find(|b| b.target == target).unwrap_or_else(|| panic!("[bands.{target}]"))
}

fn metrics(t: &TargetBands) -> BTreeMap<String, BandMetric> {
    t.entries.iter().map(|e| (e.name.clone(), e.metric)).collect()
}

/// The relaxed table as `like = "wgsl"` plus its differences, leaving out
/// the difference named `skip`.
fn like_text(full: &spec::Spec, skip: Option<&str>) -> String {
    let (w, r) = (table(full, "wgsl"), table(full, "opencl_relaxed"));
    let (wm, rm) = (metrics(w), metrics(r));
    assert_eq!(wm.keys().collect::<Vec<_>>(), rm.keys().collect::<Vec<_>>(), "the two tables list the same names");
    let mut lists: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (name, m) in &rm {
        if wm[name] != *m && Some(name.as_str()) != skip {
            lists.entry(m.key()).or_default().push(format!("{name:?}"));
        }
    }
    assert!(lists.values().map(Vec::len).sum::<usize>() >= 10, "the tables differ in many entries: {lists:?}");
    let mut text = String::from("[bands.opencl_relaxed]\nlike = \"wgsl\"\n");
    text.push_str(&format!("add_sub_mul_ulp = {:?}\ndiv_ulp = {:?}\nsqrt_ulp = {:?}\n", r.ops.add_sub_mul, r.ops.div, r.ops.sqrt));
    for (key, names) in &lists {
        text.push_str(&format!("{key} = [{}]\n", names.join(", ")));
    }
    let start = SPEC.find("[bands.opencl_relaxed]\n").unwrap();
    let end = start + SPEC[start..].find("\n\n").unwrap() + 1;
    format!("{}{}{}", &SPEC[..start], text, &SPEC[end..])
}

#[test]
fn a_table_like_another_states_only_its_differences() {
    let full = spec::parse("spec/aether.toml", SPEC).unwrap();
    let text = like_text(&full, None);
    assert!(text.contains("like = \"wgsl\""));
    let like = spec::parse("spec/aether.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (table(&full, "opencl_relaxed"), table(&like, "opencl_relaxed"));
    assert_eq!(metrics(a), metrics(b));
    assert_eq!(a.ops, b.ops);
    aether_generator::model(&like).unwrap_or_else(|e| panic!("{e}"));

    // Without one of its differences, the entry is the base's, and differs.
    let name = metrics(a).into_iter().find(|(n, m)| metrics(table(&full, "wgsl"))[n] != *m).unwrap().0;
    let short = spec::parse("spec/aether.toml", &like_text(&full, Some(&name))).unwrap();
    assert_eq!(metrics(table(&short, "opencl_relaxed"))[&name], metrics(table(&full, "wgsl"))[&name]);
    assert_ne!(metrics(table(&short, "opencl_relaxed")), metrics(a));
}

#[test]
fn like_names_a_table_above() {
    let at = SPEC.find("[bands.wgsl]\n").unwrap();
    let text = SPEC.replacen("[bands.wgsl]\n", "[bands.wgsl]\nlike = \"opencl_relaxed\"\n", 1);
    let line = SPEC[..at].matches('\n').count() + 2;
    let err = spec::parse("spec/aether.toml", &text).map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "spec/aether.toml:{line}: `bands.wgsl.like`: `opencl_relaxed`: no band table `[bands.opencl_relaxed]` above this one to start from"
        )
    );
}
