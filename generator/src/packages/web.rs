//! The web package's generated files (`web/generated/`): the WGSL and GLSL ES
//! cores as JavaScript strings, taken from the cores' own outputs (no second
//! copy), and the item table that the package's subset tool (`web/subset.js`)
//! reads: every top-level item of every core, its kind, its name, its byte
//! range in the core's text and the items it references.
//!
//! The table is computed from the generated text with a small lexer: comments
//! and the nesting of `{}`, `()` and `[]`; an item ends at a `;` or a `}` that
//! returns to the top level (a `}` followed by `;`, a GLSL struct, ends at the
//! `;`), and begins with the comment lines directly above it (no blank line
//! between). What lies between items must be whitespace and comments only, and
//! every item must have a name and a known kind, or the generator stops. An
//! item references every other item whose name occurs among its identifiers
//! (comments excluded): a local that shadows an item's name can only add an
//! item, never drop one. The browser test (`scripts/web.sh`) compiles every
//! item with what it references, in WGSL and in GLSL, and a selection with one
//! reference dropped, which must fail.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::model::Model;
use crate::targets::Output;

/// The folder the generator owns in the package.
pub const FOLDER: &str = "web/generated";

/// The cores the package exports: (export name, path of the core's output, language).
/// `wgslCore` is the strict build (every rounded result guarded: the bits
/// survive a driver that fuses or reassociates), the package's choice;
/// `wgslCoreFast` the default build of `wgsl_core/aether_core.wgsl`.
const SOURCES: [(&str, &str, Lang); 7] = [
    ("wgslCore", crate::targets::wgsl::strict::PATH, Lang::Wgsl),
    ("wgslCoreFast", "wgsl_core/aether_core.wgsl", Lang::Wgsl),
    ("wgslDf64", "wgsl_core/aether_df64.wgsl", Lang::Wgsl),
    ("wgslPredicate", "wgsl_core/aether_predicate.wgsl", Lang::Wgsl),
    ("glslCore", "glsl_core/aether_core.glsl", Lang::Glsl),
    ("glslDf64", "glsl_core/aether_df64.glsl", Lang::Glsl),
    ("glslPredicate", "glsl_core/aether_predicate.glsl", Lang::Glsl),
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    Wgsl,
    Glsl,
}

/// One top-level item of a core.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    kind: &'static str,
    name: String,
    /// Byte range in the core, from its attached comment to past its newline.
    start: usize,
    end: usize,
    /// The identifiers of its code (not its comments), each once.
    idents: Vec<String>,
}

pub fn render(model: &Model, banner: &str, cores: &[Output]) -> Result<Vec<Output>, Error> {
    let head = js_banner(banner);
    let mut sources = format!(
        "{head}\n// The aether cores as strings: each is the generated core's file, byte for byte.\n\n\
         export const version = {};\nexport const contractId = {};\n",
        js_string(&model.spec.version),
        js_string(&crate::selftest::contract_id(model)),
    );
    let mut items = format!(
        "{head}\n// Every top-level item of each core (generator/src/packages/web.rs): [kind, name, start, end,\n\
         // [indices of the items it references]], in the core's order; start and end are JavaScript string\n\
         // indices (UTF-16 code units: a spec's text may put non-ASCII characters in a comment), from the\n\
         // item's attached comment to past its last newline.\n\nexport const items = {{\n"
    );
    for (export, path, lang) in SOURCES {
        let core =
            cores.iter().find(|o| o.path == path).ok_or_else(|| Error::Inconsistent(format!("web package: no generated core {path}")))?;
        let text = &core.contents;
        sources.push_str(&format!("\n// {path}\nexport const {export} = {};\n", js_string(text)));
        let table = scan(text, lang).map_err(|e| Error::Inconsistent(format!("web package: {path}: {e}")))?;
        let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, it) in table.iter().enumerate() {
            by_name.entry(it.name.as_str()).or_default().push(i);
        }
        for (name, idx) in &by_name {
            // GLSL may overload a function or declare it before defining it;
            // nothing else may share a name.
            if idx.len() > 1 && !(lang == Lang::Glsl && idx.iter().all(|&i| table[i].kind == "fn" || table[i].kind == "prototype")) {
                return Err(Error::Inconsistent(format!("web package: {path}: {} items named {name}", idx.len())));
            }
        }
        items.push_str(&format!("  {export}: [\n"));
        let index = Utf16Index::new(text);
        for (i, it) in table.iter().enumerate() {
            let mut deps: Vec<usize> = it
                .idents
                .iter()
                .filter(|id| **id != it.name)
                .filter_map(|id| by_name.get(id.as_str()))
                .flatten()
                .copied()
                .filter(|&j| j != i)
                .collect();
            deps.sort_unstable();
            deps.dedup();
            let deps: Vec<String> = deps.iter().map(|d| d.to_string()).collect();
            items.push_str(&format!(
                "    [{}, {}, {}, {}, [{}]],\n",
                js_string(it.kind),
                js_string(&it.name),
                index.at(it.start),
                index.at(it.end),
                deps.join(", ")
            ));
        }
        items.push_str("  ],\n");
    }
    items.push_str("};\n");

    let fields = selftest_fields(cores)?;
    let rules: Vec<String> = crate::mutants::ALL.iter().map(|m| js_string(m.name())).collect();
    let selftest = format!(
        "{head}\n// The WGSL self-test's report: aether_selftest_report's fields in order (u32 each), and the\n\
         // rules whose bits failed_rules sets (bit k: the k-th name).\n\n\
         export const selftestFields = [{}];\nexport const selftestRules = [{}];\n",
        fields.iter().map(|f| js_string(f)).collect::<Vec<_>>().join(", "),
        rules.join(", "),
    );
    Ok(vec![
        Output::new(format!("{FOLDER}/sources.js"), sources),
        Output::new(format!("{FOLDER}/items.js"), items),
        Output::new(format!("{FOLDER}/selftest.js"), selftest),
    ])
}

