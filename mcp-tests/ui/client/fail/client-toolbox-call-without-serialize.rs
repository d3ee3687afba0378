use oxmcp_server::types::call::ToolCaller;
use oxmcp_server::tool;

// Deserialize + JsonSchema is all a server needs for an argument.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Point {
    pub x: f64,
}

pub struct Geometry;

#[tool(description = "Geometry")]
impl Geometry {
    #[describe("The distance to the origin")]
    pub fn norm(&self, #[param("The point")] p: Point) -> f64 {
        p.x.abs()
    }
}

// Calling the client's method needs `Point: Serialize`.
pub async fn norm<C: ToolCaller>(client: GeometryClient<C>) -> f64 {
    client.norm(Point { x: 1.0 }).await.unwrap_or(0.0)
}

fn main() {}
