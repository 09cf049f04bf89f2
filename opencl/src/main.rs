//! `aether-opencl [N] [--report FILE] [--seed S] [--array-random M]
//! [--no-controls]`, or `aether-opencl --options-matrix [--ci] [--jobs J]
//! [N] [--report FILE]` (the build options matrix, `aether_opencl::options`): builds the OpenCL C core's check program on the first
//! OpenCL device, runs every fixed-layout kernel on the corpus and N random
//! inputs (default 100000), every kernel over arrays on the corpus and M
//! random inputs (default N / 20), every batched structure-of-arrays kernel
//! on N / 10 random items (odd: the last work group partial), compares with
//! the reference, runs the self-test, then the negative controls:
//! contraction ON (mismatches expected, named by function, among them
//! kernels over arrays and batched kernels), the rule mutant `uncompensated`
//! (every lanes, array, plane and resolve kernel changes),
//! -cl-fast-relaxed-math (refused at compile time), -cl-denorms-are-zero
//! (named by the self-test), and the fp64-free build (must build, f64
//! kernels absent). Exit 0 when everything is as expected, 1 when not, 2
//! when no OpenCL runtime is there.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use aether_generator::model::KernelKind;
use aether_generator::mutants::Mutant;
use aether_generator::targets::opencl::ClEntry;
use aether_generator::targets::opencl::{self, ALLOW_CONTRACTION, NO_FP64};
use aether_opencl::cl::{self, Device};
use aether_opencl::{check_batch, check_entry, check_entry_relaxed, forced_relaxed, selftest, setup, Setup, Tally, CORRECT_DIV_SQRT};

struct Out {
    report: String,
    failed: Vec<String>,
}

impl Out {
    fn line(&mut self, s: impl AsRef<str>) {
        println!("{}", s.as_ref());
        self.report.push_str(s.as_ref());
        self.report.push('\n');
    }
    fn expect(&mut self, ok: bool, what: &str) {
        self.line(format!("- {}: {what}", if ok { "as expected" } else { "NOT AS EXPECTED" }));
        if !ok {
            self.failed.push(what.to_string());
        }
    }
}

/// Counts of random inputs: per fixed-layout kernel and per kernel over arrays.
#[derive(Clone, Copy)]
struct Counts {
    fixed: usize,
    arrays: usize,
    /// Items per batched kernel: odd, so never a multiple of the work-group size.
    batch: usize,
}

/// Every fixed-layout kernel and every kernel over arrays; with `relaxed`
/// the f32 ones judged by `[bands.opencl_relaxed]` (`check_entry_relaxed`).
fn run_all(s: &Setup, prog: &cl::Program, n: Counts, seed: u64, relaxed: bool) -> Result<(Vec<Tally>, Vec<Tally>), String> {
    let one = |e: &ClEntry, random: usize| {
        if relaxed && e.elem_bits == 32 {
            check_entry_relaxed(s, prog, e, random, seed)
        } else {
            check_entry(s, prog, e, random, seed)
        }
    };
    let v = s.program.entries.iter().map(|e| one(e, n.fixed)).collect::<Result<_, _>>()?;
    let a = s.program.arrays.iter().map(|e| one(e, n.arrays)).collect::<Result<_, _>>()?;
    Ok((v, a))
}

/// The band line of f32 tallies judged by `[bands.opencl_relaxed]`.
fn band_lines(o: &mut Out, tallies: &[&Tally]) -> usize {
    let stated = |t: &&&Tally| {
        t.band.as_deref().map_or("bits", |b| {
            if b == "bits" {
                "bits"
            } else if b == "unbounded" {
                "unbounded"
            } else {
                "band"
            }
        })
    };
    let bits: Vec<&&Tally> = tallies.iter().filter(|t| stated(t) == "bits").collect();
    let banded: Vec<&&Tally> = tallies.iter().filter(|t| stated(t) == "band").collect();
    let measured: Vec<&&Tally> = tallies.iter().filter(|t| stated(t) == "unbounded").collect();
    let sum = |v: &[&&Tally], f: &dyn Fn(&Tally) -> usize| v.iter().map(|t| f(t)).sum::<usize>();
    let outside = sum(&banded, &|t| t.mismatches);
    let bits_bad = sum(&bits, &|t| t.mismatches);
    o.line(format!(
        "- f32 under `[bands.opencl_relaxed]`: {} kernels stated bits: {} cases, {bits_bad} mismatches; {} banded (division or sqrt): \
         {} cases, {} in-domain, {} identical, {outside} in-domain outside the band, {} out-of-domain differ; {} measured only \
         (linear algebra): {} cases, {} differ",
        bits.len(),
        sum(&bits, &|t| t.corpus + t.random),
        banded.len(),
        sum(&banded, &|t| t.corpus + t.random),
        sum(&banded, &|t| t.in_domain),
        sum(&banded, &|t| t.identical),
        sum(&banded, &|t| t.out_of_domain_differ),
        measured.len(),
        sum(&measured, &|t| t.corpus + t.random),
        sum(&measured, &|t| t.measured_differ),
    ));
    for t in banded.iter().filter(|t| t.identical < t.corpus + t.random || t.mismatches > 0) {
        o.line(format!(
            "  - {} ({}): {} of {} differ from the reference's bits, {} in-domain outside the band{}",
            t.c_name,
            t.band.as_deref().unwrap_or(""),
            t.corpus + t.random - t.identical,
            t.corpus + t.random,
            t.mismatches,
            t.first.as_deref().map(|f| format!("; first: {f}")).unwrap_or_default()
        ));
    }
    outside + bits_bad
}

