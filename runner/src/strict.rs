//! The strict WGSL build (`wgsl_core/aether_core_strict.wgsl`,
//! `aether_generator::targets::wgsl::strict`) in the runner: its check and
//! self-test modules, the fusion control, and the benchmark of its cost
//! against the default build (`aether-runner wgsl-bench`).

use std::time::Instant;

use aether_generator::model::{Function, Model};
use aether_generator::selftest::Witness;
use aether_generator::targets::shared::check::{CheckModule, Guard};
use aether_generator::targets::wgsl::{self, strict};

use crate::exec::{Executor, Job};
use crate::lang::Lang;
use crate::selftest::Report;

/// The check module of `lang`'s core in the default build or (`strict`) the
/// strict one; only WGSL has a strict build.
pub fn check_module(lang: Lang, strict_build: bool, model: &Model, lowered: &[Function], guard: Guard) -> Result<CheckModule, String> {
    match (lang, strict_build) {
        (_, false) => Ok(lang.check_module(model, lowered, guard)),
        (Lang::Wgsl, true) => Ok(strict::check_module(model, lowered, guard)),
        (Lang::Glsl, true) => Err("--strict: only the WGSL core has a strict build".into()),
    }
}

/// The control that stands for a fusing driver: `module` with every product
/// that a sum reads directly fused with it (`strict::fuse_products`) into
/// the control's multiply-add with an unrounded product
/// (`strict::FUSED_HELPER`: the CPU stacks' own `fma` rounds the product),
/// and the number of fusions.
pub fn fused(module: &CheckModule) -> (CheckModule, usize) {
    let (mut source, n) = strict::fuse_products(&module.source, strict::FUSED);
    if n > 0 {
        source.push_str(strict::FUSED_HELPER);
    }
    (CheckModule { source, entries: module.entries.clone() }, n)
}

/// The strict core's self-test on a stack (as `selftest::run` for the
/// default build).
pub fn selftest(
    exec: &mut dyn Executor,
    model: &Model,
    lowered: &[Function],
    guard: Guard,
    witnesses: &[Witness],
) -> Result<Report, String> {
    let lang = Lang::of_stack(exec.stack());
    if lang != Lang::Wgsl {
        return Err(format!("{}: only the WGSL core has a strict build", exec.stack()));
    }
    let module = strict::selftest_module(model, lowered, guard, witnesses);
    let at = module.entries.iter().position(|e| e.entry == "check_selftest").ok_or("the self-test module has no check_selftest entry")?;
    let out = exec.run(&module, &[Job::new(&module, at, vec![0])]).map_err(|e| format!("{}: {e}", exec.stack()))?;
    Ok(Report { lang, stack: exec.stack().to_string(), adapter: exec.adapter(), words: out[0].iter().map(|&w| w as u32).collect() })
}

/// The entries the benchmark times, and how many times each invocation
/// runs its case (`bench_module`): functions of the spec and per-lane linear
/// algebra, with and without rounding-sensitive trees.
pub const BENCH_ENTRIES: [(&str, u32); 7] = [
    ("check_vec4f_dot", 256),
    ("check_mat4f_mul", 64),
    ("check_vec3f_normalize", 256),
    ("check_f32_exp", 256),
    ("check_mat4f_lu", 32),
    ("check_mat4f_inverse", 16),
    ("check_mat3f_eigh", 8),
];

