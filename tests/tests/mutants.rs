//! The check can fail: the C core built from each mutant rule (fold order
//! reversed, zero seed, true division, FMA, hypot, ...) is compiled, loaded and
//! run on the corpus. The functions it mismatches must be exactly the ones
//! whose tree it changes and for which the corpus holds a witness (at least),
//! and never one it leaves unchanged.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use aether_generator::{mutants, output, targets};
use aether_tests::{corpus, functions, model, policy, width};

fn compile(dir: &Path, header: &str, source: &str) -> libloading::Library {
    std::fs::write(dir.join("aether_core.h"), header).unwrap();
    std::fs::write(dir.join("aether_core.c"), source).unwrap();
    let so = dir.join("libaether_mutant.so");
    let mut cmd = Command::new(env!("AETHER_CC"));
    cmd.args(env!("AETHER_CORE_FLAGS").split(' ')).args(["-fPIC", "-shared", "-o"]).arg(&so).arg(dir.join("aether_core.c")).arg("-lm");
    let out = cmd.output().expect("run the C compiler");
    assert!(out.status.success(), "the mutant core does not compile:\n{}", String::from_utf8_lossy(&out.stderr));
    // SAFETY: a library we just built from generated C; it has no initialisers.
    unsafe { libloading::Library::new(&so) }.expect("load the mutant core")
}

#[test]
fn every_mutant_core_fails_the_corpus_where_it_changes_bits() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let fns = functions();
    let lowered = model.lowered();
    let tmp = std::env::temp_dir().join(format!("aether-mutants-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut report = Vec::new();
    for m in mutants::ALL {
        let (mutant_model, mutated) = m.build(&model).unwrap();
        let (h, c) = targets::c::render_core(&mutant_model, &mutated, &output::banner(&model)).unwrap();
        let dir = tmp.join(m.name());
        std::fs::create_dir_all(&dir).unwrap();
        let lib = compile(&dir, &h, &c);
        let (mut changed, mut witnessed, mut caught) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        for (f, g) in lowered.iter().zip(&mutated) {
            let name = model.c_name(f);
            if mutants::canonical(f) != mutants::canonical(g) {
                changed.insert(name.clone());
            }
            let cases = &corpus[&name].cases;
            if cases.iter().any(|c| c.label.contains(&format!("discriminates {}:", m.name()))) {
                witnessed.insert(name.clone());
            }
            let cf = fns.iter().find(|c| c.name == name).unwrap();
            // SAFETY: the symbol is the mutant's version of `name`, of the same C type.
            let ptr = unsafe { lib.get::<unsafe extern "C" fn()>(format!("{name}\0").as_bytes()).unwrap() };
            let ptr = *ptr as *const ();
            let w = width(&f.elem);
            if cases.iter().any(|c| !policy::matches(&c.expected, &(cf.call)(ptr, &c.inputs), w, !f.returns_bool(), f.either_zero)) {
                caught.insert(name.clone());
            }
        }
        report.push(format!(
            "mutant {:<19} changes {:>3} functions, the corpus catches {:>3} (witnessed {:>3})",
            m.name(),
            changed.len(),
            caught.len(),
            witnessed.len()
        ));
        if m == mutants::Mutant::FoldLeft {
            report.push(format!("  fold-left caught in: {}", caught.iter().cloned().collect::<Vec<_>>().join(" ")));
        }
        assert!(!caught.is_empty(), "mutant {} is not caught by any corpus case", m.name());
        let missed: Vec<_> = witnessed.difference(&caught).collect();
        assert!(missed.is_empty(), "mutant {}: the corpus has witnesses but the C core passed for {missed:?}", m.name());
        let spurious: Vec<_> = caught.difference(&changed).collect();
        assert!(spurious.is_empty(), "mutant {}: mismatches in functions it does not change: {spurious:?}", m.name());
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("{}", report.join("\n"));
}
