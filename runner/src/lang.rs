//! The shader languages the runner checks, and what differs between them:
//! the check module and the self-test's module each target's generator
//! prints, its callables, its band table and the stacks that run it. The
//! comparison with the reference, the bands and the report are one code for
//! all of them (`compare`, `report`).

use aether_generator::model::{Callable, Function, Model};
use aether_generator::selftest::Witness;
use aether_generator::targets::shared::check::{CheckModule, Guard};
use aether_generator::targets::{glsl, wgsl};

/// A shader language with a check module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// WGSL on WebGPU stacks (compute entry points).
    Wgsl,
    /// GLSL ES 3.00 on GL stacks (one vertex per case, transform feedback).
    Glsl,
}

impl Lang {
    /// By the name the command line takes.
    pub fn from_name(name: &str) -> Option<Lang> {
        match name {
            "wgsl" => Some(Lang::Wgsl),
            "glsl" => Some(Lang::Glsl),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::Wgsl => "wgsl",
            Lang::Glsl => "glsl",
        }
    }

    /// The core's name in messages.
    pub fn title(self) -> &'static str {
        match self {
            Lang::Wgsl => "WGSL",
            Lang::Glsl => "GLSL ES",
        }
    }

    /// The stacks that run this language's module, by the names `open` takes.
    pub fn stacks(self) -> &'static [&'static str] {
        match self {
            Lang::Wgsl => &crate::STACKS,
            Lang::Glsl => &crate::GLSL_STACKS,
        }
    }

    /// The key of its band table.
    pub fn bands(self) -> &'static str {
        match self {
            Lang::Wgsl => wgsl::BANDS,
            Lang::Glsl => glsl::BANDS,
        }
    }

    /// The check module of `lowered` (the model's, or a mutant's) with `guard`.
    pub fn check_module(self, model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
        match self {
            Lang::Wgsl => wgsl::check_module(model, lowered, guard),
            Lang::Glsl => glsl::check_module(model, lowered, guard),
        }
    }

    /// The module of the self-test alone.
    pub fn selftest_module(self, model: &Model, lowered: &[Function], guard: Guard, witnesses: &[Witness]) -> CheckModule {
        match self {
            Lang::Wgsl => wgsl::selftest_module(model, lowered, guard, witnesses),
            Lang::Glsl => glsl::selftest_module(model, lowered, guard, witnesses),
        }
    }

    /// The module of the self-test alone, with the cause probes of `simulate`
    /// (`selftest::Cause` bits) in the form their cause gives them.
    pub fn selftest_module_simulating(
        self,
        model: &Model,
        lowered: &[Function],
        guard: Guard,
        witnesses: &[Witness],
        simulate: u32,
    ) -> CheckModule {
        match self {
            Lang::Wgsl => wgsl::selftest_module_simulating(model, lowered, guard, witnesses, simulate),
            Lang::Glsl => glsl::selftest_module_simulating(model, lowered, guard, witnesses, simulate),
        }
    }

    /// The self-test's witnesses, from the corpus.
    pub fn selftest_witnesses(self, model: &Model, cases_of: &dyn Fn(&str) -> Option<Vec<aether_generator::corpus::Case>>) -> Vec<Witness> {
        match self {
            Lang::Wgsl => wgsl::selftest_witnesses(model, cases_of),
            Lang::Glsl => glsl::selftest_witnesses(model, cases_of),
        }
    }

    /// The fields of the self-test's report, in order.
    pub fn selftest_fields(self) -> &'static [&'static str] {
        match self {
            Lang::Wgsl => &wgsl::SELFTEST_FIELDS,
            Lang::Glsl => &glsl::SELFTEST_FIELDS,
        }
    }

    /// The callables its core has.
    pub fn callables(self, model: &Model) -> Vec<Callable<'_>> {
        match self {
            Lang::Wgsl => wgsl::callables(model),
            Lang::Glsl => glsl::callables(model),
        }
    }

    /// The df64 check module of `lowered` with `guard` (one entry per f64
    /// function df64 runs, `check_df64_<name>`).
    pub fn df64_check_module(self, model: &Model, lowered: &[Function], guard: Guard) -> CheckModule {
        match self {
            Lang::Wgsl => wgsl::df64::check_module(model, lowered, guard),
            Lang::Glsl => glsl::df64::check_module(model, lowered, guard),
        }
    }

    /// `source` with the renorm operation the identity (the control without
    /// the loaded-low-word guard), or None when its text changed.
    pub fn df64_without_renorm(self, model: &Model, source: &str) -> Option<String> {
        match self {
            Lang::Wgsl => wgsl::df64::without_renorm_op(model, source),
            Lang::Glsl => glsl::df64::without_renorm_op(model, source),
        }
    }

    /// The language of a stack's module.
    pub fn of_stack(stack: &str) -> Lang {
        if crate::GLSL_STACKS.contains(&stack) {
            Lang::Glsl
        } else {
            Lang::Wgsl
        }
    }
}
