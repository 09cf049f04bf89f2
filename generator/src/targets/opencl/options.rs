//! The OpenCL C compiler's build options that touch floating point (and the
//! `-cl-std` versions), each with its class on PoCL: the one table the core's
//! header prints (`header_lines`, in `opencl_core/aether_core.cl`) and
//! `aether-opencl --options-matrix` (`scripts/opencl-options.sh`) measures,
//! failing on a cell whose measured class differs from the table's, on a
//! header whose table differs from the measured one, and on a hole (bits
//! changed while the self-test passes).
//!
//! Every cell is the check program built with
//! `-cl-fp32-correctly-rounded-divide-sqrt` (the core's advice on a device
//! that reports it) and the cell's options, except the one cell built
//! without it (`correct_div_sqrt: false`).
//!
//! What the options define, as PoCL 3.1 (clang 15) compiles:
//! `-cl-fast-relaxed-math` defines `__FAST_RELAXED_MATH__`, `__FAST_MATH__`
//! and `__FINITE_MATH_ONLY__`; `-cl-finite-math-only` defines
//! `__FINITE_MATH_ONLY__`; `-cl-opt-disable` leaves `__OPTIMIZE__`
//! undefined; the others define nothing the core can test
//! (`-cl-single-precision-constant` shows only as `sizeof(1.0) == 4`).

/// What a build option does to the core on PoCL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionClass {
    /// The program does not build: the core's own `#error` names the option.
    Refused,
    /// The runtime refuses the option (`CL_INVALID_BUILD_OPTIONS`) before
    /// the compiler sees the core: a refusal of the driver's, not the core's.
    DriverRefused,
    /// It builds, the self-test passes, and every kernel gives the
    /// reference's bits.
    Held,
    /// It builds, bits change, and the self-test fails.
    Caught,
}

