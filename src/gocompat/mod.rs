//! Go's way of writing things, where ytt's output shows it.
//!
//! ytt is written in Go on an early go-starlark; several of its messages are
//! `fmt.Sprintf("%v", value)` or the text of a Go library error. This module
//! reproduces those texts. It depends on nothing else in the crate.

pub mod base64;
pub mod json_syntax;

/// Go's `strconv.FormatFloat(f, 'g', 6, 64)`: how ytt's go-starlark writes a
/// float with `%v` (`1.0` is `1`, `1234567.0` is `1.23457e+06`).
pub fn float_g6(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // six significant digits decide the exponent, as in Go
    let sci = format!("{f:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent digits");
    if !(-4..6).contains(&exp) {
        let mantissa = trim_fraction(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim_fraction(&format!("{f:.decimals$}")).to_string()
    }
}

/// `1.500` -> `1.5`, `2.000` -> `2`.
fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Go's `strconv.Quote` of one character, in single quotes, as
/// encoding/json's scanner writes the character it stopped at.
pub fn quote_char(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        '"' => "'\"'".into(),
        _ => {
            let q = go_quote(&c.to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

/// Go's `strconv.Quote`.
pub fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's `unicode.IsPrint` good for the characters JSON
/// and YAML errors show: controls and format characters are not printable.
fn is_go_printable(c: char) -> bool {
    !(c.is_control()
        || matches!(c as u32, 0x80..=0x9f | 0xad | 0x2028 | 0x2029 | 0xfeff | 0x200b..=0x200f))
}

/// starlark-go's `spell.Nearest`: the candidate within 50% edit distance
/// (ignoring case and underscores), if any.
pub fn nearest(x: &str, candidates: &[String]) -> Option<String> {
    let fold = |s: &str| -> Vec<u8> {
        s.chars()
            .filter(|c| *c != '_')
            .flat_map(|c| c.to_lowercase())
            .collect::<String>()
            .into_bytes()
    };
    let x = fold(x);
    let mut best: Option<String> = None;
    let mut best_d = x.len().div_ceil(2);
    for c in candidates {
        let d = levenshtein(&x, &fold(c));
        if d < best_d {
            best_d = d;
            best = Some(c.clone());
        }
    }
    best
}

fn levenshtein(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_go_prints_them_with_g6() {
        for (f, s) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (100000.0, "100000"),
            (1000000.0, "1e+06"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.25, "-2.25"),
            (1.23456789, "1.23457"),
            (999999.5, "1e+06"),
            (f64::INFINITY, "+Inf"),
        ] {
            assert_eq!(float_g6(f), s, "{f}");
        }
    }

    #[test]
    fn division_by_zero_names_the_operation_as_go_starlark() {
        for (msg, code, go) in [
            (
                "float division by zero: 1 / 0",
                "1/0",
                "real division by zero",
            ),
            (
                "Floor division by zero: 1 // 0",
                "1//0",
                "floored division by zero",
            ),
            ("Modulo by zero: 1 % 0", "1%0", "integer modulo by zero"),
            (
                "Cannot divide by zero",
                "x.f(1)%0.0",
                "float modulo by zero",
            ),
            (
                "Cannot divide by zero",
                "a % 2 // 0.0",
                "floored division by zero",
            ),
            (
                "Cannot divide by zero",
                "f(a % 2) // 0.0",
                "floored division by zero",
            ),
        ] {
            assert_eq!(starlark_message(msg, Some(code)), go, "{code}");
        }
    }

    #[test]
    fn characters_as_go_quotes_them() {
        assert_eq!(quote_char('}'), "'}'");
        assert_eq!(quote_char('\''), "'\\''");
        assert_eq!(quote_char('"'), "'\"'");
        assert_eq!(quote_char('\n'), "'\\n'");
        assert_eq!(quote_char('\u{1}'), "'\\x01'");
    }
}

/// Rewords a starlark-rust error message as go-starlark (ytt's interpreter)
/// words it, where the words differ. `code` is the source text of the
/// expression that failed, when known: some of go-starlark's words (the
/// operator of a comparison, the number of arguments given) are only there.
pub fn starlark_message(msg: &str, code: Option<&str>) -> String {
    if let Some(rest) = msg.strip_prefix("Operation `compare` not supported for types `") {
        if let Some((left, right)) = rest.strip_suffix('`').and_then(|r| r.split_once("` and `")) {
            if let Some(op) = code.and_then(comparison_operator) {
                return format!("{left} {op} {right} not implemented");
            }
        }
    }
    if let Some(rest) = msg.strip_prefix("Found ") {
        if let Some((count, function)) =
            rest.split_once(" extra positional argument(s) for call to ")
        {
            if let (Ok(extra), Some(given)) =
                (count.parse::<usize>(), code.and_then(call_arguments))
            {
                let name = short_name(function);
                let accepts = given.positional.saturating_sub(extra);
                return if accepts == 0 {
                    format!(
                        "function {name} accepts no arguments ({} given)",
                        given.positional + given.named
                    )
                } else {
                    format!(
                        "function {name} accepts {accepts} positional argument{} ({} given)",
                        if accepts == 1 { "" } else { "s" },
                        given.positional
                    )
                };
            }
        }
    }
    if let Some(go) = division_by_zero(msg, code) {
        return go.to_string();
    }
    msg.to_string()
}

/// go-starlark's words for a division by zero, which name the operation
/// (`real division`, `floored division`, `integer modulo`, `float modulo`)
/// where starlark-rust names the type or nothing ("Cannot divide by zero",
/// for a float's `//` and `%` alike: the operator is then the last `//` or
/// `%` of the expression, the one applied last).
fn division_by_zero(msg: &str, code: Option<&str>) -> Option<&'static str> {
    if msg.starts_with("float division by zero") {
        return Some("real division by zero");
    }
    if msg.starts_with("Floor division by zero") {
        return Some("floored division by zero");
    }
    if msg.starts_with("Modulo by zero") {
        return Some("integer modulo by zero");
    }
    if msg != "Cannot divide by zero" {
        return None;
    }
    let bytes = code.unwrap_or("").as_bytes();
    let mut modulo = false;
    scan_top_level(code.unwrap_or(""), |i, c, depth| {
        if depth == 0 {
            if c == '%' {
                modulo = true;
            } else if c == '/' && bytes.get(i + 1) == Some(&b'/') {
                modulo = false;
            }
        }
        true
    });
    Some(if modulo {
        "float modulo by zero"
    } else {
        "floored division by zero"
    })
}

/// `lib.star.f` -> `f`: go-starlark names functions without their module.
fn short_name(function: &str) -> &str {
    let function = function.trim_matches('`');
    function.rsplit('.').next().unwrap_or(function)
}

/// Calls `f` with each top-level character of `code` (outside strings and
/// brackets) and its byte offset; `depth` is the bracket depth.
fn scan_top_level(code: &str, mut f: impl FnMut(usize, char, usize) -> bool) {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in code.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => {
                if !f(i, c, depth) {
                    return;
                }
                depth += 1;
                continue;
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !f(i, c, depth) {
            return;
        }
    }
}

/// The first comparison operator outside brackets and strings.
fn comparison_operator(code: &str) -> Option<&'static str> {
    let bytes = code.as_bytes();
    let mut found = None;
    scan_top_level(code, |i, c, depth| {
        if depth == 0 && (c == '<' || c == '>') {
            let eq = bytes.get(i + 1) == Some(&b'=');
            found = Some(match (c, eq) {
                ('<', true) => "<=",
                ('<', false) => "<",
                ('>', true) => ">=",
                _ => ">",
            });
            return false;
        }
        true
    });
    found
}

struct CallArguments {
    positional: usize,
    named: usize,
}

/// Counts the arguments of the call `code` ends with (`f(1, x=2)`).
fn call_arguments(code: &str) -> Option<CallArguments> {
    let code = code.trim_end();
    if !code.ends_with(')') {
        return None;
    }
    // the opening parenthesis of the last top-level group
    let mut open = None;
    scan_top_level(code, |i, c, depth| {
        if depth == 0 && c == '(' {
            open = Some(i);
        }
        true
    });
    let inner = &code[open? + 1..code.len() - 1];
    let mut args = Vec::new();
    let mut start = 0;
    scan_top_level(inner, |i, c, depth| {
        if depth == 0 && c == ',' {
            args.push(&inner[start..i]);
            start = i + 1;
        }
        true
    });
    args.push(&inner[start..]);
    let mut out = CallArguments {
        positional: 0,
        named: 0,
    };
    for a in args.iter().map(|a| a.trim()).filter(|a| !a.is_empty()) {
        if a.starts_with('*') {
            // `*args` hides the count: leave the message as it is
            return None;
        }
        let mut is_named = false;
        let mut prev = ' ';
        let bytes = a.as_bytes();
        scan_top_level(a, |i, c, depth| {
            if depth == 0
                && c == '='
                && !matches!(prev, '=' | '!' | '<' | '>')
                && bytes.get(i + 1) != Some(&b'=')
            {
                is_named = true;
                return false;
            }
            prev = c;
            true
        });
        if is_named {
            out.named += 1;
        } else {
            out.positional += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod starlark_tests {
    use super::*;

    #[test]
    fn comparisons_name_their_operator() {
        let m = "Operation `compare` not supported for types `yamlfragment` and `int`";
        assert_eq!(
            starlark_message(m, Some("frag() >= 1")),
            "yamlfragment >= int not implemented"
        );
        assert_eq!(
            starlark_message(m, Some("f(\"<\") < 1")),
            "yamlfragment < int not implemented"
        );
        assert_eq!(starlark_message(m, None), m);
    }

    #[test]
    fn extra_positional_arguments_as_go_starlark_counts_them() {
        let m = "Found 1 extra positional argument(s) for call to a.yml.lambda";
        assert_eq!(
            starlark_message(m, Some("f(1, (2, 3))")),
            "function lambda accepts 1 positional argument (2 given)"
        );
        let m = "Found 2 extra positional argument(s) for call to lib.star.g";
        assert_eq!(
            starlark_message(m, Some("x.g(1, 2, 3, 4, k=\"a,b\")")),
            "function g accepts 2 positional arguments (4 given)"
        );
        let m = "Found 1 extra positional argument(s) for call to h";
        assert_eq!(
            starlark_message(m, Some("h(1)")),
            "function h accepts no arguments (1 given)"
        );
        assert_eq!(starlark_message(m, Some("h(*xs)")), m);
    }
}
