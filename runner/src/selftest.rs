//! A shader core's self-test on each stack: `aether_selftest()` of the core
//! (`wgsl::selftest_module`, `glsl::selftest_module`, by the stack's language), its report read back and printed, and the
//! expectations a run states checked (which stacks flush subnormals, whether
//! the witnesses must pass or, for a mutant's core, must fail).

use aether_generator::model::Model;
use aether_generator::selftest::Witness;
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

    /// One line: every field, and the rules that failed by name.
    pub fn line(&self) -> String {
        let fields: Vec<String> = self.lang.selftest_fields().iter().zip(&self.words).map(|(f, w)| format!("{f}={w}")).collect();
        let rules: Vec<&str> = aether_generator::mutants::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| self.field("failed_rules") >> i & 1 == 1)
            .map(|(_, m)| m.name())
            .collect();
        let rules = if rules.is_empty() { String::new() } else { format!(" (failing rules: {})", rules.join(", ")) };
        format!("selftest {} on {}: {}{rules}", self.stack, self.adapter, fields.join(" "))
    }
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
    let lang = Lang::of_stack(exec.stack());
    let module = lang.selftest_module(model, lowered, guard, witnesses);
    let at = module.entries.iter().position(|e| e.entry == "check_selftest").ok_or("the self-test module has no check_selftest entry")?;
    let out = exec.run(&module, &[Job::new(&module, at, vec![0])]).map_err(|e| format!("{}: {e}", exec.stack()))?;
    Ok(Report { lang, stack: exec.stack().to_string(), adapter: exec.adapter(), words: out[0].iter().map(|&w| w as u32).collect() })
}
