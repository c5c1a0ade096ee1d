//! Endgame table files: any bytes are refused with a clear error or read as a table, never a
//! panic; and a damaged copy of a real table is never read as values that differ from it.
//!
//! The input is either a whole file (first byte 0) or edits of a real K v K table built once
//! per process: pairs (offset, xor) over the file, then a length to cut it to.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use dama_egtb::{file::TableFile, Material};
use libfuzzer_sys::fuzz_target;

/// The real table's bytes and values, and a scratch file of this process.
fn setup() -> &'static (Vec<u8>, Vec<u8>, PathBuf) {
    static SETUP: OnceLock<(Vec<u8>, Vec<u8>, PathBuf)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("dama-fuzz-egtb-{}", std::process::id()));
        dama_egtb::build(dama_rules::Variant::Italian, 2, &dir, 1, |_| {}).expect("a build");
        let m: Material = "K-K".parse().expect("a class");
        let path = dama_egtb::variant_dir(&dir, dama_rules::Variant::Italian)
            .join(dama_egtb::file::file_name(m));
        let bytes = std::fs::read(&path).expect("the table");
        let values = TableFile::open(&path)
            .and_then(|f| f.read_all())
            .expect("valid");
        (bytes, values, dir.join("scratch.egtb"))
    })
}

fuzz_target!(|data: &[u8]| {
    let (good, values, scratch) = setup();
    let (bytes, edited) = if data.first() == Some(&0) {
        (data[1..].to_vec(), false)
    } else {
        let mut b = good.clone();
        let mut chunks = data.chunks_exact(3);
        for c in &mut chunks {
            let at = usize::from(u16::from_le_bytes([c[0], c[1]])) % b.len();
            b[at] ^= c[2];
        }
        if let [cut, ..] = chunks.remainder() {
            b.truncate(b.len() * usize::from(*cut) / 255);
        }
        (b, true)
    };
    std::fs::write(scratch, &bytes).expect("the scratch file");
    match TableFile::open(scratch) {
        Err(e) => {
            let _ = e.to_string();
        }
        Ok(f) => {
            let _ = f.header();
            // Every block reads back or is refused; a table read whole from an edited copy
            // of the real one is the real one (an edit that changes values is caught).
            match f.read_all() {
                Ok(v) => {
                    assert_eq!(v.len() as u64, f.header().len);
                    if edited && f.header().material == "K-K".parse().expect("a class") {
                        assert_eq!(&v, values, "a damaged table read as other values");
                    }
                }
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
    }
});
