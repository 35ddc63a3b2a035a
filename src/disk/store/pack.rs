//! The file that holds a cache folder's entries: one file read at the start
//! of a run and written once at its end, instead of one file per pair.
//!
//! Why one file: a re-run of an unchanged repository answers every pair
//! from the cache, so what it costs is what reading the entries costs. On
//! 1,000 small pairs, opening, reading and closing 1,400 entry files was a
//! fifth of the re-run; one read of one file is a few hundred microseconds.
//! An entry is decoded only when a pair asks for it.
//!
//! The format is plain framing, so that a damaged file is detected, never
//! misread: a header line, then for each entry `<key> <length>\n<bytes>\n`.
//! Keys are lowercase hex (what [`crate::check::memo`] makes); anything
//! else, a length past the end, or a missing newline ends the reading, and
//! the entries read until then are kept (each is checked again by its
//! reader: its bytes name their own key and format).

use std::collections::HashMap;
use std::ops::Range;

/// The first line of a pack.
const HEADER: &[u8] = b"yttcheck results pack 1\n";

/// A pack read into memory, indexed by key.
#[derive(Default)]
pub struct Pack {
    bytes: Vec<u8>,
    /// Entries in the order the file lists them (newest first).
    order: Vec<(String, Range<usize>)>,
    index: HashMap<String, usize>,
}

impl Pack {
    /// The entries of `bytes` (as many as are whole; none without the
    /// header).
    pub fn parse(bytes: Vec<u8>) -> Pack {
        let mut order = Vec::new();
        let mut index = HashMap::new();
        if let Some(mut rest) = bytes
            .strip_prefix(HEADER)
            .map(|r| HEADER.len()..HEADER.len() + r.len())
        {
            while let Some((key, entry, next)) = record(&bytes, rest.clone()) {
                // a key that comes again (a damaged or hand-made pack): its
                // first entry stands
                if let std::collections::hash_map::Entry::Vacant(v) = index.entry(key.clone()) {
                    v.insert(order.len());
                    order.push((key, entry));
                }
                rest = next..bytes.len();
            }
        }
        Pack {
            bytes,
            order,
            index,
        }
    }

    /// The bytes kept under `key`.
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        let i = *self.index.get(key)?;
        Some(&self.bytes[self.order[i].1.clone()])
    }

    /// Every entry, newest first.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.order
            .iter()
            .map(|(k, r)| (k.as_str(), &self.bytes[r.clone()]))
    }

    /// How many entries it holds.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.order.len()
    }
}

/// The record at `at` of `bytes`: its key, its bytes' range and where the
/// next record begins.
fn record(bytes: &[u8], at: Range<usize>) -> Option<(String, Range<usize>, usize)> {
    let line_end = at.start
        + bytes[at.clone()]
            .iter()
            .take(96)
            .position(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&bytes[at.start..line_end]).ok()?;
    let (key, len) = line.split_once(' ')?;
    if key.is_empty()
        || key.len() > 64
        || !key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let len: usize = len.parse().ok()?;
    let start = line_end + 1;
    let end = start.checked_add(len)?;
    if end >= at.end || bytes[end] != b'\n' {
        return None;
    }
    Some((key.to_string(), start..end, end + 1))
}

/// The bytes of a pack of `entries`, in their order; an entry whose key
/// comes again is left out. Entries stop before the pack would pass
/// `max_bytes`, except the first, which is always kept.
pub fn encode<'a>(
    entries: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    max_bytes: usize,
) -> Vec<u8> {
    let mut out = HEADER.to_vec();
    let mut seen = std::collections::HashSet::new();
    for (key, bytes) in entries {
        if !seen.insert(key) {
            continue;
        }
        let head = format!("{key} {}\n", bytes.len());
        if out.len() > HEADER.len() && out.len() + head.len() + bytes.len() + 1 > max_bytes {
            break;
        }
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(bytes);
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_in_order_and_damage_keeps_what_is_whole() {
        let bytes = encode(
            [
                ("ab01", &b"{\"a\":1}"[..]),
                ("cd02", b"line\nbreaks\n"),
                ("ab01", b"again"),
                ("ef03", b""),
            ],
            usize::MAX,
        );
        let pack = Pack::parse(bytes.clone());
        assert_eq!(
            pack.entries().collect::<Vec<_>>(),
            [
                ("ab01", &b"{\"a\":1}"[..]),
                ("cd02", b"line\nbreaks\n"),
                ("ef03", b"")
            ]
        );
        assert_eq!(pack.get("cd02"), Some(&b"line\nbreaks\n"[..]));
        assert_eq!(pack.get("zz"), None);
        // cut anywhere: the whole entries before the cut are read, and
        // nothing is misread
        for cut in 0..bytes.len() {
            let p = Pack::parse(bytes[..cut].to_vec());
            for (k, v) in p.entries() {
                assert_eq!(pack.get(k), Some(v), "cut at {cut}");
            }
        }
        // a key that comes again, at the end or before another entry: the
        // first stands, and no lookup reads past the entries
        let mut again = HEADER.to_vec();
        again.extend_from_slice(b"ab01 1\nx\nab01 1\ny\n");
        let p = Pack::parse(again.clone());
        assert_eq!((p.len(), p.get("ab01")), (1, Some(&b"x"[..])));
        again.extend_from_slice(b"cd02 1\nz\n");
        let p = Pack::parse(again);
        assert_eq!(p.get("ab01"), Some(&b"x"[..]));
        assert_eq!(p.get("cd02"), Some(&b"z"[..]));
        assert_eq!(p.entries().count(), 2);
        // no header, a key that is not ours, a length past the end
        assert_eq!(Pack::parse(b"ab01 1\nx\n".to_vec()).len(), 0);
        let mut bad = HEADER.to_vec();
        bad.extend_from_slice(b"../x 1\nx\nab01 1\ny\n");
        assert_eq!(Pack::parse(bad).len(), 0);
        let mut long = HEADER.to_vec();
        long.extend_from_slice(b"ab01 99999999999999999999\nx\n");
        assert_eq!(Pack::parse(long).len(), 0);
    }

    #[test]
    fn a_pack_stays_within_its_size_but_keeps_its_first_entry() {
        let big = [b'x'; 100];
        let bytes = encode([("aa", &big[..]), ("bb", &big[..]), ("cc", &big[..])], 250);
        assert!(bytes.len() <= 250);
        assert_eq!(Pack::parse(bytes).len(), 2);
        let bytes = encode([("aa", &big[..])], 10);
        assert_eq!(Pack::parse(bytes).len(), 1);
    }
}
