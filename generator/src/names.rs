//! What a spec's names and texts may be, for every target that prints them.
//!
//! A name the spec chooses lands in every core: a parameter, a `name = ...`
//! step of a body, an array or a vector component becomes a C, CUDA, OpenCL C
//! or WGSL identifier as it is; a family, shape, type or kernel name becomes
//! part of one (`aether_vec3f_dot`). A text (a doc, a probe label, a comment
//! of a body) lands in the comments of every target, by one rule
//! ([`check_text`]); the contract's name and version land in string literals,
//! CMake and pkg-config files. Each is checked here, once, before anything is
//! built, so that an accepted spec never emits code a compiler refuses.

/// Each target's keyword list, `(target, text)`: the words of
/// `src/targets/<target>/keywords.txt` (whitespace-separated, `#` to the end
/// of a line a comment), collected by the build script from every target
/// folder. A word there is a keyword or reserved word of the target's
/// language, or a library or built-in name its core calls inside a function
/// body (a local of that name would hide it).
const TARGET_KEYWORDS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/target_keywords.rs"));

/// The words of one keyword list.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|l| l.split('#').next().unwrap_or("").split_whitespace())
}

/// The keywords of `target` (empty for a target with no list).
pub fn keywords(target: &str) -> Vec<&'static str> {
    TARGET_KEYWORDS.iter().filter(|(t, _)| *t == target).flat_map(|(_, text)| words(text)).collect()
}

/// Every reserved word and the targets reserving it, in folder order: built
/// once, since the model asks for each temporary it names (a linear scan of
/// the lists made the spec fuzzer's seed run for over ten seconds).
fn reserved() -> &'static std::collections::HashMap<&'static str, Vec<&'static str>> {
    static TABLE: std::sync::OnceLock<std::collections::HashMap<&'static str, Vec<&'static str>>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: std::collections::HashMap<&'static str, Vec<&'static str>> = std::collections::HashMap::new();
        for (target, text) in TARGET_KEYWORDS {
            for w in words(text) {
                let targets = table.entry(w).or_default();
                if !targets.contains(target) {
                    targets.push(target);
                }
            }
        }
        table
    })
}

/// The targets whose language reserves `name` (or whose core calls it in a
/// body), in folder order.
pub fn reserving(name: &str) -> Vec<&'static str> {
    reserved().get(name).cloned().unwrap_or_default()
}

/// Whether a target reserves `name` (or a core calls it in a body).
pub fn is_reserved(name: &str) -> bool {
    reserved().contains_key(name)
}

/// Whether `s` is an identifier in every target: ASCII letters, digits and
/// `_`, starting with a letter (a leading `_` is reserved in C and `__` in
/// WGSL).
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The longest name the spec may choose: C guarantees 63 significant
/// characters of an internal identifier, and the cores prefix the names.
pub const MAX_NAME: usize = 40;

/// Checks a name that becomes part of a core's identifiers (a family, shape,
/// type, kernel or operation name): `what` says which, for the message.
pub fn check_part(name: &str, what: &str) -> Result<(), String> {
    if !is_identifier(name) {
        return Err(format!(
            "{what} `{}` is not an identifier of every target (ASCII letters, digits and `_`, starting with a letter)",
            name.escape_debug()
        ));
    }
    if name.len() > MAX_NAME {
        return Err(format!("{what} `{name}` is longer than {MAX_NAME} characters"));
    }
    if name.to_ascii_lowercase().starts_with("aether") {
        return Err(format!("{what} `{name}`: names starting with `aether` belong to the cores themselves"));
    }
    Ok(())
}

/// Checks a name that a core prints as an identifier on its own (a
/// parameter, a step of a body, an array, a vector component).
pub fn check_local(name: &str, what: &str) -> Result<(), String> {
    check_part(name, what)?;
    let targets = reserving(name);
    if !targets.is_empty() {
        return Err(format!(
            "{what} `{name}` is reserved by target {} (generator/src/targets/{}/keywords.txt)",
            targets.join(", "),
            targets[0]
        ));
    }
    Ok(())
}