impl OptionClass {
    /// The class's word in the header's table and the report.
    pub fn name(self) -> &'static str {
        match self {
            OptionClass::Refused => "refused",
            OptionClass::DriverRefused => "driver-refused",
            OptionClass::Held => "held",
            OptionClass::Caught => "caught",
        }
    }

    pub fn from_name(name: &str) -> Option<OptionClass> {
        [OptionClass::Refused, OptionClass::DriverRefused, OptionClass::Held, OptionClass::Caught].into_iter().find(|c| c.name() == name)
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionCell {
    /// The options under test (empty: none).
    pub options: &'static str,
    /// Built with `-cl-fp32-correctly-rounded-divide-sqrt` too.
    pub correct_div_sqrt: bool,
    /// The class measured on PoCL.
    pub class: OptionClass,
    /// What shows it: the `#error`, the runtime's message, the self-test.
    pub note: &'static str,
}

const fn cell(options: &'static str, class: OptionClass, note: &'static str) -> OptionCell {
    OptionCell { options, correct_div_sqrt: true, class, note }
}

use OptionClass::{Caught, DriverRefused, Held, Refused};

/// The matrix: every option of clBuildProgram's list that touches floating
/// point, the `-cl-std` versions, and the combinations that matter.
pub const CELLS: &[OptionCell] = &[
    cell("", Held, "the core's advice: the baseline"),
    OptionCell {
        options: "",
        correct_div_sqrt: false,
        class: Held,
        note: "PoCL divides and takes roots correctly rounded anyway (elsewhere: [bands.opencl_relaxed])",
    },
    cell("-cl-single-precision-constant", Caught, "double literals become float: f64 polynomial witnesses fail"),
    cell("-cl-denorms-are-zero", Caught, "self-test: FLUSH_TO_ZERO, DENORMALS_ARE_ZERO"),
    cell("-cl-opt-disable", Held, "no macro but __OPTIMIZE__ undefined; bits kept"),
    cell("-cl-mad-enable", Held, "no macro; bits kept"),
    cell("-cl-no-signed-zeros", Caught, "no macro; signed-zero witnesses fail"),
    cell("-cl-unsafe-math-optimizations", Caught, "no macro; fused and reassociated: witnesses fail"),
    cell("-cl-finite-math-only", Refused, "#error on __FINITE_MATH_ONLY__"),
    cell("-cl-fast-relaxed-math", Refused, "#error on __FAST_RELAXED_MATH__"),
    cell("-cl-uniform-work-group-size", Held, "no macro; bits kept"),
    cell("-cl-no-subgroup-ifp", DriverRefused, "PoCL 3.1: Invalid build option"),
    cell("-cl-strict-aliasing", Held, "deprecated, accepted; bits kept"),
    cell("-cl-std=CL1.0", DriverRefused, "PoCL 3.1: Invalid build option"),
    cell("-cl-std=CL1.1", Refused, "#error on __OPENCL_C_VERSION__ < 120 (no static functions)"),
    cell("-cl-std=CL1.2", Held, "bits kept"),
    cell("-cl-std=CL2.0", Held, "bits kept (generic address space)"),
    cell("-cl-std=CL3.0", Held, "bits kept (PoCL's default: __OPENCL_C_VERSION__ 300)"),
    cell("-cl-mad-enable -cl-opt-disable", Held, "bits kept"),
    cell("-cl-mad-enable -cl-no-signed-zeros", Caught, "signed-zero witnesses fail"),
    cell("-cl-no-signed-zeros -cl-opt-disable", Held, "bits kept at -O0"),
    cell("-cl-unsafe-math-optimizations -cl-no-signed-zeros", Caught, "fused and reassociated: witnesses fail"),
    cell("-cl-unsafe-math-optimizations -cl-opt-disable", Caught, "witnesses fail at -O0 too"),
    cell("-cl-unsafe-math-optimizations -cl-finite-math-only", Refused, "#error on __FINITE_MATH_ONLY__"),
    cell("-cl-denorms-are-zero -cl-opt-disable", Caught, "self-test: FLUSH_TO_ZERO, DENORMALS_ARE_ZERO"),
    cell("-cl-std=CL3.0 -cl-uniform-work-group-size", Held, "bits kept"),
    cell("-cl-std=CL3.0 -DAETHER_NO_FP64 -cl-single-precision-constant", Held, "f32 only: the literals are float anyway"),
];

/// The option every cell but one adds.
pub const CORRECT_DIV_SQRT: &str = "-cl-fp32-correctly-rounded-divide-sqrt";

impl OptionCell {
    /// The cell's options as the table prints them.
    pub fn label(&self) -> String {
        match (self.options.is_empty(), self.correct_div_sqrt) {
            (true, true) => "(none)".to_string(),
            (true, false) => format!("(none, without {CORRECT_DIV_SQRT})"),
            (false, true) => self.options.to_string(),
            (false, false) => format!("{} (without {CORRECT_DIV_SQRT})", self.options),
        }
    }

    /// The options the check program is built with (before the options that
    /// size the kernels over arrays).
    pub fn build_options(&self) -> String {
        let base = if self.correct_div_sqrt { CORRECT_DIV_SQRT } else { "" };
        format!("{base} {}", self.options).trim().to_string()
    }
}

/// The first and last lines of the table in the core's header.
pub const TABLE_BEGIN: &str = "   Build options (the matrix; aether-opencl --options-matrix checks these rows):";
pub const TABLE_END: &str = "   (end of the build options matrix)";

/// The rows' column widths.
const OPTIONS_WIDTH: usize = 62;
const CLASS_WIDTH: usize = 14;

/// A row of the header's table.
pub fn row(label: &str, class: &str, note: &str) -> String {
    format!("     {label:<OPTIONS_WIDTH$} | {class:<CLASS_WIDTH$} | {note}").trim_end().to_string()
}

/// The header's lines: the classes, then one row per cell.
pub fn header_lines() -> Vec<String> {
    let mut v = vec![
        TABLE_BEGIN.to_string(),
        "   every option of clBuildProgram's list that touches floating point, and the -cl-std versions,".to_string(),
        format!("   built into the check program with {CORRECT_DIV_SQRT} and the row's options on PoCL 3.1"),
        "   (LLVM 15, a CPU device; scripts/opencl-options.sh, docs/reports/opencl-options.md):".to_string(),
        "     refused         the core's #error stops the build, naming the option".to_string(),
        "     driver-refused  the runtime refuses the option (CL_INVALID_BUILD_OPTIONS), not the core".to_string(),
        "     held            builds, the self-test passes, every kernel gives the reference's bits".to_string(),
        "     caught          builds, bits change, and the self-test fails".to_string(),
        "   No row changes bits while the self-test passes. Another compiler may class a row otherwise:".to_string(),
        "   run the check program's aether_selftest kernel built with your options on your device.".to_string(),
        row("options", "class", "what shows it"),
    ];
    for c in CELLS {
        v.push(row(&c.label(), c.class.name(), c.note));
    }
    v.push(TABLE_END.to_string());
    v
}

/// The rows of a header's table, `(label, class)`, read back from the
/// text of a core (`None` when it has no table).
pub fn read_header(text: &str) -> Option<Vec<(String, String)>> {
    let mut lines = text.lines().skip_while(|l| *l != TABLE_BEGIN);
    lines.next()?;
    let heading = row("options", "class", "what shows it");
    let mut rows = Vec::new();
    let mut seen_heading = false;
    for l in lines {
        if l == TABLE_END {
            return Some(rows);
        }
        if l == heading {
            seen_heading = true;
            continue;
        }
        if !seen_heading {
            continue;
        }
        let mut parts = l.split(" | ");
        let (Some(label), Some(class)) = (parts.next(), parts.next()) else { continue };
        rows.push((label.trim().to_string(), class.trim().to_string()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_reads_back() {
        let text = header_lines().join("\n");
        let rows = read_header(&text).expect("a table");
        assert_eq!(rows.len(), CELLS.len());
        for (c, (label, class)) in CELLS.iter().zip(&rows) {
            assert_eq!(*label, c.label());
            assert_eq!(OptionClass::from_name(class), Some(c.class));
        }
        let labels: std::collections::HashSet<String> = CELLS.iter().map(OptionCell::label).collect();
        assert_eq!(labels.len(), CELLS.len(), "every row once");
        assert!(header_lines().iter().all(|l| l.is_ascii() && !l.contains("*/")));
    }
}
