//! A declaration of a foreign server's tools: every kind of result (the
//! server's vocabulary: `Json<T>` for structured content), renames,
//! defaults, options, doc comments and `#[cfg]`s carried to the client.
#![deny(warnings, missing_docs)]

use std::collections::HashMap;

use oxmcp_client::types::call::{CallError, ToolCaller};
use oxmcp_client::types::{CallToolResult, ContentBlock};
use oxmcp_client::{tool, Json};

/// A day of forecast.
#[derive(Debug, serde::Deserialize)]
pub struct Day {
    /// The summary.
    pub summary: String,
}

/// A place to forecast.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Place {
    /// Its latitude.
    pub lat: f64,
    /// Its longitude.
    pub lon: f64,
}

/// The weather service, declared.
#[tool(description = "A weather service written in Python")]
#[allow(clippy::unused_async)]
pub trait Weather {
    /// The forecast.
    #[describe("The forecast for a city")]
    #[param(city, "The city")]
    async fn forecast(
        &self,
        city: String,
        #[param("How many days", default = 3)] days: u32,
    ) -> Json<Vec<Day>>;

    #[describe("The temperature")]
    #[tool(name = "get-temperature")]
    async fn temperature(
        &self,
        #[param("Where")] at: Place,
        #[param("Units")] units: Option<String>,
    ) -> f64;

    #[describe("Is it raining")]
    async fn raining(&self, #[param("The city")] city: String) -> bool;

    #[describe("A summary")]
    async fn summary(&self) -> String;

    #[describe("Refresh")]
    async fn refresh(&self);

    #[describe("Refresh, with unit written out")]
    async fn refresh_unit(&self) -> ();

    #[describe("Raw JSON")]
    async fn raw(&self) -> Json<serde_json::Value>;

    #[describe("Content")]
    async fn content(&self) -> Vec<ContentBlock>;

    #[describe("The whole result")]
    async fn whole(&self) -> CallToolResult;

    #[describe("Stations")]
    async fn stations(
        &self,
        #[param("Filters")] filters: HashMap<String, String>,
    ) -> Json<HashMap<String, u32>>;

    #[describe("One block")]
    async fn block(&self) -> ContentBlock;

    #[describe("A result, as the server writes it: an error is `CallError::Tool`")]
    async fn checked(&self) -> Result<u32, String>;

    #[describe("Old")]
    #[deprecated = "use forecast"]
    async fn old(&self) -> String;

    #[describe("Never compiled")]
    #[cfg(any())]
    async fn never(&self, #[param("Not a type")] x: NotAType) -> Nothing;
}

/// Uses every method.
#[allow(deprecated)]
pub async fn use_all<C: ToolCaller>(caller: C) -> Result<(), CallError> {
    let client = WeatherClient::connect(caller).await?;
    let _: Vec<Day> = client.forecast("Paris".into(), None).await?;
    let _: f64 = client
        .temperature(Place { lat: 0.0, lon: 0.0 }, Some("C".into()))
        .await?;
    let _: bool = client.raining("Paris".into()).await?;
    let _: String = client.summary().await?;
    client.refresh().await?;
    client.refresh_unit().await?;
    let _: serde_json::Value = client.raw().await?;
    let _: Vec<ContentBlock> = client.content().await?;
    let _: CallToolResult = client.whole().await?;
    let _: HashMap<String, u32> = client.stations(HashMap::new()).await?;
    let _: Vec<ContentBlock> = client.block().await?;
    let _: u32 = client.checked().await?;
    let _: String = client.old().await?;
    // A shared caller: `&C` is a caller too.
    let _: WeatherClient<&C> = WeatherClient::new(client.caller());
    Ok(())
}

mod private {
    use oxmcp_client::tool;

    // Private declarations give private clients.
    #[tool(description = "Something internal")]
    trait Internal {
        #[describe("Ping")]
        async fn ping(&self) -> String;
    }

    #[tool(description = "Something for the crate")]
    pub(crate) trait Crate {
        #[describe("Ping")]
        async fn ping(&self) -> String;
    }
}

/// Runs the case.
pub fn main() {
    let _: Option<private::CrateClient<()>> = None;
}
