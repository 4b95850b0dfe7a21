// An App Router route handler in the Edge runtime, with no configuration.
import { scenarioResponse } from "../../../edge.js";

export const runtime = "edge";
export const dynamic = "force-dynamic";

export const GET = scenarioResponse;
