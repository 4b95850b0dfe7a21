"use client";
// The browser side: init() once, the core at once, the references (and so the CSL wasm) only
// when asked for.
import { useEffect, useState } from "react";
import init, * as citeflow from "citeflow";
import { coreResults, referenceText } from "../scenario.js";

export default function Client() {
  const [shown, setShown] = useState({ core: "", citation: "", references: "", error: "", ready: false });
  const show = (more) => setShown((s) => ({ ...s, ...more }));
  const fail = (e) => show({ error: `${e?.code ?? ""} ${e?.message ?? e}` });
  useEffect(() => {
    init().then(() => show({ ...coreResults(citeflow), ready: true }), fail);
  }, []);
  const render = () => referenceText(citeflow).then((references) => show({ references }), fail);
  return (
    <section>
      <p id="core">{shown.core}</p>
      <p id="citation">{shown.citation}</p>
      <button id="render" disabled={!shown.ready} onClick={render}>References</button>
      <pre id="references">{shown.references}</pre>
      <p id="error">{shown.error}</p>
    </section>
  );
}
