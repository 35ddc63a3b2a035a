//! YAML 1.1 scalar resolution as ytt does it.
//!
//! ytt parses YAML with a fork of go-yaml v2, whose resolver predates YAML 1.2:
//! `yes`/`on`/`y` are booleans, `0777` is octal, `1_000` is an int, integers up
//! to `u64::MAX` are exact and larger ones floats, timestamps stay strings. No
//! Rust crate resolves scalars like this, so this module implements those rules
//! (and the inverse question the printer asks: "would this string re-read as
//! something else, so that it must be quoted?").

use std::sync::Arc;

use super::node::Value;

/// The outcome of resolving a plain scalar.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    /// A timestamp: ytt keeps the original text as a string.
    Timestamp,
    Str,
}

/// Resolves an untagged plain scalar.
pub fn resolve_plain(s: &str) -> Resolved {
    let Some(&first) = s.as_bytes().first() else {
        return Resolved::Null;
    };
    let hint = match first {
        b'+' | b'-' => 'S',
        b'0'..=b'9' => 'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => 'M',
        b'.' => '.',
        _ => return Resolved::Str,
    };
    if let Some(r) = lookup(s) {
        return r;
    }
    match hint {
        'M' => Resolved::Str,
        '.' => {
            if is_dot_float(s) {
                match s.parse::<f64>() {
                    Ok(f) if f.is_finite() => Resolved::Float(f),
                    _ => Resolved::Str,
                }
            } else {
                Resolved::Str
            }
        }
        _ => {
            if is_timestamp(s) {
                return Resolved::Timestamp;
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Some(i) = go_parse_int(&plain) {
                return Resolved::Int(i);
            }
            if let Some(u) = go_parse_uint(&plain) {
                return Resolved::UInt(u);
            }
            if is_yaml_style_float(&plain) {
                return match plain.parse::<f64>() {
                    Ok(f) if f.is_finite() => Resolved::Float(f),
                    _ => Resolved::Str,
                };
            }
            if let Some(rest) = plain.strip_prefix("0b") {
                if let Some(i) = parse_radix_i64(rest, 2, false) {
                    return Resolved::Int(i);
                }
                if let Ok(u) = u64::from_str_radix(rest, 2) {
                    if !rest.is_empty() && !rest.starts_with('+') {
                        return Resolved::UInt(u);
                    }
                }
            } else if let Some(rest) = plain.strip_prefix("-0b") {
                if let Some(i) = parse_radix_i64(rest, 2, true) {
                    return Resolved::Int(i);
                }
            }
            Resolved::Str
        }
    }
}

fn lookup(s: &str) -> Option<Resolved> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Resolved::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// ytt's `--strict` resolution of an untagged plain scalar: only the YAML
/// forms nobody misreads are accepted; anything ambiguous is an error.
pub fn resolve_strict(s: &str) -> Result<Resolved, String> {
    let native = resolve_plain(s);
    let conservative = match s {
        "" => Resolved::Null,
        "true" => Resolved::Bool(true),
        "false" => Resolved::Bool(false),
        _ if is_strict_int(s) => match s.parse::<i64>() {
            Ok(i) => Resolved::Int(i),
            Err(_) => match s.parse::<u64>() {
                Ok(u) => Resolved::UInt(u),
                Err(e) => return Err(format!("Strict parsing: Parsing int '{s}': {e}")),
            },
        },
        _ if is_strict_float(s) => match s.parse::<f64>() {
            Ok(f) if f.is_finite() => Resolved::Float(f),
            _ => {
                return Err(format!(
                    "Strict parsing: Parsing float '{s}': value out of range"
                ))
            }
        },
        _ if s.chars().any(char::is_whitespace) => {
            return Err(format!(
                "Strict parsing: Strings with whitespace must be explicitly quoted: '{s}'"
            ))
        }
        _ if s.contains(':') => {
            return Err(format!(
                "Strict parsing: Strings with colon must be explicitly quoted: '{s}'"
            ))
        }
        _ if s.contains("---") => {
            return Err(format!(
                "Strict parsing: Strings with triple-dash must be explicitly quoted: '{s}'"
            ))
        }
        _ => Resolved::Str,
    };
    let tag = |r: &Resolved| match r {
        Resolved::Null => "!!null",
        Resolved::Bool(_) => "!!bool",
        Resolved::Int(_) | Resolved::UInt(_) => "!!int",
        Resolved::Float(_) => "!!float",
        Resolved::Timestamp => "!!timestamp",
        Resolved::Str => "!!str",
    };
    if tag(&conservative) != tag(&native) {
        return Err(format!(
            "Strict parsing: Found '{s}' ambigious (could be {} or {})",
            tag(&conservative),
            tag(&native)
        ));
    }
    if conservative != native {
        return Err(format!(
            "Strict parsing: Found '{s}' ambigious (could be '{s}' or '{s}')"
        ));
    }
    Ok(conservative)
}

fn is_strict_int(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    d == "0" || (!d.is_empty() && !d.starts_with('0') && d.bytes().all(|b| b.is_ascii_digit()))
}

fn is_strict_float(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    let (int_part, rest) = match d.find(['.', 'e', 'E']) {
        Some(i) => (&d[..i], &d[i..]),
        None => (d, ""),
    };
    if !is_strict_int(int_part) || int_part.starts_with('-') {
        return false;
    }
    let rest = match rest.strip_prefix('.') {
        Some(r) => {
            let n = r.bytes().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 {
                return false;
            }
            &r[n..]
        }
        None => rest,
    };
    is_exponent_or_end(rest)
}

/// Turns a resolution into a value (timestamps and merge keys keep their text).
pub fn resolved_value(r: Resolved, text: &str) -> Value {
    match r {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Int(i),
        Resolved::UInt(u) => Value::UInt(u),
        Resolved::Float(f) => Value::Float(f),
        Resolved::Timestamp | Resolved::Str => Value::Str(Arc::from(text)),
    }
}

/// Resolves a scalar with an explicit core-schema tag (`!!int "3"`), as go-yaml
/// does: the text must resolve to that type (ints widen to floats for `!!float`).
pub fn resolve_tagged(suffix: &str, s: &str) -> Result<Value, String> {
    let fail = |got: &str| {
        Err(format!(
            "cannot decode !!{got} `{s}` as a !!{suffix}",
            got = got
        ))
    };
    let r = resolve_plain(s);
    let got = match &r {
        Resolved::Null => "null",
        Resolved::Bool(_) => "bool",
        Resolved::Int(_) | Resolved::UInt(_) => "int",
        Resolved::Float(_) => "float",
        Resolved::Timestamp => "timestamp",
        Resolved::Str => "str",
    };
    match suffix {
        "str" => Ok(Value::str(s)),
        "binary" => {
            use base64::Engine;
            let cleaned: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            match base64::engine::general_purpose::STANDARD.decode(cleaned) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => Ok(Value::str(text)),
                    Err(_) => Err("!!binary value is not valid UTF-8 text".to_string()),
                },
                Err(_) => Err("!!binary value contains invalid base64 data".to_string()),
            }
        }
        "int" => match r {
            Resolved::Int(i) => Ok(Value::Int(i)),
            Resolved::UInt(u) => Ok(Value::UInt(u)),
            _ => fail(got),
        },
        "float" => match r {
            Resolved::Int(i) => Ok(Value::Float(i as f64)),
            Resolved::UInt(u) => Ok(Value::Float(u as f64)),
            Resolved::Float(f) => Ok(Value::Float(f)),
            _ => fail(got),
        },
        "bool" => match r {
            Resolved::Bool(b) => Ok(Value::Bool(b)),
            _ => fail(got),
        },
        "null" => match r {
            Resolved::Null => Ok(Value::Null),
            _ => fail(got),
        },
        "timestamp" => match r {
            Resolved::Timestamp => Ok(Value::str(s)),
            _ => fail(got),
        },
        "merge" => Ok(Value::str(s)),
        // Unknown tags keep the text (go-yaml returns the string for tags it
        // cannot resolve).
        _ => Ok(Value::str(s)),
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`: optional sign, `0x`/`0o`/`0b`/`0` prefixes.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = split_radix(body)?;
    parse_radix_i64(digits, radix, neg)
}

/// Go's `strconv.ParseUint(s, 0, 64)`: no sign allowed.
fn go_parse_uint(s: &str) -> Option<u64> {
    let (radix, digits) = split_radix(s)?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

fn split_radix(body: &str) -> Option<(u32, &str)> {
    let b = body.as_bytes();
    if b.is_empty() {
        return None;
    }
    if b[0] == b'0' && b.len() > 1 {
        match b[1] {
            b'x' | b'X' => return Some((16, &body[2..])),
            b'o' | b'O' => return Some((8, &body[2..])),
            b'b' | b'B' => return Some((2, &body[2..])),
            _ => return Some((8, &body[1..])),
        }
    }
    Some((10, body))
}

fn parse_radix_i64(digits: &str, radix: u32, neg: bool) -> Option<i64> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let mag = u128::from_str_radix(digits, radix).ok()?;
    if neg {
        if mag <= (i64::MAX as u128) + 1 {
            Some((-(mag as i128)) as i64)
        } else {
            None
        }
    } else if mag <= i64::MAX as u128 {
        Some(mag as i64)
    } else {
        None
    }
}

/// `^\.[0-9]+([eE][-+]?[0-9]+)?$` — what Go's ParseFloat accepts for text that
/// starts with a dot.
fn is_dot_float(s: &str) -> bool {
    let rest = &s[1..];
    let digits = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return false;
    }
    is_exponent_or_end(&rest[digits..])
}

fn is_exponent_or_end(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let b = s.as_bytes();
    if b[0] != b'e' && b[0] != b'E' {
        return false;
    }
    let mut i = 1;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    i < b.len() && b[i..].iter().all(|c| c.is_ascii_digit())
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    } else {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    is_exponent_or_end(&s[i..])
}

/// go-yaml v2's timestamp check (the formats it tries with `time.Parse`).
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let year_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if year_digits != 4 || b.len() == 4 || b[4] != b'-' {
        return false;
    }
    let mut p = Cursor { b, i: 5 };
    let Some(month) = p.num(1, 2) else {
        return false;
    };
    if !p.eat(b'-') {
        return false;
    }
    let Some(day) = p.num(1, 2) else {
        return false;
    };
    let year: u32 = s[..4].parse().unwrap_or(0);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return false;
    }
    if p.done() {
        return true;
    }
    let sep = b[p.i];
    if sep != b'T' && sep != b't' && sep != b' ' {
        return false;
    }
    p.i += 1;
    let (Some(h), true, Some(m), true, Some(sec)) = (
        p.num(1, 2),
        p.eat(b':'),
        p.num(1, 2),
        p.eat(b':'),
        p.num(1, 2),
    ) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 59 {
        return false;
    }
    if p.eat(b'.') {
        let n = p.digits();
        if n == 0 {
            return false;
        }
    }
    if sep == b' ' {
        return p.done();
    }
    if p.eat(b'Z') {
        return p.done();
    }
    if p.eat(b'+') || p.eat(b'-') {
        let (Some(th), true, Some(tm)) = (p.num(2, 2), p.eat(b':'), p.num(2, 2)) else {
            return false;
        };
        return th <= 24 && tm <= 59 && p.done();
    }
    false
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn num(&mut self, min: usize, max: usize) -> Option<u32> {
        let start = self.i;
        while self.i < self.b.len() && self.i - start < max && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i - start < min {
            return None;
        }
        std::str::from_utf8(&self.b[start..self.i])
            .ok()?
            .parse()
            .ok()
    }
    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.i < self.b.len() && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        self.i - start
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.i < self.b.len() && self.b[self.i] == c {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn done(&self) -> bool {
        self.i == self.b.len()
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 => {
            if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) {
                29
            } else {
                28
            }
        }
        _ => 31,
    }
}

/// go-yaml's `isBase60Float`: `190:20:30` must be quoted on output.
pub fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&c) = b.first() else {
        return false;
    };
    if !(c == b'+' || c == b'-' || c.is_ascii_digit()) || !s.contains(':') {
        return false;
    }
    // ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
    let mut i = 0;
    if b[i] == b'+' || b[i] == b'-' {
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 2 {
            i += 1;
        }
        let n = i - start;
        if n == 0 {
            return false;
        }
        if n == 2 && b[start] > b'5' {
            // [0-5]?[0-9]: a two digit group must start with 0-5; a one digit
            // group followed by another digit is not allowed either.
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// Whether a string must be quoted so that it reads back as the same string.
/// `<<` plain is YAML's merge key (go-yaml resolves it to `!!merge` and so
/// quotes the string, key or value).
pub fn string_needs_quotes(s: &str) -> bool {
    !matches!(resolve_plain(s), Resolved::Str) || is_base60_float(s) || s == "<<"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Resolved {
        resolve_plain(s)
    }

    #[test]
    fn yaml11_booleans_and_nulls() {
        for t in ["y", "Y", "yes", "Yes", "YES", "true", "True", "on", "ON"] {
            assert_eq!(r(t), Resolved::Bool(true), "{t}");
        }
        for f in ["n", "N", "no", "NO", "false", "off", "Off"] {
            assert_eq!(r(f), Resolved::Bool(false), "{f}");
        }
        for n in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(r(n), Resolved::Null, "{n}");
        }
        assert_eq!(r("yEs"), Resolved::Str);
        assert_eq!(r("nULL"), Resolved::Str);
    }

    #[test]
    fn integers_follow_go_parse_int() {
        assert_eq!(r("0777"), Resolved::Int(511));
        assert_eq!(r("0o17"), Resolved::Int(15));
        assert_eq!(r("1_000"), Resolved::Int(1000));
        assert_eq!(r("0x1F"), Resolved::Int(31));
        assert_eq!(r("0b101"), Resolved::Int(5));
        assert_eq!(r("-0b101"), Resolved::Int(-5));
        assert_eq!(r("+12"), Resolved::Int(12));
        assert_eq!(r("-0x10"), Resolved::Int(-16));
        assert_eq!(r("9223372036854775807"), Resolved::Int(i64::MAX));
        assert_eq!(r("18446744073709551615"), Resolved::UInt(u64::MAX));
        assert_eq!(
            r("18446744073709551616"),
            Resolved::Float(18446744073709551616.0)
        );
        // not valid octal: falls through to the float rule
        assert_eq!(r("08"), Resolved::Float(8.0));
        assert_eq!(r("0x"), Resolved::Str);
    }

    #[test]
    fn floats() {
        assert_eq!(r("1.5"), Resolved::Float(1.5));
        assert_eq!(r(".5"), Resolved::Float(0.5));
        assert_eq!(r("1e3"), Resolved::Float(1000.0));
        assert_eq!(r("-1.5e-3"), Resolved::Float(-0.0015));
        assert_eq!(r("1."), Resolved::Float(1.0));
        assert!(matches!(r(".inf"), Resolved::Float(f) if f.is_infinite() && f > 0.0));
        assert!(matches!(r("-.Inf"), Resolved::Float(f) if f.is_infinite() && f < 0.0));
        assert!(matches!(r(".nan"), Resolved::Float(f) if f.is_nan()));
        assert_eq!(r("1e400"), Resolved::Str);
        assert_eq!(r(".5_0"), Resolved::Str);
        assert_eq!(r("0x1p-2"), Resolved::Str);
    }

    #[test]
    fn timestamps_and_strings() {
        assert_eq!(r("2001-12-14"), Resolved::Timestamp);
        assert_eq!(r("2001-12-14T21:59:43.10Z"), Resolved::Timestamp);
        assert_eq!(r("2001-12-14 21:59:43.10"), Resolved::Timestamp);
        assert_eq!(r("2001-02-30"), Resolved::Str);
        assert_eq!(r("190:20:30"), Resolved::Str);
        assert!(is_base60_float("190:20:30"));
        assert!(!is_base60_float("1:2:99"));
        assert_eq!(r("<<"), Resolved::Str);
        assert_eq!(r("hello"), Resolved::Str);
        assert_eq!(r("-"), Resolved::Str);
    }

    #[test]
    fn quoting_decisions() {
        for q in [
            "true",
            "yes",
            "on",
            "y",
            "n",
            "123",
            "1e3",
            "null",
            "~",
            "",
            "2001-01-01",
            "0x1F",
            "1:20",
            "<<",
        ] {
            assert!(string_needs_quotes(q), "{q}");
        }
        for p in ["hello", "yes please", "1.2.3", "v1"] {
            assert!(!string_needs_quotes(p), "{p}");
        }
    }

    #[test]
    fn strict_mode() {
        assert!(resolve_strict("yes")
            .unwrap_err()
            .contains("could be !!str or !!bool"));
        assert!(resolve_strict("0777").is_err());
        assert!(resolve_strict("a b").unwrap_err().contains("whitespace"));
        assert_eq!(resolve_strict("12").unwrap(), Resolved::Int(12));
        assert_eq!(resolve_strict("1.5e3").unwrap(), Resolved::Float(1500.0));
        assert_eq!(resolve_strict("true").unwrap(), Resolved::Bool(true));
        assert_eq!(resolve_strict("hello").unwrap(), Resolved::Str);
    }

    #[test]
    fn tagged() {
        assert!(matches!(resolve_tagged("int", "3"), Ok(Value::Int(3))));
        assert!(matches!(resolve_tagged("float", "3"), Ok(Value::Float(f)) if f == 3.0));
        assert!(matches!(resolve_tagged("str", "3"), Ok(Value::Str(_))));
        assert!(resolve_tagged("int", "abc").is_err());
        assert!(matches!(resolve_tagged("binary", "aGk="), Ok(Value::Str(s)) if &*s == "hi"));
    }
}