/// Byte offsets of a text as JavaScript string indices (UTF-16 code units);
/// the same numbers for an ASCII text.
struct Utf16Index {
    /// For a non-ASCII text, the index at every byte that starts a character.
    units: Option<Vec<usize>>,
}

impl Utf16Index {
    fn new(text: &str) -> Self {
        if text.is_ascii() {
            return Utf16Index { units: None };
        }
        let mut units = vec![0; text.len() + 1];
        let mut u = 0;
        for (b, c) in text.char_indices() {
            units[b] = u;
            u += c.len_utf16();
        }
        units[text.len()] = u;
        Utf16Index { units: Some(units) }
    }

    /// The index at byte `b`, a character boundary.
    fn at(&self, b: usize) -> usize {
        self.units.as_ref().map_or(b, |u| u[b])
    }
}

/// The generator's banner as a JavaScript comment (a C comment is one; the
/// wording names this module).
fn js_banner(banner: &str) -> String {
    let body = banner.trim_start_matches("/*").trim_end_matches("*/").trim();
    let mut out = String::new();
    for line in body.lines() {
        out.push_str("// ");
        out.push_str(line.trim());
        out.push('\n');
    }
    out.push_str("// Written by generator/src/packages/web.rs from the generated cores.\n");
    out
}

/// A JavaScript string literal (JSON's escapes).
fn js_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The fields of the WGSL core's `aether_selftest_report`, in order.
fn selftest_fields(cores: &[Output]) -> Result<Vec<String>, Error> {
    let core = cores
        .iter()
        .find(|o| o.path == "wgsl_core/aether_core.wgsl")
        .ok_or_else(|| Error::Inconsistent("web package: no WGSL core".into()))?;
    let text = &core.contents;
    let at = text
        .find("struct aether_selftest_report {")
        .ok_or_else(|| Error::Inconsistent("web package: the WGSL core has no aether_selftest_report".into()))?;
    let body = &text[at..];
    let close = body.find('}').ok_or_else(|| Error::Inconsistent("web package: aether_selftest_report is not closed".into()))?;
    let fields: Vec<String> = body[..close]
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().strip_suffix("u32,").map(|f| f.trim().trim_end_matches(':').trim().to_string()))
        .collect();
    if fields.is_empty() || fields.len() != body[..close].lines().skip(1).filter(|l| !l.trim().is_empty()).count() {
        return Err(Error::Inconsistent("web package: aether_selftest_report has a field that is not a u32".into()));
    }
    Ok(fields)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Skips a comment at `i` (`//` to the end of the line, or `/* */`, nested in
/// WGSL); returns the index past it, or `None` when no comment starts at `i`.
fn skip_comment(t: &[u8], i: usize, lang: Lang) -> Result<Option<usize>, String> {
    if t.get(i) != Some(&b'/') {
        return Ok(None);
    }
    match t.get(i + 1) {
        Some(b'/') => Ok(Some(t[i..].iter().position(|&b| b == b'\n').map_or(t.len(), |p| i + p))),
        Some(b'*') => {
            let mut depth = 1;
            let mut j = i + 2;
            while j < t.len() {
                if t[j] == b'*' && t.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        return Ok(Some(j));
                    }
                } else if lang == Lang::Wgsl && t[j] == b'/' && t.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            Err(format!("a comment at byte {i} is not closed"))
        }
        _ => Ok(None),
    }
}

