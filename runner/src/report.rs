//! The report: one table per stack, as plain text for the terminal and as
//! Markdown for `--report`.

use std::fmt::Write as _;

use crate::compare::{Change, Row, StackRun};
use crate::inputs::Source;

/// One stack's section.
#[derive(Debug, Clone)]
pub struct Section {
    pub run: StackRun,
    /// What the module is: `guard bits`, `guard none`, `mutant fold-left` ...
    pub module: String,
    /// For a control: the functions it changed against the model's module.
    pub changes: Option<Vec<Change>>,
}

/// Everything a report states besides the sections.
#[derive(Debug, Clone)]
pub struct Header {
    pub command: String,
    pub seed: u64,
    pub random: usize,
    /// Notes that hold for every stack (callables without an entry, ...).
    pub notes: Vec<String>,
}

const COLUMNS: [&str; 11] =
    ["function", "inputs", "cases", "in-domain", "identical", "worst ulp", "worst fwd", "band", "outside", "ood differ", "note"];

fn num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.fract() == 0.0 && x < 1e9 {
        format!("{x}")
    } else {
        format!("{x:.3}")
    }
}

/// A function as the table names it: its C name, and the entry point when
/// it is not the one entry of that name (`check_` and the name).
pub fn label(entry: &str, c_name: &str) -> String {
    if entry.strip_prefix("check_") == c_name.strip_prefix("aether_") {
        c_name.to_string()
    } else {
        format!("{c_name} [{entry}]")
    }
}

fn cells(r: &Row) -> [String; 11] {
    let mut note = String::new();
    if r.corpus_skipped > 0 {
        note = format!("{} corpus cases of other sizes not run", r.corpus_skipped);
    }
    [
        label(&r.entry, &r.c_name),
        match r.source {
            Source::CorpusAndRandom => format!("corpus {} + random {}", r.corpus, r.random),
            Source::CorpusOnly => format!("corpus {} only", r.corpus),
        },
        r.cases.to_string(),
        r.in_domain.to_string(),
        r.identical.to_string(),
        num(r.worst_ulp),
        num(r.worst_factor),
        r.band.clone(),
        r.outside.to_string(),
        r.ood_differ.to_string(),
        note,
    ]
}

/// Totals over a section's rows: (cases, in-domain, identical, outside, ood differ).
pub fn totals(rows: &[Row]) -> (usize, usize, usize, usize, usize) {
    rows.iter().fold((0, 0, 0, 0, 0), |t, r| (t.0 + r.cases, t.1 + r.in_domain, t.2 + r.identical, t.3 + r.outside, t.4 + r.ood_differ))
}

fn hex(words: &[u64]) -> String {
    words.iter().map(|w| format!("{w:08x}")).collect::<Vec<_>>().join(" ")
}

fn outside_lines(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            r.worst_outside.as_ref().map(|x| {
                format!(
                    "{}: {} in-domain cases outside {}; worst: inputs [{}] reference [{}] got [{}] ({} ulp, factor {})",
                    label(&r.entry, &r.c_name),
                    r.outside,
                    r.band,
                    hex(&x.inputs),
                    hex(&x.expected),
                    hex(&x.got),
                    num(x.ulp),
                    num(x.factor)
                )
            })
        })
        .collect()
}

fn worst_lines(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        for (what, x) in [("ulp", &r.worst_ulp_case), ("forward factor", &r.worst_factor_case)] {
            if let Some(x) = x {
                out.push(format!(
                    "{}: worst {what}: inputs [{}] reference [{}] got [{}] ({} ulp, factor {})",
                    label(&r.entry, &r.c_name),
                    hex(&x.inputs),
                    hex(&x.expected),
                    hex(&x.got),
                    num(x.ulp),
                    num(x.factor)
                ));
            }
        }
    }
    out
}

fn change_lines(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| {
            format!(
                "{}: identical {} -> {} of {} cases; {} cases give other words than the model's module",
                label(&c.entry, &c.c_name),
                c.identical_before,
                c.identical_after,
                c.cases,
                c.cases_differ
            )
        })
        .collect()
}