/// The characters that end a line where some target reads a comment: a
/// newline everywhere; a carriage return in WGSL and GLSL ES (and rustc
/// refuses a bare one in a doc comment); a vertical tab, a form feed, NEXT
/// LINE, LINE SEPARATOR and PARAGRAPH SEPARATOR in WGSL (its spec's line
/// breaks), where a `//` comment ends there and the rest is read as code.
pub const LINE_BREAKS: &[(char, &str)] = &[
    ('\n', "a newline"),
    ('\r', "a carriage return (\\r)"),
    ('\u{b}', "a vertical tab (\\u{b})"),
    ('\u{c}', "a form feed (\\u{c})"),
    ('\u{85}', "U+0085 NEXT LINE"),
    ('\u{2028}', "U+2028 LINE SEPARATOR"),
    ('\u{2029}', "U+2029 PARAGRAPH SEPARATOR"),
];

/// Unicode's bidirectional controls (the property Bidi_Control): each
/// changes the order in which the text around it is displayed, not the order
/// a compiler reads it (the "Trojan Source" attack). gcc refuses the
/// embeddings, overrides and isolates in a comment under
/// `-Werror` (`-Wbidi-chars`, on by default), rustc all nine of them
/// (`text_direction_codepoint_in_comment`, an error by default); the marks are
/// refused with them, so that what a core's reader sees is what it compiles.
pub const BIDI_CONTROLS: &[(char, &str)] = &[
    ('\u{61c}', "ARABIC LETTER MARK"),
    ('\u{200e}', "LEFT-TO-RIGHT MARK"),
    ('\u{200f}', "RIGHT-TO-LEFT MARK"),
    ('\u{202a}', "LEFT-TO-RIGHT EMBEDDING"),
    ('\u{202b}', "RIGHT-TO-LEFT EMBEDDING"),
    ('\u{202c}', "POP DIRECTIONAL FORMATTING"),
    ('\u{202d}', "LEFT-TO-RIGHT OVERRIDE"),
    ('\u{202e}', "RIGHT-TO-LEFT OVERRIDE"),
    ('\u{2066}', "LEFT-TO-RIGHT ISOLATE"),
    ('\u{2067}', "RIGHT-TO-LEFT ISOLATE"),
    ('\u{2068}', "FIRST STRONG ISOLATE"),
    ('\u{2069}', "POP DIRECTIONAL ISOLATE"),
];

/// The one rule for a text the spec carries into generated files: a doc
/// (family, shared composition, kernel, `[df64]`, `[df64_ops]`, integer
/// function, predicate), a probe label, a `#` comment of a predicate's or
/// integer function's body or right above its table. Each is printed in every
/// comment syntax the targets have: C's, CUDA's and OpenCL C's `/* */`
/// (WGSL's and Rust's nest), `//` to the end of the line (WGSL, GLSL ES),
/// Rust's `///`, and Markdown. So a text is one line, and it may not hold
///
/// * `*/` or `/*`, which end a block comment or open a nested one;
/// * a line break of any target ([`LINE_BREAKS`]): in a `//` comment the
///   rest of the text would be code;
/// * a backslash (or C's trigraph `??/`) at its end, blanks after it
///   included: at the end of a `//` line it joins the next line to the
///   comment (GLSL ES, C), and gcc refuses `??/` at the end of a line of a
///   block comment too (`-Wtrigraphs`);
/// * a bidirectional control ([`BIDI_CONTROLS`]);
/// * any other control character but a tab.
///
/// Quotes, backslashes inside the text, `%`, `//`, `#` and letters of any
/// script are printed as written. The spec refuses a text that breaks the rule
/// (with its file, line and key) rather than printing it altered, so every
/// core and document quotes the spec's text exactly.
pub fn check_text(text: &str) -> Result<(), String> {
    if let Some(d) = ["*/", "/*"].iter().find(|d| text.contains(**d)) {
        return Err(format!("`{d}` would end or open the comment this text is printed in; write it with a space (`{}`)", {
            let mut c = d.chars();
            format!("{} {}", c.next().unwrap(), c.next().unwrap())
        }));
    }
    if let Some((_, what)) = LINE_BREAKS.iter().find(|(c, _)| text.contains(*c)) {
        return Err(format!(
            "{what} would end the `//` comment this text is printed in (in WGSL at least), leaving the rest as code: a text is \
             one line (a `\"\"\"` string joins its lines where each ends in a backslash)"
        ));
    }
    let end = text.trim_end_matches([' ', '\t']);
    if end.ends_with('\\') || end.ends_with("??/") {
        return Err("this text ends in a backslash (or the trigraph `??/`), which joins the next line to the `//` comment it is \
                    printed in (GLSL ES, C)"
            .into());
    }
    if let Some((c, name)) = BIDI_CONTROLS.iter().find(|(c, _)| text.contains(*c)) {
        return Err(format!(
            "the bidirectional control U+{:04X} {name} would show the text in another order than a compiler reads it \
             (gcc's -Wbidi-chars and rustc refuse it in a comment)",
            u32::from(*c)
        ));
    }
    if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\t') {
        return Err(format!("the control character {} cannot be printed in a comment", c.escape_debug()));
    }
    Ok(())
}

