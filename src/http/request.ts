// The request type routes receive from itty-router: a Request with the path's parameters.
import type { IRequestStrict } from "itty-router";

export type RouteRequest = IRequestStrict;
