//! The build options matrix (`aether-opencl --options-matrix`): the check
//! program built with each cell of
//! `aether_generator::targets::opencl::options::CELLS` on the device, and
//! classed by what happened: refused (the core's `#error` names the option),
//! driver-refused (`CL_INVALID_BUILD_OPTIONS`), held (the self-test passes
//! and every kernel run gives the reference's bits) or caught (bits change
//! and the self-test fails). A cell whose bits change while the self-test
//! passes is a hole; a measured class other than the table's, or a core
//! header whose table differs from the measured classes, is a failure.
//!
//! The full form runs every kernel of the check program in every cell that
//! builds (N random inputs per fixed-layout kernel, N / 20 per kernel over
//! arrays, N / 10 items per batched kernel). The CI form (`--ci`) runs every
//! cell too, but builds a check program cut down to the self-test and a
//! sample of the kernels (kernel k of the program in the cell at place c
//! among those that build when k = c mod three times their number, so the
//! cells together run a third of the kernels): the runtime compiles each
//! kernel of each program once, and that compilation, not the inputs, is
//! what a cell costs. `jobs` cells run at once, each thread with its own
//! context and queue.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use aether_generator::targets::opencl::options::{self, OptionCell, OptionClass, CELLS};
use aether_generator::targets::opencl::{ClEntry, NO_FP64};
use aether_generator::targets::shared::soa::SoaBatch;

use crate::cl::{self, Device, CL_INVALID_BUILD_OPTIONS};
use crate::{check_batch, check_entry, selftest, Setup, Tally};

/// How much of the matrix to run.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Random inputs per fixed-layout kernel (N / 20 per kernel over arrays,
    /// N / 10 items per batched kernel, at least 101, odd).
    pub random: usize,
    /// The CI form: a cut-down program and a sample of the kernels per cell.
    pub ci: bool,
    pub seed: u64,
    /// Cells built and run at once (threads, each with its own queue).
    pub jobs: usize,
}

/// What a cell did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measured {
    Class(OptionClass),
    /// Bits changed while the self-test passed.
    Hole,
    /// The self-test failed with no bit changed in the kernels run.
    Flagged,
    /// It did not build, and not for the core's #error or the runtime's
    /// refusal of an option.
    Failed,
}

impl Measured {
    pub fn name(&self) -> &'static str {
        match self {
            Measured::Class(c) => c.name(),
            Measured::Hole => "HOLE",
            Measured::Flagged => "flagged",
            Measured::Failed => "build failed",
        }
    }
}

/// One cell's run.
#[derive(Debug, Clone)]
pub struct CellRun {
    pub cell: &'static OptionCell,
    /// The options the program was built with.
    pub options: String,
    pub measured: Measured,
    pub kernels: usize,
    pub cases: usize,
    pub mismatches: usize,
    /// The kernels that differ from the reference: name (mismatches of cases).
    pub changed: Vec<String>,
    /// The self-test's line, or the #error or the runtime's message.
    pub selftest: String,
    /// What the options define (`probe`).
    pub macros: Option<String>,
    pub seconds: f64,
    /// Of which the build, and the self-test's run (its kernel's compilation).
    pub build_s: f64,
    pub selftest_s: f64,
}

/// One kernel of the check program.
#[derive(Debug, Clone, Copy)]
enum Kernel<'a> {
    Entry(&'a ClEntry),
    Batch(&'a SoaBatch),
}

impl Kernel<'_> {
    fn name(&self) -> &str {
        match self {
            Kernel::Entry(e) => &e.check.entry,
            Kernel::Batch(b) => &b.name,
        }
    }
    fn bits(&self) -> u32 {
        match self {
            Kernel::Entry(e) => e.elem_bits,
            Kernel::Batch(b) => b.bits,
        }
    }
}

fn kernels(s: &Setup) -> Vec<Kernel<'_>> {
    let e = s.program.entries.iter().chain(&s.program.arrays).map(Kernel::Entry);
    e.chain(s.program.batches.iter().map(Kernel::Batch)).collect()
}

