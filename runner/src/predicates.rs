//! The predicates' integer forms on the WGSL and GL stacks (`aether-runner
//! predicates`): the check module of `targets::wgsl::predicates::wgsl_check_module`
//! on the WebGPU stacks, of `targets::glsl::predicates::glsl_check_module` on
//! the GL ones (both: every i64 in two u32 limbs, the same words per
//! argument), on the corpus and on the proof's sweep
//! (`predicate_corpus::sweep`), each answer against the golden reference.

use std::time::Instant;

use aether_generator::model::Model;
use aether_generator::predicate::PTy;
use aether_generator::predicate_corpus::{self, SweepClass};
use aether_generator::targets::glsl::predicates::glsl_check_module;
use aether_generator::targets::shared::check::CheckModule;
use aether_generator::targets::shared::predicates::limb_words;
use aether_generator::targets::wgsl::predicates::wgsl_check_module;

use crate::exec::{Executor, Job};
use crate::lang::Lang;

/// Cases per job: 2^21 cases of up to 6 words stay far below WebGPU's
/// default 128 MiB storage binding (a GL executor draws a job in chunks of
/// its own, `glsl_draw::chunks`).
const CHUNK: usize = 1 << 21;

/// The words of one case: each argument as the check module reads it (the
/// same in WGSL and GLSL ES).
fn words(types: &[PTy], args: &[i64], out: &mut Vec<u64>) {
    for (t, a) in types.iter().zip(args) {
        if limb_words(*t) == 2 {
            out.push(u64::from(*a as u64 as u32));
            out.push((*a as u64) >> 32);
        } else {
            out.push(u64::from(*a as u32));
        }
    }
}

/// One line of the run: a predicate, a class, the count and the
/// disagreements with the golden reference.
#[derive(Debug, Clone)]
pub struct Line {
    pub predicate: String,
    pub class: String,
    pub count: usize,
    pub disagreements: usize,
    pub first: Option<String>,
}

/// The negative controls: a limb helper broken in the module's source, each
/// of which must make some answer wrong. (name, what, the text, its
/// replacement.)
pub const CONTROLS: [(&str, &str, &str, &str); 2] = [
    ("carry", "aether_i64_add without the carry out of the low word", "a.y + b.y + select(0u, 1u, lo < a.x)", "a.y + b.y"),
    ("wide-mul", "the 32 x 32-bit product without the carry of its middle column", " + (mid >> 16u));", ");"),
];

/// The same controls in the GLSL ES module's spelling.
pub const GLSL_CONTROLS: [(&str, &str, &str, &str); 2] = [
    ("carry", "aether_i64_add without the carry out of the low word", "a.y + b.y + ((lo < a.x) ? 1u : 0u)", "a.y + b.y"),
    ("wide-mul", "the 32 x 32-bit product without the carry of its middle column", " + (mid >> 16u));", ");"),
];

/// The controls of a language's module.
pub fn controls(lang: Lang) -> &'static [(&'static str, &'static str, &'static str, &'static str)] {
    match lang {
        Lang::Wgsl => &CONTROLS,
        Lang::Glsl => &GLSL_CONTROLS,
    }
}

/// The check module of a language, with a control's edit applied.
pub fn module(lang: Lang, model: &Model, control: Option<&str>) -> Result<CheckModule, String> {
    let mut m = match lang {
        Lang::Wgsl => wgsl_check_module(model),
        Lang::Glsl => glsl_check_module(model),
    };
    if let Some(name) = control {
        let (_, _, from, to) =
            controls(lang).iter().find(|c| c.0 == name).ok_or_else(|| format!("no control `{name}` (carry, wide-mul)"))?;
        if !m.source.contains(from) {
            return Err(format!("control {name}: `{from}` is not in the module (the limb helpers changed: update the control)"));
        }
        m.source = m.source.replacen(from, to, 1);
    }
    Ok(m)
}

