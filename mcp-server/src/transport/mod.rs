//! Transports: bytes in and out, messages handed to dispatch.

#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(feature = "stdio")]
pub(crate) mod stdio;