/// `module` with each benchmark entry's body run `reps` times per
/// invocation, so that the arithmetic, not the compile or the transfers,
/// is what a run times: the body in a loop, its input and output offsets
/// moved by `aether_rep * aether_params.y` (zero at run time, unknown to the
/// compiler, so no iteration can be hoisted or dropped as a repeat of
/// another). The results are the check entry's.
pub fn bench_module(module: &CheckModule) -> Result<CheckModule, String> {
    let mut src = module.source.clone();
    for (entry, reps) in BENCH_ENTRIES {
        let head = format!("fn {entry}(");
        let at = src.find(&head).ok_or_else(|| format!("no entry {entry}"))?;
        let open = at + src[at..].find('{').ok_or("no body")?;
        let mut depth = 0i32;
        let mut close = None;
        for (k, c) in src[open..].char_indices() {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            if depth == 0 {
                close = Some(open + k);
                break;
            }
        }
        let close = close.ok_or_else(|| format!("{entry}: the body does not close"))?;
        let body = &src[open + 1..close];
        let guard = "    aether_check_guard();\n";
        let g = body.find(guard).ok_or_else(|| format!("{entry}: no guard call"))? + guard.len();
        let mut inner = body[g..].to_string();
        for name in ["aether_base", "aether_obase"] {
            let let_ = format!("let {name} = ");
            let s = inner.find(&let_).ok_or_else(|| format!("{entry}: no {name}"))?;
            let e = s + inner[s..].find(';').ok_or("no ;")?;
            inner.insert_str(e, " + aether_rep * aether_params.y");
        }
        let new_body = format!("{}    for (var aether_rep = 0u; aether_rep < {reps}u; aether_rep++) {{\n{inner}    }}\n", &body[..g]);
        src.replace_range(open + 1..close, &new_body);
    }
    Ok(CheckModule { source: src, entries: module.entries.clone() })
}

const BENCH_USAGE: &str = "usage: aether-runner wgsl-bench [--stack wgpu|dawn|all] [--items N] [--rounds R] [--report FILE.md]";

/// One timing: the best of the rounds, in seconds, of a run of `items`
/// cases and of one of `SMALL` cases (the fixed cost: the module's compile,
/// the pipeline, the buffers, for Dawn the Node process).
#[derive(Debug, Clone)]
struct Timing {
    full: f64,
    small: f64,
}

impl Timing {
    /// The compute time of the items: the full run less the fixed cost.
    fn compute(&self) -> f64 {
        (self.full - self.small).max(0.0)
    }
}

/// The cases of the small run.
const SMALL: usize = 64;