/// The start of the line holding byte `i`.
fn line_start(t: &[u8], i: usize) -> usize {
    t[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1)
}

/// Every top-level item of a core, in order.
fn scan(text: &str, lang: Lang) -> Result<Vec<Item>, String> {
    // Bytes: a spec's texts may put non-ASCII characters in the comments (they
    // are never identifiers or punctuation), which the lexer passes over.
    let t = text.as_bytes();
    let mut items = Vec::new();
    let mut i = 0;
    // The start of the comment lines directly above the next item.
    let mut attached: Option<usize> = None;
    while i < t.len() {
        // Between items: whitespace and comments only.
        let b = t[i];
        if b == b'\n' {
            // A blank line detaches the comments above it.
            let next_line = &t[i + 1..];
            let blank = next_line.iter().take_while(|&&c| c != b'\n').all(|c| c.is_ascii_whitespace());
            if blank {
                attached = None;
            }
            i += 1;
            continue;
        }
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if let Some(j) = skip_comment(t, i, lang)? {
            let ls = line_start(t, i);
            let only_space_before = t[ls..i].iter().all(|c| c.is_ascii_whitespace());
            if only_space_before && attached.is_none() {
                attached = Some(ls);
            }
            i = j;
            continue;
        }
        // An item starts here.
        let code_start = i;
        let start = attached.take().unwrap_or_else(|| line_start(t, i));
        if t[line_start(t, i)..i].iter().any(|c| !c.is_ascii_whitespace()) {
            return Err(format!("an item at byte {i} does not start its line"));
        }
        let mut depth: i32 = 0;
        let mut idents: Vec<String> = Vec::new();
        // The top-level tokens (identifiers and single punctuation) for the item's kind and name.
        let mut top: Vec<String> = Vec::new();
        let mut end = None;
        while i < t.len() {
            if let Some(j) = skip_comment(t, i, lang)? {
                i = j;
                continue;
            }
            let b = t[i];
            if is_ident_start(b) {
                let s = i;
                while i < t.len() && is_ident(t[i]) {
                    i += 1;
                }
                let id = &text[s..i];
                if !idents.iter().any(|x| x == id) {
                    idents.push(id.to_string());
                }
                if depth == 0 {
                    top.push(id.to_string());
                }
                continue;
            }
            if b.is_ascii_digit() {
                while i < t.len() && (is_ident(t[i]) || t[i] == b'.') {
                    i += 1;
                }
                continue;
            }
            if b == b'#' {
                return Err(format!("a preprocessor line at byte {i}"));
            }
            match b {
                b'{' | b'(' | b'[' => {
                    if depth == 0 {
                        top.push((b as char).to_string());
                    }
                    depth += 1;
                }
                b'}' | b')' | b']' => {
                    depth -= 1;
                    if depth < 0 {
                        return Err(format!("an unbalanced '{}' at byte {i}", b as char));
                    }
                    if depth == 0 && b == b'}' {
                        // A `}` back at the top ends the item, unless a `;` follows (a GLSL struct).
                        let mut j = i + 1;
                        while j < t.len() && (t[j] == b' ' || t[j] == b'\t') {
                            j += 1;
                        }
                        end = Some(if t.get(j) == Some(&b';') { j + 1 } else { i + 1 });
                        break;
                    }
                }
                b';' if depth == 0 => {
                    top.push(";".into());
                    end = Some(i + 1);
                    break;
                }
                _ => {
                    if depth == 0 && !b.is_ascii_whitespace() {
                        top.push((b as char).to_string());
                    }
                }
            }
            i += 1;
        }
        let code_end = end.ok_or_else(|| format!("the item at byte {code_start} does not end"))?;
        // The item's text runs past the rest of its last line, which must be empty.
        let mut e = code_end;
        while e < t.len() && t[e] != b'\n' {
            if !t[e].is_ascii_whitespace() {
                return Err(format!("code follows the item that ends at byte {code_end} on its line"));
            }
            e += 1;
        }
        if e < t.len() {
            e += 1;
        }
        let (kind, name) = kind_and_name(&top, lang).ok_or_else(|| {
            format!(
                "the item at byte {code_start} ({}) has no kind and name",
                text[code_start..code_end.min(code_start + 60)].replace('\n', " ")
            )
        })?;
        items.push(Item { kind, name, start, end: e, idents });
        i = e;
        attached = None;
    }
    Ok(items)
}