/// The source with every `__kernel` but those of `keep` cut out (their
/// static callees are then dropped by the compiler).
pub fn keep_kernels(source: &str, keep: &HashSet<&str>) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.starts_with("__kernel") {
            // The name: on this line, or on the next after an attribute.
            let decl = if l.contains('(') && !l.contains("__attribute__") { l } else { lines.get(i + 1).copied().unwrap_or("") };
            let name = decl.split('(').next().unwrap_or("").split_whitespace().last().unwrap_or("");
            if !keep.contains(name) {
                while i < lines.len() && lines[i] != "}" {
                    i += 1;
                }
                i += 1;
                continue;
            }
        }
        out.push_str(l);
        out.push('\n');
        i += 1;
    }
    out
}

/// A program that shows what a cell's options define: a mask of the macros
/// the core could test, `sizeof(1.0)` (4 where double literals are float)
/// and `__OPENCL_C_VERSION__`. The cl_khr_fp64 pragma as the core has it.
const PROBE: &str = "#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
__kernel void aether_probe(__global int *o)
{
    int m = 0;
#if defined(__FAST_RELAXED_MATH__)
    m |= 1;
#endif
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
    m |= 2;
#endif
#if defined(__FAST_MATH__)
    m |= 4;
#endif
#if !defined(__OPTIMIZE__)
    m |= 8;
#endif
    o[0] = m;
    o[1] = (int)sizeof(1.0);
#if defined(__OPENCL_C_VERSION__)
    o[2] = __OPENCL_C_VERSION__;
#else
    o[2] = 0;
#endif
}
";

/// What the cell's options define, as a program built with them sees it
/// (`None`: the probe does not build with them).
fn probe(dev: &Device, options: &str) -> Result<Option<String>, String> {
    let Ok(prog) = dev.try_build(PROBE, options) else { return Ok(None) };
    let out = prog.run("aether_probe", 1, None, &[cl::Arg::Out(12)])?;
    let word = |i: usize| i32::from_le_bytes(out[0][i * 4..i * 4 + 4].try_into().unwrap());
    let names = ["__FAST_RELAXED_MATH__", "__FINITE_MATH_ONLY__", "__FAST_MATH__", "no __OPTIMIZE__"];
    let mut v: Vec<String> = names.iter().enumerate().filter(|(i, _)| word(0) & (1 << i) != 0).map(|(_, n)| n.to_string()).collect();
    if word(1) != 8 {
        v.push(format!("sizeof(1.0) {}", word(1)));
    }
    v.insert(0, format!("__OPENCL_C_VERSION__ {}", word(2)));
    Ok(Some(v.join(", ")))
}

/// Whether a build log's #error is the core's and names one of the cell's
/// options: the message, trimmed of the compiler's prefix.
fn core_error(log: &str, cell: &OptionCell) -> Option<String> {
    log.lines().filter(|l| l.contains("aether_core.cl: built with")).find_map(|l| {
        let msg = l.rsplit(": \"").next().unwrap_or(l).trim_end_matches('"').trim().to_string();
        cell.options.split_whitespace().any(|o| msg.contains(o)).then_some(msg)
    })
}

