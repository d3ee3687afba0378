//! Generic impls pass their generics (and bounds) through.
#![deny(warnings)]

use std::fmt::Display;

use oxmcp_server::{tool, Json, ToolBox};
use serde::de::DeserializeOwned;
use serde::Serialize;

#[derive(Debug, Default)]
pub struct Register<T> {
    value: T,
}

#[tool(description = "One register of any value type")]
impl<T> Register<T>
where
    T: Clone
        + Display
        + Serialize
        + DeserializeOwned
        + schemars::JsonSchema
        + Send
        + Sync
        + 'static,
{
    #[describe("Read the register")]
    pub fn read(&self) -> Json<T> {
        Json(self.value.clone())
    }

    #[describe("Write the register, returning the old value as text")]
    pub fn write(&mut self, #[param("The new value")] value: T) -> String {
        std::mem::replace(&mut self.value, value).to_string()
    }
}

pub struct Labelled<'a> {
    label: &'a str,
}

#[tool(description = "A labelled value")]
impl Labelled<'static> {
    #[describe("The label")]
    pub fn label<'s>(&'s self) -> &'s str {
        self.label
    }
}

pub fn main() {
    assert_eq!(<Register<u32>>::NAME, "Register");
    assert_eq!(Register::<u32>::default().into_tools().len(), 2);
    assert_eq!(Labelled { label: "x" }.into_tools().len(), 1);
}
