//! Limits the compiler puts into a program, or checks before it parses one:
//! what `a * b` is compiled to (a size-checked call: see
//! `runtime::guard`), and how deep an expression may nest before
//! starlark-rust's recursive parser would overflow the stack.

/// The function `a * b` is compiled to.
pub const MUL_FUNCTION: &str = "__ytt_mul";

/// The deepest expression a Starlark statement may have: brackets inside
/// brackets, and operators chained in one statement (`1+1+...+1` and
/// `- - - x` nest as deeply as brackets do). starlark-rust parses and
/// evaluates expressions recursively; about 30,000 levels overflow even a
/// 64 MiB stack and abort the process, so this is checked on the source
/// before parsing. Real code stays below a hundred.
pub const MAX_EXPRESSION_DEPTH: usize = 5_000;

/// The first line (1-based) of `source` where a statement nests deeper than
/// [`MAX_EXPRESSION_DEPTH`], with how deep it got there.
pub fn too_deep(source: &str) -> Option<(usize, usize)> {
    let bytes = source.as_bytes();
    let mut line = 1usize;
    // operators chained at each enclosing bracket level, and at this one:
    // an operand of a chain that sits in brackets nests below all of them
    let mut outer: Vec<usize> = Vec::new();
    let mut outer_sum = 0usize;
    let mut chain = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line += 1;
            if outer.is_empty() && quote.is_none() {
                chain = 0;
            }
        }
        if let Some(q) = quote {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' | b'\'' => quote = Some(c),
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' | b'{' => {
                outer.push(chain);
                outer_sum += chain;
                chain = 0;
            }
            b')' | b']' | b'}' => {
                // the group is one operand of the chain it sits in
                chain = outer.pop().unwrap_or(0);
                outer_sum -= chain.min(outer_sum);
            }
            // elements of a list, arguments, dict entries: separate chains
            b',' | b':' => chain = 0,
            b'+' | b'-' | b'*' | b'/' | b'%' | b'|' | b'&' | b'^' | b'~' | b'<' | b'>' => {
                chain += 1
            }
            b'a'..=b'z' => {
                // `not`, `and`, `or`, `if`/`else`, `in`: word operators
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if matches!(
                    &source[start..i],
                    "not" | "and" | "or" | "if" | "else" | "in"
                ) {
                    chain += 1;
                }
                continue;
            }
            _ => {}
        }
        let depth = outer.len() + outer_sum + chain;
        if depth > MAX_EXPRESSION_DEPTH {
            return Some((line, depth));
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    #[test]
    fn deep_expressions_are_found_before_parsing() {
        let plus = format!("x = {}\n", vec!["1"; 6_000].join("+"));
        assert_eq!(too_deep(&plus).map(|(l, _)| l), Some(1));
        let brackets = format!("y = 1\nx = {}{}\n", "[".repeat(6_000), "]".repeat(6_000));
        assert_eq!(too_deep(&brackets).map(|(l, _)| l), Some(2));
        let nots = format!("x = {} True\n", "not ".repeat(6_000));
        assert!(too_deep(&nots).is_some());
        // long programs of ordinary statements are fine
        let many = "x = a + b * (c - d)\n".repeat(10_000);
        assert_eq!(too_deep(&many), None);
        // a long list of negative numbers is wide, not deep
        let wide = format!("x = [{}]\n", "-1, ".repeat(20_000));
        assert_eq!(too_deep(&wide), None);
        let args = format!("f({})\n", "a + 1, ".repeat(20_000));
        assert_eq!(too_deep(&args), None);
        // operators inside strings and comments do not count
        let strings = format!("x = \"{}\"  # {}\n", "+".repeat(10_000), "-".repeat(10_000));
        assert_eq!(too_deep(&strings), None);
    }
}
