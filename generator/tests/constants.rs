//! `[constants]`: a body's constant one bit away from its definition is
//! refused at the body's line with the part it should have; with the check
//! taken away (the family dropped from `used_by`) the same spec is accepted,
//! which is why the check is needed: nothing else in the generator notices.

const SPEC: &str = include_str!("../../spec/aether.toml");

/// The spec's checked constants (`[constants]` is checked with the model,
/// after the checks of types and families), or the error.
fn parse(text: &str) -> Result<Vec<aether_generator::constants::Constant>, String> {
    let model = aether_generator::fuzzing::build(text).map_err(|e| e.to_string())?;
    aether_generator::constants::check(&model.spec).map_err(|e| e.to_string())
}

/// The spec's line (1-based) of the first occurrence of `needle` after `after`.
fn line_of(text: &str, after: &str, needle: &str) -> usize {
    let start = text.find(after).unwrap_or_else(|| panic!("the spec has no `{after}`"));
    let at = start + text[start..].find(needle).unwrap_or_else(|| panic!("no `{needle}` after `{after}`"));
    text[..at].matches('\n').count() + 1
}

/// `from` replaced by `to` in the table that starts with `header` (its first occurrence there).
fn in_table(text: &str, header: &str, from: &str, to: &str) -> String {
    let start = text.find(header).unwrap_or_else(|| panic!("the spec has no `{header}`"));
    let at = start + text[start..].find(from).unwrap_or_else(|| panic!("no `{from}` in `{header}`"));
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

/// The spec with `family` taken out of `[constants.<constant>]`'s
/// `used_by`, or without the table where it is the only family.
fn unchecked(text: &str, constant: &str, family: &str) -> String {
    let header = format!("[constants.{constant}]\n");
    let start = text.find(&header).unwrap();
    let at = start + text[start..].find("used_by = [").unwrap();
    let end = at + text[at..].find(']').unwrap() + 1;
    let list: Vec<&str> = text[at + "used_by = [".len()..end - 1].split(", ").filter(|f| f.trim_matches('"') != family).collect();
    if list.is_empty() {
        let table_end = start + text[start..].find("\n\n").unwrap() + 2;
        return format!("{}{}", &text[..start], &text[table_end..]);
    }
    format!("{}used_by = [{}]{}", &text[..at], list.join(", "), &text[end..])
}

#[test]
fn the_spec_s_constants_are_their_definitions() {
    let constants = parse(SPEC).unwrap();
    assert_eq!(constants.len(), 11, "{:?}", constants.iter().map(|c| &c.name).collect::<Vec<_>>());
    let half_pi = constants.iter().find(|c| c.name == "half_pi_parts").unwrap();
    let f64_parts = &half_pi.parts.iter().find(|p| p.0 == "f64").unwrap().2;
    assert_eq!(f64_parts, &[0x3FF921FB54400000, 0x3DD0B4611A600000, 0x3BA3198A2E000000, 0x397B839A252049C1]);
    // The parts add up to pi/2 far past binary64's precision.
    let sum: f64 = f64_parts.iter().map(|w| f64::from_bits(*w)).sum();
    assert_eq!(sum, std::f64::consts::FRAC_PI_2);
}

#[test]
fn a_constant_one_bit_off_is_refused_at_its_body() {
    let cases = [
        // (the table, the text, the last bit changed, the key, the constant)
        (
            "[shared.reduce_half_pi]",
            "f64_bits(0x3DD0B4611A600000)",
            "f64_bits(0x3DD0B4611A600001)",
            "shared.reduce_half_pi.bodies.f64",
            "half_pi_parts",
        ),
        ("[shared.reduce_half_pi]", "f32_bits(0x33A22000)", "f32_bits(0x33A22001)", "shared.reduce_half_pi.bodies.f32", "half_pi_parts"),
        ("[families.exp]", "f64_bits(0x3D2EF35793C76730)", "f64_bits(0x3D2EF35793C7672F)", "families.exp.bodies.f64", "ln2_two_parts"),
        ("[families.exp2]", "f32_bits(0x3805FDF4)", "f32_bits(0x3805FDF5)", "families.exp2.bodies.f32", "ln2_for_exp2"),
        (
            "[families.log2]",
            "f64_bits(0xBE46A3E80F444178)",
            "f64_bits(0xBE46A3E80F444179)",
            "families.log2.bodies.f64",
            "inv_ln2_two_parts",
        ),
        ("[families.pow]", "f64_bits(0xBA59FF0342542FC3)", "f64_bits(0xBA59FF0342542FC2)", "families.pow.bodies.f64", "ln2_three_parts"),
        ("[families.atan2]", "f32_bits(0x4016CBE4)", "f32_bits(0x4016CBE5)", "families.atan2.bodies.f32", "three_quarter_pi"),
    ];
    for (table, from, to, key, constant) in cases {
        let bad = in_table(SPEC, table, from, to);
        let line = line_of(&bad, table, to);
        let e = parse(&bad).expect_err(&format!("{to} in {table} was accepted"));
        let want = format!("spec/aether.toml:{line}: `{key}`: it uses `constants.{constant}` (");
        assert!(e.starts_with(&want), "{to} in {table}:\n  got  {e}\n  want {want}...");
        assert!(e.contains(&format!("is {from}; the body writes {to} instead")), "{e}");
        // The control: the family out of the constant's `used_by` (or the
        // table dropped), the same change is accepted; nothing else tells.
        let family = table.trim_matches(|c| c == '[' || c == ']').split('.').nth(1).unwrap();
        assert!(parse(&unchecked(&bad, constant, family)).is_ok(), "{to} in {table} without the check");
    }
}

#[test]
fn a_definition_that_is_wrong_or_unreadable_is_refused() {
    let at = |needle: &str| line_of(SPEC, "[constants.three_quarter_pi]", needle);
    for (from, to, line, key, message) in [
        // 3 pi / 5 is a number, not the one atan2 writes.
        (
            "value = \"3 * pi / 4\"",
            "value = \"3 * pi / 5\"",
            0,
            "families.atan2.bodies.f32",
            "whose part 1 of 1 is f32_bits(0x3FF1463A); the body does not write it",
        ),
        (
            "value = \"3 * pi / 4\"",
            "value = \"3 * tau / 4\"",
            at("value"),
            "constants.three_quarter_pi.value",
            "column 5: unknown name `tau` (a definition knows pi and ln2)",
        ),
        (
            "value = \"3 * pi / 4\"",
            "value = \"3.5 * pi / 4\"",
            at("value"),
            "constants.three_quarter_pi.value",
            "column 1: 3.5 is not a whole number",
        ),
        (
            "value = \"3 * pi / 4\"",
            "value = \"3 * pi / 0\"",
            at("value"),
            "constants.three_quarter_pi.value",
            "column 10: a division by zero",
        ),
        ("value = \"3 * pi / 4\"", "value = \"pi - pi\"", at("value"), "constants.three_quarter_pi.value", "the definition is zero"),
        (
            "types = [\"f32\", \"f64\"]\nused_by = [\"atan2\"]",
            "types = [\"f32\", \"f16\"]\nused_by = [\"atan2\"]",
            at("types"),
            "constants.three_quarter_pi.types",
            "unknown type `f16`",
        ),
        (
            "types = [\"f32\", \"f64\"]\nused_by = [\"atan2\"]",
            "types = [\"f32\", \"f32\"]\nused_by = [\"atan2\"]",
            at("types"),
            "constants.three_quarter_pi.types",
            "`f32` is listed twice",
        ),
        ("used_by = [\"atan2\"]", "used_by = [\"atan3\"]", at("used_by"), "constants.three_quarter_pi.used_by", "unknown family `atan3`"),
        (
            "used_by = [\"atan2\"]",
            "used_by = [\"atan2\", \"atan2\"]",
            at("used_by"),
            "constants.three_quarter_pi.used_by",
            "`atan2` is listed twice",
        ),
        ("used_by = [\"atan2\"]", "used_by = []", at("used_by"), "constants.three_quarter_pi.used_by", "no body uses this constant"),
        (
            "used_by = [\"atan2\"]",
            "used_by = [\"add\"]",
            at("used_by"),
            "constants.three_quarter_pi.used_by",
            "`add` has no body of its own for f32",
        ),
        (
            "used_by = [\"atan2\"]",
            "leading_bits.f32 = [24]\nused_by = [\"atan2\"]",
            at("used_by"),
            "constants.three_quarter_pi.leading_bits.f32",
            "24 significant bits: a leading part of f32 has 1 to 23",
        ),
        (
            "used_by = [\"atan2\"]",
            "leading_bits.f16 = [4]\nused_by = [\"atan2\"]",
            at("used_by"),
            "constants.three_quarter_pi.leading_bits.f16",
            "`f16` is not one of this constant's types",
        ),
    ] {
        let bad = in_table(SPEC, "[constants.three_quarter_pi]", from, to);
        let e = parse(&bad).expect_err(&format!("`{to}` was accepted"));
        assert!(e.contains(&format!("`{key}`: ")) && e.contains(message), "`{to}`:\n  got  {e}\n  want `{key}`: {message}");
        if key.starts_with("constants.") {
            assert!(e.starts_with(&format!("spec/aether.toml:{line}: `{key}`: ")), "`{to}`: {e} (want line {line})");
        }
    }
}
