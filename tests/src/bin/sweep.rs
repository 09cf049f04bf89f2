//! Exhaustive f32 sweeps: every one-input f32 function of the spec, and
//! one-variable slices of some multi-input f32 functions, on every one of the
//! 2^32 bit patterns x, C core against the reference under the comparison
//! policy.
//!
//! First each sweep runs over a 2^24 strided subset to measure it and project
//! the full run; with `--plan auto` (the default) a projected total over
//! 25 minutes keeps the full 2^32 sweep for the slices marked `full` below
//! and runs the others over a 2^28 strided subset.
//!
//! ```text
//! cargo run --release -p aether-tests --bin sweep -- [--plan auto|full|reduced|measure] [--threads N] [--report PATH]
//!     [--only NAME,NAME...]
//! ```
//!
//! `--only` keeps the sweeps of the functions named (C names, e.g.
//! `aether_f32_sin`), for a run of part of the plan; the report says so.
//!
//! Exits 1 when any input mismatches (after printing the first few per sweep
//! and writing the report), 2 on a usage error.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use aether_reference::flat::FlatFn;
use aether_reference::{elementary, scalar, Vec2};
use aether_tests::{functions, hex, model, policy, sys, CFunction};

/// A projected full run above this many seconds selects the reduced plan.
const BUDGET_S: f64 = 25.0 * 60.0;
/// Mismatches kept (the lowest x) per sweep for the printout and the report.
const KEEP: usize = 5;
/// Inputs a worker takes at a time.
const CHUNK: u64 = 1 << 18;
/// Seconds between progress lines on stderr.
const PROGRESS_S: u64 = 20;

/// One input word of a slice: the swept variable or a fixed f32.
#[derive(Debug, Clone, Copy)]
enum Word {
    X,
    K(f32),
}

/// A function and the inputs it is swept over.
#[derive(Debug)]
struct Sweep {
    name: String,
    /// How the inputs are made from x, for the tables.
    slice: String,
    words: Vec<Word>,
    /// Stays a full 2^32 sweep under the reduced plan.
    full: bool,
    c: CFunction,
    reference: FlatFn,
    /// The same two functions called by their types, when the sweep has them.
    direct: Option<Direct>,
    is_float: bool,
    either_zero: bool,
}

/// A C function of the core and its reference called by their types, with no
/// flat words in between: the flat convention allocates on both sides, and
/// that is most of the time of a cheap function's sweep. Each is checked
/// against the flat path before a sweep uses it ([`Direct::agrees`]).
#[derive(Debug, Clone, Copy)]
enum Direct {
    /// f32 to f32.
    One(unsafe extern "C" fn(f32) -> f32, fn(f32) -> f32),
    /// f32 to a pair (sincos).
    Pair(unsafe extern "C" fn(f32) -> sys::aether_vec2f, fn(f32) -> Vec2<f32>),
    /// (f32, f32) to f32, the slice's words in the parameters' order.
    Two(unsafe extern "C" fn(f32, f32) -> f32, fn(f32, f32) -> f32),
}

impl Direct {
    /// The typed functions of the C function `name`, where the sweep has them.
    fn of(name: &str) -> Option<Direct> {
        use Direct::{One, Pair, Two};
        Some(match name {
            "aether_f32_sign" => One(sys::aether_f32_sign, scalar::sign::<f32>),
            "aether_f32_neg" => One(sys::aether_f32_neg, scalar::neg::<f32>),
            "aether_f32_abs" => One(sys::aether_f32_abs, scalar::abs::<f32>),
            "aether_f32_sincos" => Pair(sys::aether_f32_sincos, elementary::sincos::<f32>),
            "aether_f32_sin" => One(sys::aether_f32_sin, elementary::sin::<f32>),
            "aether_f32_cos" => One(sys::aether_f32_cos, elementary::cos::<f32>),
            "aether_f32_tan" => One(sys::aether_f32_tan, elementary::tan::<f32>),
            "aether_f32_atan" => One(sys::aether_f32_atan, elementary::atan::<f32>),
            "aether_f32_exp" => One(sys::aether_f32_exp, elementary::exp::<f32>),
            "aether_f32_log" => One(sys::aether_f32_log, elementary::log::<f32>),
            "aether_f32_exp2" => One(sys::aether_f32_exp2, elementary::exp2::<f32>),
            "aether_f32_log2" => One(sys::aether_f32_log2, elementary::log2::<f32>),
            "aether_f32_asin" => One(sys::aether_f32_asin, elementary::asin::<f32>),
            "aether_f32_acos" => One(sys::aether_f32_acos, elementary::acos::<f32>),
            "aether_f32_atan2" => Two(sys::aether_f32_atan2, elementary::atan2::<f32>),
            "aether_f32_pow" => Two(sys::aether_f32_pow, elementary::pow::<f32>),
            _ => return None,
        })
    }

