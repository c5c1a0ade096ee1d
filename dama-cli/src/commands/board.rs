//! `dama board`: a position as coloured text in the terminal, and as an SVG or PNG picture
//! (text and SVG drawn by `dama_rules::notation::diagram`, which the Python bindings share).
//!
//! The PNG is the SVG rasterised by resvg (pure Rust, no system library), built without its
//! text support: the diagram draws its numbers as strokes, so no font is needed.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use dama_rules::notation::diagram;
use dama_rules::{Move, Position, Variant};

use crate::error::CliError;
use crate::exit::Status;

/// Draws `pos` on `variant`'s own board (its square names and orientation), with `highlight`
/// marked, as text (coloured on a terminal unless `plain`) and as SVG into `svg` and as PNG
/// into `png` when given.
pub fn run(
    variant: Variant,
    pos: &Position,
    highlight: Option<Move>,
    svg: Option<&Path>,
    png: Option<&Path>,
    plain: bool,
) -> Result<Status, CliError> {
    #[cfg(not(feature = "png"))]
    if png.is_some() {
        return Err(CliError::Usage(
            "this dama was built without the PNG renderer (cargo feature `png`): use --svg, \
             or build it with the default features"
                .into(),
        ));
    }
    let cannot = |path: &Path, e: &dyn std::fmt::Display| {
        CliError::Usage(format!("cannot write {}: {e}", path.display()))
    };
    if let (Some(a), Some(b)) = (svg, png) {
        if same_file(a, b) {
            return Err(CliError::Usage(format!(
                "--svg {} and --png {} name one file: expected two different files",
                a.display(),
                b.display()
            )));
        }
    }
    let drawing = diagram::svg_in(variant, pos, highlight);
    if let Some(path) = svg {
        std::fs::write(path, &drawing).map_err(|e| cannot(path, &e))?;
    }
    #[cfg(feature = "png")]
    if let Some(path) = png {
        let bytes = rasterise(&drawing).map_err(|e| cannot(path, &e))?;
        std::fs::write(path, bytes).map_err(|e| cannot(path, &e))?;
    }
    let colour = !plain && io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = io::stdout().lock();
    out.write_all(diagram::text_in(variant, pos, highlight, colour).as_bytes())
        .map_err(CliError::Output)?;
    Ok(Status::Ok)
}

/// Whether two output paths name one file: the same file when both exist, else the same
/// path once made absolute.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => match (std::path::absolute(a), std::path::absolute(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        },
    }
}

/// The SVG `svg` as PNG bytes, at its own size.
#[cfg(feature = "png")]
pub fn rasterise(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| format!("a picture of {size:?} cannot be made"))?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| e.to_string())
}
