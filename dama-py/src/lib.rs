//! The Python module `dama._dama`: dama's rules, PDN, perft and engine for Python.
//!
//! Every rule comes from `dama-rules` and every search from `dama-search`; this crate only
//! converts values and errors. The Python package `dama` (python/dama) re-exports it; the
//! documentation Python users read is in the docstrings below and the `.pyi` stubs.

use pyo3::prelude::*;

mod board;
mod engine;
mod errors;
mod pdn;
mod planes;

use dama_rules::Variant;

/// Reads a variant name (`"italian"`, `"spanish"`, …, or a `dama.Variant`).
pub(crate) fn variant_of(name: &str) -> PyResult<Variant> {
    name.parse::<Variant>()
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// The Python module.
#[pymodule]
fn _dama(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    m.add("VARIANT_NAMES", names)?;
    let levels: Vec<&str> = dama_search::Level::ALL.iter().map(|l| l.name()).collect();
    m.add("LEVEL_NAMES", levels)?;
    m.add("MOVE_INDEX_SIZE", planes::MOVE_INDEX_SIZE)?;
    m.add("PLANES", planes::PLANES)?;
    errors::register(m)?;
    board::register(m)?;
    engine::register(m)?;
    pdn::register(m)?;
    Ok(())
}
