//! Go's `encoding/base64` decoder, as ytt's `base64.decode` runs it: line
//! feeds and carriage returns anywhere are skipped, trailing bits are
//! accepted unless the encoding is strict, and an error is Go's
//! `illegal base64 data at input byte N` at the byte Go names. (The base64
//! crate refuses line feeds and trailing bits, and words its errors its
//! own way: ytt's users see Go's.)

/// How the text was encoded: the URL alphabet or the standard one, with
/// `=` padding or without, strict about trailing bits or not.
#[derive(Debug, Clone, Copy, Default)]
pub struct Encoding {
    pub url: bool,
    pub padded: bool,
    pub strict: bool,
}

/// Go's `CorruptInputError`: the offset of the first byte it could not take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorruptInput(pub usize);

impl std::fmt::Display for CorruptInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "illegal base64 data at input byte {}", self.0)
    }
}

impl Encoding {
    fn value_of(&self, b: u8) -> Option<u8> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' if !self.url => 62,
            b'/' if !self.url => 63,
            b'-' if self.url => 62,
            b'_' if self.url => 63,
            _ => return None,
        })
    }

    /// `src` decoded, or where Go's decoder stops.
    pub fn decode(&self, src: &[u8]) -> Result<Vec<u8>, CorruptInput> {
        let mut out = Vec::with_capacity(src.len() / 4 * 3 + 3);
        let mut si = 0;
        while si < src.len() {
            let (next, bytes, trailing) = self.quantum(src, si)?;
            out.extend_from_slice(&bytes);
            if let Some(at) = trailing {
                return Err(CorruptInput(at));
            }
            si = next;
        }
        Ok(out)
    }

    /// One group of four symbols from `si`: where the next starts, the
    /// bytes it gives, and trailing garbage after padding (an error once
    /// those bytes are kept).
    fn quantum(
        &self,
        src: &[u8],
        mut si: usize,
    ) -> Result<(usize, Vec<u8>, Option<usize>), CorruptInput> {
        let is_newline = |b: u8| b == b'\n' || b == b'\r';
        let mut buf = [0u8; 4];
        let mut len = 4;
        let mut trailing = None;
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok((si, Vec::new(), None));
                }
                if j == 1 || self.padded {
                    return Err(CorruptInput(si - j));
                }
                len = j;
                break;
            }
            let b = src[si];
            si += 1;
            if let Some(v) = self.value_of(b) {
                buf[j] = v;
                j += 1;
                continue;
            }
            if is_newline(b) {
                continue;
            }
            if !self.padded || b != b'=' {
                return Err(CorruptInput(si - 1));
            }
            // padding: the end of the input
            match j {
                0 | 1 => return Err(CorruptInput(si - 1)),
                2 => {
                    while si < src.len() && is_newline(src[si]) {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(CorruptInput(src.len()));
                    }
                    if src[si] != b'=' {
                        return Err(CorruptInput(si - 1));
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && is_newline(src[si]) {
                si += 1;
            }
            if si < src.len() {
                trailing = Some(si);
            }
            len = j;
            break;
        }
        let val = (u32::from(buf[0]) << 18)
            | (u32::from(buf[1]) << 12)
            | (u32::from(buf[2]) << 6)
            | u32::from(buf[3]);
        let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
        if self.strict {
            if len == 3 && bytes[2] != 0 {
                return Err(CorruptInput(si - 1));
            }
            if len == 2 && (bytes[1] != 0 || bytes[2] != 0) {
                return Err(CorruptInput(si - 2));
            }
        }
        Ok((si, bytes[..len - 1].to_vec(), trailing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: Encoding = Encoding {
        url: false,
        padded: true,
        strict: false,
    };

    fn decode(e: Encoding, s: &str) -> Result<String, String> {
        e.decode(s.as_bytes())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| e.to_string())
    }

    /// The answers of Go's `base64.StdEncoding.DecodeString` (and its
    /// variants) for each input, as Go 1.27 gave them.
    #[test]
    fn decodes_and_fails_as_go_does() {
        assert_eq!(decode(STD, "aGVsbG8="), Ok("hello".into()));
        assert_eq!(decode(STD, "aGVs\nbG8=\n"), Ok("hello".into()));
        assert_eq!(
            decode(STD, "abcdefg_h"),
            Err("illegal base64 data at input byte 7".into())
        );
        assert_eq!(
            decode(STD, "aGVsbG8"),
            Err("illegal base64 data at input byte 4".into())
        );
        assert_eq!(
            decode(STD, "aGVsbG8=x"),
            Err("illegal base64 data at input byte 8".into())
        );
        assert_eq!(
            decode(STD, "aGVsbA="),
            Err("illegal base64 data at input byte 7".into())
        );
        // trailing bits: accepted unless strict
        assert_eq!(decode(STD, "YR=="), Ok("a".into()));
        let strict = Encoding {
            strict: true,
            ..STD
        };
        assert_eq!(
            decode(strict, "YR=="),
            Err("illegal base64 data at input byte 2".into())
        );
        let raw_url = Encoding {
            url: true,
            padded: false,
            strict: false,
        };
        assert_eq!(decode(raw_url, "_-8"), Ok("\u{fffd}\u{fffd}".into()));
        assert_eq!(
            decode(raw_url, "a"),
            Err("illegal base64 data at input byte 0".into())
        );
    }
}
