//! A YAML float as go-yaml prints it (the printer's, and a value's text
//! where one is shown).

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` with YAML's names for the
/// special values.
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e6".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent number");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let neg = if f < 0.0 { "-" } else { "" };
    if !(-4..EPREC_SHORTEST).contains(&exp) {
        // %e form: d.ddde+XX
        let mut s = String::from(neg);
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            s.push('0');
        }
        s.push_str(&e.to_string());
        return s;
    }
    // %f form with as many digits as needed
    let mut s = String::from(neg);
    if exp < 0 {
        s.push_str("0.");
        for _ in 0..(-exp - 1) {
            s.push('0');
        }
        s.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            s.push_str(&digits);
            for _ in digits.len()..int_len {
                s.push('0');
            }
        } else {
            s.push_str(&digits[..int_len]);
            s.push('.');
            s.push_str(&digits[int_len..]);
        }
    }
    s
}

/// Go uses precision 6 to choose between %e and %f for shortest formatting.
const EPREC_SHORTEST: i32 = 6;
