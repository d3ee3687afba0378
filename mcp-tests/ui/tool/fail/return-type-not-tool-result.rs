use oxmcp_server::tool;

pub struct Point {
    pub x: f64,
    pub y: f64,
}

pub struct Geometry;

#[tool(description = "Plane geometry")]
impl Geometry {
    #[describe("The origin")]
    pub fn origin(&self) -> Point {
        Point { x: 0.0, y: 0.0 }
    }
}

fn main() {}
