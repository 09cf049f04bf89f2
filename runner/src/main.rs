//! `aether-runner wgsl|glsl --stack wgpu|dawn|gles|webgl|all --random N [--report FILE.md]
//! [--guard bits|opaque-one|none] [--mutant NAME] [--fuse] [--expect-mismatch]
//! [--seed S] [--only SUBSTRING] [--strict]`
//!
//! `--strict` runs the strict WGSL build (`wgsl_core/aether_core_strict.wgsl`:
//! every rounded result guarded) in place of the default one, its controls
//! included. `--fuse` is the control that stands for a fusing driver: the
//! module with every product that a sum reads directly fused into an `fma`
//! (`wgsl::strict::fuse_products`); the run says how many it fused (none in
//! the strict build, whose products are all behind the guard).
//!
//! `aether-runner wgsl-bench [--stack wgpu|dawn|all] [--items N] [--rounds R]
//! [--report FILE.md]`: the cost of the strict build against the default
//! one (`runner::strict::bench_main`).
//!
//! The WGSL check module runs on the WebGPU stacks (wgpu, dawn), the GLSL ES
//! one on the GL stacks (gles: Mesa on llvmpipe; webgl: Chromium's WebGL2 on
//! SwiftShader); everything after the run is the same code.
//!
//! `aether-runner wgsl-selftest|glsl-selftest [--stack NAME|all] [--mutant NAME] [--guard G]
//! [--expect-flush STACK]... [--expect-fail]`: the core's self-test on each
//! stack; fails when a witness of a bits family fails (with `--expect-fail`,
//! a mutant's core: when none does), or when a stack named by
//! `--expect-flush` is not reported as flushing subnormals (or one not
//! named is). `--simulate CAUSE` (fusion, reassociation, zero-sign) prints
//! the core from the mutant that stands for a stack with that cause (fma,
//! reassociate, neg-sub; or `--mutant`'s) and the self-test's cause probe in
//! the form the cause gives it; `--expect-cause CAUSE` fails unless the probes
//! detect it, it explains failing witnesses, and no witness is left a failing
//! rule (use it without `--expect-fail`, which wants failing rules).
//! `--shield-probes` prints the cause probes' products and inner sums through
//! the core's barrier, so no driver fuses or reassociates them: the negative
//! control, whose failures must then be failing rules.
//!
//! `aether-runner opencl [--random N] [--report FILE.md] [--seed S]`: the
//! OpenCL C core's check program on the first OpenCL device (PoCL), every
//! kernel on the corpus and N random inputs (default 100000), bit-identical
//! with the reference under the policy; the build options are printed. The
//! negative controls are `aether-opencl`'s (`scripts/opencl.sh`).
//!
//! `aether-runner df64 [--stack wgpu|dawn|all] [--random N] [--guard bits|none|opaque-one]
//! [--only S] [--report FILE]`: the f64 functions in df64 (`runner::df64`).
//!
//! `aether-runner predicates [--stack wgpu|dawn|all|gles|webgl|glsl-all] [--random N]
//! [--no-reduced] [--control carry|wide-mul]`: the predicates' integer forms
//! (i64 in u32 limbs; the WGSL module on wgpu and dawn, the GLSL ES one on gles
//! and webgl) on each stack, on the corpus and the proof's sweep, against the
//! golden reference.
//!
//! Exit status: 0 when every in-domain case is within its band (with
//! `--expect-mismatch`: when, on every stack, at least one function stops
//! being bit-identical under the control module), 1 otherwise, 2 when the run
//! itself fails (a stack not installed, a module that does not compile).

use std::process::ExitCode;
use std::time::Instant;

use aether_generator::mutants::{self, Mutant};
use aether_generator::targets::shared::check::{CheckModule, Guard};
use aether_runner::compare;
use aether_runner::inputs::{self, Source};
use aether_runner::lang::Lang;
use aether_runner::report::{self, Header, Section};

const USAGE: &str = "usage: aether-runner wgsl|glsl [--stack wgpu|dawn|gles|webgl|all] [--random N] [--report FILE.md] \
[--guard bits|opaque-one|none] [--mutant NAME] [--fuse] [--expect-mismatch] [--seed S] [--only SUBSTRING] [--strict]";