    /// The reference's and the C function's result words for the input
    /// words, in `want` and `got`; returns how many words each has.
    fn call(self, words: &[u64], want: &mut [u64; 2], got: &mut [u64; 2]) -> usize {
        let f = |i: usize| f32::from_bits(words[i] as u32);
        let w = |v: f32| u64::from(v.to_bits());
        match self {
            // SAFETY: the C core's functions of plain floats have no
            // preconditions; every input, NaN and infinity included, is in
            // their domain.
            Direct::One(c, r) => {
                (want[0], got[0]) = (w(r(f(0))), w(unsafe { c(f(0)) }));
                1
            }
            Direct::Pair(c, r) => {
                let (a, b) = (r(f(0)), unsafe { c(f(0)) });
                (want[0], want[1], got[0], got[1]) = (w(a.x), w(a.y), w(b.x), w(b.y));
                2
            }
            Direct::Two(c, r) => {
                (want[0], got[0]) = (w(r(f(0), f(1))), w(unsafe { c(f(0), f(1)) }));
                1
            }
        }
    }

    /// Whether the typed path gives the flat path's words on both sides, on
    /// 4096 inputs spread over every exponent (a wrong entry in
    /// [`Direct::of`] differs at once).
    fn agrees(self, s: &Sweep) -> bool {
        let (mut want, mut got) = ([0; 2], [0; 2]);
        (0..4096u32).all(|k| {
            let x = k.wrapping_mul(0x9E37_79B9) ^ (k << 20);
            let words: Vec<u64> = s.words.iter().map(|w| if let Word::K(v) = w { u64::from(v.to_bits()) } else { u64::from(x) }).collect();
            let n = self.call(&words, &mut want, &mut got);
            let (flat_want, flat_got) = ((s.reference)(&words), s.c.run(&words));
            let same = |a: &[u64], b: &[u64]| {
                a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p == q || (s.is_float && is_nan(*p) && is_nan(*q)))
            };
            same(&want[..n], &flat_want) && same(&got[..n], &flat_got)
        })
    }
}

/// A binary32 NaN's word.
fn is_nan(w: u64) -> bool {
    f32::from_bits(w as u32).is_nan()
}

/// Which x a sweep takes: `2^log2` values, x = k * stride + (7k mod stride)
/// with stride = 2^(32 - log2). The offset walks every low-bit residue evenly
/// (7 is odd) and is 0 whenever k is a multiple of the stride, so every
/// pattern whose low 2 log2(stride) bits are zero (the zeros, infinities, the
/// default NaN, every power of two) is in every subset.
#[derive(Debug, Clone, Copy)]
struct Coverage {
    log2: u32,
}

impl Coverage {
    const FULL: Coverage = Coverage { log2: 32 };

    fn count(self) -> u64 {
        1u64 << self.log2
    }

    fn x(self, k: u64) -> u32 {
        let stride = 1u64 << (32 - self.log2);
        (k * stride + (k * 7) % stride) as u32
    }

    fn describe(self) -> String {
        if self.log2 == 32 {
            "all 2^32".into()
        } else {
            let stride = 1u64 << (32 - self.log2);
            format!("2^{} strided (x = {stride}k + (7k mod {stride}))", self.log2)
        }
    }
}

/// One mismatch: x, the input words, the reference's and C's result words.
type Mismatch = (u32, Vec<u64>, Vec<u64>, Vec<u64>);

/// What one sweep found.
#[derive(Debug)]
struct Outcome {
    inputs: u64,
    mismatches: u64,
    /// The lowest-x mismatches: x, inputs, reference, C.
    first: Vec<Mismatch>,
    elapsed: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Auto,
    Full,
    Reduced,
    Measure,
}

