//! Embeds the browser's engine (dama-wasm's committed module and its JS) when the workspace
//! has it: `dama serve` then hands it to the page, which searches the computer's moves in
//! the player's browser. A package built alone (from crates.io) has no dama-wasm beside it:
//! the page then asks the server to search, as browsers without WebAssembly do.

use std::path::Path;

/// The files, from dama-wasm's folder, in the order `assets.rs` reads them.
const FILES: [&str; 4] = ["dama.wasm", "js/dama.mjs", "js/client.mjs", "js/worker.mjs"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(dama_browser_engine)");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    let source = Path::new(&manifest).join("../dama-wasm");
    for f in FILES {
        println!("cargo::rerun-if-changed={}", source.join(f).display());
    }
    if !FILES.iter().all(|f| source.join(f).is_file()) {
        return;
    }
    for f in FILES {
        let name = f.rsplit('/').next().unwrap_or(f);
        if std::fs::copy(source.join(f), Path::new(&out).join(name)).is_err() {
            return;
        }
    }
    // The module once more, zlib-compressed (HTTP's `deflate`), for the browsers that accept it.
    let Ok(wasm) = std::fs::read(source.join("dama.wasm")) else {
        return;
    };
    let packed = miniz_oxide::deflate::compress_to_vec_zlib(&wasm, 10);
    if std::fs::write(Path::new(&out).join("dama.wasm.zlib"), packed).is_err() {
        return;
    }
    println!("cargo::rustc-cfg=dama_browser_engine");
}