/// Checks the contract's name: a word that banners, `AETHER_CONTRACT_ID`'s
/// string literal and the fingerprint print as it is.
pub fn check_contract_name(name: &str) -> Result<(), String> {
    let ok = matches!(name.chars().next(), Some(c) if c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.len() <= MAX_NAME;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "contract name `{}`: ASCII letters, digits, `_` and `-`, starting with a letter, at most {MAX_NAME} characters",
            name.escape_debug()
        ))
    }
}

/// Checks the contract's version: `MAJOR.MINOR.PATCH`, as CMake's
/// `project(VERSION)`, pkg-config and `AETHER_VERSION_*` read it.
pub fn check_version(version: &str) -> Result<(), String> {
    let parts: Vec<&str> = version.split('.').collect();
    let number = |p: &&str| !p.is_empty() && p.len() <= 9 && p.chars().all(|c| c.is_ascii_digit());
    if parts.len() == 3 && parts.iter().all(number) {
        Ok(())
    } else {
        Err(format!("version `{}` is not MAJOR.MINOR.PATCH (three whole numbers of at most 9 digits)", version.escape_debug()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(check_local("theta", "a step").is_ok());
        // The message lists every target that reserves the name (from the keyword lists, so a
        // new target's keywords need no change here); C's `int` and CUDA's `threadIdx` are facts.
        let listed = |name: &str| format!("reserved by target {} (", reserving(name).join(", "));
        assert!(reserving("int").contains(&"c") && reserving("int").contains(&"cuda"));
        assert!(check_local("int", "a step").unwrap_err().contains(&listed("int")));
        assert!(check_local("sample", "a step").is_ok(), "no target reserves it");
        assert!(reserving("threadIdx").contains(&"cuda") && !reserving("threadIdx").contains(&"c"));
        assert!(check_local("threadIdx", "a step").unwrap_err().contains(&listed("threadIdx")));
        assert!(keywords("wgsl").contains(&"let") && !keywords("c").contains(&"let"));
        assert!(check_local("or", "a step").is_err(), "a C++ alternative operator name");
        assert!(check_local("let", "a step").is_err(), "a WGSL keyword");
        assert!(check_local("_x", "a step").is_err());
        assert!(check_part("f-32", "type name").unwrap_err().contains("not an identifier"));
        assert!(check_part("aether_x", "family").is_err());
        assert!(check_part("vec3", "shape").is_ok());
    }

    #[test]
    fn texts() {
        assert!(check_text("a */ b").unwrap_err().contains("`* /`"));
        assert!(check_text("a /* b").unwrap_err().contains("`/ *`"));
        assert!(check_text("\"quotes\", \\ and ??/ are fine inside a line, as are %n, //, # and \u{e9}\u{df}\u{4e2d}\u{2713}\t").is_ok());
        for (c, what) in LINE_BREAKS {
            let e = check_text(&format!("line{c}line")).unwrap_err();
            assert!(e.starts_with(what) && e.contains("a text is one line"), "{e}");
        }
        for t in ["a backslash \\", "a backslash \\ \t", "a trigraph ??/", "a trigraph ??/ "] {
            assert!(check_text(t).unwrap_err().contains("ends in a backslash"), "{t}");
        }
        for (c, name) in BIDI_CONTROLS {
            let e = check_text(&format!("a {c}b")).unwrap_err();
            assert!(e.contains(&format!("U+{:04X} {name}", u32::from(*c))), "{e}");
        }
        assert_eq!(BIDI_CONTROLS.len(), 12, "Unicode's Bidi_Control property");
        for c in ['\0', '\u{7}', '\u{1b}', '\u{7f}', '\u{9b}'] {
            assert!(check_text(&format!("a{c}b")).unwrap_err().starts_with("the control character"), "{c:?}");
        }
        assert!(check_version("0.1.0").is_ok());
        assert!(check_version("0.1\"0").is_err());
        assert!(check_version("1.2").is_err());
        assert!(check_contract_name("aether").is_ok());
        assert!(check_contract_name("aeth*/er").is_err());
    }
}