fn main() -> ExitCode {
    let mut plan = Plan::Auto;
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut report_path = None;
    let mut only: Option<Vec<String>> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--plan", Some(p)) => {
                plan = match p.as_str() {
                    "auto" => Plan::Auto,
                    "full" => Plan::Full,
                    "reduced" => Plan::Reduced,
                    "measure" => Plan::Measure,
                    _ => return usage(&format!("unknown plan {p}")),
                }
            }
            ("--threads", Some(n)) => match n.parse::<usize>() {
                Ok(n) if n > 0 => threads = n,
                _ => return usage(&format!("bad thread count {n}")),
            },
            ("--report", Some(p)) => report_path = Some(p),
            ("--only", Some(names)) => only = Some(names.split(',').map(str::to_string).collect()),
            _ => return usage(&format!("unknown or incomplete argument {a}")),
        }
    }

    let mut sweeps = sweeps();
    if let Some(names) = &only {
        if let Some(n) = names.iter().find(|n| !sweeps.iter().any(|s| &s.name == *n)) {
            return usage(&format!("--only: {n} is not swept"));
        }
        sweeps.retain(|s| names.contains(&s.name));
    }
    let started = Instant::now();
    let load_before = load_average();
    eprintln!("sweep: {} sweeps on {threads} threads", sweeps.len());

    // Measure every sweep on a 2^24 strided subset and project the full run.
    let sample = Coverage { log2: 24 };
    let mut measured = Vec::new();
    println!("\n2^24-subset timing ({threads} threads):");
    for s in &sweeps {
        let o = run(s, sample, threads, false);
        let projected = o.elapsed.as_secs_f64() * (Coverage::FULL.count() / sample.count()) as f64;
        println!("  {:<56} {:>8.2} s  projected full {:>8.1} s  mismatches {}", label(s), o.elapsed.as_secs_f64(), projected, o.mismatches);
        print_first(s, &o);
        measured.push((o, projected));
    }
    let total_projected: f64 = measured.iter().map(|(_, p)| p).sum();
    let reduced_projected: f64 = sweeps.iter().zip(&measured).map(|(s, (_, p))| if s.full { *p } else { p / 16.0 }).sum();
    println!(
        "projected: everything at 2^32 {}; reduced plan (full for the marked sweeps, 2^28 for the rest) {}",
        mins(total_projected),
        mins(reduced_projected)
    );
    let reduced = match plan {
        Plan::Full => false,
        Plan::Reduced => true,
        Plan::Auto => total_projected > BUDGET_S,
        Plan::Measure => {
            let bad: u64 = measured.iter().map(|(o, _)| o.mismatches).sum();
            return if bad == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE };
        }
    };
    let decision = if reduced {
        format!(
            "The projected full run of every sweep ({}) is over the {}-minute budget, so the sweeps marked full run over all \
             2^32 patterns and the rest over a 2^28 strided subset.",
            mins(total_projected),
            BUDGET_S / 60.0
        )
    } else {
        format!(
            "The projected full run of every sweep ({}) is within the budget: every sweep runs over all 2^32 patterns.",
            mins(total_projected)
        )
    };
    println!("{decision}\n");

    let mut results = Vec::new();
    for s in &sweeps {
        let cov = if reduced && !s.full { Coverage { log2: 28 } } else { Coverage::FULL };
        eprintln!("sweep: {} over {}", label(s), cov.describe());
        let o = run(s, cov, threads, true);
        println!("  {:<56} {:>10} inputs  {:>3} mismatches  {:>8.1} s", label(s), o.inputs, o.mismatches, o.elapsed.as_secs_f64());
        print_first(s, &o);
        results.push((cov, o));
    }
    let total = started.elapsed();
    let bad: u64 = results.iter().map(|(_, o)| o.mismatches).sum();
    let load = (load_before, load_average());
    let scope = only.map(|names| format!("This run takes only the sweeps of {} (`--only`).", names.join(", ")));
    let report = report(&sweeps, &measured, &results, threads, &decision, (total_projected, reduced_projected), load, total, scope);
    println!("\n{report}");
    if let Some(p) = report_path {
        if let Err(e) = std::fs::write(&p, &report) {
            eprintln!("sweep: cannot write {p}: {e}");
            return ExitCode::FAILURE;
        }
        eprintln!("sweep: report written to {p}");
    }
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("sweep: {bad} mismatches");
        ExitCode::FAILURE
    }
}

fn usage(why: &str) -> ExitCode {
    eprintln!("sweep: {why}\nusage: sweep [--plan auto|full|reduced|measure] [--threads N] [--report PATH] [--only NAME,...]");
    ExitCode::from(2)
}

