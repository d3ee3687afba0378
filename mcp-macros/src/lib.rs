//! Procedural macros (in progress).
