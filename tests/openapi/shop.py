#!/usr/bin/env python3
"""A small shop API written with FastAPI: the real HTTP API behind the
`openapi` example's interop test. It has path, query, header and body
parameters, enums, nested models, an API key, error statuses, an image,
and a `/state` route the test reads to check what each call changed.

    shop.py --port PORT [--key KEY]

Its OpenAPI document is FastAPI's own, at /openapi.json (OpenAPI 3.1).
"""

from __future__ import annotations

import argparse
import base64
from enum import Enum
from typing import Annotated

import uvicorn
from fastapi import Body, Cookie, Depends, FastAPI, Header, HTTPException, Path, Query, Response
from fastapi.security import APIKeyHeader
from pydantic import BaseModel, Field

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


class Category(str, Enum):
    tools = "tools"
    toys = "toys"
    books = "books"


class Dimensions(BaseModel):
    width_cm: float = Field(gt=0, description="Width in centimetres")
    height_cm: float = Field(gt=0, description="Height in centimetres")


class NewItem(BaseModel):
    name: str = Field(min_length=1, description="What the item is called")
    category: Category
    price_cents: int = Field(ge=0, description="The price, in cents")
    dimensions: Dimensions | None = None
    tags: list[str] = []


class Item(NewItem):
    id: int


class Order(BaseModel):
    item_id: int
    quantity: int = Field(ge=1, le=10)
    note: str | None = None


app = FastAPI(title="Shop", version="1.0.0")
api_key = APIKeyHeader(name="X-Shop-Key")
state: dict = {"items": {}, "next": 1, "orders": [], "last_request_id": None, "last_session": None}
KEY = "shop-secret"


def check_key(key: Annotated[str, Depends(api_key)]) -> None:
    if key != KEY:
        raise HTTPException(status_code=403, detail="wrong API key")


def add(item: NewItem) -> Item:
    made = Item(id=state["next"], **item.model_dump())
    state["items"][made.id] = made
    state["next"] += 1
    return made


@app.get("/items", summary="List the items", tags=["items"], operation_id="list_items")
def list_items(
    category: Annotated[Category | None, Query(description="Only this category")] = None,
    limit: Annotated[int, Query(ge=1, le=100, description="At most this many")] = 20,
) -> list[Item]:
    items = [i for i in state["items"].values() if category is None or i.category == category]
    return items[:limit]


@app.post(
    "/items",
    summary="Add an item",
    description="Needs the shop's API key.",
    tags=["items"],
    operation_id="create_item",
    status_code=201,
    dependencies=[Depends(check_key)],
)
def create_item(item: NewItem) -> Item:
    return add(item)


@app.get("/items/{item_id}", summary="One item", tags=["items"], operation_id="get_item")
def get_item(
    item_id: Annotated[int, Path(ge=1, description="The item's id")],
    x_request_id: Annotated[str | None, Header(description="A request id to trace")] = None,
    session: Annotated[str | None, Cookie(description="The shopper's session")] = None,
) -> Item:
    state["last_request_id"] = x_request_id
    state["last_session"] = session
    item = state["items"].get(item_id)
    if item is None:
        raise HTTPException(status_code=404, detail=f"no item {item_id}")
    return item


@app.put(
    "/items/{item_id}/price",
    summary="Change an item's price",
    tags=["items"],
    operation_id="set_price",
    dependencies=[Depends(check_key)],
)
def set_price(
    item_id: Annotated[int, Path(ge=1)],
    price_cents: Annotated[int, Body(embed=True, ge=0)],
) -> Item:
    item = state["items"].get(item_id)
    if item is None:
        raise HTTPException(status_code=404, detail=f"no item {item_id}")
    item.price_cents = price_cents
    return item


@app.delete(
    "/items/{item_id}",
    summary="Remove an item",
    tags=["admin"],
    operation_id="delete_item",
    status_code=204,
    dependencies=[Depends(check_key)],
)
def delete_item(item_id: Annotated[int, Path(ge=1)]) -> Response:
    if state["items"].pop(item_id, None) is None:
        raise HTTPException(status_code=404, detail=f"no item {item_id}")
    return Response(status_code=204)


@app.post("/orders", summary="Order an item", tags=["orders"], operation_id="place_order", status_code=201)
def place_order(order: Order) -> dict:
    if order.item_id not in state["items"]:
        raise HTTPException(status_code=409, detail=f"item {order.item_id} is not sold here")
    state["orders"].append(order.model_dump())
    return {"order": len(state["orders"]), "total_cents": state["items"][order.item_id].price_cents * order.quantity}


@app.get(
    "/logo",
    summary="The shop's logo",
    tags=["shop"],
    operation_id="logo",
    responses={200: {"content": {"image/png": {}}}},
    response_class=Response,
)
def logo() -> Response:
    return Response(content=PNG, media_type="image/png")


@app.get("/state", include_in_schema=False)
def read_state() -> dict:
    return {
        "items": {k: v.model_dump() for k, v in state["items"].items()},
        "orders": state["orders"],
        "last_request_id": state["last_request_id"],
        "last_session": state["last_session"],
    }


def main() -> None:
    global KEY
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--key", default=KEY)
    a = p.parse_args()
    KEY = a.key
    add(NewItem(name="Hammer", category=Category.tools, price_cents=1500, tags=["steel"]))
    add(NewItem(name="Kite", category=Category.toys, price_cents=900, dimensions=Dimensions(width_cm=80, height_cm=100)))
    uvicorn.run(app, host="127.0.0.1", port=a.port, log_level="warning")


if __name__ == "__main__":
    main()
