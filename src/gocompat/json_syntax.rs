//! The syntax errors of Go's `encoding/json`, word for word.
//!
//! ytt's `json.decode` is Go's `json.Unmarshal`, which first runs a byte-wise
//! state machine over the whole input and stops at the first byte that cannot
//! continue it. This module runs the same state machine (a re-statement of
//! the JSON grammar, not a parser: it builds no value) so a malformed
//! document gets the message ytt users see, e.g.
//! `invalid character '}' looking for beginning of value`.

#[derive(Clone, Copy, PartialEq)]
enum Parse {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    /// Inside `true`/`false`/`null`: the literal and how many bytes are read.
    Literal(&'static str, usize),
}

/// Go's limit on nesting.
const MAX_DEPTH: usize = 10_000;

/// `None` when `data` is valid JSON; else Go's error text.
pub fn check(data: &[u8]) -> Option<String> {
    let mut state = State::BeginValue;
    let mut stack: Vec<Parse> = Vec::new();
    for &c in data {
        match step(&mut state, &mut stack, c) {
            Ok(()) => {}
            Err(e) => return Some(e),
        }
    }
    // Go's eof(): one more space, then the value must be complete
    if step(&mut state, &mut stack, b' ').is_err() || state != State::EndTop {
        return Some("unexpected end of JSON input".into());
    }
    None
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn error(c: u8, context: &str) -> Result<(), String> {
    Err(format!(
        "invalid character {} {context}",
        super::quote_char(char::from(c))
    ))
}

fn step(state: &mut State, stack: &mut Vec<Parse>, c: u8) -> Result<(), String> {
    use State::*;
    match *state {
        BeginValueOrEmpty => {
            if is_space(c) {
                return Ok(());
            }
            if c == b']' {
                return end_value(state, stack, c);
            }
            *state = BeginValue;
            step(state, stack, c)
        }
        BeginValue => {
            if is_space(c) {
                return Ok(());
            }
            match c {
                b'{' => {
                    push(stack, Parse::ObjectKey)?;
                    *state = BeginStringOrEmpty;
                }
                b'[' => {
                    push(stack, Parse::ArrayValue)?;
                    *state = BeginValueOrEmpty;
                }
                b'"' => *state = InString,
                b'-' => *state = Neg,
                b'0' => *state = Zero,
                b'1'..=b'9' => *state = One,
                b't' => *state = Literal("true", 1),
                b'f' => *state = Literal("false", 1),
                b'n' => *state = Literal("null", 1),
                _ => return error(c, "looking for beginning of value"),
            }
            Ok(())
        }
        BeginStringOrEmpty => {
            if is_space(c) {
                return Ok(());
            }
            if c == b'}' {
                if let Some(top) = stack.last_mut() {
                    *top = Parse::ObjectValue;
                }
                return end_value(state, stack, c);
            }
            *state = BeginString;
            step(state, stack, c)
        }
        BeginString => {
            if is_space(c) {
                return Ok(());
            }
            if c == b'"' {
                *state = InString;
                return Ok(());
            }
            error(c, "looking for beginning of object key string")
        }
        EndValue => end_value(state, stack, c),
        EndTop => {
            if is_space(c) {
                Ok(())
            } else {
                error(c, "after top-level value")
            }
        }
        InString => {
            match c {
                b'"' => *state = EndValue,
                b'\\' => *state = InStringEsc,
                c if c < 0x20 => return error(c, "in string literal"),
                _ => {}
            }
            Ok(())
        }
        InStringEsc => {
            match c {
                b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => *state = InString,
                b'u' => *state = InStringEscU(0),
                _ => return error(c, "in string escape code"),
            }
            Ok(())
        }
        InStringEscU(n) => {
            if !c.is_ascii_hexdigit() {
                return error(c, "in \\u hexadecimal character escape");
            }
            *state = if n == 3 {
                InString
            } else {
                InStringEscU(n + 1)
            };
            Ok(())
        }
        Neg => {
            match c {
                b'0' => *state = Zero,
                b'1'..=b'9' => *state = One,
                _ => return error(c, "in numeric literal"),
            }
            Ok(())
        }
        One => {
            if c.is_ascii_digit() {
                return Ok(());
            }
            *state = Zero;
            step(state, stack, c)
        }
        Zero => match c {
            b'.' => {
                *state = Dot;
                Ok(())
            }
            b'e' | b'E' => {
                *state = E;
                Ok(())
            }
            _ => end_value(state, stack, c),
        },
        Dot => {
            if c.is_ascii_digit() {
                *state = Dot0;
                return Ok(());
            }
            error(c, "after decimal point in numeric literal")
        }
        Dot0 => match c {
            b'0'..=b'9' => Ok(()),
            b'e' | b'E' => {
                *state = E;
                Ok(())
            }
            _ => end_value(state, stack, c),
        },
        E => {
            if c == b'+' || c == b'-' {
                *state = ESign;
                return Ok(());
            }
            *state = ESign;
            step(state, stack, c)
        }
        ESign => {
            if c.is_ascii_digit() {
                *state = E0;
                return Ok(());
            }
            error(c, "in exponent of numeric literal")
        }
        E0 => {
            if c.is_ascii_digit() {
                return Ok(());
            }
            end_value(state, stack, c)
        }
        Literal(word, n) => {
            let want = word.as_bytes()[n];
            if c != want {
                return error(
                    c,
                    &format!(
                        "in literal {word} (expecting {})",
                        super::quote_char(char::from(want))
                    ),
                );
            }
            *state = if n + 1 == word.len() {
                EndValue
            } else {
                Literal(word, n + 1)
            };
            Ok(())
        }
    }
}

fn push(stack: &mut Vec<Parse>, p: Parse) -> Result<(), String> {
    if stack.len() >= MAX_DEPTH {
        return Err("exceeded max depth".into());
    }
    stack.push(p);
    Ok(())
}

/// Go's `stateEndValue`: what may follow a complete value.
fn end_value(state: &mut State, stack: &mut Vec<Parse>, c: u8) -> Result<(), String> {
    let Some(&top) = stack.last() else {
        *state = State::EndTop;
        return step(state, stack, c);
    };
    if is_space(c) {
        *state = State::EndValue;
        return Ok(());
    }
    match top {
        Parse::ObjectKey => {
            if c == b':' {
                *stack.last_mut().expect("top") = Parse::ObjectValue;
                *state = State::BeginValue;
                return Ok(());
            }
            error(c, "after object key")
        }
        Parse::ObjectValue => match c {
            b',' => {
                *stack.last_mut().expect("top") = Parse::ObjectKey;
                *state = State::BeginString;
                Ok(())
            }
            b'}' => {
                stack.pop();
                *state = State::EndValue;
                if stack.is_empty() {
                    *state = State::EndTop;
                }
                Ok(())
            }
            _ => error(c, "after object key:value pair"),
        },
        Parse::ArrayValue => match c {
            b',' => {
                *state = State::BeginValue;
                Ok(())
            }
            b']' => {
                stack.pop();
                *state = State::EndValue;
                if stack.is_empty() {
                    *state = State::EndTop;
                }
                Ok(())
            }
            _ => error(c, "after array element"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn valid_documents_pass() {
        for ok in [
            "{}",
            " [ ] ",
            "{\"a\": [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\"]}",
            "0",
            "\"s\"",
            "[[[]]]",
        ] {
            assert_eq!(check(ok.as_bytes()), None, "{ok}");
        }
    }

    #[test]
    fn errors_as_go_words_them() {
        for (bad, msg) in [
            (
                "{\"a\": }",
                "invalid character '}' looking for beginning of value",
            ),
            ("", "unexpected end of JSON input"),
            ("{\"a\": 1", "unexpected end of JSON input"),
            (
                "{a: 1}",
                "invalid character 'a' looking for beginning of object key string",
            ),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            (
                "{\"a\": 1 \"b\"}",
                "invalid character '\"' after object key:value pair",
            ),
            ("[1 2]", "invalid character '2' after array element"),
            (
                "[1,]",
                "invalid character ']' looking for beginning of value",
            ),
            ("1 2", "invalid character '2' after top-level value"),
            ("tru", "unexpected end of JSON input"),
            (
                "trux",
                "invalid character 'x' in literal true (expecting 'e')",
            ),
            (
                "nul1",
                "invalid character '1' in literal null (expecting 'l')",
            ),
            ("-a", "invalid character 'a' in numeric literal"),
            (
                "1.x",
                "invalid character 'x' after decimal point in numeric literal",
            ),
            (
                "1ex",
                "invalid character 'x' in exponent of numeric literal",
            ),
            ("\"\\x\"", "invalid character 'x' in string escape code"),
            (
                "\"\\u12g4\"",
                "invalid character 'g' in \\u hexadecimal character escape",
            ),
            ("\"a\nb\"", "invalid character '\\n' in string literal"),
            (
                "{'a': 1}",
                "invalid character '\\'' looking for beginning of object key string",
            ),
        ] {
            assert_eq!(check(bad.as_bytes()).as_deref(), Some(msg), "{bad:?}");
        }
    }
}
