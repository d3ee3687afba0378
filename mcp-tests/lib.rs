//! Cross-crate tests live in `tests/`, the macros' trybuild cases in `ui/`;
//! the library itself is empty.