/// `aether-runner wgsl-bench`: times BENCH_ENTRIES of the default and the
/// strict check modules on each stack, side by side in one process, on the
/// same inputs (random in-domain inputs of each entry, repeated to `items`
/// cases), best of `rounds`; checks that the two builds give the same words.
pub fn bench_main(args: &[String]) -> Result<bool, String> {
    let (mut stacks, mut items, mut rounds, mut report) =
        (crate::STACKS.iter().map(|s| s.to_string()).collect::<Vec<_>>(), 1usize << 16, 3usize, None::<String>);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value\n{BENCH_USAGE}"));
        match a.as_str() {
            "--stack" => {
                let v = value()?;
                stacks = match v.as_str() {
                    "all" => crate::STACKS.iter().map(|s| s.to_string()).collect(),
                    s if crate::STACKS.contains(&s) => vec![s.to_string()],
                    _ => return Err(format!("--stack {v}: not wgpu, dawn or all")),
                }
            }
            "--items" => items = value()?.parse().map_err(|_| format!("--items: not a count\n{BENCH_USAGE}"))?,
            "--rounds" => rounds = value()?.parse().map_err(|_| format!("--rounds: not a count\n{BENCH_USAGE}"))?,
            "--report" => report = Some(value()?),
            other => return Err(format!("unknown argument `{other}`\n{BENCH_USAGE}")),
        }
    }
    if items < SMALL || rounds == 0 {
        return Err(format!("--items must be at least {SMALL} and --rounds at least 1"));
    }
    let root = aether_generator::default_root();
    let model = aether_generator::load(&root).map_err(|e| e.to_string())?;
    let corpus = aether_generator::corpus::read_committed(&root)?;
    let lowered = model.lowered();
    let keep = |mut m: CheckModule| {
        m.entries.retain(|e| BENCH_ENTRIES.iter().any(|(b, _)| *b == e.entry));
        bench_module(&m)
    };
    let builds = [
        ("default", keep(wgsl::check_module(&model, &lowered, Guard::Bits))?),
        ("strict", keep(strict::check_module(&model, &lowered, Guard::Bits))?),
    ];
    if builds[0].1.entries.len() != BENCH_ENTRIES.len() {
        return Err(format!("the check module has {} of the {} benchmark entries", builds[0].1.entries.len(), BENCH_ENTRIES.len()));
    }
    let cases = crate::compare::prepare(&model, &builds[0].1, &corpus, 4096, crate::inputs::DEFAULT_SEED)?;
    // Each entry's inputs repeated to `items` cases, and the first SMALL.
    let jobs: Vec<(String, Job, Job)> = cases
        .iter()
        .map(|c| {
            let at = builds[0].1.entries.iter().position(|e| e.entry == c.entry).unwrap();
            let n = c.inputs.cases();
            let words: Vec<u64> = (0..items).flat_map(|k| c.inputs.words[(k % n) * c.n_in..(k % n + 1) * c.n_in].iter().copied()).collect();
            let small = words[..SMALL * c.n_in].to_vec();
            (c.entry.clone(), Job::new(&builds[0].1, at, words), Job::new(&builds[0].1, at, small))
        })
        .collect();
    let mut text = format!(
        "`aether-runner wgsl-bench --items {items} --rounds {rounds}`: each entry of the check module on {items} cases (the corpus and \
         random in-domain inputs of the entry, repeated), each invocation running its case `reps` times (the body in a loop whose \
         offsets move by an opaque zero: `runner::strict::bench_module`), timed end to end (upload, compile, dispatch, readback) \
         and again on {SMALL} cases; compute = the best full run less the best small run (the fixed cost: the module's compile \
         and pipeline, and for Dawn the Node process); ns per evaluation = compute / (cases x reps). Best of {rounds} rounds, \
         the builds alternating within each round; the distinct cases judged as the check run judges them, and the two builds' \
         words compared case by case.\n\n"
    );
    let (mut ok, mut lines) = (true, Vec::new());
    for stack in &stacks {
        let mut exec = crate::open(stack).map_err(|e| format!("{stack}: {e}"))?;
        let adapter = exec.adapter();
        eprintln!("wgsl-bench: {stack} on {adapter}");
        text.push_str(&format!("### {stack}: {adapter}\n\n| entry | reps | default compute, ms | strict compute, ms | strict / default | ns per evaluation, default | ns per evaluation, strict | fixed cost, default / strict, ms | in-domain cases outside the band, default / strict | cases whose words differ between the builds |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"));
        let (mut sum_d, mut sum_s) = (0.0, 0.0);
        for (entry, full, small) in &jobs {
            let mut best = [Timing { full: f64::MAX, small: f64::MAX }, Timing { full: f64::MAX, small: f64::MAX }];
            let mut outs: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
            for _ in 0..rounds {
                for (b, (_, module)) in builds.iter().enumerate() {
                    let t = Instant::now();
                    let o = exec.run(module, std::slice::from_ref(full)).map_err(|e| format!("{stack}: {entry}: {e}"))?;
                    best[b].full = best[b].full.min(t.elapsed().as_secs_f64());
                    outs[b] = o.into_iter().next().unwrap_or_default();
                    let t = Instant::now();
                    exec.run(module, std::slice::from_ref(small)).map_err(|e| format!("{stack}: {entry}: {e}"))?;
                    best[b].small = best[b].small.min(t.elapsed().as_secs_f64());
                }
            }
            // The distinct cases (the first of the repeated ones) judged as the check run judges
            // them: in-domain cases outside the band (bits, for these entries on this stack).
            let c = cases.iter().find(|c| &c.entry == entry).unwrap();
            let off: Vec<usize> = outs
                .iter()
                .map(|o| {
                    let got = &o[..(c.inputs.cases() * c.n_out).min(o.len())];
                    crate::compare::judge(&model, c, got, exec.rounds_to_nearest()).outside
                })
                .collect();
            // Distinct cases whose words differ between the builds (out of the domain only, when
            // both builds have no in-domain case outside a `bits` band).
            let n_case = c.inputs.cases().min(items);
            let differ =
                (0..n_case).filter(|&k| outs[0].get(k * c.n_out..(k + 1) * c.n_out) != outs[1].get(k * c.n_out..(k + 1) * c.n_out)).count();
            if off.iter().any(|&o| o > 0) {
                lines.push(format!(
                    "wgsl-bench: FAIL: {stack}: {entry}: in-domain cases outside the band: default {}, strict {}",
                    off[0], off[1]
                ));
                ok = false;
            }
            let (d, s) = (best[0].compute(), best[1].compute());
            sum_d += d;
            sum_s += s;
            let reps = BENCH_ENTRIES.iter().find(|(e, _)| e == entry).map_or(1, |(_, r)| *r);
            let ns = |x: f64| x * 1e9 / (items as f64 * f64::from(reps));
            let row = format!(
                "| {entry} | {reps} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} | {:.0} / {:.0} | {} / {} | {differ} of {n_case} |",
                d * 1e3,
                s * 1e3,
                s / d.max(1e-9),
                ns(d),
                ns(s),
                best[0].small * 1e3,
                best[1].small * 1e3,
                off[0],
                off[1]
            );
            eprintln!("wgsl-bench: {stack}: {row}");
            text.push_str(&row);
            text.push('\n');
        }
        text.push_str(&format!("| all seven | | {:.1} | {:.1} | {:.2} | | | | | |\n\n", sum_d * 1e3, sum_s * 1e3, sum_s / sum_d.max(1e-9)));
        lines.push(format!("wgsl-bench: {stack}: the seven entries' compute, strict / default = {:.2}", sum_s / sum_d.max(1e-9)));
    }
    let sizes: Vec<String> = [("wgsl_core/aether_core.wgsl", "default"), (strict::PATH, "strict")]
        .iter()
        .map(|(p, name)| {
            let n = std::fs::metadata(root.join(p)).map(|m| m.len()).unwrap_or(0);
            format!("{name} `{p}` {n} bytes")
        })
        .collect();
    text.push_str(&format!("Generated files: {}.\n", sizes.join(", ")));
    for l in &lines {
        println!("{l}");
    }
    print!("{text}");
    if let Some(p) = report {
        std::fs::write(&p, &text).map_err(|e| format!("{p}: {e}"))?;
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The benchmark's module: every benchmark entry's body in its loop,
    /// both offsets moved by the opaque zero, nothing else changed.
    #[test]
    fn bench_module_loops_every_benchmark_entry() {
        let model = aether_generator::load(&aether_generator::default_root()).unwrap();
        let m = wgsl::check_module(&model, &model.lowered(), Guard::Bits);
        let b = bench_module(&m).unwrap();
        for (e, reps) in BENCH_ENTRIES {
            let at = b.source.find(&format!("fn {e}(")).unwrap();
            let next = b.source[at + 3..].find("\nfn ").map_or(b.source.len(), |k| at + 3 + k);
            assert!(b.source[at..next].contains(&format!("aether_rep < {reps}u")), "{e}");
        }
        assert_eq!(b.source.matches(" + aether_rep * aether_params.y;").count(), 2 * BENCH_ENTRIES.len());
        assert_eq!(b.entries, m.entries);
    }

    /// The fusion control fuses the default build's products and leaves the
    /// strict build's module as it is.
    #[test]
    fn the_fusion_control_finds_nothing_in_the_strict_build() {
        let model = aether_generator::load(&aether_generator::default_root()).unwrap();
        let lowered = model.lowered();
        let (d, n) = fused(&wgsl::check_module(&model, &lowered, Guard::Bits));
        assert!(n > 500 && d.source.contains(strict::FUSED_HELPER));
        let s = strict::check_module(&model, &lowered, Guard::Bits);
        let (f, n) = fused(&s);
        assert_eq!((n, f.source), (0, s.source));
    }
}
