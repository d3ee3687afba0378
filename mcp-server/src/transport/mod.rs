//! Transports: bytes in and out, messages handed to dispatch.

pub(crate) mod stdio;
