import * as lib from "citeflow";
import { check, scenario } from "./scenario.mjs";

check(await scenario(lib), `node ${process.version}`);
