//! String formats for the `format=` validation rule (a yttcheck extension from
//! ytt's validations proposal). Each check is strict and dependency-free.

use std::net::{Ipv4Addr, Ipv6Addr};

pub const FORMATS: &[&str] = &[
    "hostname",
    "ip",
    "ipv4",
    "ipv6",
    "email",
    "uri",
    "date-time",
    "date",
    "time",
    "port",
    "percent",
    "duration",
    "quantity",
];

/// Whether `s` is in `format`; `None` when the format is unknown.
pub fn check(format: &str, s: &str) -> Option<bool> {
    Some(match format {
        "hostname" => is_hostname(s),
        "ip" => s.parse::<Ipv4Addr>().is_ok() || s.parse::<Ipv6Addr>().is_ok(),
        "ipv4" => is_ipv4(s),
        "ipv6" => s.parse::<Ipv6Addr>().is_ok(),
        "email" => is_email(s),
        "uri" => is_uri(s),
        "date-time" => is_date_time(s),
        "date" => is_date(s),
        "time" => is_time(s),
        "port" => is_port(s),
        "percent" => is_percent(s),
        "duration" => is_duration(s),
        "quantity" => is_quantity(s),
        _ => return None,
    })
}

/// What a format means, for `must be:` lines.
pub fn describe(format: &str) -> String {
    match format {
        "hostname" => "a hostname (RFC 1123)".into(),
        "ip" => "an IP address".into(),
        "ipv4" => "an IPv4 address".into(),
        "ipv6" => "an IPv6 address".into(),
        "email" => "an email address".into(),
        "uri" => "a URI (RFC 3986)".into(),
        "date-time" => "an RFC 3339 date-time".into(),
        "date" => "an RFC 3339 full-date (YYYY-MM-DD)".into(),
        "time" => "an RFC 3339 time".into(),
        "port" => "a port number (1-65535)".into(),
        "percent" => "a percentage (0-100%)".into(),
        "duration" => "a duration (e.g. 1h30m)".into(),
        "quantity" => "a Kubernetes quantity (e.g. 500Mi)".into(),
        other => format!("in format {other}"),
    }
}

fn is_ipv4(s: &str) -> bool {
    // reject leading zeros, which std accepts in no version but users write
    s.parse::<Ipv4Addr>().is_ok()
}

fn is_hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > 253 {
        return false;
    }
    let s = s.strip_suffix('.').unwrap_or(s);
    s.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    })
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && local.len() <= 64
        && local
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~.-".contains(c))
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && domain.contains('.')
        && is_hostname(domain)
}

fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        && !rest.is_empty()
        && rest.chars().all(|c| !c.is_whitespace() && !c.is_control())
}

fn digits(s: &str, n: usize) -> Option<u32> {
    if s.len() == n && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    if parts.len() != 3 {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (
        digits(parts[0], 4),
        digits(parts[1], 2),
        digits(parts[2], 2),
    ) else {
        return false;
    };
    let dim = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => return false,
    };
    (1..=dim).contains(&d)
}

fn is_time(s: &str) -> bool {
    // HH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
    let (main, offset) = if let Some(m) = s.strip_suffix(['Z', 'z']) {
        (m, None)
    } else if s.len() > 6
        && (s.as_bytes()[s.len() - 6] == b'+' || s.as_bytes()[s.len() - 6] == b'-')
    {
        (&s[..s.len() - 6], Some(&s[s.len() - 5..]))
    } else {
        return false;
    };
    if let Some(off) = offset {
        let Some((h, m)) = off.split_once(':') else {
            return false;
        };
        match (digits(h, 2), digits(m, 2)) {
            (Some(h), Some(m)) if h < 24 && m < 60 => {}
            _ => return false,
        }
    }
    let (hms, frac) = match main.split_once('.') {
        Some((a, f)) => (a, Some(f)),
        None => (main, None),
    };
    if let Some(f) = frac {
        if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    let p: Vec<&str> = hms.split(':').collect();
    if p.len() != 3 {
        return false;
    }
    matches!((digits(p[0], 2), digits(p[1], 2), digits(p[2], 2)), (Some(h), Some(m), Some(s)) if h < 24 && m < 60 && s <= 60)
}

fn is_date_time(s: &str) -> bool {
    match s.find(['T', 't']) {
        Some(i) => is_date(&s[..i]) && is_time(&s[i + 1..]),
        None => false,
    }
}

fn is_port(s: &str) -> bool {
    matches!(s.parse::<u32>(), Ok(p) if (1..=65535).contains(&p)) && !s.starts_with('+')
}

fn is_percent(s: &str) -> bool {
    let Some(n) = s.strip_suffix('%') else {
        return false;
    };
    matches!(n.parse::<f64>(), Ok(f) if (0.0..=100.0).contains(&f)) && !n.starts_with('+')
}

/// Go's `time.ParseDuration` syntax: `300ms`, `-1.5h`, `2h45m`.
fn is_duration(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        if i == start || s[start..i].matches('.').count() > 1 || &s[start..i] == "." {
            return false;
        }
        let ustart = i;
        while i < b.len() && !(b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        if !matches!(
            &s[ustart..i],
            "ns" | "us" | "µs" | "μs" | "ms" | "s" | "m" | "h"
        ) {
            return false;
        }
    }
    true
}

/// Kubernetes resource quantity: number with optional suffix.
fn is_quantity(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let num_end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(num_end);
    if num.is_empty() || num == "." || num.matches('.').count() > 1 {
        return false;
    }
    if matches!(
        suffix,
        "" | "Ki"
            | "Mi"
            | "Gi"
            | "Ti"
            | "Pi"
            | "Ei"
            | "n"
            | "u"
            | "m"
            | "k"
            | "M"
            | "G"
            | "T"
            | "P"
            | "E"
    ) {
        return true;
    }
    // decimal exponent: 1e3, 1E-2
    if let Some(exp) = suffix.strip_prefix(['e', 'E']) {
        let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        return !exp.is_empty() && exp.bytes().all(|b| b.is_ascii_digit());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn formats_accept_and_reject() {
        let cases: &[(&str, &str, &str)] = &[
            ("hostname", "my-host.example.com", "-bad-.com"),
            ("ip", "10.0.0.1", "10.0.0.256"),
            ("ipv4", "192.168.1.1", "::1"),
            ("ipv6", "fe80::1", "10.0.0.1"),
            ("email", "ops@example.com", "ops@localhost"),
            ("uri", "https://example.com/x?y=1", "not a uri"),
            ("date-time", "2024-02-29T12:30:00Z", "2023-02-29T12:30:00Z"),
            ("date", "2024-01-31", "2024-13-01"),
            ("time", "23:59:59.5+02:00", "25:00:00Z"),
            ("port", "8443", "70000"),
            ("percent", "42.5%", "142%"),
            ("duration", "1h30m", "1x"),
            ("quantity", "500Mi", "5 Gi"),
        ];
        for (f, good, bad) in cases {
            assert_eq!(check(f, good), Some(true), "{f} {good}");
            assert_eq!(check(f, bad), Some(false), "{f} {bad}");
        }
        assert_eq!(check("nope", "x"), None);
    }
}