#[derive(Debug)]
struct Options {
    lang: Lang,
    stacks: Vec<String>,
    random: usize,
    report: Option<String>,
    guard: Guard,
    mutant: Option<Mutant>,
    expect_mismatch: bool,
    seed: u64,
    only: Option<String>,
    strict: bool,
    fuse: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut it = args.iter();
    let lang = match it.next().map(String::as_str) {
        Some(name) => Lang::from_name(name).ok_or_else(|| format!("unknown target `{name}` (targets: wgsl, glsl)\n{USAGE}"))?,
        None => return Err(USAGE.into()),
    };
    let mut o = Options {
        lang,
        stacks: lang.stacks().iter().map(|s| s.to_string()).collect(),
        random: 100_000,
        report: None,
        guard: Guard::Bits,
        mutant: None,
        expect_mismatch: false,
        seed: inputs::DEFAULT_SEED,
        only: None,
        strict: false,
        fuse: false,
    };
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value\n{USAGE}"));
        match a.as_str() {
            "--stack" => {
                let v = value()?;
                o.stacks = match v.as_str() {
                    "all" => lang.stacks().iter().map(|s| s.to_string()).collect(),
                    s if lang.stacks().contains(&s) => vec![s.to_string()],
                    _ => return Err(format!("--stack {v}: not {} or all", lang.stacks().join(", "))),
                }
            }
            "--random" => {
                let v = value()?;
                o.random = v.parse().map_err(|_| format!("--random {v}: not a count"))?;
            }
            "--report" => o.report = Some(value()?),
            "--guard" => {
                let v = value()?;
                o.guard = match v.as_str() {
                    "bits" => Guard::Bits,
                    "opaque-one" => Guard::OpaqueOne,
                    "none" => Guard::None,
                    _ => return Err(format!("--guard {v}: not bits, opaque-one or none")),
                }
            }
            "--mutant" => {
                let v = value()?;
                let names: Vec<&str> = mutants::ALL.iter().map(|m| m.name()).collect();
                o.mutant =
                    Some(Mutant::from_name(&v).ok_or_else(|| format!("--mutant {v}: no such mutant (mutants: {})", names.join(", ")))?);
            }
            "--expect-mismatch" => o.expect_mismatch = true,
            "--seed" => {
                let v = value()?;
                let parsed = match v.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16),
                    None => v.parse(),
                };
                o.seed = parsed.map_err(|_| format!("--seed {v}: not a number"))?;
            }
            "--only" => o.only = Some(value()?),
            "--strict" => o.strict = true,
            "--fuse" => o.fuse = true,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    if o.expect_mismatch && o.guard == Guard::Bits && o.mutant.is_none() && !o.fuse {
        return Err("--expect-mismatch needs a control: --guard none, --guard opaque-one, --mutant NAME or --fuse".into());
    }
    if o.fuse && (o.guard != Guard::Bits || o.mutant.is_some()) {
        return Err("--fuse is a control of its own: not with --guard or --mutant".into());
    }
    if o.strict && lang != Lang::Wgsl {
        return Err("--strict: only the WGSL core has a strict build".into());
    }
    Ok(o)
}

fn guard_name(g: Guard) -> &'static str {
    match g {
        Guard::Bits => "bits",
        Guard::OpaqueOne => "opaque-one",
        Guard::None => "none",
    }
}

fn filtered(mut m: CheckModule, only: &Option<String>) -> CheckModule {
    if let Some(s) = only {
        m.entries.retain(|e| e.c_name.contains(s.as_str()));
    }
    m
}