/// Runs one cell: `index` is its place among the cells that build (the
/// sample of the CI form), `stride` their count.
fn run_cell(dev: &Device, s: &Setup, cell: &'static OptionCell, cfg: Config, index: usize, stride: usize) -> Result<CellRun, String> {
    let t = Instant::now();
    let options = s.options(&cell.build_options());
    let all = kernels(s);
    let no_fp64 = cell.options.split_whitespace().any(|o| o == NO_FP64);
    let chosen: Vec<Kernel> = all
        .iter()
        .enumerate()
        .filter(|(k, kl)| (!cfg.ci || k % stride == index % stride) && !(no_fp64 && kl.bits() == 64))
        .map(|(_, k)| *k)
        .collect();
    let source = if cfg.ci {
        let mut keep: HashSet<&str> = chosen.iter().map(Kernel::name).collect();
        keep.insert("aether_selftest");
        keep_kernels(&s.program.source, &keep)
    } else {
        s.program.source.clone()
    };
    let mut run = CellRun {
        cell,
        options: options.clone(),
        measured: Measured::Failed,
        kernels: 0,
        cases: 0,
        mismatches: 0,
        changed: Vec::new(),
        selftest: String::new(),
        macros: probe(dev, &cell.build_options())?,
        seconds: 0.0,
        build_s: 0.0,
        selftest_s: 0.0,
    };
    let prog = match dev.try_build(&source, &options) {
        Ok(p) => p,
        Err(e) => {
            let first = e.log.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string();
            if e.code == CL_INVALID_BUILD_OPTIONS {
                run.measured = Measured::Class(OptionClass::DriverRefused);
                run.selftest = format!("clBuildProgram: CL_INVALID_BUILD_OPTIONS: {first}");
            } else if let Some(msg) = core_error(&e.log, cell) {
                run.measured = Measured::Class(OptionClass::Refused);
                run.selftest = format!("#error \"{msg}\"");
            } else {
                run.selftest = format!("clBuildProgram error {}: {first}", e.code);
            }
            run.seconds = t.elapsed().as_secs_f64();
            return Ok(run);
        }
    };
    run.build_s = t.elapsed().as_secs_f64();
    let st = selftest(&prog)?;
    run.selftest_s = t.elapsed().as_secs_f64() - run.build_s;
    let ok = st.status == 0 && st.failed.is_empty();
    run.selftest = st.describe(&s.program);
    let (fixed, arrays, items) = (cfg.random, cfg.random / 20, (cfg.random / 10).max(100) | 1);
    for k in &chosen {
        if !prog.has_kernel(k.name()) {
            return Err(format!("{}: no kernel {} in the program built with {options}", cell.label(), k.name()));
        }
        let tl: Tally = match k {
            Kernel::Entry(e) => check_entry(s, &prog, e, if e.variable { arrays } else { fixed }, cfg.seed)?,
            Kernel::Batch(b) => check_batch(s, &prog, b, items, cfg.seed)?,
        };
        run.kernels += 1;
        run.cases += tl.corpus + tl.random;
        run.mismatches += tl.mismatches;
        if tl.mismatches > 0 {
            run.changed.push(format!("{} ({} of {})", tl.entry, tl.mismatches, tl.corpus + tl.random));
        }
    }
    run.measured = match (ok, run.mismatches == 0) {
        (true, true) => Measured::Class(OptionClass::Held),
        (true, false) => Measured::Hole,
        (false, false) => Measured::Class(OptionClass::Caught),
        (false, true) => Measured::Flagged,
    };
    run.seconds = t.elapsed().as_secs_f64();
    Ok(run)
}

/// Whether a run is what the table says: the class itself, or, in the CI
/// form's sample, a caught cell whose sampled kernels kept their bits.
fn as_stated(r: &CellRun, ci: bool) -> bool {
    match &r.measured {
        Measured::Class(c) => *c == r.cell.class,
        Measured::Flagged => ci && r.cell.class == OptionClass::Caught,
        Measured::Hole | Measured::Failed => false,
    }
}

