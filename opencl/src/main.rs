//! `aether-opencl [N] [--report FILE] [--seed S] [--no-controls]`: builds the
//! OpenCL C core's check program on the first OpenCL device, runs every
//! kernel on the corpus and N random inputs (default 100000), compares with
//! the reference, runs the self-test, then the negative controls:
//! contraction ON (mismatches expected, named by function),
//! -cl-fast-relaxed-math (refused at compile time), -cl-denorms-are-zero
//! (named by the self-test), and the fp64-free build (must build, f64
//! kernels absent). Exit 0 when everything is as expected, 1 when not, 2
//! when no OpenCL runtime is there.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use aether_generator::targets::opencl::{ALLOW_CONTRACTION, NO_FP64};
use aether_opencl::cl::{self, Device};
use aether_opencl::{check_entry, selftest, setup, Setup, Tally, CORRECT_DIV_SQRT};

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

fn run_all(s: &Setup, prog: &cl::Program, random: usize, seed: u64, only32: bool) -> Result<Vec<Tally>, String> {
    let mut v = Vec::new();
    for e in s.program.entries.iter().filter(|e| !only32 || e.elem_bits == 32) {
        v.push(check_entry(s, prog, e, random, seed)?);
    }
    Ok(v)
}

fn main() -> ExitCode {
    let mut random = 100_000usize;
    let mut report_path: Option<String> = None;
    let mut seed = 1u64;
    let mut controls = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--report" => report_path = args.next(),
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--no-controls" => controls = false,
            n => match n.parse() {
                Ok(n) => random = n,
                Err(_) => {
                    eprintln!("usage: aether-opencl [N] [--report FILE] [--seed S] [--no-controls]");
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
    match run(&dev, &s, random, seed, controls, t0) {
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

fn run(dev: &Device, s: &Setup, random: usize, seed: u64, controls: bool, t0: Instant) -> Result<Out, String> {
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
    let base = if crds { CORRECT_DIV_SQRT } else { "" };
    if !crds {
        o.line("- the device does not report correctly rounded f32 divide and sqrt: the functions that divide or take a root may differ (no ULP band is applied yet)");
    }
    o.line(format!("- contract: {}", aether_generator::selftest::contract_id(&s.model)));
    o.line(format!(
        "- kernels: {} (the fixed-layout callables; the kernels over arrays of any length are not in the check program)",
        s.program.entries.len()
    ));
    o.line("");
    o.line(format!("## The core, built with `{base}`"));
    o.line("");
    let t = Instant::now();
    let prog = dev.build(&s.program.source, base)?;
    o.line(format!("- built in {:.1} s", t.elapsed().as_secs_f64()));
    let st = selftest(&prog)?;
    o.line(format!("- self-test: {}", st.describe(&s.program)));
    o.expect(st.status == 0 && st.failed.is_empty(), "the self-test passes");
    let t = Instant::now();
    let tallies = run_all(s, &prog, random, seed, false)?;
    let (cases, bad): (usize, usize) = tallies.iter().fold((0, 0), |(c, b), t| (c + t.corpus + t.random, b + t.mismatches));
    let n32 = tallies.iter().filter(|t| t.elem == "f32").count();
    o.line(format!(
        "- {} kernels ({n32} f32, {} f64), corpus plus {random} random inputs each: {cases} cases, {bad} mismatches, in {:.1} s",
        tallies.len(),
        tallies.len() - n32,
        t.elapsed().as_secs_f64()
    ));
    for t in tallies.iter().filter(|t| t.mismatches > 0) {
        o.line(format!(
            "  - {}: {} of {} differ; first: {}",
            t.c_name,
            t.mismatches,
            t.corpus + t.random,
            t.first.as_deref().unwrap_or("")
        ));
    }
    o.expect(bad == 0, "0 mismatches for every f32 and f64 function and kernel");
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
        negative_controls(dev, s, base, random, seed, &mut o)?;
    }
    o.line("");
    o.line(format!("Total wall time: {:.1} s", t0.elapsed().as_secs_f64()));
    Ok(o)
}

fn negative_controls(dev: &Device, s: &Setup, base: &str, random: usize, seed: u64, o: &mut Out) -> Result<(), String> {
    o.line("");
    o.line("## Negative controls");
    // Contraction ON: the products fuse.
    let opts = format!("{base} {ALLOW_CONTRACTION}");
    o.line("");
    o.line(format!("### Contraction ON (`{opts}`: no `#pragma OPENCL FP_CONTRACT OFF`)"));
    let t = Instant::now();
    let prog = dev.build(&s.program.source, &opts)?;
    let few = random.min(10_000);
    let tallies = run_all(s, &prog, few, seed, false)?;
    let bad: Vec<&Tally> = tallies.iter().filter(|t| t.mismatches > 0).collect();
    o.line(format!("- corpus plus {few} random inputs per kernel, {:.1} s: {} kernels differ", t.elapsed().as_secs_f64(), bad.len()));
    for t in &bad {
        o.line(format!("  - {}: {} of {}", t.c_name, t.mismatches, t.corpus + t.random));
    }
    let st = selftest(&prog)?;
    o.line(format!("- self-test: {}", st.describe(&s.program)));
    o.expect(!bad.is_empty(), "contraction shows mismatches, named by function");
    o.expect(st.status & 8 != 0, "the self-test's witnesses catch contraction");
    drop(prog);
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
    drop(prog);
    // fp64-free.
    let opts = format!("{base} -cl-std=CL3.0 {NO_FP64}");
    o.line("");
    o.line(format!("### fp64-free build (`{opts}`: as on a device without cl_khr_fp64; every `double` left is a compile error)"));
    let prog = dev.build(&s.program.source, &opts)?;
    let absent = s.program.entries.iter().filter(|e| e.elem_bits == 64).all(|e| !prog.has_kernel(&e.check.entry));
    let present = s.program.entries.iter().filter(|e| e.elem_bits == 32).all(|e| prog.has_kernel(&e.check.entry));
    let st = selftest(&prog)?;
    o.line(format!("- built; f64 kernels absent: {absent}; f32 kernels present: {present}; self-test: {}", st.describe(&s.program)));
    let tallies = run_all(s, &prog, 0, seed, true)?;
    let bad: usize = tallies.iter().map(|t| t.mismatches).sum();
    o.line(format!("- the f32 kernels on the corpus: {bad} mismatches"));
    o.expect(absent && present && st.status == 0 && bad == 0, "the fp64-free build builds, without the f64 functions, and passes");
    Ok(())
}
