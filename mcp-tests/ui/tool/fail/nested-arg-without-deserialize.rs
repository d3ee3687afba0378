use oxmcp_server::tool;

#[derive(schemars::JsonSchema)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

pub struct Geometry;

#[tool(description = "Plane geometry")]
impl Geometry {
    #[describe("The centroid of some points")]
    pub fn centroid(&self, #[param("The points")] points: std::vec::Vec<Point>) -> String {
        format!("{}", points.len())
    }
}

fn main() {}
