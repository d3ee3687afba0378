use oxmcp_server::tool;

#[derive(serde::Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

pub struct Geometry;

#[tool(description = "Plane geometry")]
impl Geometry {
    #[describe("Distance from the origin")]
    pub fn norm(&self, #[param("The point")] point: Point) -> f64 {
        point.x.hypot(point.y)
    }
}

fn main() {}
