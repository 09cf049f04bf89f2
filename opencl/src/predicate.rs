//! The predicates on the OpenCL device: `opencl_core/check/aether_predicate_check.cl`
//! built as it is (both forms where the device has binary64) and as for a
//! device without `cl_khr_fp64` (the integer forms only), each form run on
//! the sweep classes against the golden reference `aether_reference::angle`.

use std::time::Instant;

use aether_generator::predicate_corpus::{self, SweepClass};

use crate::cl::{self, Arg, Device};

/// Inputs per kernel launch (the reduced-domain sweep has 18.9 million).
const CHUNK: usize = 1 << 21;

fn reference(name: &str, a: &[i64]) -> bool {
    (predicate_corpus::reference(name).expect("a predicate with a reference"))(a)
}

/// Runs one kernel on inputs; the number of answers that differ from the
/// reference, and the first.
pub fn check(prog: &cl::Program, kernel: &str, class: &SweepClass) -> Result<(usize, Option<String>), String> {
    let (mut bad, mut first) = (0, None);
    for chunk in class.chunks(CHUNK) {
        let words: Vec<u8> = chunk.iter().flat_map(|x| x.to_le_bytes()).collect();
        let n = chunk.len() / class.arity;
        let out = prog.run(kernel, n.div_ceil(64) * 64, Some(64), &[Arg::In(&words), Arg::Out(4 * n), Arg::U32(n as u32)])?;
        for (k, a) in chunk.chunks(class.arity).enumerate() {
            let got = i32::from_le_bytes(out[0][4 * k..4 * k + 4].try_into().unwrap()) != 0;
            if got != reference(class.predicate, a) {
                bad += 1;
                first.get_or_insert_with(|| format!("{a:?}: device {got}"));
            }
        }
    }
    Ok((bad, first))
}

/// The section of the report: lines, and what was not as expected.
pub fn run(dev: &Device, root: &std::path::Path, base: &str, no_fp64: &str, random: usize) -> Result<(Vec<String>, Vec<String>), String> {
    let path = root.join("opencl_core/check/aether_predicate_check.cl");
    let source = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let model = aether_generator::load(root).map_err(|e| e.to_string())?;
    let preds = &model.spec.predicates;
    let classes = predicate_corpus::sweep(random);
    let (mut lines, mut failed) = (Vec::new(), Vec::new());
    for (title, opts, golden_expected) in [
        ("built as it is", base.to_string(), dev.has_extension("cl_khr_fp64")),
        ("fp64-free build", format!("{base} -cl-std=CL3.0 {no_fp64}"), false),
    ] {
        lines.push(String::new());
        lines.push(format!("### The predicates, {title} (`{opts}`)"));
        let t = Instant::now();
        let prog = dev.build(&source, &opts)?;
        let st = prog.run("aether_pcheck_selftest", 1, None, &[Arg::Out(4)])?;
        let wrong = i32::from_le_bytes(st[0][..4].try_into().unwrap());
        lines.push(format!("- aether_predicate_selftest(): {wrong} wrong answers"));
        if wrong != 0 {
            failed.push(format!("the predicates' self-test gives {wrong} wrong answers ({title})"));
        }
        for p in &preds.predicates {
            for form in aether_generator::predicate::Form::BOTH {
                let kernel = format!("aether_pcheck_{}_{}", p.name, form.name());
                let present = prog.has_kernel(&kernel);
                let float = p.uses_float(preds, form);
                if float && !golden_expected {
                    lines.push(format!("- {kernel}: absent: {}", !present));
                    if present {
                        failed.push(format!("{kernel} is present in a build without binary64"));
                    }
                    continue;
                }
                if !present {
                    failed.push(format!("{kernel} is missing"));
                    continue;
                }
                // The fp64-free build compiles the same integer forms: it runs
                // every class but the 18.9 million reduced-domain combinations.
                for class in classes.iter().filter(|c| c.predicate == p.name && (title == "built as it is" || c.count < 10_000_000)) {
                    let (bad, first) = check(&prog, &kernel, class)?;
                    lines.push(format!(
                        "- {kernel}, {}: {} inputs, {bad} disagreements with the golden reference{}",
                        class.class,
                        class.count,
                        first.map(|f| format!(" (first {f})")).unwrap_or_default()
                    ));
                    if bad > 0 {
                        failed.push(format!("{kernel} disagrees on {}", class.class));
                    }
                }
            }
        }
        lines.push(format!("- in {:.1} s", t.elapsed().as_secs_f64()));
    }
    Ok((lines, failed))
}
