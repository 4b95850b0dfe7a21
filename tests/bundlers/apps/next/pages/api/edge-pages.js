// A Pages Router API route in the Edge runtime, with no configuration.
import { scenarioResponse } from "../../edge.js";

export const config = { runtime: "edge" };

export default scenarioResponse;
