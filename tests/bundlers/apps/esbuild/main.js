// esbuild emits no file for `new URL(..., import.meta.url)` (and its default format empties
// import.meta): import the wasm files as files and hand their URLs over.
// Build: esbuild main.js --bundle --loader:.wasm=file --outdir=dist
import init, * as citeflow from "citeflow";
import wasmUrl from "citeflow/citeflow_bg.wasm";
import streamWasmUrl from "citeflow/citeflow_stream_bg.wasm";
import fullWasmUrl from "citeflow/citeflow_stream_full_bg.wasm";
import cslWasmUrl from "citeflow/citeflow_csl_bg.wasm";
import { mount } from "./scenario.js";

citeflow.setCslWasmUrl(cslWasmUrl);
mount(citeflow, init(wasmUrl, streamWasmUrl, fullWasmUrl));
