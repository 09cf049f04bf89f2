//! What a spec's names and texts may be, for every target that prints them.
//!
//! A name the spec chooses lands in every core: a parameter, a `name = ...`
//! step of a body, an array or a vector component becomes a C, CUDA, OpenCL C
//! or WGSL identifier as it is; a family, shape, type or kernel name becomes
//! part of one (`aether_vec3f_dot`). A text (a doc, a probe label, the
//! contract's name and version) lands in block comments, string literals,
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

/// Checks a text that lands in a block comment of every core (a doc, a probe
/// label): no comment delimiter (WGSL's block comments nest, so `/*` would
/// open one), no control character but a newline where `newlines` allows it.
pub fn check_comment(text: &str, newlines: bool) -> Result<(), String> {
    if let Some(d) = ["*/", "/*"].iter().find(|d| text.contains(**d)) {
        return Err(format!("`{d}` would end or open the comment this text is printed in; write it with a space (`{}`)", {
            let mut c = d.chars();
            format!("{} {}", c.next().unwrap(), c.next().unwrap())
        }));
    }
    // A backslash at the end of a line joins the next one (in C, also the
    // trigraph `??/`): gcc warns on it inside a comment, and in a `//` comment
    // it would swallow the next line.
    if text.lines().any(|l| l.ends_with('\\') || l.ends_with("??/")) {
        return Err("a line of this text ends in a backslash (or the trigraph `??/`), which joins it to the next line in C".into());
    }
    if let Some(c) = text.chars().find(|&c| c.is_control() && !(newlines && c == '\n')) {
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
        assert!(check_local("int", "a step").unwrap_err().contains("reserved by target c, cuda, glsl, opencl ("));
        assert!(check_local("sample", "a step").is_ok(), "no target reserves it");
        assert!(check_local("threadIdx", "a step").unwrap_err().contains("reserved by target cuda ("));
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
        assert!(check_comment("a */ b", false).unwrap_err().contains("`* /`"));
        assert!(check_comment("a /* b", false).unwrap_err().contains("`/ *`"));
        assert!(check_comment("line\nline", true).is_ok());
        assert!(check_comment("line\nline", false).is_err());
        assert!(check_comment("\"quotes\", \\ and ??/ are fine in a comment", false).is_ok());
        assert!(check_comment("a line ending in a backslash \\\nnext", true).is_err());
        assert!(check_comment("a line ending in a trigraph ??/", false).is_err());
        assert!(check_version("0.1.0").is_ok());
        assert!(check_version("0.1\"0").is_err());
        assert!(check_version("1.2").is_err());
        assert!(check_contract_name("aether").is_ok());
        assert!(check_contract_name("aeth*/er").is_err());
    }
}
