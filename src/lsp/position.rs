//! LSP positions in a line: a `character` counts UTF-16 code units, where
//! Rust slices a line by bytes. Every conversion lands on a character's
//! boundary, whatever the client sends (a position inside a surrogate
//! pair, or past the line's end), so no slice of the line can panic.

/// The byte offset in `line` of the position `character`: the start of the
/// character it falls in (or just after), the line's end past it.
pub fn byte_offset(line: &str, character: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= character {
            return i;
        }
        units = units.saturating_add(c.len_utf16() as u32);
        if units > character {
            // inside this character (between its surrogates): its start
            return i;
        }
    }
    line.len()
}

/// The position (UTF-16 code units) of the byte offset `at` in `line` (a
/// character boundary, or the line's end).
pub fn utf16_column(line: &str, at: usize) -> u32 {
    line.get(..at)
        .unwrap_or(line)
        .chars()
        .map(|c| c.len_utf16() as u32)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_utf16_and_land_on_boundaries() {
        let line = "a😀é=b";
        assert_eq!(byte_offset(line, 0), 0);
        assert_eq!(byte_offset(line, 1), 1);
        // inside the emoji's surrogate pair: its start
        assert_eq!(byte_offset(line, 2), 1);
        assert_eq!(byte_offset(line, 3), 5);
        assert_eq!(byte_offset(line, 4), 7);
        assert_eq!(byte_offset(line, 6), line.len());
        assert_eq!(byte_offset(line, u32::MAX), line.len());
        for c in 0..10 {
            assert!(line.is_char_boundary(byte_offset(line, c)));
        }
        assert_eq!(utf16_column(line, 5), 3);
        assert_eq!(utf16_column(line, line.len()), 6);
        assert_eq!(utf16_column(line, 99), 6);
    }
}