/// The plain-text report.
pub fn text(h: &Header, sections: &[Section]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "command: {}", h.command);
    let _ = writeln!(s, "seed: {:#018x}; random inputs per entry: {}", h.seed, h.random);
    for n in &h.notes {
        let _ = writeln!(s, "note: {n}");
    }
    for sec in sections {
        let rows: Vec<[String; 11]> = sec.run.rows.iter().map(cells).collect();
        let mut width: Vec<usize> = COLUMNS.iter().map(|c| c.len()).collect();
        for r in &rows {
            for (w, c) in width.iter_mut().zip(r) {
                *w = (*w).max(c.len());
            }
        }
        let line = |cells: &[String]| -> String {
            let v: Vec<String> = cells
                .iter()
                .zip(&width)
                .enumerate()
                .map(|(i, (c, w))| if i < 2 { format!("{c:<w$}") } else { format!("{c:>w$}") })
                .collect();
            v.join("  ").trim_end().to_string()
        };
        let _ = writeln!(s);
        let _ = writeln!(s, "== {} ({}) on {}", sec.run.stack, sec.module, sec.run.adapter);
        let _ = writeln!(s, "{}", line(&COLUMNS.map(String::from)));
        for r in &rows {
            let _ = writeln!(s, "{}", line(r));
        }
        let t = totals(&sec.run.rows);
        let _ = writeln!(
            s,
            "{}: {} entries, {} cases, {} in-domain, {} identical, {} in-domain outside the band, {} out-of-domain differ",
            sec.run.stack,
            sec.run.rows.len(),
            t.0,
            t.1,
            t.2,
            t.3,
            t.4
        );
        for l in outside_lines(&sec.run.rows) {
            let _ = writeln!(s, "outside: {l}");
        }
        if let Some(ch) = &sec.changes {
            if ch.is_empty() {
                let _ = writeln!(s, "{} ({}): no function stops being bit-identical", sec.run.stack, sec.module);
            } else {
                let _ = writeln!(s, "{} ({}): {} functions stop being bit-identical:", sec.run.stack, sec.module, ch.len());
                for l in change_lines(ch) {
                    let _ = writeln!(s, "  changed: {l}");
                }
            }
        }
    }
    s
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The Markdown report: one section per stack.
pub fn markdown(h: &Header, sections: &[Section]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# WGSL check module against the reference\n");
    let _ = writeln!(s, "Command: `{}`\n", h.command);
    let _ = writeln!(s, "Seed `{:#018x}`; {} random inputs per entry whose words are plain floats.\n", h.seed, h.random);
    for n in &h.notes {
        let _ = writeln!(s, "- {}", md_escape(n));
    }
    if !h.notes.is_empty() {
        let _ = writeln!(s);
    }
    for sec in sections {
        let t = totals(&sec.run.rows);
        let _ = writeln!(s, "## {} ({})\n", sec.run.stack, sec.module);
        let _ = writeln!(s, "Adapter/driver: {}\n", md_escape(&sec.run.adapter));
        let _ = writeln!(
            s,
            "{} entries, {} cases, {} in-domain, {} bit-identical, **{} in-domain outside the band**, {} out-of-domain differ.\n",
            sec.run.rows.len(),
            t.0,
            t.1,
            t.2,
            t.3,
            t.4
        );
        let _ = writeln!(s, "| {} |", COLUMNS.join(" | "));
        let _ = writeln!(s, "|{}", COLUMNS.iter().enumerate().map(|(i, _)| if i < 2 { "---|" } else { "---:|" }).collect::<String>());
        for r in &sec.run.rows {
            let c = cells(r);
            let _ = writeln!(s, "| {} |", c.iter().map(|x| md_escape(x)).collect::<Vec<_>>().join(" | "));
        }
        let out = outside_lines(&sec.run.rows);
        if !out.is_empty() {
            let _ = writeln!(s, "\nOutside the band:\n");
            for l in out {
                let _ = writeln!(s, "- {}", md_escape(&l));
            }
        }
        let worst = worst_lines(&sec.run.rows);
        if !worst.is_empty() {
            let _ = writeln!(s, "\n<details><summary>The worst in-domain cases</summary>\n");
            for l in worst {
                let _ = writeln!(s, "- {}", md_escape(&l));
            }
            let _ = writeln!(s, "\n</details>");
        }
        if let Some(ch) = &sec.changes {
            if ch.is_empty() {
                let _ = writeln!(s, "\nNo function stops being bit-identical under this module.");
            } else {
                let _ = writeln!(s, "\nFunctions that stop being bit-identical under this module ({}):\n", ch.len());
                for l in change_lines(ch) {
                    let _ = writeln!(s, "- {}", md_escape(&l));
                }
            }
        }
        let _ = writeln!(s);
    }
    s
}