fn label(s: &Sweep) -> String {
    format!("{} {}", s.name, s.slice)
}

fn mins(s: f64) -> String {
    format!("{:.1} min", s / 60.0)
}

/// Every one-input f32 function of the spec, then the slices of the brief.
fn sweeps() -> Vec<Sweep> {
    let model = model();
    let fns = functions();
    let mut out = Vec::new();
    let mut add = |name: &str, slice: &str, words: Vec<Word>, full: bool| {
        let f = model
            .callables()
            .into_iter()
            .find(|f| f.c_name(&model) == name)
            .unwrap_or_else(|| panic!("{name}: not a function of the spec"));
        assert_eq!(f.elem(), "f32", "{name}: not an f32 function");
        assert_eq!(f.fixed_words().map(|(n, _)| n), Some(words.len()), "{name}: input word count");
        let c = *fns.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}: no C binding"));
        let reference = aether_reference::flat::lookup(f.family(), f.shape(), f.elem()).unwrap_or_else(|| panic!("{name}: no reference"));
        let mut sweep = Sweep {
            name: name.into(),
            slice: slice.into(),
            words,
            full,
            c,
            reference,
            direct: None,
            is_float: f.is_float(),
            either_zero: f.either_zero(),
        };
        if let Some(d) = Direct::of(name) {
            assert!(d.agrees(&sweep), "{name}: the typed functions disagree with the flat ones");
            sweep.direct = Some(d);
        }
        out.push(sweep);
    };
    let one_input: Vec<String> = model
        .callables()
        .iter()
        .filter(|f| f.elem() == "f32" && f.fixed_words().is_some_and(|(n, _)| n == 1))
        .map(|f| f.c_name(&model))
        .collect();
    assert!(!one_input.is_empty(), "the spec has no one-input f32 function");
    for name in &one_input {
        add(name, "(x)", vec![Word::X], true);
    }
    use Word::{K, X};
    add("aether_vec2f_div", "(a = (1, 1), s = x)", vec![K(1.0), K(1.0), X], true);
    add("aether_vec2f_scale", "(a = (x, x), s = 3)", vec![X, X, K(3.0)], true);
    add("aether_vec2f_scale", "(a = (1.5, -2), s = x)", vec![K(1.5), K(-2.0), X], false);
    add("aether_vec2f_norm", "((x, 0))", vec![X, K(0.0)], true);
    add("aether_vec2f_norm", "((0, x))", vec![K(0.0), X], true);
    add("aether_vec2f_normalize", "((x, 0))", vec![X, K(0.0)], false);
    add("aether_f32_two_sum", "(x, 1)", vec![X, K(1.0)], true);
    add("aether_f32_two_sum", "(1e8, x)", vec![K(1e8), X], false);
    add("aether_pairf_value", "((1, x))", vec![K(1.0), X], false);
    add("aether_f32_jacobi_rotation", "(0, 1, x)", vec![K(0.0), K(1.0), X], false);
    add("aether_vec3f_neg", "((x, x, x))", vec![X, X, X], false);
    add("aether_vec3f_abs", "((x, x, x))", vec![X, X, X], false);
    add("aether_f32_atan2", "(x, 1)", vec![X, K(1.0)], false);
    add("aether_f32_atan2", "(-1, x)", vec![K(-1.0), X], false);
    add("aether_f32_pow", "(x, 2.5)", vec![X, K(2.5)], false);
    add("aether_f32_pow", "(1.0625, x)", vec![K(1.0625), X], false);
    out
}

