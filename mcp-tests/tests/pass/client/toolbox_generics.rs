//! Clients of generic toolboxes, of a toolbox whose generic is named `C`,
//! with `client = false` and with `client = "pub(crate)"`, and of a private
//! toolbox with private types.
#![deny(warnings)]

use std::fmt::Display;

use oxmcp_server::types::call::{CallError, ToolCaller};
use oxmcp_server::{tool, Json, ToolBox};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A register of any value.
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

/// A generic named `C`.
#[derive(Debug, Default)]
pub struct Cell<C> {
    value: C,
}

#[tool(description = "A cell")]
impl<C: Clone + Serialize + schemars::JsonSchema + Send + Sync + 'static> Cell<C> {
    #[describe("Read the cell")]
    pub fn get(&self) -> Json<C> {
        Json(self.value.clone())
    }
}

/// A labelled value.
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

/// No client.
pub struct Quiet;

#[tool(description = "No client", client = false)]
impl Quiet {
    #[describe("Hush")]
    pub fn hush(&self) {}
}

/// Would clash with a client without `client = false`.
pub struct QuietClient;

/// A crate-visible client.
pub struct Hidden;

#[tool(description = "A crate-visible client", client = "pub(crate)")]
impl Hidden {
    #[describe("Peek")]
    pub fn peek(&self) -> u8 {
        0
    }
}

mod inner {
    use oxmcp_server::{tool, Json};

    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    pub(crate) struct Secret {
        pub(crate) value: u32,
    }

    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    pub(crate) struct Key {
        pub(crate) id: u32,
    }

    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    struct Lock {
        id: u32,
    }

    struct Door;

    #[tool(description = "A door")]
    impl Door {
        #[describe("Unlock it")]
        pub fn unlock(&self, #[param("The lock")] lock: Lock) -> Json<Lock> {
            Json(lock)
        }
    }

    pub(crate) fn door() -> Vec<oxmcp_server::ToolEntry> {
        oxmcp_server::ToolBox::into_tools(Door)
    }

    // A private toolbox: its client is `pub`, reachable in the crate, and
    // mentions a type private to this module: no warning.
    pub(crate) struct Vault;

    #[tool(description = "A vault")]
    impl Vault {
        #[describe("Open it")]
        pub fn open(&self, #[param("The key")] key: Key) -> Json<Secret> {
            Json(Secret { value: key.id })
        }
    }
}

/// Uses the generic clients.
pub async fn use_all<C: ToolCaller>(caller: C) -> Result<String, CallError>
where
    C: Clone,
{
    let register = RegisterClient::<u32, C>::new(caller.clone());
    let value: u32 = register.read().await?;
    let old: String = register.write(value + 1).await?;
    let cell = CellClient::<String, C>::new(caller.clone());
    let _: String = cell.get().await?;
    let label: String = LabelledClient::new(caller.clone()).label().await?;
    let _: u8 = HiddenClient::new(caller).peek().await?;
    Ok(old + &label)
}

pub fn main() {
    assert_eq!(Register::<u32>::default().into_tools().len(), 2);
    let _ = (
        QuietClient,
        Quiet.into_tools(),
        inner::Vault.into_tools(),
        inner::door(),
    );
    let _ = Cell::<u8>::default();
}
