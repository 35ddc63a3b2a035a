//! YAML with ytt's annotations: parsing (with and without comments, as the
//! template compiler and discovery do) and printing what parsed.
#![no_main]
use libfuzzer_sys::fuzz_target;
use yttcheck::yaml::SourceFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let src = SourceFile::new("fuzz.yml", text);
    let _ = src.annotation_lines();
    for comments in [false, true] {
        if let Ok(docs) = yttcheck::yaml::parse::parse(&src, comments) {
            for d in &docs.docs {
                let _ = yttcheck::yaml::print::print_value(&d.value);
            }
        }
    }
});
