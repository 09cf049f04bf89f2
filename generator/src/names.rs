//! What a spec's names and texts may be, for every target that prints them.
//!
//! A name the spec chooses lands in every core: a parameter, a `name = ...`
//! step of a body, an array or a vector component becomes a C, CUDA, OpenCL C
//! or WGSL identifier as it is; a family, shape, type or kernel name becomes
//! part of one (`aether_vec3f_dot`). A text (a doc, a probe label, the
//! contract's name and version) lands in block comments, string literals,
//! CMake and pkg-config files. Each is checked here, once, before anything is
//! built, so that an accepted spec never emits code a compiler refuses.

/// Words no body-level name may be: the keywords of C99/C11, C++ (a C or CUDA
/// core is included from C++), OpenCL C and WGSL (keywords and reserved
/// words), WGSL's predeclared types, and the library and built-in names the
/// cores call inside a function body (a local of that name would hide them).
#[rustfmt::skip]
const RESERVED: &[&str] = &[
    // C99 and C11
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float", "for",
    "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "complex", "imaginary",
    "alignas", "alignof", "noreturn", "static_assert", "thread_local",
    // C++ (to C++23), with the alternative operator names
    "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return", "co_yield", "decltype", "delete",
    "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
    "operator", "or", "or_eq", "private", "protected", "public", "reinterpret_cast", "requires", "static_cast", "template",
    "this", "throw", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq", "final", "override",
    // OpenCL C: qualifiers and built-in types
    "kernel", "global", "local", "constant", "generic", "read_only", "write_only", "read_write", "uniform", "pipe", "half",
    "uchar", "ushort", "uint", "ulong", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "event_t", "sampler_t", "image1d_t",
    "image2d_t", "image3d_t", "float2", "float3", "float4", "double2", "double3", "double4", "int2", "int3", "int4",
    // WGSL keywords and reserved words
    "alias", "const_assert", "continuing", "diagnostic", "discard", "enable", "fn", "let", "loop", "override", "var", "NULL",
    "Self", "abstract", "active", "as", "async", "attribute", "await", "become", "cast", "common", "coherent", "crate",
    "debugger", "demote", "demote_to_helper", "each", "enum", "filter", "from", "fxgroup", "get", "handle", "impl",
    "implements", "import", "inout", "instanceof", "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump",
    "meta", "mod", "module", "move", "mut", "nomut", "noinline", "noperspective", "null", "nullable", "of", "package",
    "packoffset", "partition", "pass", "patch", "pixelfragment", "precise", "precision", "premerge", "priv", "ref",
    "regardless", "resource", "self", "set", "shared", "sizeof", "smooth", "snorm", "std", "subroutine", "super", "target",
    "technique", "throw", "trait", "type", "typeof", "unless", "unorm", "unsafe", "unsized", "use", "varying", "virtual",
    "where", "with", "writeonly", "yield", "highp", "signed", "binding_array",
    // WGSL predeclared types (a local would hide them)
    "i32", "u32", "f32", "f16", "i64", "u64", "f64", "vec2", "vec3", "vec4", "vec2f", "vec3f", "vec4f", "vec2i", "vec3i",
    "vec4i", "vec2u", "vec3u", "vec4u", "mat2x2", "mat3x3", "mat4x4", "mat2x2f", "mat3x3f", "mat4x4f", "array", "atomic",
    "ptr", "sampler", "function", "private", "storage", "workgroup",
    // library and built-in names the cores call in a body
    "sqrt", "sqrtf", "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "abs", "min", "max", "select", "bitcast", "isfinite",
    "isnan", "isinf", "signbit", "copysign", "memcpy", "memset", "errno", "NAN", "INFINITY", "HUGE_VAL", "HUGE_VALF",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "out",
];

/// Whether a target language reserves `name` (or a core calls it in a body).
pub fn is_reserved(name: &str) -> bool {
    RESERVED.contains(&name)
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
    if is_reserved(name) {
        return Err(format!("{what} `{name}` is reserved in a target language (C, C++, CUDA, OpenCL C or WGSL)"));
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
        assert!(check_local("int", "a step").unwrap_err().contains("reserved"));
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