/// Runs the corpus and the sweep on one stack, with the module of its
/// language (a control: the self-test and the corpus only; `no_reduced`:
/// without the 18.9 million reduced-domain combinations).
pub fn run(
    exec: &mut dyn Executor,
    model: &Model,
    corpus: &[(String, Vec<Vec<i64>>)],
    random: usize,
    control: Option<&str>,
    no_reduced: bool,
) -> Result<Vec<Line>, String> {
    let lang = Lang::of_stack(exec.stack());
    let module: CheckModule = module(lang, model, control)?;
    let preds = &model.spec.predicates;
    let mut lines = Vec::new();
    let st = module.entries.iter().position(|e| e.entry == "check_predicate_selftest").ok_or("no self-test entry")?;
    let out = exec.run(&module, &[Job::without_inputs(st, 1)]).map_err(|e| format!("{}: {e}", exec.stack()))?;
    let witnesses: usize = preds.predicates.iter().map(|p| predicate_corpus::witnesses(&p.name).len()).sum();
    lines.push(Line {
        predicate: "aether_predicate_selftest()".into(),
        class: "witnesses".into(),
        count: witnesses,
        disagreements: out[0][0] as usize,
        first: None,
    });
    let mut one = |name: &str, class: &str, arity: usize, chunks: &mut dyn Iterator<Item = Vec<i64>>| -> Result<(), String> {
        let p = preds.predicate(name).ok_or_else(|| format!("no predicate {name}"))?;
        let entry = module.entries.iter().position(|e| e.family == name).ok_or_else(|| format!("{name}: no {} entry", lang.title()))?;
        let types: Vec<PTy> = p.params.iter().map(|q| q.ty).collect();
        let reference = predicate_corpus::reference(name).ok_or_else(|| format!("{name}: no reference"))?;
        let (mut count, mut bad, mut first) = (0, 0, None);
        for chunk in chunks {
            let mut w = Vec::new();
            for a in chunk.chunks(arity) {
                words(&types, a, &mut w);
            }
            let out = exec.run(&module, &[Job::new(&module, entry, w)]).map_err(|e| format!("{}: {e}", exec.stack()))?;
            for (a, got) in chunk.chunks(arity).zip(&out[0]) {
                count += 1;
                if (*got == 1) != reference(a) || *got > 1 {
                    bad += 1;
                    first.get_or_insert_with(|| format!("{a:?}: {} gave {got}", exec.stack()));
                }
            }
        }
        lines.push(Line { predicate: name.to_string(), class: class.to_string(), count, disagreements: bad, first });
        Ok(())
    };
    for (name, cases) in corpus {
        let arity = cases.first().map_or(0, Vec::len);
        one(name, "corpus", arity, &mut std::iter::once(cases.concat()))?;
    }
    for c in predicate_corpus::sweep(random) {
        let c: SweepClass = c;
        // A control needs only the corpus and the self-test to show itself.
        if control.is_some() || (no_reduced && c.count > 10_000_000) {
            continue;
        }
        one(c.predicate, &c.class, c.arity, &mut c.chunks(CHUNK))?;
    }
    Ok(lines)
}

/// `aether-runner predicates [--stack wgpu|dawn|all|gles|webgl|glsl-all] [--random N]
/// [--control NAME] [--no-reduced]`: true when every answer on every stack is the golden one
/// (with a control: when some answer on every stack is wrong). `all` is the WebGPU stacks (the
/// WGSL module), `glsl-all` the GL stacks (the GLSL ES module); a stack's name picks its
/// language's module (`Lang::of_stack`).
pub fn main(args: &[String]) -> Result<bool, String> {
    let mut stacks: Vec<String> = crate::STACKS.iter().map(|s| s.to_string()).collect();
    let mut random = 100_000usize;
    let mut control: Option<String> = None;
    let mut no_reduced = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--stack" => {
                let v = it.next().ok_or("--stack needs a value")?;
                stacks = match v.as_str() {
                    "all" => crate::STACKS.iter().map(|s| s.to_string()).collect(),
                    "glsl-all" => crate::GLSL_STACKS.iter().map(|s| s.to_string()).collect(),
                    _ => vec![v.clone()],
                };
            }
            "--random" => random = it.next().and_then(|v| v.parse().ok()).ok_or("--random needs a count")?,
            "--control" => control = Some(it.next().ok_or("--control needs a name")?.clone()),
            "--no-reduced" => no_reduced = true,
            other => {
                return Err(format!(
                    "unknown option `{other}` (aether-runner predicates [--stack wgpu|dawn|all|gles|webgl|glsl-all] [--random N] [--control carry|wide-mul] [--no-reduced])"
                ))
            }
        }
    }
    let root = aether_generator::default_root();
    let model = aether_generator::load(&root).map_err(|e| e.to_string())?;
    let committed = aether_generator::corpus::read_committed(&root)?;
    let corpus: Vec<(String, Vec<Vec<i64>>)> = model
        .spec
        .predicates
        .predicates
        .iter()
        .map(|p| {
            let part = &committed[&format!("aether_predicate_{}", p.name)];
            (p.name.clone(), part.cases.iter().map(|c| c.inputs.iter().map(|w| *w as i64).collect()).collect())
        })
        .collect();
    let mut ok = true;
    for stack in &stacks {
        let t = Instant::now();
        let mut exec = crate::open(stack).map_err(|e| format!("{stack}: {e}"))?;
        match Lang::of_stack(stack) {
            Lang::Wgsl => println!("predicates on {stack} ({}): the integer forms, i64 in u32 limbs", exec.adapter()),
            Lang::Glsl => println!("predicates on {stack} ({}): the integer forms in GLSL ES 3.00, i64 in uint limbs", exec.adapter()),
        }
        let mut wrong = 0;
        for l in run(exec.as_mut(), &model, &corpus, random, control.as_deref(), no_reduced)? {
            wrong += l.disagreements;
            println!(
                "  {} {}: {} inputs, {} disagreements with the golden reference{}",
                l.predicate,
                l.class,
                l.count,
                l.disagreements,
                l.first.as_ref().map(|f| format!(" (first {f})")).unwrap_or_default()
            );
        }
        println!("predicates on {stack}: {:.1} s", t.elapsed().as_secs_f64());
        match &control {
            None => ok &= wrong == 0,
            Some(c) => {
                let what = controls(Lang::of_stack(stack)).iter().find(|x| x.0 == c).map_or("", |x| x.1);
                println!(
                    "predicates control {c} ({what}) on {stack}: {wrong} wrong answers{}",
                    if wrong > 0 { ", as it must" } else { ": FAIL, the control changes nothing" }
                );
                ok &= wrong > 0;
            }
        }
    }
    if control.is_none() {
        println!("predicates: {}", if ok { "every answer is the golden one on every stack" } else { "FAIL: disagreements" });
    }
    Ok(ok)
}