fn run_batches(s: &Setup, prog: &cl::Program, items: usize, seed: u64) -> Result<Vec<Tally>, String> {
    s.program.batches.iter().map(|b| check_batch(s, prog, b, items, seed)).collect()
}

/// `kernels (f32, f64), cases, mismatches` of a set of tallies.
fn summary(tallies: &[Tally]) -> (usize, usize, usize, usize) {
    let (cases, bad) = tallies.iter().fold((0, 0), |(c, b), t| (c + t.corpus + t.random, b + t.mismatches));
    let n32 = tallies.iter().filter(|t| t.elem == "f32").count();
    (n32, tallies.len() - n32, cases, bad)
}

fn main() -> ExitCode {
    let mut random = 100_000usize;
    let mut array_random: Option<usize> = None;
    let mut report_path: Option<String> = None;
    let mut seed = 1u64;
    let mut controls = true;
    let (mut matrix, mut ci, mut jobs) = (false, false, 1usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--report" => report_path = args.next(),
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--no-controls" => controls = false,
            "--options-matrix" => matrix = true,
            "--ci" => ci = true,
            "--jobs" => jobs = args.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--array-random" => array_random = args.next().and_then(|s| s.parse().ok()),
            n => match n.parse() {
                Ok(n) => random = n,
                Err(_) => {
                    eprintln!(
                        "usage: aether-opencl [N] [--report FILE] [--seed S] [--array-random M] [--no-controls]\n       \
                         aether-opencl --options-matrix [--ci] [--jobs J] [N] [--report FILE] [--seed S]"
                    );
                    return ExitCode::from(2);
                }
            },
        }
    }
    let t0 = Instant::now();
    let dev = match Device::first() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("aether-opencl: not installed: {e}");
            return ExitCode::from(2);
        }
    };
    let s = match setup(&aether_generator::default_root()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("aether-opencl: {e}");
            return ExitCode::from(1);
        }
    };
    if matrix {
        let cfg = aether_opencl::options::Config { random, ci, seed, jobs };
        return match aether_opencl::options::run(&dev, &s, &aether_generator::default_root(), cfg) {
            Ok((report, failed)) => {
                if let Some(p) = report_path {
                    if let Err(e) = std::fs::write(&p, report) {
                        eprintln!("aether-opencl: {p}: {e}");
                        return ExitCode::from(1);
                    }
                }
                if failed.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    eprintln!("aether-opencl: the options matrix: {}", failed.join("; "));
                    ExitCode::from(1)
                }
            }
            Err(e) => {
                eprintln!("aether-opencl: {e}");
                ExitCode::from(1)
            }
        };
    }
    // The kernels over arrays cost more per case (up to 8192 words), and
    // each is a compile on the runtime: N / 20 unless told (5000 for CI's
    // 100000; the C core's random test draws 20000).
    let n = Counts { fixed: random, arrays: array_random.unwrap_or(random / 20), batch: (random / 10).max(100) | 1 };
    match run(&dev, &s, n, seed, controls, t0) {
        Ok(out) => {
            if let Some(p) = report_path {
                if let Err(e) = std::fs::write(&p, &out.report) {
                    eprintln!("aether-opencl: {p}: {e}");
                    return ExitCode::from(1);
                }
            }
            if out.failed.is_empty() {
                ExitCode::SUCCESS
            } else {
                eprintln!("aether-opencl: not as expected: {}", out.failed.join("; "));
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("aether-opencl: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(dev: &Device, s: &Setup, n: Counts, seed: u64, controls: bool, t0: Instant) -> Result<Out, String> {
    let mut o = Out { report: String::new(), failed: Vec::new() };
    o.line("# OpenCL C core on an OpenCL device");
    o.line("");
    o.line(format!(
        "- device: {} ({}; {}; driver {}; {})",
        dev.info(cl::CL_DEVICE_NAME),
        dev.info(cl::CL_DEVICE_VERSION),
        dev.info(cl::CL_DEVICE_OPENCL_C_VERSION),
        dev.info(cl::CL_DRIVER_VERSION),
        dev.platform_version()
    ));
    let crds = dev.correctly_rounded_divide_sqrt();
    o.line(format!(
        "- reports: CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT {crds}, CL_FP_DENORM {}, cl_khr_fp64 {}",
        dev.denormals(),
        dev.has_extension("cl_khr_fp64")
    ));
    let relaxed = !crds || forced_relaxed();
    let base = if relaxed { "" } else { CORRECT_DIV_SQRT };
    if relaxed {
        o.line(format!(
            "- {}: built without `{CORRECT_DIV_SQRT}`, the f32 results judged by `[bands.opencl_relaxed]` (the f64 ones bit for bit)",
            if crds { "AETHER_OPENCL_RELAXED=1" } else { "the device does not report correctly rounded f32 divide and sqrt" }
        ));
    }
    o.line(format!("- contract: {}", aether_generator::selftest::contract_id(&s.model)));
    o.line(format!(
        "- kernels: {} fixed-layout (functions, the butterfly, single-problem linear algebra) and {} over arrays of any length \
         (lanes, arrays, planes, resolve, many-lane linear algebra; private buffers `{}`)",
        s.program.entries.len(),
        s.program.arrays.len(),
        s.options("")
    ));
    o.line("");
    let base = s.options(base);
    let base = base.as_str();
    o.line(format!("## The core, built with `{base}`"));
    o.line("");
    let t = Instant::now();
    let prog = dev.build(&s.program.source, base)?;
    o.line(format!("- built in {:.1} s", t.elapsed().as_secs_f64()));
    let st = selftest(&prog)?;
    o.line(format!("- self-test: {}", st.describe(&s.program)));
    o.expect(st.status == 0 && st.failed.is_empty(), "the self-test passes");
    let t = Instant::now();
    let (fixed, arrays) = run_all(s, &prog, n, seed, relaxed)?;
    let (n32, n64, cases, bad_f) = summary(&fixed);
    o.line(format!(
        "- {} kernels ({n32} f32, {n64} f64), corpus plus {} random inputs each: {cases} cases, {bad_f} mismatches",
        fixed.len(),
        n.fixed
    ));
    let (a32, a64, acases, bad_a) = summary(&arrays);
    let awords: usize = s.program.arrays.iter().filter_map(|e| s.corpus.get(&e.check.c_name)).flatten().map(|c| c.inputs.len()).sum();
    o.line(format!(
        "- {} kernels over arrays ({a32} f32, {a64} f64), corpus ({awords} input words) plus {} random inputs each: {acases} cases, {bad_a} mismatches",
        arrays.len(),
        n.arrays
    ));
    o.line(format!("- in {:.1} s", t.elapsed().as_secs_f64()));
    let bad = bad_f + bad_a;
    let tallies: Vec<Tally> = fixed.into_iter().chain(arrays).collect();
    for t in tallies.iter().filter(|t| t.mismatches > 0) {
        o.line(format!(
            "  - {}: {} of {} differ; first: {}",
            t.c_name,
            t.mismatches,
            t.corpus + t.random,
            t.first.as_deref().unwrap_or("")
        ));
    }
    if relaxed {
        let f32s: Vec<&Tally> = tallies.iter().filter(|t| t.elem == "f32").collect();
        band_lines(&mut o, &f32s);
    }
    o.expect(
        bad == 0,
        if relaxed {
            "0 in-domain outside the band (f32), 0 mismatches (f64)"
        } else {
            "0 mismatches for every f32 and f64 function and kernel"
        },
    );
    // The batched kernels over structure-of-arrays data.
    let t = Instant::now();
    let items = n.batch;
    let batches = run_batches(s, &prog, items, seed)?;
    let (b32, b64, _, bad_b) = summary(&batches);
    o.line(format!(
        "- {} batched kernels over structure-of-arrays data ({b32} f32, {b64} f64), {items} random items each (work groups of {}, \
         the last one partial), item by item against the reference: {} items, {bad_b} mismatches, in {:.1} s",
        batches.len(),
        aether_opencl::BATCH_GROUP,
        batches.len() * items,
        t.elapsed().as_secs_f64()
    ));
    for t in batches.iter().filter(|t| t.mismatches > 0) {
        o.line(format!("  - {}: {} of {} differ; first: {}", t.entry, t.mismatches, t.random, t.first.as_deref().unwrap_or("")));
    }
    o.expect(bad_b == 0, "0 mismatches for every batched kernel");
    o.line("");
    o.line("<details><summary>Per kernel: corpus cases + random inputs, mismatches</summary>");
    o.line("");
    o.line("| kernel | corpus | random | mismatches |");
    o.line("| --- | ---: | ---: | ---: |");
    for t in &tallies {
        let _ = writeln!(o.report, "| {} | {} | {} | {} |", t.entry, t.corpus, t.random, t.mismatches);
    }
    o.report.push_str("\n</details>\n");
    drop(prog);
    if controls {
        negative_controls(dev, s, base, n, seed, &mut o)?;
    }
    o.line("");
    o.line(format!("Total wall time: {:.1} s", t0.elapsed().as_secs_f64()));
    Ok(o)
}

fn negative_controls(dev: &Device, s: &Setup, base: &str, n: Counts, seed: u64, o: &mut Out) -> Result<(), String> {
    o.line("");
    o.line("## Negative controls");
    // Contraction ON: the products fuse.
    let opts = format!("{base} {ALLOW_CONTRACTION}");
    o.line("");
    o.line(format!("### Contraction ON (`{opts}`: no `#pragma OPENCL FP_CONTRACT OFF`)"));
    let t = Instant::now();
    let prog = dev.build(&s.program.source, &opts)?;
    let few = Counts { fixed: n.fixed.min(10_000), arrays: n.arrays.min(500), batch: n.batch.min(1001) };
    // Every fixed kernel; of the kernels over arrays and the batches the f32
    // ones (each kernel run is a compile on the runtime: this keeps the
    // control's cost near a minute on a cold cache).
    let fixed: Vec<Tally> = s.program.entries.iter().map(|e| check_entry(s, &prog, e, few.fixed, seed)).collect::<Result<_, _>>()?;
    let arrays: Vec<Tally> = s
        .program
        .arrays
        .iter()
        .filter(|e| e.elem_bits == 32 && e.check.c_name.starts_with("aether_mat4f_"))
        .map(|e| check_entry(s, &prog, e, few.arrays, seed))
        .collect::<Result<_, _>>()?;
    let bad: Vec<&Tally> = fixed.iter().filter(|t| t.mismatches > 0).collect();
    let bad_a: Vec<&Tally> = arrays.iter().filter(|t| t.mismatches > 0).collect();
    o.line(format!(
        "- corpus plus {} random inputs per kernel ({} per f32 4x4 many-lane kernel), {:.1} s: {} kernels differ, {} of them over arrays",
        few.fixed,
        few.arrays,
        t.elapsed().as_secs_f64(),
        bad.len() + bad_a.len(),
        bad_a.len()
    ));
    for t in bad.iter().chain(&bad_a) {
        o.line(format!("  - {}: {} of {}", t.c_name, t.mismatches, t.corpus + t.random));
    }
    let batches: Vec<Tally> = s
        .program
        .batches
        .iter()
        .filter(|b| {
            b.bits == 32
                && ["aether_vec3f_dot", "aether_mat4f_mul", "aether_quatf_mul", "aether_mat4f_lu_solve"].contains(&b.callable.as_str())
        })
        .map(|b| check_batch(s, &prog, b, few.batch, seed))
        .collect::<Result<_, _>>()?;
    let bad_b: Vec<&Tally> = batches.iter().filter(|t| t.mismatches > 0).collect();
    o.line(format!(
        "- batched kernels of products, {} items each: {} of {} differ: {}",
        few.batch,
        bad_b.len(),
        batches.len(),
        bad_b.iter().map(|t| format!("{} ({})", t.entry, t.mismatches)).collect::<Vec<_>>().join(", ")
    ));
    let st = selftest(&prog)?;
    o.line(format!("- self-test: {}", st.describe(&s.program)));
    o.expect(!bad.is_empty(), "contraction shows mismatches, named by function");
    o.expect(!bad_b.is_empty(), "contraction changes batched kernels too");
    o.expect(!bad_a.is_empty(), "contraction changes kernels over arrays too (the new check can fail)");
    o.expect(st.status & 8 != 0, "the self-test's witnesses catch contraction");
    // Named by its cause: the fusion probe (a product in parentheses plus a
    // sum, as the core prints it) fuses as the core's code does, so the
    // failures are explained by fusion (FUSED, 32), none left to a rule.
    let fusion = aether_generator::selftest::Cause::Fusion.bit();
    o.line(format!(
        "- the cause probes show: {}",
        if st.causes == 0 { "nothing".to_string() } else { aether_generator::selftest::Cause::names(st.causes, ", ") }
    ));
    o.expect(
        st.causes & fusion != 0 && st.status & 32 != 0 && st.status & 256 == 0,
        "the self-test names fusion as the cause (FUSED), no failure left to a rule",
    );
    drop(prog);
    // Rule mutants of the kernels over arrays: the check program printed
    // from a mutant's model must change them (contraction leaves the lanes,
    // arrays, planes and resolve alone: their products sit behind barriers).
    o.line("");
    o.line("### Rule mutants of the kernels over arrays (the check program printed from the mutant's model)");
    // The many-lane linear algebra is shown by contraction above; these are
    // the others (each mutant program compiles only the kernels it runs).
    let linalg = |e: &&ClEntry| {
        s.model.kernels.iter().any(|k| s.model.kernel_c_name(k) == e.check.c_name && matches!(k.kind, KernelKind::Linalg { .. }))
    };
    let targets: Vec<&ClEntry> = s.program.arrays.iter().filter(|e| !linalg(e)).collect();
    let mut changed: Vec<String> = Vec::new();
    for m in [Mutant::Uncompensated] {
        let (mm, lowered) = m.build(&s.model).map_err(|e| e.to_string())?;
        // The contract's witnesses, replayed through the mutant's code.
        let p =
            opencl::check_program(&mm, &lowered, "/* aether: mutant check program */", &s.program.witnesses).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let prog = dev.build(&p.source, base)?;
        let st = selftest(&prog)?;
        o.line(format!("- `{}`: self-test: {}", m.name(), st.describe(&p)));
        o.expect(
            st.status & 8 != 0 && st.status & 256 != 0,
            &format!("the self-test of the `{}` mutant reports failing rules (RULE), no cause excusing them", m.name()),
        );
        let mut names = Vec::new();
        for e in &targets {
            let pe = p.arrays.iter().find(|x| x.check.entry == e.check.entry).ok_or("a mutant program without an entry")?;
            let tl = check_entry(s, &prog, pe, few.arrays.min(500), seed)?;
            if tl.mismatches > 0 {
                names.push(format!("{} ({} of {})", tl.c_name, tl.mismatches, tl.corpus + tl.random));
                changed.push(tl.c_name.clone());
            }
        }
        o.line(format!(
            "- `{}` ({}): {} of the {} lanes, array, plane and resolve kernels differ from the reference on the corpus plus {} random inputs, {:.1} s: {}",
            m.name(),
            m.description(),
            names.len(),
            targets.len(),
            few.arrays.min(500),
            t.elapsed().as_secs_f64(),
            names.join(", ")
        ));
    }
    let missed: Vec<&str> = targets.iter().map(|e| e.check.c_name.as_str()).filter(|n| !changed.iter().any(|c| c == n)).collect();
    if !missed.is_empty() {
        o.line(format!("- unchanged by both: {}", missed.join(", ")));
    }
    o.expect(missed.is_empty(), "every lanes, array, plane and resolve kernel is changed by a rule mutant");
    if base.contains(CORRECT_DIV_SQRT) {
        // The path of a device without correctly rounded divide and sqrt, on
        // one that has them: built without the option, every f32 kernel whose
        // band is not `bits` judged by it.
        let opts = base.replace(CORRECT_DIV_SQRT, "").trim().to_string();
        o.line("");
        o.line(format!(
            "### Without `{CORRECT_DIV_SQRT}` (`{opts}`): the f32 division and sqrt kernels judged by `[bands.opencl_relaxed]`"
        ));
        let t = Instant::now();
        let prog = dev.build(&s.program.source, &opts)?;
        let banded = |e: &&ClEntry| {
            e.elem_bits == 32 && {
                let c = s.model.callables().into_iter().find(|c| c.c_name(&s.model) == e.check.c_name).expect("an entry of the model");
                aether_generator::bands::band_on(&s.model, opencl::RELAXED, c).stated != aether_generator::spec::BandMetric::Bits
            }
        };
        let mut tallies = Vec::new();
        for e in s.program.entries.iter().filter(banded) {
            tallies.push(check_entry_relaxed(s, &prog, e, few.fixed, seed)?);
        }
        for e in s.program.arrays.iter().filter(banded) {
            tallies.push(check_entry_relaxed(s, &prog, e, few.arrays, seed)?);
        }
        o.line(format!(
            "- corpus plus {} random inputs per kernel ({} per kernel over arrays), {:.1} s",
            few.fixed,
            few.arrays,
            t.elapsed().as_secs_f64()
        ));
        let refs: Vec<&Tally> = tallies.iter().collect();
        let outside = band_lines(o, &refs);
        o.expect(outside == 0, "0 in-domain outside the band without the option");
    }
    // Fast relaxed math: refused by the core's #error.
    o.line("");
    o.line("### `-cl-fast-relaxed-math`");
    match dev.build(&s.program.source, &format!("{base} -cl-fast-relaxed-math")) {
        Ok(_) => o.expect(false, "-cl-fast-relaxed-math is refused at compile time"),
        Err(log) => {
            // The core's #error, as the compiler quotes it.
            let line = log.lines().find(|l| l.contains("aether_core.cl: built with -cl-fast-relaxed-math")).unwrap_or("").trim();
            let line = line.rsplit(": \"").next().unwrap_or(line).trim_end_matches('"').to_string();
            o.line(format!("- build failed with the core's #error: `{line}`"));
            o.expect(!line.is_empty(), "-cl-fast-relaxed-math is refused at compile time");
        }
    }
    // Denormals are zero: named by the self-test.
    let opts = format!("{base} -cl-denorms-are-zero");
    o.line("");
    o.line(format!("### `{opts}`"));
    let prog = dev.build(&s.program.source, &opts)?;
    let st = selftest(&prog)?;
    o.line(format!("- self-test: {}", st.describe(&s.program)));
    o.expect(st.status & 6 != 0, "the self-test names the flush of subnormals");
    o.expect(
        st.causes & aether_generator::selftest::Cause::Flush.bit() != 0 && st.status & 256 == 0,
        "its failing witnesses are explained by the flush (no failure left to a rule)",
    );
    drop(prog);
    // The predicates, with and without binary64.
    let t = Instant::now();
    let (lines, failed) = aether_opencl::predicate::run(dev, &aether_generator::default_root(), base, NO_FP64, n.fixed * 10)?;
    for l in lines {
        o.line(l);
    }
    o.expect(
        failed.is_empty(),
        &format!(
            "both forms of every predicate agree with the golden reference, the golden ones absent without binary64 ({:.1} s)",
            t.elapsed().as_secs_f64()
        ),
    );
    for f in failed {
        o.line(format!("  - {f}"));
    }
    // fp64-free.
    let opts = format!("{base} -cl-std=CL3.0 {NO_FP64}");
    o.line("");
    o.line(format!("### fp64-free build (`{opts}`: as on a device without cl_khr_fp64; every `double` left is a compile error)"));
    let prog = dev.build(&s.program.source, &opts)?;
    let all = || s.program.entries.iter().chain(&s.program.arrays);
    let absent = all().filter(|e| e.elem_bits == 64).all(|e| !prog.has_kernel(&e.check.entry));
    let present = all().filter(|e| e.elem_bits == 32).all(|e| prog.has_kernel(&e.check.entry));
    let st = selftest(&prog)?;
    o.line(format!("- built; f64 kernels absent: {absent}; f32 kernels present: {present}; self-test: {}", st.describe(&s.program)));
    let batches = s.program.batches.iter().all(|b| (b.bits == 32) == prog.has_kernel(&b.name));
    o.line(format!("- the batched kernels: f32 present and f64 absent: {batches}"));
    let fixed: Vec<Tally> =
        s.program.entries.iter().filter(|e| e.elem_bits == 32).map(|e| check_entry(s, &prog, e, 0, seed)).collect::<Result<_, _>>()?;
    let bad: usize = fixed.iter().map(|t| t.mismatches).sum();
    o.line(format!("- the f32 fixed-layout kernels on the corpus: {bad} mismatches"));
    o.expect(
        absent && present && batches && st.status == 0 && bad == 0,
        "the fp64-free build builds, without the f64 functions, and passes",
    );
    Ok(())
}
