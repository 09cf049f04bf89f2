//! A shader core's self-test on each stack: `aether_selftest()` of the core
//! (`wgsl::selftest_module`, `glsl::selftest_module`, by the stack's language), its report read back and printed, and the
//! expectations a run states checked (which stacks flush subnormals, whether
//! the witnesses must pass or, for a mutant's core, must fail).

use aether_generator::model::Model;
use aether_generator::mutants::Mutant;
use aether_generator::selftest::{Cause, Witness, CAUSES, SHIELD_PROBES};
use aether_generator::targets::shared::check::Guard;

use crate::exec::{Executor, Job};
use crate::lang::Lang;

/// The self-test's report on one stack, by field.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub lang: Lang,
    pub stack: String,
    pub adapter: String,
    pub words: Vec<u32>,
}

impl Report {
    pub fn field(&self, name: &str) -> u32 {
        self.lang.selftest_fields().iter().position(|f| *f == name).map_or(0, |i| self.words[i])
    }

    /// One line: every field, the causes the probes detected and those that
    /// explained failing witnesses, and the rules that failed (witnesses no
    /// detected cause explains) by name.
    pub fn line(&self) -> String {
        let fields: Vec<String> = self.lang.selftest_fields().iter().zip(&self.words).map(|(f, w)| format!("{f}={w}")).collect();
        let rules: Vec<&str> = aether_generator::mutants::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| self.field("failed_rules") >> i & 1 == 1)
            .map(|(_, m)| m.name())
            .collect();
        let causes = Cause::names(self.detected(), ", ");
        let causes = if causes.is_empty() { String::new() } else { format!(" (causes detected: {causes})") };
        let explained = match self.field("explained") {
            0 => String::new(),
            n => format!(" ({n} failing witnesses explained by {})", Cause::names(self.field("explained_causes"), ", ")),
        };
        let rules = if rules.is_empty() { String::new() } else { format!(" (failing rules: {})", rules.join(", ")) };
        format!("selftest {} on {}: {}{causes}{explained}{rules}", self.stack, self.adapter, fields.join(" "))
    }

    /// The causes the probes detected, as `Cause::bit`s.
    pub fn detected(&self) -> u32 {
        let on = |f: &str, c: Cause| if self.field(f) != 0 { c.bit() } else { 0 };
        on("fuses", Cause::Fusion)
            | on("reassociates", Cause::Reassociation)
            | on("flushes_results", Cause::Flush)
            | on("flushes_operands", Cause::Flush)
            | on("zero_sign_ignored", Cause::ZeroSign)
    }
}

/// The bit of a cause by name (`fusion`, `reassociation`, `flush`, `zero-sign`).
pub fn cause_bit(name: &str) -> Result<u32, String> {
    CAUSES
        .iter()
        .find(|c| c.name() == name)
        .map(|c| c.bit())
        .ok_or_else(|| format!("no cause `{name}` (one of {})", CAUSES.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")))
}

/// The rule mutant whose trees stand for a stack with the simulated cause:
/// reassociate for reassociation, neg-sub for the sign of zero (one cause at
/// a time). Fusion has none: on WGSL the whole module, core and probes, is
/// rewritten with every product a sum reads fused (`strict::fused`; the CPU
/// stacks' own `fma` rounds the product, so the fma mutant fuses nothing
/// there), and GLSL ES 3.00 has no fma at all. Flush has none: Dawn's
/// SwiftShader flushes for real.
pub fn simulating_mutant(lang: Lang, simulate: u32) -> Result<Option<Mutant>, String> {
    match CAUSES.iter().find(|c| c.bit() == simulate & !SHIELD_PROBES) {
        Some(Cause::Fusion) if lang == Lang::Wgsl => Ok(None),
        Some(Cause::Reassociation) => Ok(Some(Mutant::Reassociate)),
        Some(Cause::ZeroSign) => Ok(Some(Mutant::NegSub)),
        None if simulate & !SHIELD_PROBES == 0 => Ok(None),
        _ => Err(format!(
            "--simulate: one cause of {} on {lang:?} (got {})",
            if lang == Lang::Wgsl { "fusion, reassociation, zero-sign" } else { "reassociation, zero-sign" },
            Cause::names(simulate, ", ")
        )),
    }
}

/// What is wrong with a report that should name the causes in `expected`:
/// each must be detected, and no witness may be left a failing rule (those
/// the causes make fail are counted as explained; where they make only
/// banded families differ, none is). The negative controls, with the probes
/// shielded (`--shield-probes --expect-fail`), show that the explanation is
/// what keeps those witnesses from being failing rules.
pub fn cause_problems(r: &Report, expected: u32) -> Vec<String> {
    let mut out = Vec::new();
    for c in CAUSES.iter().filter(|c| expected & c.bit() != 0) {
        if r.detected() & c.bit() == 0 {
            out.push(format!("the cause probes did not detect {}", c.name()));
        }
    }
    if expected != 0 && r.field("failed") != 0 {
        out.push(format!(
            "{} failing witnesses left as failing rules where {} should explain them",
            r.field("failed"),
            Cause::names(expected, ", ")
        ));
    }
    out
}

/// Runs the self-test of the core printed from `lowered` (the model's, or a
/// mutant's) with `guard`, on the witnesses of the model's own corpus.
pub fn run(
    exec: &mut dyn Executor,
    model: &Model,
    lowered: &[aether_generator::model::Function],
    guard: Guard,
    witnesses: &[Witness],
) -> Result<Report, String> {
    run_simulating(exec, model, lowered, guard, witnesses, 0)
}

/// `run`, with the cause probes of `simulate` (`Cause` bits) printed in the
/// form their cause gives them (`wgsl::selftest_module_simulating`).
pub fn run_simulating(
    exec: &mut dyn Executor,
    model: &Model,
    lowered: &[aether_generator::model::Function],
    guard: Guard,
    witnesses: &[Witness],
    simulate: u32,
) -> Result<Report, String> {
    let lang = Lang::of_stack(exec.stack());
    // On WGSL fusion is the rewrite of the whole module, its probe included
    // as the core's products are (printed plain, not in the fused form).
    let rewrite = lang == Lang::Wgsl && simulate & Cause::Fusion.bit() != 0;
    let printed = if rewrite { simulate & !Cause::Fusion.bit() } else { simulate };
    let mut module = lang.selftest_module_simulating(model, lowered, guard, witnesses, printed);
    if rewrite {
        let (fused, n) = crate::strict::fused(&module);
        if n == 0 {
            return Err("--simulate fusion: the module has no product that a sum reads directly".into());
        }
        module = fused;
    }
    let at = module.entries.iter().position(|e| e.entry == "check_selftest").ok_or("the self-test module has no check_selftest entry")?;
    let out = exec.run(&module, &[Job::new(&module, at, vec![0])]).map_err(|e| format!("{}: {e}", exec.stack()))?;
    Ok(Report { lang, stack: exec.stack().to_string(), adapter: exec.adapter(), words: out[0].iter().map(|&w| w as u32).collect() })
}