/// Sweeps `s` over `cov` on `threads` threads.
fn run(s: &Sweep, cov: Coverage, threads: usize, progress: bool) -> Outcome {
    let count = cov.count();
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let template: Vec<u64> = s.words.iter().map(|w| if let Word::K(v) = w { u64::from(v.to_bits()) } else { 0 }).collect();
    let xs: Vec<usize> = s.words.iter().enumerate().filter(|(_, w)| matches!(w, Word::X)).map(|(i, _)| i).collect();
    // A raw pointer is not Sync: the workers get the C function's address as
    // an integer and its typed caller.
    let (call, addr, reference) = (s.c.call, s.c.linked.expose_provenance(), s.reference);
    let (is_float, either_zero, direct) = (s.is_float, s.either_zero, s.direct);
    let worker = || {
        let mut words = template.clone();
        let (mut want2, mut got2) = ([0; 2], [0; 2]);
        let (mut bad, mut first) = (0u64, Vec::new());
        loop {
            let lo = next.fetch_add(CHUNK, Ordering::Relaxed);
            if lo >= count {
                break;
            }
            let hi = (lo + CHUNK).min(count);
            for k in lo..hi {
                let x = cov.x(k);
                for &i in &xs {
                    words[i] = u64::from(x);
                }
                let ok = if let Some(d) = direct {
                    let n = d.call(&words, &mut want2, &mut got2);
                    policy::matches(&want2[..n], &got2[..n], 32, is_float, either_zero)
                } else {
                    let want = reference(&words);
                    let got = call(std::ptr::with_exposed_provenance(addr), &words);
                    policy::matches(&want, &got, 32, is_float, either_zero)
                };
                if !ok {
                    bad += 1;
                    // Each worker takes its chunks in ascending k, so its
                    // first few are its lowest; they are kept with the flat
                    // path's words.
                    if first.len() < KEEP {
                        let want = reference(&words);
                        let got = call(std::ptr::with_exposed_provenance(addr), &words);
                        first.push((x, words.clone(), want, got));
                    }
                }
            }
            done.fetch_add(hi - lo, Ordering::Relaxed);
        }
        (bad, first)
    };
    let (mut bad, mut first) = (0, Vec::new());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
        let mut last = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(20));
            if progress && last.elapsed() >= Duration::from_secs(PROGRESS_S) {
                last = Instant::now();
                let d = done.load(Ordering::Relaxed);
                let el = start.elapsed().as_secs_f64();
                let eta = if d > 0 { el * (count - d) as f64 / d as f64 } else { f64::NAN };
                eprintln!(
                    "sweep:   {}: {:5.1}% of {count} after {el:.0} s, about {eta:.0} s to go",
                    label(s),
                    100.0 * d as f64 / count as f64
                );
            }
        }
        for h in handles {
            let (b, f) = h.join().unwrap();
            bad += b;
            first.extend(f);
        }
    });
    first.sort_by_key(|m| m.0);
    first.truncate(KEEP);
    Outcome { inputs: count, mismatches: bad, first, elapsed: start.elapsed() }
}

fn print_first(s: &Sweep, o: &Outcome) {
    for (x, inputs, want, got) in &o.first {
        println!("    MISMATCH {}: x = {x:08x}, inputs {}, reference {}, C {}", label(s), hex(inputs, 32), hex(want, 32), hex(got, 32));
    }
}