fn selftest_main(lang: Lang, args: &[String]) -> Result<bool, String> {
    let mut stacks: Vec<String> = lang.stacks().iter().map(|s| s.to_string()).collect();
    let (mut mutant, mut flushing, mut expect_fail, mut guard, mut strict) = (None, Vec::new(), false, Guard::Bits, false);
    let (mut simulate, mut expect_causes) = (0u32, 0u32);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--stack" => {
                let v = value()?;
                stacks = if v == "all" { lang.stacks().iter().map(|s| s.to_string()).collect() } else { vec![v] };
            }
            "--mutant" => {
                let v = value()?;
                mutant = Some(Mutant::from_name(&v).ok_or_else(|| format!("--mutant {v}: no such mutant"))?);
            }
            "--expect-flush" => flushing.push(value()?),
            "--guard" => {
                let v = value()?;
                guard = match v.as_str() {
                    "bits" => Guard::Bits,
                    "opaque-one" => Guard::OpaqueOne,
                    "none" => Guard::None,
                    _ => return Err(format!("--guard {v}: not bits, opaque-one or none")),
                }
            }
            "--expect-fail" => expect_fail = true,
            "--strict" if lang == Lang::Wgsl => strict = true,
            "--simulate" => simulate |= aether_runner::selftest::cause_bit(&value()?)?,
            "--expect-cause" => expect_causes |= aether_runner::selftest::cause_bit(&value()?)?,
            "--shield-probes" => simulate |= aether_generator::selftest::SHIELD_PROBES,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    // A simulated cause without a mutant takes the mutant that stands for it.
    if mutant.is_none() && simulate != 0 {
        mutant = aether_runner::selftest::simulating_mutant(lang, simulate)?;
    }
    let root = aether_generator::default_root();
    let model = aether_generator::load(&root).map_err(|e| e.to_string())?;
    let corpus = aether_generator::corpus::read_committed(&root)?;
    let witnesses = lang.selftest_witnesses(&model, &|name| corpus.get(name).map(|p| p.cases.clone()));
    let (core_model, lowered) = match mutant {
        Some(m) => m.build(&model).map_err(|e| e.to_string())?,
        None => (model.clone(), model.lowered()),
    };
    let mut ok = true;
    for stack in &stacks {
        let mut exec = aether_runner::open(stack).map_err(|e| format!("{stack}: {e}"))?;
        let r = if strict {
            aether_runner::strict::selftest(exec.as_mut(), &core_model, &lowered, guard, &witnesses)?
        } else {
            aether_runner::selftest::run_simulating(exec.as_mut(), &core_model, &lowered, guard, &witnesses, simulate)?
        };
        if strict {
            println!("strict build:");
        }
        println!("{}", r.line());
        let failed = r.field("failed");
        if expect_fail && failed == 0 {
            println!("FAIL: {stack}: the mutant core's self-test passed every witness");
            ok = false;
        }
        if !expect_fail && failed > 0 {
            println!("FAIL: {stack}: {failed} witnesses of bits families failed");
            ok = false;
        }
        for problem in aether_runner::selftest::cause_problems(&r, expect_causes) {
            println!("FAIL: {stack}: {problem}");
            ok = false;
        }
        let flushes = r.field("flushes_results") == 1 || r.field("flushes_operands") == 1;
        if flushes != flushing.contains(stack) {
            println!(
                "FAIL: {stack}: reported {}flushing subnormals, expected {}",
                if flushes { "" } else { "not " },
                if flushes { "no flush" } else { "a flush" }
            );
            ok = false;
        }
    }
    Ok(ok)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let selftest = match args.first().map(String::as_str) {
        Some("wgsl-selftest") => Some(Lang::Wgsl),
        Some("glsl-selftest") => Some(Lang::Glsl),
        _ => None,
    };
    if let Some(lang) = selftest {
        return match selftest_main(lang, &args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("aether-runner: {e}");
                ExitCode::from(2)
            }
        };
    }
    if args.first().map(String::as_str) == Some("wgsl-bench") {
        return match aether_runner::strict::bench_main(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("aether-runner wgsl-bench: {e}");
                ExitCode::from(2)
            }
        };
    }
    if args.first().map(String::as_str) == Some("df64") {
        return match aether_runner::df64::main(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("aether-runner df64: {e}");
                ExitCode::from(2)
            }
        };
    }
    if args.first().map(String::as_str) == Some("predicates") {
        return match aether_runner::predicates::main(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("aether-runner: {e}");
                ExitCode::from(2)
            }
        };
    }
    if args.first().map(String::as_str) == Some("opencl") {
        return match opencl_main(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("aether-runner: {e}");
                ExitCode::from(2)
            }
        };
    }
    let o = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(&o, &args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("aether-runner: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(o: &Options, args: &[String]) -> Result<bool, String> {
    let root = aether_generator::default_root();
    let model = aether_generator::load(&root).map_err(|e| e.to_string())?;
    let corpus = aether_generator::corpus::read_committed(&root)?;
    let lowered = model.lowered();
    let lang = o.lang;
    let module = |model: &aether_generator::model::Model, lowered: &[aether_generator::model::Function], guard: Guard| {
        aether_runner::strict::check_module(lang, o.strict, model, lowered, guard)
    };
    let baseline = filtered(module(&model, &lowered, Guard::Bits)?, &o.only);
    if baseline.entries.is_empty() {
        return Err(format!(
            "the {} check module has no entries (check_module of generator/src/targets/{}/ gives none)",
            lang.title(),
            lang.name()
        ));
    }
    let build = if o.strict { "strict build, " } else { "" };
    let control_name = match (o.mutant, o.guard) {
        _ if o.fuse => Some(format!("{build}products fused into their sums")),
        (Some(m), g) => Some(format!("{build}mutant {}, guard {}", m.name(), guard_name(g))),
        (None, Guard::Bits) => None,
        (None, g) => Some(format!("{build}guard {}", guard_name(g))),
    };
    let control = match o.mutant {
        _ if o.fuse => {
            let (m, n) = aether_runner::strict::fused(&baseline);
            println!("fuse: {n} products fused into their sums ({})", if o.strict { "strict build" } else { "default build" });
            Some(m)
        }
        Some(m) => {
            let (mm, ml) = m.build(&model).map_err(|e| e.to_string())?;
            Some(filtered(module(&mm, &ml, o.guard)?, &o.only))
        }
        None if o.guard != Guard::Bits => Some(filtered(module(&model, &lowered, o.guard)?, &o.only)),
        None => None,
    };

    let t = Instant::now();
    let cases = compare::prepare(&model, &baseline, &corpus, o.random, o.seed)?;
    let n_cases: usize = cases.iter().map(|c| c.inputs.cases()).sum();
    eprintln!("aether-runner: {} entries, {n_cases} cases and their reference results in {:.1} s", cases.len(), t.elapsed().as_secs_f64());

    let mut notes = Vec::new();
    let with_entry: Vec<&str> = baseline.entries.iter().map(|e| e.c_name.as_str()).collect();
    let in_core: Vec<String> = lang.callables(&model).iter().map(|c| c.c_name(&model)).collect();
    let wanted = |n: &String| !with_entry.contains(&n.as_str()) && o.only.as_ref().is_none_or(|s| n.contains(s.as_str()));
    let missing: Vec<String> = in_core.iter().filter(|n| wanted(n)).cloned().collect();
    if !missing.is_empty() {
        notes.push(format!(
            "{} callables of the {} core have no entry in the check module: {}",
            missing.len(),
            lang.title(),
            missing.join(", ")
        ));
    }
    let outside: Vec<String> = model
        .callables()
        .iter()
        .filter(|c| c.elem() == "f32")
        .map(|c| c.c_name(&model))
        .filter(|n| !in_core.contains(n) && wanted(n))
        .collect();
    if !outside.is_empty() {
        notes.push(format!(
            "{} f32 callables are not in the {} core ({}::callables) and not checked: {}",
            outside.len(),
            lang.title(),
            lang.name(),
            outside.join(", ")
        ));
    }
    if missing.is_empty() && outside.is_empty() && o.only.is_none() {
        notes.push(format!("all {} f32 callables of the spec are in the {} core and checked (0 missing)", in_core.len(), lang.title()));
    }
    let corpus_only: Vec<String> =
        cases.iter().filter(|c| c.inputs.source == Source::CorpusOnly).map(|c| report::label(&c.entry, &c.c_name)).collect();
    if !corpus_only.is_empty() {
        notes.push(format!(
            "{} entries run their corpus cases only (kernels, whose flat words can be counts, indices or lane numbers and whose counts vary; functions without inputs): {}",
            corpus_only.len(),
            corpus_only.join(", ")
        ));
    }
    if let Some(name) = &control_name {
        notes.push(format!(
            "control module: {name}; each stack also runs the model's module (guard bits) on the same inputs to name what changes"
        ));
    }
    let header = Header { command: format!("aether-runner {}", args.join(" ")), seed: o.seed, random: o.random, notes };

    let mut sections = Vec::new();
    for stack in &o.stacks {
        let t = Instant::now();
        let mut exec = aether_runner::open(stack).map_err(|e| format!("{stack}: {e}"))?;
        let base = compare::run_stack(&model, exec.as_mut(), &baseline, &cases).map_err(|e| format!("{stack}: {e}"))?;
        let section = match &control {
            None => {
                Section { run: base, module: if o.strict { "strict build, guard bits".into() } else { "guard bits".into() }, changes: None }
            }
            Some(m) => {
                let run = compare::run_stack(&model, exec.as_mut(), m, &cases).map_err(|e| format!("{stack} (control): {e}"))?;
                let changes = compare::changes(&base, &run);
                Section { run, module: control_name.clone().unwrap_or_default(), changes: Some(changes) }
            }
        };
        eprintln!("aether-runner: {stack}: ran in {:.1} s on {}", t.elapsed().as_secs_f64(), section.run.adapter);
        sections.push(section);
    }

    print!("{}", report::text(&header, &sections));
    if let Some(path) = &o.report {
        std::fs::write(path, report::markdown(&header, &sections)).map_err(|e| format!("{path}: {e}"))?;
        eprintln!("aether-runner: wrote {path}");
    }

    if o.expect_mismatch {
        let mut ok = true;
        for s in &sections {
            let ch = s.changes.as_deref().unwrap_or(&[]);
            if ch.is_empty() {
                println!("expect-mismatch: FAIL: {} ({}): no function stops being bit-identical", s.run.stack, s.module);
                ok = false;
            } else {
                let names: Vec<String> = ch.iter().map(|c| report::label(&c.entry, &c.c_name)).collect();
                println!(
                    "expect-mismatch: {} ({}): {} functions changed, as expected: {}",
                    s.run.stack,
                    s.module,
                    ch.len(),
                    names.join(", ")
                );
            }
        }
        Ok(ok)
    } else {
        let outside: usize = sections.iter().map(|s| report::totals(&s.run.rows).3).sum();
        if outside > 0 {
            println!("FAIL: {outside} in-domain cases outside their band");
        }
        Ok(outside == 0)
    }
}

/// `aether-runner opencl ...`: true when every case of every kernel is
/// identical with the reference under the policy.
fn opencl_main(args: &[String]) -> Result<bool, String> {
    use aether_runner::exec::{Executor, Job};
    use aether_runner::opencl_stack::OpenCl;
    const OPENCL_USAGE: &str = "usage: aether-runner opencl [--random N] [--report FILE.md] [--seed S]";
    let (mut random, mut report, mut seed) = (100_000usize, None::<String>, inputs::DEFAULT_SEED);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value\n{OPENCL_USAGE}"));
        match a.as_str() {
            "--random" => random = value()?.parse().map_err(|_| format!("--random: not a count\n{OPENCL_USAGE}"))?,
            "--report" => report = Some(value()?),
            "--seed" => seed = value()?.parse().map_err(|_| format!("--seed: not a number\n{OPENCL_USAGE}"))?,
            other => return Err(format!("unknown argument `{other}`\n{OPENCL_USAGE}")),
        }
    }
    let t0 = Instant::now();
    let s = aether_opencl::setup(&aether_generator::default_root())?;
    let mut exec = OpenCl::new(s.program.entries.clone(), "").map_err(|e| e.to_string())?;
    if exec.correctly_rounded_divide_sqrt() {
        exec.set_options(aether_opencl::CORRECT_DIV_SQRT);
    }
    let module = CheckModule { source: s.program.source.clone(), entries: s.program.entries.iter().map(|e| e.check.clone()).collect() };
    let mut all = Vec::new();
    let mut jobs = Vec::new();
    for (i, e) in s.program.entries.iter().enumerate() {
        let c = aether_opencl::cases(&s, e, random, seed)?;
        jobs.push(Job::new(&module, i, c.inputs.concat()));
        all.push(c);
    }
    let t = Instant::now();
    let outs = exec.run(&module, &jobs).map_err(|e| e.to_string())?;
    let mut text = format!(
        "# aether-runner opencl\n\n- stack: {} on {}\n- build options: `{}`\n- contract: {}\n\n",
        exec.stack(),
        exec.adapter(),
        exec.options(),
        aether_generator::selftest::contract_id(&s.model)
    );
    text.push_str("| kernel | corpus | random | mismatches |\n| --- | ---: | ---: | ---: |\n");
    let (mut cases, mut bad) = (0usize, 0usize);
    for ((e, c), o) in s.program.entries.iter().zip(&all).zip(&outs) {
        let got: Vec<Option<Vec<u64>>> = o
            .chunks(e.check.n_out.max(1))
            .map(|w| (!w.iter().all(|&x| x == aether_runner::opencl_stack::REFUSED)).then(|| w.to_vec()))
            .collect();
        let t = aether_opencl::tally(e, c, &got);
        cases += t.corpus + t.random;
        bad += t.mismatches;
        text.push_str(&format!("| {} | {} | {} | {} |\n", t.entry, t.corpus, t.random, t.mismatches));
        if let Some(f) = &t.first {
            eprintln!("{}: {} of {} differ; first: {f}", t.c_name, t.mismatches, t.corpus + t.random);
        }
    }
    let summary = format!(
        "{} kernels, {cases} cases (corpus plus {random} random each): {bad} mismatches; run {:.1} s, total {:.1} s",
        s.program.entries.len(),
        t.elapsed().as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    println!("opencl: {}", exec.adapter());
    println!("opencl: {summary}");
    text.push_str(&format!("\n{summary}\n"));
    if let Some(p) = report {
        std::fs::write(&p, text).map_err(|e| format!("{p}: {e}"))?;
    }
    Ok(bad == 0)
}