/// The date (UTC) of a Unix time, `YYYY-MM-DD HH:MM:SS`.
fn utc(secs: u64) -> String {
    let (days, rem) = ((secs / 86400) as i64, secs % 86400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The CI form runs kernel k in the cell at place c when k = c mod (this
/// times the cells that build): a third of the kernels between them.
const CI_THIRDS: usize = 3;

fn progress(r: &CellRun, ci: bool) {
    let mark = if as_stated(r, ci) { "" } else { "  <-- NOT AS STATED" };
    println!(
        "options-matrix: {:<60} {:<14} {} kernels, {} cases, {} mismatches, {:.1} s (build {:.1} s, self-test {:.1} s); {}{mark}",
        r.cell.label(),
        r.measured.name(),
        r.kernels,
        r.cases,
        r.mismatches,
        r.seconds,
        r.build_s,
        r.selftest_s,
        r.selftest
    );
}

/// Runs the matrix; gives back the report (markdown) and the failures (a
/// hole, a class other than the table's, a header that differs).
pub fn run(dev: &Device, s: &Setup, root: &Path, cfg: Config) -> Result<(String, Vec<String>), String> {
    let t0 = Instant::now();
    let mut report = String::new();
    let mut line = |l: String| {
        println!("{l}");
        report.push_str(&l);
        report.push('\n');
    };
    let mut failed = Vec::new();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // The cells expected to build share out the kernels in the CI form.
    let builds = CELLS.iter().filter(|c| matches!(c.class, OptionClass::Held | OptionClass::Caught)).count().max(1);
    let stride = if cfg.ci { builds * CI_THIRDS } else { 1 };
    let places: Vec<usize> = CELLS
        .iter()
        .scan(0, |n, c| {
            let at = *n;
            *n += usize::from(matches!(c.class, OptionClass::Held | OptionClass::Caught));
            Some(at)
        })
        .collect();
    // `jobs` threads, each with its own context and queue on the device, the
    // cells dealt out in turn.
    let jobs = cfg.jobs.clamp(1, CELLS.len());
    let mut slots: Vec<Option<Result<CellRun, String>>> = vec![None; CELLS.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|j| {
                let places = &places;
                scope.spawn(move || -> Vec<(usize, Result<CellRun, String>)> {
                    let dev = match Device::first() {
                        Ok(d) => d,
                        Err(e) => return vec![(j, Err(e))],
                    };
                    (j..CELLS.len())
                        .step_by(jobs)
                        .map(|i| {
                            let r = run_cell(&dev, s, &CELLS[i], cfg, places[i], stride);
                            if let Ok(r) = &r {
                                progress(r, cfg.ci);
                            }
                            (i, r)
                        })
                        .collect()
                })
            })
            .collect();
        for h in handles {
            for (i, r) in h.join().unwrap_or_else(|_| vec![(0, Err("a matrix thread panicked".to_string()))]) {
                slots[i] = Some(r);
            }
        }
    });
    let mut runs = Vec::new();
    for slot in slots {
        runs.push(slot.ok_or("a cell not run")??);
    }
    // The core's header, as committed: its rows must be the measured ones.
    let core_path = root.join("opencl_core/aether_core.cl");
    let header = std::fs::read_to_string(&core_path).map_err(|e| format!("{}: {e}", core_path.display()))?;
    let rows = options::read_header(&header).unwrap_or_default();
    let mut drift = Vec::new();
    if rows.len() != runs.len() {
        drift.push(format!("the header has {} rows, the matrix {} cells", rows.len(), runs.len()));
    }
    for r in &runs {
        match rows.iter().find(|(label, _)| *label == r.cell.label()) {
            None => drift.push(format!("{}: not in the header", r.cell.label())),
            Some((_, class)) if *class != r.measured.name() && !(cfg.ci && r.measured == Measured::Flagged && class == "caught") => {
                drift.push(format!("{}: the header says {class}, measured {}", r.cell.label(), r.measured.name()))
            }
            Some(_) => {}
        }
    }

    line("_Generated by `scripts/opencl-options.sh`; do not edit by hand (rerun the script to update it)._".into());
    line(String::new());
    line("# The OpenCL C core's build options on PoCL".into());
    line(String::new());
    line(format!(
        "Every option of the OpenCL C compiler's list (clBuildProgram) that touches floating point, the `-cl-std` versions and \
         the combinations that matter, each built into the check program (`opencl_core/check/aether_check.cl`) with `{}` and \
         the cell's options (one cell without it), then classed: **refused** (the core's `#error` names the option), \
         **driver-refused** (the runtime answers `CL_INVALID_BUILD_OPTIONS`, before the core is compiled), **held** (the \
         self-test passes and every kernel run gives the reference's bits), **caught** (bits change and the self-test fails). \
         A cell whose bits change while the self-test passes is a hole and fails the run; so does a class other than the one \
         `generator/src/targets/opencl/options.rs` states and prints into the core's header.",
        options::CORRECT_DIV_SQRT
    ));
    line(String::new());
    line(format!("- date (UTC): {}", utc(now)));
    line(format!(
        "- command: `bash scripts/opencl-options.sh{}`",
        if cfg.ci { format!(" --ci {}", cfg.random) } else { format!(" {} --report docs/reports/opencl-options.md", cfg.random) }
    ));
    line(format!(
        "- device: {} ({}; {}; driver {})",
        dev.info(cl::CL_DEVICE_NAME),
        dev.info(cl::CL_DEVICE_VERSION),
        dev.info(cl::CL_DEVICE_OPENCL_C_VERSION),
        dev.info(cl::CL_DRIVER_VERSION)
    ));
    line(format!("- platform: {}", dev.platform_version()));
    line(format!("- contract: {}", aether_generator::selftest::contract_id(&s.model)));
    line(format!(
        "- inputs per cell that builds: {}",
        if cfg.ci {
            format!(
                "the CI form: the check program cut down to the self-test and kernel k of its {} kernels for k = the cell's \
                 place mod {stride} (the {builds} cells that build run {} kernels between them), each on its corpus plus {} random \
                 inputs ({} per kernel over arrays, {} items per batched kernel)",
                kernels(s).len(),
                kernels(s).len().min(builds * kernels(s).len().div_ceil(stride)),
                cfg.random,
                cfg.random / 20,
                (cfg.random / 10).max(100) | 1
            )
        } else {
            format!(
                "every kernel of the check program ({}), each on its corpus plus {} random inputs ({} per kernel over arrays, \
                 {} items per batched kernel)",
                kernels(s).len(),
                cfg.random,
                cfg.random / 20,
                (cfg.random / 10).max(100) | 1
            )
        }
    ));
    line(format!("- the sizing options every cell adds: `{}`", s.options("")));
    line(
        "- defines: a probe program built with the cell's options (and the core's cl_khr_fp64 pragma) reports \
         `__OPENCL_C_VERSION__`, which of `__FAST_RELAXED_MATH__`, `__FINITE_MATH_ONLY__` and `__FAST_MATH__` are defined, \
         whether `__OPTIMIZE__` is not, and `sizeof(1.0)` where it is not 8"
            .into(),
    );
    line(String::new());
    line(
        "| options | class | as stated | defines (a probe built with the options) | kernels | cases | mismatches | self-test, or why it did not build | s |"
            .into(),
    );
    line("| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: |".into());
    for r in &runs {
        let stated = as_stated(r, cfg.ci);
        line(format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
            r.cell.label(),
            r.measured.name(),
            if stated { "yes".to_string() } else { format!("**no: the table says {}**", r.cell.class.name()) },
            r.macros.as_deref().unwrap_or("(does not build)"),
            r.kernels,
            r.cases,
            r.mismatches,
            r.selftest.replace('|', "\\|"),
            r.seconds
        ));
        if !stated {
            failed.push(format!("{}: measured {}, the table says {}", r.cell.label(), r.measured.name(), r.cell.class.name()));
        }
        if r.measured == Measured::Hole {
            failed.push(format!("{}: a HOLE: bits changed while the self-test passed", r.cell.label()));
        }
    }
    let count = |c: OptionClass| runs.iter().filter(|r| r.measured == Measured::Class(c)).count();
    line(String::new());
    line(format!(
        "{} cells: {} refused, {} driver-refused, {} held, {} caught, {} holes, {} not as stated",
        runs.len(),
        count(OptionClass::Refused),
        count(OptionClass::DriverRefused),
        count(OptionClass::Held),
        count(OptionClass::Caught),
        runs.iter().filter(|r| r.measured == Measured::Hole).count(),
        runs.iter().filter(|r| !as_stated(r, cfg.ci)).count()
    ));
    let changed: Vec<&CellRun> = runs.iter().filter(|r| !r.changed.is_empty()).collect();
    if !changed.is_empty() {
        line(String::new());
        line("## The kernels that changed".into());
        for r in changed {
            line(String::new());
            line(format!("- `{}` ({} kernels): {}", r.cell.label(), r.changed.len(), r.changed.join(", ")));
        }
    }
    line(String::new());
    line("## The core's header".into());
    line(String::new());
    if drift.is_empty() {
        line(format!("- `opencl_core/aether_core.cl` states the {} rows measured here, with the same classes", rows.len()));
    } else {
        for d in &drift {
            line(format!("- DRIFT: {d}"));
        }
        failed.push(format!("the core's header and the measured matrix differ: {}", drift.join("; ")));
    }
    line(String::new());
    line(format!("Total wall time: {:.1} s", t0.elapsed().as_secs_f64()));
    Ok((report, failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_kernels_cuts_the_others() {
        let src = "static int f(void) { return 1; }\n__kernel void a(int x)\n{\n    f();\n}\n\
                   __kernel __attribute__((reqd_work_group_size(32, 1, 1)))\nvoid b(int x)\n{\n}\n__kernel void c(int x)\n{\n}\n";
        let keep: HashSet<&str> = ["b"].into_iter().collect();
        let out = keep_kernels(src, &keep);
        assert!(out.contains("void b(int x)") && !out.contains("void a(") && !out.contains("void c("), "{out}");
        assert!(out.contains("static int f"));
    }

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(951_782_400 + 3661), "2000-02-29 01:01:01");
    }
}
