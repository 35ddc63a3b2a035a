//! Which keys hold secrets: their values are never printed (code frames,
//! diffs). CI logs are widely readable.

/// Decides which keys hold secrets.
pub struct Secrets {
    words: Vec<String>,
}

impl Default for Secrets {
    fn default() -> Self {
        Secrets::new(&[])
    }
}

impl Secrets {
    /// The default words (password, secret, token, key, cert, ...) and `more`.
    pub fn new(more: &[String]) -> Secrets {
        let mut words: Vec<String> = [
            "password",
            "passwd",
            "secret",
            "token",
            "key",
            "cert",
            "credential",
            "private",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        words.extend(more.iter().map(|w| w.to_lowercase()));
        Secrets { words }
    }

    /// Whether a key holds a secret: one of its words (`db_password`,
    /// `apiToken` -> api, token) is a secret word.
    pub fn is_secret(&self, key: &str) -> bool {
        split_words(key).iter().any(|w| {
            self.words
                .iter()
                .any(|s| w == s || (s.len() > 3 && w.ends_with(s.as_str())))
        })
    }
}

fn split_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut cur));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    words.push(cur);
    words.retain(|w| !w.is_empty());
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_words() {
        let s = Secrets::new(&["pin".to_string()]);
        for k in [
            "password",
            "db_password",
            "apiToken",
            "tls.key",
            "clientSecret",
            "caCert",
            "pin",
        ] {
            assert!(s.is_secret(k), "{k}");
        }
        for k in ["keyboard", "monkey", "replicas", "host"] {
            assert!(!s.is_secret(k), "{k}");
        }
    }
}