/// The report, as markdown.
#[allow(clippy::too_many_arguments)]
fn report(
    sweeps: &[Sweep],
    measured: &[(Outcome, f64)],
    results: &[(Coverage, Outcome)],
    threads: usize,
    decision: &str,
    (total_projected, reduced_projected): (f64, f64),
    load: (String, String),
    total: Duration,
    scope: Option<String>,
) -> String {
    let bad: u64 = results.iter().map(|(_, o)| o.mismatches).sum();
    let inputs: u64 = results.iter().map(|(_, o)| o.inputs).sum();
    let mut r = String::new();
    let w = &mut r;
    let _ = writeln!(w, "# Exhaustive f32 sweeps\n");
    let _ = writeln!(
        w,
        "The C core (`c_core/aether_core.c`, compiled by `tests/build.rs` with `{} {}`) against the Rust reference \
         (`aether_reference::flat`) under the spec's comparison policy (`aether_tests::policy::matches`: bits equal, any NaN \
         for any NaN, either zero where the family allows it), with x running over f32 bit patterns. Every one-input f32 \
         function of the spec (found from the model: an f32 function of exactly one input word) is swept, and one-variable \
         slices of multi-input functions.\n",
        aether_tests::CC,
        aether_tests::core_flags().join(" ")
    );
    if let Some(scope) = scope {
        let _ = writeln!(w, "{scope}\n");
    }
    let verdict = if bad == 0 { "**0 mismatches**".to_string() } else { format!("**{bad} MISMATCHES**") };
    let _ = writeln!(
        w,
        "Result: {verdict} in {inputs} inputs over {} sweeps; whole run (timing included) {:.1} min.\n",
        results.len(),
        total.as_secs_f64() / 60.0
    );
    let _ = writeln!(w, "## Machine and command\n");
    let _ = writeln!(w, "- nproc: {}; threads used: {threads}", std::thread::available_parallelism().map_or(0, |n| n.get()));
    let _ = writeln!(w, "- CPU: {}", cpu_model());
    let _ = writeln!(
        w,
        "- load average (1, 5, 15 min) at the start: {}; at the end: {} (the machine may be shared: other work on it \
         changes the subset timing, hence the projection and the plan, and the run times)",
        load.0, load.1
    );
    let _ = writeln!(w, "- date (UTC): {}", utc_now());
    let cmd = std::env::var("AETHER_SWEEP_COMMAND").unwrap_or_else(|_| std::env::args().collect::<Vec<_>>().join(" "));
    let _ = writeln!(w, "- command: `{cmd}`");
    if let Ok(inner) = std::env::var("AETHER_SWEEP_INNER") {
        let _ = writeln!(w, "- which runs: `{inner}`");
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "The core is linked into this Rust binary, where its out-of-line libm calls (`sqrtf`, `fminf`, `fmaxf` ...) \
         resolve to the Rust runtime's own copies (compiler-builtins), not to the system libm a C program gets. Those can \
         differ where C leaves room (a signalling NaN operand of `fmin`/`fmax`); `tests/tests/specials.rs` checks the \
         core built as a shared library on the system libm as well.\n"
    );
    let _ = writeln!(w, "## Results\n");
    let _ = writeln!(w, "| function / slice | inputs | coverage | mismatches | run time |");
    let _ = writeln!(w, "|---|---:|---|---:|---:|");
    for (s, (cov, o)) in sweeps.iter().zip(results) {
        let _ = writeln!(
            w,
            "| `{}` {} | {} | {} | {} | {} |",
            s.name,
            s.slice,
            o.inputs,
            cov.describe(),
            o.mismatches,
            duration(o.elapsed.as_secs_f64())
        );
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "{decision}\n");
    if results.iter().any(|(c, _)| c.log2 < 32) {
        let _ = writeln!(
            w,
            "A 2^28 strided subset is x = 16k + (7k mod 16), k = 0 .. 2^28 - 1: every exponent and every high mantissa \
             pattern, every value of the low four bits 2^24 times each, and every pattern whose low eight bits are zero \
             (+-0, +-inf, the default NaN, the powers of two, 1.5, 3 ...).\n"
        );
    }
    if bad > 0 {
        let _ = writeln!(w, "## Mismatches (lowest x first, at most {KEEP} per sweep)\n");
        for (s, (_, o)) in sweeps.iter().zip(results) {
            for (x, i, want, got) in &o.first {
                let _ = writeln!(
                    w,
                    "- `{}` {}: x = `{x:08x}`, inputs `{}`, reference `{}`, C `{}`",
                    s.name,
                    s.slice,
                    hex(i, 32),
                    hex(want, 32),
                    hex(got, 32)
                );
            }
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w, "## Timing on a 2^24 subset and projection\n");
    let _ = writeln!(
        w,
        "Before the run every sweep ran over a 2^24 strided subset (x = 256k + (7k mod 256)); 256 times its time \
         projects the full 2^32 sweep. Projected: everything at 2^32 {}; the reduced plan {}.\n",
        mins(total_projected),
        mins(reduced_projected)
    );
    let _ = writeln!(w, "| function / slice | 2^24 time | projected 2^32 | mismatches in the subset | full under the reduced plan |");
    let _ = writeln!(w, "|---|---:|---:|---:|---|");
    for (s, (o, p)) in sweeps.iter().zip(measured) {
        let _ = writeln!(
            w,
            "| `{}` {} | {:.2} s | {} | {} | {} |",
            s.name,
            s.slice,
            o.elapsed.as_secs_f64(),
            duration(*p),
            o.mismatches,
            if s.full { "yes" } else { "no (2^28)" }
        );
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "{} functions, the scalar ones of plain floats, are called by their types on both sides (the bindings of \
         `aether_core.h` and the reference's generic functions), each first checked to give the flat path's words on \
         4096 inputs; the rest go through the flat calling convention (`CFunction::run` and the reference's `FlatFn`), \
         as the other tests do, which allocates on both sides and is most of the time of a cheap function's input.",
        sweeps.iter().filter(|s| s.direct.is_some()).map(|s| s.name.as_str()).collect::<std::collections::BTreeSet<_>>().len()
    );
    r
}

fn duration(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|_| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, m)| m.trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

/// The current UTC time as `YYYY-MM-DD HH:MM:SS`.
fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
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