/// An item's kind and name from its top-level tokens.
fn kind_and_name(top: &[String], lang: Lang) -> Option<(&'static str, String)> {
    let ident = |s: &String| s.bytes().next().is_some_and(is_ident_start);
    let first = top.first()?;
    match lang {
        Lang::Wgsl => {
            let kind = match first.as_str() {
                "fn" => "fn",
                "struct" => "struct",
                "const" => "const",
                "alias" => "alias",
                "override" => "override",
                "var" => "var",
                _ => return None,
            };
            let mut rest = top[1..].iter();
            if kind == "var" {
                // var<space[, access]> name
                let mut it = top[1..].iter().peekable();
                if it.peek().map(|s| s.as_str()) == Some("<") {
                    for s in it.by_ref() {
                        if s == ">" {
                            break;
                        }
                    }
                }
                return it.find(|s| ident(s)).map(|n| (kind, n.clone()));
            }
            rest.find(|s| ident(s)).map(|n| (kind, n.clone()))
        }
        Lang::Glsl => {
            if first == "struct" {
                return top.get(1).filter(|s| ident(s)).map(|n| ("struct", n.clone()));
            }
            // The identifier before the first of ( [ = ;
            let at = top.iter().position(|s| s == "(" || s == "[" || s == "=" || s == ";")?;
            let name = top[..at].last().filter(|s| ident(s))?.clone();
            let kind = if top[at] == "(" {
                if top.last().map(|s| s.as_str()) == Some(";") {
                    "prototype"
                } else {
                    "fn"
                }
            } else if first == "const" {
                "const"
            } else {
                "var"
            };
            Some((kind, name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wgsl_items() {
        let src = "/* banner */\n\n// about a\nvar<private> a: u32;\n\n// f\n// more\nfn f(x: f32) -> f32 {\n    // a comment naming b\n    return x + f32(a);\n}\n\nstruct S {\n    x: f32,\n}\n";
        let items = scan(src, Lang::Wgsl).unwrap();
        let got: Vec<(&str, &str, &str)> = items.iter().map(|i| (i.kind, i.name.as_str(), &src[i.start..i.end])).collect();
        assert_eq!(
            got,
            vec![
                ("var", "a", "// about a\nvar<private> a: u32;\n"),
                ("fn", "f", "// f\n// more\nfn f(x: f32) -> f32 {\n    // a comment naming b\n    return x + f32(a);\n}\n"),
                ("struct", "S", "struct S {\n    x: f32,\n}\n"),
            ]
        );
        assert!(items[1].idents.contains(&"a".to_string()));
        assert!(!items[1].idents.contains(&"b".to_string()));
    }

    #[test]
    fn non_ascii_comments_are_passed_over_and_indexed_in_utf16() {
        // A spec's doc may be any text (names::check_text): é is one UTF-16 unit in two
        // bytes, 𝜋 two units in four.
        let src = "// é and 𝜋\nfn f() -> f32 {\n    return 1.0;\n}\n\n// ü\nfn g() -> f32 {\n    return f();\n}\n";
        let items = scan(src, Lang::Wgsl).unwrap();
        let index = Utf16Index::new(src);
        let units: Vec<u16> = src.encode_utf16().collect();
        for it in &items {
            let (a, b) = (index.at(it.start), index.at(it.end));
            assert_eq!(String::from_utf16(&units[a..b]).unwrap(), &src[it.start..it.end]);
        }
        assert_eq!(index.at(items[1].start), items[1].start - 3, "é and 𝜋: 6 bytes, 3 units before g");
        assert_eq!(Utf16Index::new("fn f() {}\n").at(5), 5);
    }

    #[test]
    fn glsl_items() {
        let src = "struct S {\n    float x;\n};\n\nconst uvec2 w[2] = uvec2[2](\n    uvec2(0u, 1u), uvec2(2u, 3u)\n);\n\nfloat g(S s);\nfloat g(S s) {\n    return s.x;\n}\n";
        let items = scan(src, Lang::Glsl).unwrap();
        let got: Vec<(&str, &str)> = items.iter().map(|i| (i.kind, i.name.as_str())).collect();
        assert_eq!(got, vec![("struct", "S"), ("const", "w"), ("prototype", "g"), ("fn", "g")]);
    }

    #[test]
    fn refuses_code_between_items() {
        assert!(scan("fn f() {\n} x\n", Lang::Wgsl).is_err());
        assert!(scan("#define X 1\n", Lang::Glsl).is_err());
    }
}
