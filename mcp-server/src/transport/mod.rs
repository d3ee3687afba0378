//! Transports: bytes in and out, messages handed to dispatch.

pub(crate) mod http;
pub(crate) mod stdio;
